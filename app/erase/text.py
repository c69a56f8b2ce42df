"""An erase in words: the lines ``tapediag erase`` prints (and ``show`` prints again) and the report's rows."""
from __future__ import annotations

from app.erase.result import EraseResult
from app.runs.kind import Rows
from native.units import duration_text, percent

_STATUS = {"complete": "done", "cancelled": "cancelled", "failed": "failed"}


def cartridge_words(r: EraseResult) -> str:
    """The cartridge as the erase found it: its barcode, then what it held (the LTFS volume named)."""
    state = r.cartridge
    if state is None:
        return "not examined"
    barcode = f"barcode {state.barcode}" if state.barcode else "no barcode in its memory"
    return f"{barcode}; {state.words()}"


def headline(r: EraseResult) -> str:
    """'short erase: done, end of data at BOT', 'long erase: cancelled at 12% ...'."""
    status = _STATUS.get(r.status, r.status)
    if r.status == "cancelled" and r.progress is not None:
        status += f" at {percent(r.progress)}"
    barcode = f" of {r.cartridge.barcode}" if r.cartridge is not None and r.cartridge.barcode else ""
    return f"{r.kind} erase{barcode}: {status}"


def rows(r: EraseResult) -> Rows:
    """The report's rows: the cartridge, what was sent, how long, and the tape as it was left."""
    out: Rows = [("Erase", f"{r.kind}: {_STATUS.get(r.status, r.status)}"), ("Cartridge before", cartridge_words(r))]
    if r.partitions > 1:
        out.append(("Partitions", str(r.partitions)))
    if r.method:
        out.append(("Sent", "; ".join(r.method)))
    if r.estimate_seconds is not None or r.estimate_basis:
        out.append(("Estimate", f"{duration_text(r.estimate_seconds)} ({r.estimate_basis})"
                    if r.estimate_seconds is not None else r.estimate_basis))
    if r.method:
        out.append(("Took", duration_text(r.seconds)))
    if r.progress is not None and r.status != "complete":
        out.append(("Progress reported last", percent(r.progress)))
    out.append(("The tape now", r.state_after or "not known"))
    out += [("Note", note) for note in r.notes]
    if r.error:
        out.append(("Error", r.error))
    return out


def text(r: EraseResult) -> str:
    """What ``tapediag erase`` prints: the headline on the device, then the rows."""
    lines = [f"{r.kind.capitalize()} erase on {r.device}: {_STATUS.get(r.status, r.status)}"]
    lines += [f"  {label}: {value}" for label, value in rows(r)[1:]]
    return "\n".join(lines)


__all__ = ["cartridge_words", "headline", "rows", "text"]
