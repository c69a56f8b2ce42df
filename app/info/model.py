"""``DriveInfo``: everything ``info`` read of a drive, section by section, and its stored form.

A section is ``Supported(value)`` or ``Unsupported(reason)``. Its value is the parser type of
``native.scsi`` as the drive's answer decoded (``BlockLimits``, ``ErrorCounters``, ``DtStatus`` ...),
not a copy of it; where a section joins several answers (the identity: INQUIRY and two VPD pages; the
encryption: two security pages) it is a small dataclass of its own. ``to_dict()`` is the stored and
``--json`` form, the same field names as ever (``app.info.stored``); ``from_dict`` reads it back.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, is_dataclass
from typing import Any, Callable

from app.drive import Maybe, Supported, Unsupported
from app.info.judge import NOT_REPORTED, Health
from app.info.stored import SECTIONS
from app.timeouts import Timeouts
from app.wear import Wear
from native.scsi.devicelogs import DeviceStatistics, DiagnosticEntry, DtStatus, PortStatus, Temperature
from native.scsi.logpages import ErrorCounters, HpPerformance, TapeAlertFlag
from native.scsi.ltfs import LtfsVolume
from native.scsi.mam import Mam
from native.scsi.mode import CompressionPage, ModeData
from native.scsi.tape import BlockLimits
from native.scsi.vendorlogs import VendorPage
from native.transport import TransferLimit

NO_CARTRIDGE = "no cartridge loaded"
NOT_A_TAPE = "not a tape drive"


@dataclass(frozen=True)
class Identity:
    """Who the drive is: INQUIRY's vendor, product, revision and type, VPD 80h's serial, VPD 83h's WWN."""

    vendor: str
    product: str
    revision: str
    serial: str | None
    wwn: str | None
    device_type: str


@dataclass(frozen=True)
class Encryption:
    """Tape data encryption, read with SECURITY PROTOCOL IN 20h (pages 0010h and 0020h); nothing is set.

    Encrypted data does not compress in the drive when the *host* encrypts it; drive encryption
    compresses first. Either way a technician wants to know which is on before blaming the tape."""

    capable: bool
    algorithms: tuple[str, ...]
    mode: str  # "off", "external", "on (encrypting)"
    decryption: str
    algorithm: str | None  # the algorithm in use, when encrypting or decrypting
    volume_has_encrypted_blocks: bool
    key_instance_counter: int
    #: The key-associated data of the key in use (0020h), each "U-KAD (unauthenticated): text".
    key_descriptors: tuple[str, ...] = ()
    #: The block at the current position (0021h), in words, or why it was not read.
    next_block: str = ""
    next_block_key_descriptors: tuple[str, ...] = ()


