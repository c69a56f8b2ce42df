"""ASC/ASCQ text (SPC-4 annex D, the T10 'asc-num' list).

``asc_text(asc, ascq)`` never fails: unknown codes and the vendor-specific ranges
(ASC >= 0x80, or ASCQ >= 0x80 under a standard ASC) render as such, because a
technician must still be shown the numbers.
"""
from __future__ import annotations

from native.scsi.asc_table import ASC_ASCQ

# ASCs whose ASCQ is a parameter rather than an assignment: text with '%02X'.
_RANGES = {
    0x40: "Diagnostic failure on component %02Xh",
    0x4D: "Tagged overlapped commands (task tag %02Xh)",
    0x70: "Decompression exception short algorithm id of %02Xh",
}


def asc_text(asc: int, ascq: int) -> str:
    text = ASC_ASCQ.get((asc, ascq))
    if text is not None:
        return text
    if asc >= 0x80:
        return f"Vendor specific ASC 0x{asc:02X}, ASCQ 0x{ascq:02X}"
    if asc in _RANGES and not (asc == 0x40 and ascq < 0x80):
        return _RANGES[asc] % ascq
    if ascq >= 0x80:
        return f"ASC 0x{asc:02X}, vendor specific ASCQ 0x{ascq:02X}"
    return f"Unknown ASC/ASCQ 0x{asc:02X}/0x{ascq:02X}"


def is_known(asc: int, ascq: int) -> bool:
    return (asc, ascq) in ASC_ASCQ
