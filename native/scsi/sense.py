"""Sense data: fixed (0x70/0x71) and descriptor (0x72/0x73) formats, SPC-4 4.5.

``Sense.parse`` only decodes; ``Sense.describe`` renders the one line a technician
sees ("MEDIUM ERROR: Write error (0C/00)"). The tape bits (FILEMARK, EOM, ILI) and
the INFO field matter most to ``app.drive``: SSC reports short reads, filemarks and
end-of-data through them, and the byte count of such a read comes from INFO.
"""
from __future__ import annotations

from dataclasses import dataclass

from native.scsi._bytes import bit, need, sint, uint
from native.scsi.asc import asc_text
from native.errors import ParseError

from native.scsi.sensekeys import (  # noqa: F401 - the keys are read from here too
    ABORTED_COMMAND, BLANK_CHECK, COMPLETED, COPY_ABORTED, DATA_PROTECT, HARDWARE_ERROR, ILLEGAL_REQUEST, MEDIUM_ERROR,
    MISCOMPARE, NO_SENSE, NOT_READY, RECOVERED_ERROR, SENSE_KEY_NAMES, UNIT_ATTENTION, VENDOR_SPECIFIC, VOLUME_OVERFLOW,
    sense_key_name,
)

# Descriptor types (SPC-4 table 28).
DESC_INFORMATION = 0x00
DESC_COMMAND_SPECIFIC = 0x01
DESC_SENSE_KEY_SPECIFIC = 0x02
DESC_FRU = 0x03
DESC_STREAM_COMMANDS = 0x04
DESC_BLOCK_COMMANDS = 0x05


@dataclass(frozen=True)
class SenseKeySpecific:
    """The 3-byte sense-key specific field, decoded by what the sense key says it is.

    ``kind`` is "progress" (NOT READY / NO SENSE: an operation's completion),
    "field pointer" (ILLEGAL REQUEST: which CDB or parameter byte was wrong),
    "retry count" (RECOVERED / MEDIUM / HARDWARE ERROR) or "raw".
    """

    kind: str
    value: int
    progress: float | None = None  # 0.0 .. 1.0
    in_cdb: bool | None = None  # field pointer: True = CDB, False = parameter data
    bit_pointer: int | None = None

    @classmethod
    def parse(cls, key: int, raw: bytes) -> "SenseKeySpecific | None":
        need(raw, 3, "sense-key specific")
        if not bit(raw[0], 7):  # SKSV
            return None
        value = uint(raw, 1, 2)
        if key in (NOT_READY, NO_SENSE):
            return cls(kind="progress", value=value, progress=value / 65536)
        if key == ILLEGAL_REQUEST:
            bpv = bit(raw[0], 3)
            return cls(kind="field pointer", value=value, in_cdb=bit(raw[0], 6), bit_pointer=(raw[0] & 7) if bpv else None)
        if key in (RECOVERED_ERROR, MEDIUM_ERROR, HARDWARE_ERROR):
            return cls(kind="retry count", value=value)
        return cls(kind="raw", value=((raw[0] & 0x7F) << 16) | value)

    def describe(self) -> str:
        if self.kind == "progress" and self.progress is not None:
            return f"progress {self.progress * 100:.1f}%"
        if self.kind == "field pointer":
            where = "CDB" if self.in_cdb else "parameter data"
            bit_part = f" bit {self.bit_pointer}" if self.bit_pointer is not None else ""
            return f"invalid field in {where} byte {self.value}{bit_part}"
        return f"{self.kind} {self.value}"


