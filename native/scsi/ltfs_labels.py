"""LTFS's labels and index header on tape: the VOL1 label, the LTFS label (XML) and the start of the index.

The format, its sources and the cartridge-memory attributes are ``native.scsi.ltfs``'s; these are the parsers
of what the scan and the pre-write probe read from the tape (``app.ltfs.read_labels``), apart from it because
``info`` reads the cartridge memory only and each label is a dataclass built at import (issue 32 §3).

Everything here parses bytes a customer's tape holds, so nothing is trusted: the XML parsers refuse a
document type declaration (no entity can expand), and a damaged label is a ``ParseError``, never a crash.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, cast

from native.errors import ParseError
from native.scsi.ltfs import LTFS_IMPLEMENTATION, MAX_XML, VOL1_BYTES, LtfsVolume

if TYPE_CHECKING:  # the XML parser loads with a label or an index to read
    import xml.etree.ElementTree as ET


@dataclass(frozen=True)
class Vol1Label:
    """The 80-byte ANSI volume label at block 0 of each LTFS partition ("VOL1 Label")."""

    volume_id: str
    accessibility: str
    implementation: str
    owner: str
    version: str

    @property
    def is_ltfs(self) -> bool:
        return self.implementation == LTFS_IMPLEMENTATION

    @classmethod
    def parse(cls, block: bytes) -> "Vol1Label | None":
        """The label, or None when the block is not a VOL1 label (any other first block)."""
        block = bytes(block)
        if len(block) != VOL1_BYTES or not block.startswith(b"VOL1"):
            return None
        text = block.decode("ascii", "replace")
        return cls(volume_id=text[4:10].strip(), accessibility=text[10], implementation=text[24:37].strip(),
                   owner=text[37:51].strip(), version=text[79])


def _xml_root(data: bytes, what: str) -> ET.Element:
    """Parse a complete XML document from a tape, refusing a DTD (no entity expansion of untrusted data)."""
    body = bytes(data).rstrip(b"\x00")
    if len(body) > MAX_XML:
        raise ParseError(f"{what}: {len(body)} bytes, more than an LTFS {what} holds")
    if b"<!DOCTYPE" in body or b"<!ENTITY" in body:
        raise ParseError(f"{what}: a document type declaration, which LTFS never writes")
    import xml.etree.ElementTree as ET

    try:
        return ET.fromstring(body)
    except ET.ParseError as err:
        raise ParseError(f"{what}: not well-formed XML ({err})") from None


def _text(root: ET.Element, path: str) -> str:
    found = root.find(path)
    return (found.text or "").strip() if found is not None else ""


@dataclass(frozen=True)
class LtfsLabel:
    """The LTFS label (XML) after the VOL1 label and its filemark ("LTFS Label")."""

    version: str
    creator: str
    format_time: str
    volume_uuid: str
    partition: str  # the partition this label is on: "a" or "b"
    index_partition: str
    data_partition: str
    blocksize: int | None
    compression: bool | None

    @classmethod
    def parse(cls, data: bytes) -> "LtfsLabel":
        root = _xml_root(data, "LTFS label")
        if root.tag != "ltfslabel":
            raise ParseError(f"LTFS label: the root element is <{root.tag}>, not <ltfslabel>")
        size = _text(root, "blocksize")
        compression = _text(root, "compression").lower()
        return cls(version=root.get("version", ""), creator=_text(root, "creator"),
                   format_time=_text(root, "formattime"), volume_uuid=_text(root, "volumeuuid"),
                   partition=_text(root, "location/partition"), index_partition=_text(root, "partitions/index"),
                   data_partition=_text(root, "partitions/data"), blocksize=int(size) if size.isdigit() else None,
                   compression={"true": True, "1": True, "false": False, "0": False}.get(compression))


@dataclass(frozen=True)
class IndexHeader:
    """What the start of an LTFS index says: the volume's UUID, the index generation, when it was
    written, and the volume name (the root directory's name, "Index" of the format specification).
    Parsed from the first block of the index only: an index of a full volume runs to many blocks,
    and everything here comes before the first file."""

    volume_uuid: str
    generation: int | None
    update_time: str
    volume_name: str
    creator: str

    @classmethod
    def parse(cls, data: bytes) -> "IndexHeader":
        body = bytes(data).rstrip(b"\x00")[:MAX_XML]
        if b"<!DOCTYPE" in body or b"<!ENTITY" in body:
            raise ParseError("LTFS index: a document type declaration, which LTFS never writes")
        fields = _index_fields(body)
        generation = fields.get("generationnumber", "")
        return cls(volume_uuid=fields.get("volumeuuid", ""), generation=int(generation) if generation.isdigit() else None,
                   update_time=fields.get("updatetime", ""), volume_name=fields.get("name", ""),
                   creator=fields.get("creator", ""))


_INDEX_FIELDS = ("volumeuuid", "generationnumber", "updatetime", "creator")


def _index_fields(body: bytes) -> dict[str, str]:
    """The index's top-level fields and the root directory's name, from a document that may be cut short
    (the first block of a long index): an incremental parser stops at the root directory's name."""
    import xml.etree.ElementTree as ET

    fields: dict[str, str] = {}
    depth, in_root_dir = 0, False
    parser: ET.XMLPullParser = ET.XMLPullParser(events=("start", "end"))
    try:
        parser.feed(body)
        for item in parser.read_events():
            event, element = cast("tuple[str, Any]", item)
            if not isinstance(element, ET.Element):
                continue
            depth += 1 if event == "start" else -1
            if event == "start" and depth == 1 and element.tag != "ltfsindex":
                raise ParseError(f"LTFS index: the root element is <{element.tag}>, not <ltfsindex>")
            if event == "start" and element.tag == "directory" and depth == 2:
                in_root_dir = True
            elif event == "end" and depth == 1 and element.tag in _INDEX_FIELDS:
                fields[element.tag] = (element.text or "").strip()
            elif event == "end" and in_root_dir and depth == 2 and element.tag == "name":
                fields["name"] = (element.text or "").strip()
                break
    except ET.ParseError as err:
        if not fields:
            raise ParseError(f"LTFS index: not well-formed XML ({err})") from None
    return fields


def with_labels(volume: LtfsVolume, vol1: Vol1Label, label: LtfsLabel, index: IndexHeader | None) -> LtfsVolume:
    """``volume`` (what the cartridge memory said, or only a barcode) completed by the labels read on tape (the
    label's creator says who formatted it). Here, beside the labels, so ``native.scsi.ltfs`` needs none of them."""
    return replace(
        volume,
        volume_uuid=label.volume_uuid or volume.volume_uuid,
        name=(index.volume_name if index is not None and index.volume_name else volume.name),
        barcode=volume.barcode or vol1.volume_id,
        written_by=label.creator or volume.written_by,
        format_version=label.version or volume.format_version,
        index_partition=label.index_partition, data_partition=label.data_partition,
        blocksize=label.blocksize, compression=label.compression, format_time=label.format_time,
        generation=index.generation if index is not None and index.generation is not None else volume.generation,
        evidence=volume.evidence + ("VOL1 and LTFS labels at the start of partition 0",)
        + (("the index on partition 0",) if index is not None else ()),
    )


__all__ = ["IndexHeader", "LtfsLabel", "Vol1Label", "with_labels"]
