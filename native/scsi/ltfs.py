"""LTFS volumes: the labels, the index header and the cartridge-memory attributes an LTFS writer leaves.

Why tapediag reads them: a cartridge written by LTFS (IBM Spectrum Archive, HPE StoreOpen, any
``mkltfs``) holds a customer's files even when the backup software knows nothing of it, and its
first block is an 80-byte label that looks like nothing in particular. Naming it ("LTFS volume
'ARCHIVE01' (UUID ...), written by ...") is what makes a technician stop before overwriting it.

What is read, each with its source. The LTFS Format Specification (SNIA, version 2.4; ISO/IEC
20919:2021 is version 2.5 with the same constructs) is cited by section name, the layout details
also by the file of the reference implementation (github.com/LinearTapeFileSystem/ltfs, read,
never copied) that writes them:

* "Volume Layout" / "Partition Layout": an LTFS volume is two partitions (index partition and data
  partition), each starting with a *label construct*: the VOL1 label, a filemark, the LTFS label,
  a filemark. The index partition then holds an *index construct* (the index, then a filemark).
* "VOL1 Label": 80 ASCII bytes, ANSI X3.27 version 4: "VOL1", the volume identifier (the first
  six characters of the barcode), accessibility "L", the implementation identifier "LTFS"
  (bytes 24-36), the owner identifier (37-50), label-standard version "4" in byte 79
  (``src/libltfs/label.c``, ``label_make_ansi_label``).
* "LTFS Label": an XML document, root ``ltfslabel`` with attribute ``version`` and elements
  ``creator``, ``formattime``, ``volumeuuid``, ``location/partition``, ``partitions/index``,
  ``partitions/data``, ``blocksize``, ``compression`` (``src/libltfs/xml_writer_libltfs.c``).
* "Index": root ``ltfsindex``; ``volumeuuid``, ``generationnumber``, ``updatetime``, and the root
  ``directory`` whose ``name`` is the volume name.
* "Medium Auxiliary Memory": LTFS sets Application Vendor (0800h, 8 bytes), Application Name
  (0801h, 32), Application Version (0802h, 8), User Medium Text Label (0803h, 160: the volume
  name), Text Localization Identifier (0805h), Barcode (0806h, 32), Application Format Version
  (080Bh, 16) and, for each partition, Volume Coherency Information (080Ch, 70 bytes): VCR size
  (1 byte, 8), the volume change reference (8), the volume coherency count (8: the generation of
  the last index written), the volume coherency set identifier (8: that index's block), the
  application-client-specific length (2, 43), then "LTFS\\0", the volume UUID (36 characters and a
  NUL) and a version byte (``src/libltfs/tape.c``, ``tape_get_cart_coherency``;
  sizes in ``src/libltfs/tape_ops.h``).

Everything here parses bytes a customer's tape holds, so nothing is trusted: the XML parsers
refuse a document type declaration (no entity can expand), and a damaged label is a
``ParseError``, never a crash.

The parsers of the labels and the index header on tape are ``native.scsi.ltfs_labels`` (with ``with_labels``,
a volume completed by them): ``info`` reads the cartridge memory only (``from_mam``), and each label is a
dataclass built at import (issue 32 §3).
"""
from __future__ import annotations

from dataclasses import asdict, dataclass
from typing import Any

from native.errors import ParseError
from native.scsi._bytes import need, uint
from native.scsi.mam import Mam

VOL1_BYTES = 80
#: The implementation identifier an LTFS VOL1 label carries (bytes 24-36, left-justified).
LTFS_IMPLEMENTATION = "LTFS"
#: The MAM attributes LTFS sets ("Medium Auxiliary Memory" of the format specification).
APP_VENDOR, APP_NAME, APP_VERSION, USER_MEDIUM_LABEL = 0x0800, 0x0801, 0x0802, 0x0803
BARCODE, APP_FORMAT_VERSION, VOLUME_COHERENCY = 0x0806, 0x080B, 0x080C
COHERENCY_BYTES = 0x46  # the attribute's length: 70 bytes
COHERENCY_SIGNATURE = b"LTFS\x00"
#: The largest XML document tapediag parses from a tape (a label is well under 1 KiB; an index's
#: first block is at most the volume's block size, 512 KiB by default, 1 MiB is LTFS's largest).
MAX_XML = 1 << 20