@dataclass(frozen=True)
class DriveInfo:
    """What ``info`` read from a drive and its cartridge, section by section, with the verdict (``health``): the
    model the text, the JSON, the history and the report all render."""

    device: str
    identity: Identity
    generation: int | None
    media: Maybe[ModeData]  # the mode header: density, block size, write protect, buffering
    block_limits: Maybe[BlockLimits]
    compression: Maybe[CompressionPage]
    cartridge: Maybe[Mam]
    tapealerts: Maybe[tuple[TapeAlertFlag, ...]]  # the active flags
    write_errors: Maybe[ErrorCounters]
    read_errors: Maybe[ErrorCounters]
    cleaning_required: Maybe[bool]
    volume_statistics: Maybe[dict]
    performance: Maybe[HpPerformance]
    health: Health
    # Drive-wide pages (issue 15); defaults keep older constructions valid, gather() sets them all.
    tapealert_source: str = ""  # which page the flags came from: 0x12 leaves them set, 0x2E clears them
    temperature: Maybe[Temperature] = NOT_REPORTED
    device_status: Maybe[DtStatus] = NOT_REPORTED
    device_statistics: Maybe[DeviceStatistics] = NOT_REPORTED
    ports: Maybe[tuple[PortStatus, ...]] = NOT_REPORTED
    diagnostics: Maybe[tuple[DiagnosticEntry, ...]] = NOT_REPORTED
    non_medium_errors: Maybe[int] = NOT_REPORTED
    encryption: Maybe[Encryption] = NOT_REPORTED
    # Vendor pages 30h-3Eh the drive lists, decoded as its INQUIRY vendor documents them (HP 34h: ``performance``).
    vendor_pages: Maybe[tuple[VendorPage, ...]] = NOT_REPORTED
    wear: Maybe[Wear] = NOT_REPORTED
    # The path and the timeouts (issue 13): what the OS/HBA lets through, and how long each long command may take.
    max_transfer: Maybe[TransferLimit] = NOT_REPORTED
    command_timeouts: Maybe[Timeouts] = NOT_REPORTED
    # The LTFS volume the cartridge memory names (issue 30), None when it names none: read without moving
    # the tape (``app.ltfs``), since info may run beside the application that owns the tape's position.
    ltfs: LtfsVolume | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe form. A section is ``{"supported": false, "reason": ...}`` or
        ``{"supported": true, <the section's fields>}``; sections that are lists or
        single values carry them under ``"value"``. The parser types' fields are stored
        under the names ``app.info.stored`` declares."""
        out = {name: _stored(name, getattr(self, name)) for name in self.__dataclass_fields__}
        out["health"]["exit_code"] = self.health.exit_code  # what `tapediag info` exits with, for scripts
        return out

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "DriveInfo":
        """A stored ``to_dict()`` read back (a run in the history, a report): each section as its parser type
        (``app.info.stored``), tapediag's own dataclasses through ``app.runs.typed``."""
        values: dict[str, Any] = {}
        for name in cls.__dataclass_fields__:
            if name in data:
                values[name] = _READ.get(name, _as_is)(data[name])
        return cls(**values)


def _stored(name: str, value: Any) -> Any:
    stored = SECTIONS.get(name)
    if stored is None or not isinstance(value, Supported):
        return _jsonable(value)
    inner = stored.write(value.value)
    return {"supported": True, "value": inner} if stored.listed else {"supported": True, **inner}


def _jsonable(value: Any) -> Any:
    if isinstance(value, Unsupported):
        return {"supported": False, "reason": value.reason}
    if isinstance(value, Supported):
        inner = _jsonable(value.value)
        return {"supported": True, **inner} if isinstance(inner, dict) else {"supported": True, "value": inner}
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, LtfsVolume):
        return value.to_dict()
    if is_dataclass(value) and not isinstance(value, type):
        return {k: _jsonable(getattr(value, k)) for k in value.__dataclass_fields__}
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


# -- reading a stored DriveInfo back ---------------------------------------------------------------------

def _as_is(value: Any) -> Any:
    return value


def _typed(cls: type) -> Callable[[Any], Any]:
    def read(value: Any) -> Any:
        from app.runs.typed import from_dict

        return from_dict(cls, value)
    return read


def _maybe(read: Callable[[Any], Any], *, listed: bool = False) -> Callable[[Any], Any]:
    """A section read back: ``Unsupported(reason)``, or ``Supported`` of its fields (or of its "value")."""
    def section(data: Any) -> Any:
        if not isinstance(data, dict) or data.get("supported") is not True:
            return Unsupported(data.get("reason", NOT_REPORTED.reason) if isinstance(data, dict) else NOT_REPORTED.reason)
        if listed or set(data) == {"supported", "value"}:
            return Supported(read(data.get("value")))
        return Supported(read({k: v for k, v in data.items() if k != "supported"}))
    return section


_READ: dict[str, Callable[[Any], Any]] = {
    **{name: _maybe(stored.read, listed=stored.listed) for name, stored in SECTIONS.items()},
    "identity": _typed(Identity),
    "health": _typed(Health),
    "cleaning_required": _maybe(bool),
    "volume_statistics": _maybe(dict),
    "non_medium_errors": _maybe(int),
    "encryption": _maybe(_typed(Encryption)),
    "vendor_pages": _maybe(lambda rows: tuple(_typed(VendorPage)(r) for r in rows), listed=True),
    "wear": _maybe(_typed(Wear)),
    "max_transfer": _maybe(_typed(TransferLimit)),
    "command_timeouts": _maybe(_typed(Timeouts)),
    "ltfs": lambda data: None if data is None else _typed(LtfsVolume)(data),
}


__all__ = ["DriveInfo", "Encryption", "Identity", "NOT_A_TAPE", "NO_CARTRIDGE"]
