"""Is the loaded cartridge an LTFS volume? Asked by ``info``, the media scan and the pre-write probe.

Two ways, with different costs (the layouts and their sources: ``native.scsi.ltfs``):

* ``from_cartridge_memory``: READ ATTRIBUTE (LTFS's attributes and its Volume Coherency Information)
  and MODE SENSE page 11h (how many partitions). Queries only, the tape does not move: ``info`` uses
  this alone, since it may run beside a backup application that owns the tape's position.
* ``read_labels``: rewinds to the start of partition 0 and READs the label construct (VOL1 label,
  filemark, LTFS label, filemark) and the first block of the index after it. The tape moves but
  nothing is written (REWIND and READ are not in ``app.drive.STATE_CHANGING_OPCODES``); only the
  scan and the pre-write probe, which rewind anyway, use it, and they put the tape back.
"""
from __future__ import annotations

from dataclasses import replace

from native.errors import DeviceError, ParseError

from app.drive import TapeDrive
from native.scsi.ltfs import VOL1_BYTES, LtfsVolume, from_mam
from native.scsi.ltfs_labels import IndexHeader, LtfsLabel, Vol1Label, with_labels
from native.scsi.mode import PAGE_MEDIUM_PARTITION, MediumPartitionPage

#: The READ buffer for the labels and the index's first block: LTFS's largest block size is 1 MiB
#: (its default 512 KiB); a longer block is cut (ILI) and the XML parser reads what came.
LABEL_READ = 1 << 20


def partition_count(drive: TapeDrive) -> int | None:
    """Partitions on the loaded cartridge (mode page 11h), None when the drive does not report the page
    (tgt, older drives: one partition, as far as anyone can tell)."""
    try:
        page = drive.mode_sense(PAGE_MEDIUM_PARTITION).page(PAGE_MEDIUM_PARTITION)
        return MediumPartitionPage.from_page(page).partitions if page is not None else None
    except (DeviceError, ParseError):
        return None


def from_cartridge_memory(drive: TapeDrive) -> LtfsVolume | None:
    """The LTFS volume the cartridge memory names, without moving the tape; None when it names none
    (or the drive has no cartridge memory to read)."""
    try:
        mam = drive.read_attributes()
    except (DeviceError, ParseError):
        return None
    volume = from_mam(mam)
    if volume is None:
        return None
    return replace(volume, partitions=partition_count(drive))


def read_labels(drive: TapeDrive, known: LtfsVolume | None = None) -> LtfsVolume | None:
    """Rewind and read partition 0's label construct and the index's first block (READs only).

    None when the first block is not an LTFS VOL1 label. The index construct starts with a filemark
    of its own ("Index Construct"; ``mkltfs`` writes VOL1, FM, label, FM, FM, index, FM), so up to
    two filemarks are passed before the index. Leaves the tape in partition 0, past what was read:
    the caller puts it back where it wants it."""
    drive.rewind()
    buf = bytearray(LABEL_READ)
    first = drive.read(buf)
    vol1 = Vol1Label.parse(bytes(buf[:first.nbytes])) if first.nbytes == VOL1_BYTES else None
    if vol1 is None or not vol1.is_ltfs:
        return None
    base = known or LtfsVolume(barcode=vol1.volume_id)
    vol1_only = replace(base, barcode=base.barcode or vol1.volume_id,
                        evidence=base.evidence + ("VOL1 label 'LTFS' on partition 0 (no readable LTFS label after it)",))
    if not drive.read(buf).filemark:
        return vol1_only
    got = drive.read(buf)
    try:
        label = LtfsLabel.parse(bytes(buf[:got.nbytes]))
    except ParseError:
        return vol1_only
    return with_labels(base, vol1, label, _index_header(drive, buf))


def _index_header(drive: TapeDrive, buf: bytearray) -> IndexHeader | None:
    """The first block of the index after the label construct, past its filemarks; None if none is there."""
    for _ in range(3):
        got = drive.read(buf)
        if got.filemark:
            continue
        if got.eod or not got.nbytes:
            return None
        try:
            return IndexHeader.parse(bytes(buf[:got.nbytes]))
        except ParseError:
            return None
    return None


def recognise(drive: TapeDrive, *, labels: bool) -> LtfsVolume | None:
    """The cartridge's LTFS volume: from its memory alone, or (``labels``: the tape moves) as its labels
    on tape show it. With ``labels`` the tape decides: a cartridge memory that still names a volume whose
    labels are gone (an erased cartridge) is not an LTFS volume any more."""
    volume = from_cartridge_memory(drive)
    if not labels:
        return volume
    on_tape = read_labels(drive, volume)
    if on_tape is not None and on_tape.partitions is None:
        on_tape = replace(on_tape, partitions=partition_count(drive))
    return on_tape


__all__ = ["VOL1_BYTES", "partition_count", "from_cartridge_memory", "read_labels", "recognise"]