@dataclass(frozen=True)
class CoherencyInfo:
    """MAM attribute 080Ch of one partition, Volume Coherency Information (the value, without the
    attribute's 5-byte header): which index generation was last written, and where."""

    volume_change_reference: int
    generation: int
    index_block: int
    volume_uuid: str
    version: int

    @classmethod
    def parse(cls, value: bytes) -> "CoherencyInfo | None":
        """The coherency information, or None when the attribute is another application's (no "LTFS")."""
        value = bytes(value)
        need(value, 27, "volume coherency information")
        vcr_size = value[0]
        base = 1 + vcr_size
        need(value, base + 18, "volume coherency information")
        client_len = uint(value, base + 16, 2)
        client = value[base + 18 : base + 18 + client_len]
        if not client.startswith(COHERENCY_SIGNATURE):
            return None
        need(client, 42, "LTFS volume coherency information")
        uuid = client[5:42].split(b"\x00", 1)[0].decode("ascii", "replace")
        return cls(volume_change_reference=uint(value, 1, vcr_size) if vcr_size else 0,
                   generation=uint(value, base, 8), index_block=uint(value, base + 8, 8), volume_uuid=uuid,
                   version=client[42] if len(client) > 42 else 0)


@dataclass(frozen=True)
class LtfsVolume:
    """One LTFS volume as tapediag found it, merged from what could be read: the cartridge memory
    (no tape motion: ``info``) and the labels on tape (the scan, the pre-write probe).
    ``evidence`` names each source, so a report says what the recognition rests on."""

    volume_uuid: str = ""
    name: str = ""
    barcode: str = ""
    written_by: str = ""
    format_version: str = ""
    partitions: int | None = None
    index_partition: str = ""
    data_partition: str = ""
    blocksize: int | None = None
    compression: bool | None = None
    format_time: str = ""
    generation: int | None = None
    evidence: tuple[str, ...] = ()

    def describe(self) -> str:
        """"LTFS volume 'ARCHIVE01' (UUID ...), written by IBM LTFS 2.4.5.1": the words every front end shows."""
        name = f"'{self.name}'" if self.name else "without a name"
        uuid = f" (UUID {self.volume_uuid})" if self.volume_uuid else ""
        by = f", written by {self.written_by}" if self.written_by else ""
        return f"LTFS volume {name}{uuid}{by}"

    def to_dict(self) -> dict[str, Any]:
        out = asdict(self)
        out["evidence"] = list(self.evidence)
        out["description"] = self.describe()
        return out


def _mam_text(mam: Mam, attr: int) -> str:
    value = mam.value(attr)
    return value.strip() if isinstance(value, str) else ""


def from_mam(mam: Mam, *, partitions: int | None = None) -> LtfsVolume | None:
    """An LTFS volume as the cartridge memory names it, or None when nothing there says LTFS.

    LTFS is recognised by the Volume Coherency Information's "LTFS" signature (080Ch), which an LTFS
    writer keeps for each partition of its volume; the Application Name (0801h) alone says only which
    application last wrote the cartridge's memory. The other attributes fill in the name, the writer
    and the format version."""
    raw = mam.get(VOLUME_COHERENCY)
    coherency = None
    if raw is not None and isinstance(raw.raw, bytes):
        try:
            coherency = CoherencyInfo.parse(raw.raw)
        except ParseError:
            coherency = None
    if coherency is None:
        return None
    app = _mam_text(mam, APP_NAME)
    writer = " ".join(t for t in (_mam_text(mam, APP_VENDOR), app, _mam_text(mam, APP_VERSION)) if t)
    return LtfsVolume(volume_uuid=coherency.volume_uuid, name=_mam_text(mam, USER_MEDIUM_LABEL),
                      barcode=_mam_text(mam, BARCODE), written_by=writer,
                      format_version=_mam_text(mam, APP_FORMAT_VERSION), partitions=partitions,
                      generation=coherency.generation,
                      evidence=("cartridge memory: Volume Coherency Information 080Ch",))


__all__ = ["CoherencyInfo", "LtfsVolume", "from_mam", "VOL1_BYTES"]
