"""Earlier scans of the same cartridge, from the history: what turns "seen once" into MONITOR.

A slow stretch seen in one scan may be chance or a dirty head; seen again in another scan of
the same cartridge (by its barcode, else its cartridge-memory serial), it is the tape, the
more so in another drive. Only scans recorded with their signals count (``cartridge_signals``):
a verdict from an older version may have been the host's noise.
"""
from __future__ import annotations

from app.scan.rules import EarlierScan


def earlier_scans(barcode: str | None, serial: str | None = None) -> list[EarlierScan]:
    """Complete scans in the history of the cartridge with this barcode (or MAM serial), newest first."""
    if not barcode and not serial:
        return []
    from app.history import History
    from app.scan.engine import RUN_KIND

    with History.open() as history:
        runs = history.list_runs(kind=RUN_KIND)
    out = []
    for run in runs:
        res = run.results or {}
        cart = res.get("cartridge") or {}
        same = (barcode and cart.get("barcode") == barcode) or (not barcode and serial and cart.get("serial") == serial)
        if run.status == "complete" and same and isinstance(res.get("cartridge_signals"), list):
            out.append(EarlierScan(run.id, run.started_at, str(res.get("serial") or ""),
                                   tuple(str(s) for s in res["cartridge_signals"])))
    return out
