"""An LTFS cartridge for the tests: the records and attributes ``mkltfs`` wrote, written through a drive.

Why this way: the LTFS reference implementation's ``mkltfs`` builds here (``tests/data/ltfs-mkltfs/README.md``)
but cannot format a drive here: its ``sg`` backend needs a kernel SCSI generic node (this machine has no
iSCSI initiator in its kernel: tgt's LUN is reached through libiscsi, and the virtual drive is in-process),
and tgt's tape LUN has no partitions at all (tgt 1.0.85's SSC answers MODE SENSE page 11h, FORMAT MEDIUM,
LOCATE and READ/WRITE ATTRIBUTE with ILLEGAL REQUEST). So ``mkltfs`` formatted its ``file`` backend, and
this helper replays what it wrote, record for record, as a host would: MODE SELECT page 11h (two
partitions, IDP), FORMAT MEDIUM, LOCATE into each partition, WRITE and WRITE FILEMARKS, WRITE ATTRIBUTE.
The virtual drive's encoding of partitions and attributes is its own (``native/virtual/partitions.py``);
the parser under test (``native/scsi/ltfs.py``) never sees this helper.
"""
from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from app.drive import TapeDrive
from native.scsi import cdb as C
from native.scsi.mam import AttrFormat, Attribute
from native.scsi.mode import PAGE_MEDIUM_PARTITION, ModePage

MKLTFS = Path(__file__).resolve().parent.parent / "data" / "ltfs-mkltfs"
#: What the volume is, as mkltfs printed it (``mkltfs -n ARCHIVE01 -s TD0001``).
VOLUME_NAME = "ARCHIVE01"
VOLUME_UUID = "a42bd208-1e05-4e18-83a5-174be80285ec"
WRITTEN_BY = "IBM LTFS 2.4.8.4 (Prelim) - Linux - mkltfs"


def records(partition: int) -> list[bytes | None]:
    """Partition ``partition``'s records in order: a block's bytes, or None for a filemark."""
    found = sorted((int(p.name.split("_")[1]), p) for p in MKLTFS.glob(f"{partition}_*_*"))
    return [None if p.name.endswith("_F") else p.read_bytes() for _, p in found]


def attributes(partition: int) -> tuple[Attribute, ...]:
    """The host attributes mkltfs wrote to ``partition`` (the drive's own, such as 0009h, left out)."""
    out = []
    for path in sorted(MKLTFS.glob(f"attr_{partition}_*")):
        raw = path.read_bytes()
        ident = int.from_bytes(raw[:2], "big")
        if ident >= 0x0800:
            out.append(Attribute(ident, False, AttrFormat(raw[2] & 0x03), raw[5:5 + int.from_bytes(raw[3:5], "big")]))
    return tuple(out)


def partition(drive: TapeDrive, *, first_mb: int) -> None:
    """Two partitions, the first ``first_mb`` x 10^6 bytes (MODE SELECT page 11h, then FORMAT MEDIUM at BOT)."""
    current = drive.mode_sense(PAGE_MEDIUM_PARTITION)
    page = ModePage(PAGE_MEDIUM_PARTITION, 0, False, False,
                    bytes([0, 1, 0x20 | 0x18 | 0x04, 0x03, 6, 0]) + first_mb.to_bytes(2, "big") + b"\xff\xff")
    descriptors = tuple(replace(d, blocks=0) for d in current.block_descriptors)
    drive.mode_select(replace(current, block_descriptors=descriptors, pages=(page,)))
    drive.rewind()
    drive._command(C.format_medium(), timeout=600)


def write_mkltfs_volume(drive: TapeDrive, *, first_mb: int = 64) -> None:
    """Make the loaded cartridge the LTFS volume mkltfs made: both partitions and the cartridge memory."""
    partition(drive, first_mb=first_mb)
    for number in (1, 0):  # mkltfs writes the data partition first, then the index partition
        drive.locate(0, partition=number)
        for record in records(number):
            if record is None:
                drive.write_filemarks(1)
            else:
                drive.write(record)
        drive.write_attributes(attributes(number), partition=number)
    drive.rewind()