@dataclass(frozen=True)
class Sense:
    """Decoded sense data of either format.

    ``info`` is the INFORMATION field (signed: SSC uses negative values for an
    overlength block) and is only meaningful when ``valid`` is set.
    """

    response_code: int
    key: int
    asc: int
    ascq: int
    valid: bool = False
    info: int = 0
    filemark: bool = False
    eom: bool = False
    ili: bool = False
    command_specific: int = 0
    fru: int = 0
    sks: SenseKeySpecific | None = None
    descriptors: tuple[tuple[int, bytes], ...] = ()

    @property
    def descriptor_format(self) -> bool:
        return self.response_code in (0x72, 0x73)

    @property
    def deferred(self) -> bool:
        return self.response_code in (0x71, 0x73)

    @property
    def key_name(self) -> str:
        return sense_key_name(self.key)

    @property
    def asc_text(self) -> str:
        return asc_text(self.asc, self.ascq)

    @classmethod
    def parse(cls, data: bytes) -> "Sense":
        data = bytes(data)
        need(data, 1, "sense data")
        code = data[0] & 0x7F
        if code in (0x70, 0x71):
            return cls._parse_fixed(data, code)
        if code in (0x72, 0x73):
            return cls._parse_descriptor(data, code)
        raise ParseError(f"sense data: unknown response code 0x{code:02X}")

    @classmethod
    def _parse_fixed(cls, data: bytes, code: int) -> "Sense":
        need(data, 3, "fixed sense data")
        # Bytes beyond the buffer (short sense, additional length < 10) read as zero,
        # the way SPC says a truncated fixed-format sense must be interpreted.
        padded = data[:8 + data[7]] if len(data) >= 8 else data
        padded = padded + bytes(max(0, 18 - len(padded)))
        key = padded[2] & 0x0F
        return cls(
            response_code=code,
            key=key,
            asc=padded[12],
            ascq=padded[13],
            valid=bit(data[0], 7),
            info=sint(padded, 3, 4),
            filemark=bit(padded[2], 7),
            eom=bit(padded[2], 6),
            ili=bit(padded[2], 5),
            command_specific=uint(padded, 8, 4),
            fru=padded[14],
            sks=SenseKeySpecific.parse(key, padded[15:18]),
        )

    @classmethod
    def _parse_descriptor(cls, data: bytes, code: int) -> "Sense":
        need(data, 8, "descriptor sense data")
        end = min(len(data), 8 + data[7])
        descriptors: list[tuple[int, bytes]] = []
        fields: dict = {}
        pos = 8
        while pos + 2 <= end:
            dtype, dlen = data[pos], data[pos + 1]
            body = data[pos : pos + 2 + dlen]
            if len(body) < 2 + dlen:
                raise ParseError(f"sense descriptor 0x{dtype:02X} truncated")
            descriptors.append((dtype, body))
            if dtype == DESC_INFORMATION and dlen >= 0x0A:
                fields["valid"] = bit(body[2], 7)
                fields["info"] = sint(body, 4, 8)
            elif dtype == DESC_COMMAND_SPECIFIC and dlen >= 0x0A:
                fields["command_specific"] = uint(body, 4, 8)
            elif dtype == DESC_SENSE_KEY_SPECIFIC and dlen >= 6:
                fields["sks"] = SenseKeySpecific.parse(data[1] & 0x0F, body[4:7])
            elif dtype == DESC_FRU and dlen >= 2:
                fields["fru"] = body[3]
            elif dtype == DESC_STREAM_COMMANDS and dlen >= 2:
                fields["filemark"] = bit(body[3], 7)
                fields["eom"] = bit(body[3], 6)
                fields["ili"] = bit(body[3], 5)
            elif dtype == DESC_BLOCK_COMMANDS and dlen >= 2:
                fields["ili"] = bit(body[3], 5)
            pos += 2 + dlen
        return cls(response_code=code, key=data[1] & 0x0F, asc=data[2], ascq=data[3],
                   descriptors=tuple(descriptors), **fields)

    def describe(self) -> str:
        """One line: key name, ASC/ASCQ text, codes; tape flags and INFO when set."""
        text = f"{self.key_name}: {self.asc_text} ({self.asc:02X}/{self.ascq:02X})"
        flags = [name for name, on in (("FILEMARK", self.filemark), ("EOM", self.eom), ("ILI", self.ili)) if on]
        if flags:
            text += " [" + ", ".join(flags) + "]"
        if self.deferred:
            text += " (deferred error)"
        if self.sks is not None and self.sks.kind in ("progress", "field pointer"):
            text += f", {self.sks.describe()}"
        return text

    def __str__(self) -> str:
        return self.describe()


def build_fixed(key: int, asc: int = 0, ascq: int = 0, *, info: int | None = None, filemark: bool = False,
                eom: bool = False, ili: bool = False, deferred: bool = False, sks: bytes | None = None) -> bytes:
    """Fixed-format sense bytes (18 bytes). Used by test transports and the fault injector."""
    out = bytearray(18)
    out[0] = (0x71 if deferred else 0x70) | (0x80 if info is not None else 0)
    out[2] = (key & 0x0F) | (0x80 if filemark else 0) | (0x40 if eom else 0) | (0x20 if ili else 0)
    if info is not None:
        out[3:7] = info.to_bytes(4, "big", signed=info < 0)
    out[7] = 10
    out[12], out[13] = asc, ascq
    if sks is not None:
        out[15:18] = sks[:3]
    return bytes(out)


def build_descriptor(key: int, asc: int = 0, ascq: int = 0, *, info: int | None = None, filemark: bool = False,
                     eom: bool = False, ili: bool = False) -> bytes:
    """Descriptor-format sense bytes with information and stream-commands descriptors."""
    body = bytearray()
    if info is not None:
        body += bytes([DESC_INFORMATION, 0x0A, 0x80, 0]) + info.to_bytes(8, "big", signed=info < 0)
    if filemark or eom or ili:
        body += bytes([DESC_STREAM_COMMANDS, 0x02, 0, (0x80 if filemark else 0) | (0x40 if eom else 0) | (0x20 if ili else 0)])
    return bytes([0x72, key & 0x0F, asc, ascq, 0, 0, 0, len(body)]) + bytes(body)
