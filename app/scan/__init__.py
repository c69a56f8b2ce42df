"""Media scan: a read-only look at a customer's cartridge, BOT to EOD (issue 16).

``MediaScan(drive, ScanParams(...)).run(sink, cancel)`` returns a ``ScanResult``: the
layout the backup application wrote (files, blocks, sizes), the read rate per zone,
where the drive paused while the host kept up (repositioning on reads), the error
counters' deltas and TapeAlert after the scan, and a cartridge verdict.

The names are imported on first use (PEP 562): ``info`` reads one threshold of ``app.scan.results``
for a drive's earlier visits, and importing it used to load the scan engine and the tape
performance engine through this package (issue 32 §3).
"""
from __future__ import annotations

from importlib import import_module
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from app.scan.engine import MediaScan
    from app.scan.params import ScanParams
    from app.scan.results import CartridgeVerdict, FileLayout, ScanResult, Zone

#: each public name and the module that defines it
_HOMES = {
    "MediaScan": "app.scan.engine",
    "ScanParams": "app.scan.params",
    "ScanResult": "app.scan.results",
    "FileLayout": "app.scan.results",
    "Zone": "app.scan.results",
    "CartridgeVerdict": "app.scan.results",
}

__all__ = [
    "MediaScan", "ScanParams", "ScanResult", "FileLayout", "Zone", "CartridgeVerdict",
]


def __getattr__(name: str) -> Any:
    home = _HOMES.get(name)
    if home is None:
        raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
    return getattr(import_module(home), name)
