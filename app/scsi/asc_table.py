"""The ASC/ASCQ assignments of SPC-4 (T10 asc-num list), as (asc, ascq) -> text."""
from __future__ import annotations

ASC_ASCQ: dict[tuple[int, int], str] = {
    (0x00, 0x00): "No additional sense information",
    (0x00, 0x01): "Filemark detected",
    (0x00, 0x02): "End-of-partition/medium detected",
    (0x00, 0x03): "Setmark detected",
    (0x00, 0x04): "Beginning-of-partition/medium detected",
    (0x00, 0x05): "End-of-data detected",
    (0x04, 0x00): "Logical unit not ready, cause not reportable",
    (0x04, 0x01): "Logical unit is in process of becoming ready",
    (0x04, 0x02): "Logical unit not ready, initializing command required",
    (0x0C, 0x00): "Write error",
    (0x11, 0x00): "Unrecovered read error",
    (0x20, 0x00): "Invalid command operation code",
    (0x24, 0x00): "Invalid field in cdb",
    (0x26, 0x00): "Invalid field in parameter list",
    (0x28, 0x00): "Not ready to ready change, medium may have changed",
    (0x29, 0x00): "Power on, reset, or bus device reset occurred",
    (0x3A, 0x00): "Medium not present",
    (0x44, 0x00): "Internal target failure",
    (0x52, 0x00): "Cartridge fault",
}
