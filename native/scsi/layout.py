"""Declarative CDB layouts: every field of a command, where it sits and how wide it is, written once.

A command is a frozen dataclass (``Cdb``) whose fields carry their place in the CDB: ``at(byte, mask)``
is python-scsi's ``_cdb_bits`` entry in typed form (the mask spans as many big-endian bytes as it is
wide, from ``byte`` on; a one-bit mask is a flag). ``build()`` writes the fields, ``parse(cdb)`` reads
them back: tapediag's builders (``native.scsi.cdb``, ``native.scsi.smc``) and the emulators that answer
the same commands (``native.virtual``) read one table, so a field cannot sit in one place for the
sender and in another for the receiver. The round trip of every command is a test.

Only CDBs are declared this way. The layouts of the *data* a command returns (log pages, MAM, sense)
keep three independent readers on purpose: the parser, the emulator, and sg3_utils as the oracle.

A value that does not fit its field raises ``InvalidParameter`` when the CDB is built, rather than
being truncated: a wrapped-around transfer length on a tape drive writes the wrong amount of data.
"""
from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, ClassVar, TypeVar

from native.errors import InvalidParameter, ParseError


@dataclass(frozen=True)
class Place:
    """Where a field sits: from ``byte`` on, the bits of ``mask`` (over as many bytes as it is wide)."""

    byte: int
    mask: int
    signed: bool = False
    what: str = ""  # the field's name in a refusal ("allocation length")

    @property
    def size(self) -> int:
        """How many bytes the field's mask spans."""
        return (self.mask.bit_length() + 7) // 8

    @property
    def shift(self) -> int:
        return (self.mask & -self.mask).bit_length() - 1

    @property
    def bits(self) -> int:
        return (self.mask >> self.shift).bit_length()

    def limits(self) -> tuple[int, int]:
        if self.signed:
            return -(1 << (self.bits - 1)), (1 << (self.bits - 1)) - 1
        return 0, (1 << self.bits) - 1

    def put(self, out: bytearray, value: int, name: str) -> None:
        low, high = self.limits()
        if not low <= value <= high:
            raise InvalidParameter(f"{self.what or name.replace('_', ' ')} {value} is out of range ({low}..{high})")
        end = self.byte + self.size
        word = int.from_bytes(out[self.byte:end], "big") & ~self.mask
        word |= ((value & ((1 << self.bits) - 1)) << self.shift) & self.mask
        out[self.byte:end] = word.to_bytes(self.size, "big")

    def get(self, cdb: bytes | bytearray | memoryview) -> int:
        value = (int.from_bytes(cdb[self.byte:self.byte + self.size], "big") & self.mask) >> self.shift
        if self.signed and value >> (self.bits - 1):
            value -= 1 << self.bits
        return value


#: The name an allocation length field gives in a refusal (every layout of a query has one).
ALLOC = "allocation length"


def at(byte: int, mask: int = 0xFF, *, signed: bool = False, what: str = "", default: int = 0) -> Any:
    """A CDB field's declaration: its ``Place`` and its default (0: a flag off, a length of nothing)."""
    return dataclasses.field(default=default, metadata={"place": Place(byte, mask, signed, what)})


C = TypeVar("C", bound="Cdb")

#: Per field of a command class, worked out once: (name, place, is a flag, first byte, end, mask, shift,
#: sign bit or 0). The plain numbers keep ``parse`` cheap: the emulators parse every READ and WRITE.
_Field = tuple[str, Place, bool, int, int, int, int, int]


class Cdb:
    """A command descriptor block as typed fields. Subclasses are frozen dataclasses that set ``OPCODE``,
    ``LENGTH`` and declare each field with ``at``; bytes no field names are zero (reserved, control)."""

    OPCODE: ClassVar[int]
    LENGTH: ClassVar[int]
    _codecs: ClassVar[dict[type, tuple[_Field, ...]]] = {}

    @classmethod
    def codec(cls) -> tuple[_Field, ...]:
        """The fields with their places, in declaration order (checked once: inside the CDB, no overlap)."""
        codec = Cdb._codecs.get(cls)
        if codec is None:
            codec = tuple((f.name, p, f.type in ("bool", bool), p.byte, p.byte + p.size, p.mask, p.shift,
                           1 << (p.bits - 1) if p.signed else 0)
                          for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                          if isinstance(p := f.metadata.get("place"), Place))
            _check_layout(cls, codec)
            Cdb._codecs[cls] = codec
        return codec

    @classmethod
    def reader(cls, name: str) -> Callable[[bytes | bytearray | memoryview], int]:
        """One field's reader, for a hot path that wants one field and no object per command (the null
        device's WRITE): the same place ``parse`` reads it from."""
        found = [f for f in cls.codec() if f[0] == name]
        if not found:
            raise KeyError(f"{cls.__name__} has no field {name!r}")
        _, _, _, first, end, mask, shift, sign = found[0]

        def read(cdb: bytes | bytearray | memoryview) -> int:
            value = (int.from_bytes(cdb[first:end], "big") & mask) >> shift
            return value - (sign << 1) if sign and value & sign else value
        return read

    def build(self) -> bytes:
        out = bytearray(self.LENGTH)
        out[0] = self.OPCODE
        for name, place, *_ in self.codec():
            place.put(out, int(getattr(self, name)), name)
        return bytes(out)

    @classmethod
    def parse(cls: type[C], cdb: bytes | bytearray | memoryview) -> C:
        """The command's fields from its CDB (``ParseError`` for another opcode or a CDB too short)."""
        if len(cdb) < cls.LENGTH or cdb[0] != cls.OPCODE:
            raise ParseError(f"{bytes(cdb[:1]).hex() or 'an empty CDB'} is not a {cls.LENGTH}-byte {cls.__name__} CDB")
        values = {}
        for name, _, flag, first, end, mask, shift, sign in Cdb._codecs.get(cls) or cls.codec():
            value = (int.from_bytes(cdb[first:end], "big") & mask) >> shift
            if sign and value & sign:
                value -= sign << 1
            values[name] = bool(value) if flag else value
        return cls(**values)


def _check_layout(cls: type, codec: tuple[_Field, ...]) -> None:
    """A layout error (a field past the end, on the opcode, or over another field) is a bug: said at once."""
    taken = [0] * cls.LENGTH  # type: ignore[attr-defined]
    for name, place, flag, *_ in codec:
        if place.byte < 1 or place.byte + place.size > len(taken) or (flag and place.bits != 1):
            raise TypeError(f"{cls.__name__}.{name}: {place} does not fit a {len(taken)}-byte CDB")
        for i, byte in enumerate(place.mask.to_bytes(place.size, "big")):
            if taken[place.byte + i] & byte:
                raise TypeError(f"{cls.__name__}.{name} overlaps another field at byte {place.byte + i}")
            taken[place.byte + i] |= byte


__all__ = ["Cdb", "Place", "at"]
