"""``tapediag info``: everything a technician wants to know about a drive, in one object.

``gather(drive)`` asks the drive for identity, limits, modes, cartridge memory,
TapeAlert flags, error counters and volume statistics, and derives a health verdict.
Each section is ``Supported(value)`` or ``Unsupported(reason)``: a drive that lacks
a page (ILLEGAL REQUEST 20h/24h; tgt has no LOG SENSE at all) or has no cartridge
loaded gives a readable "not supported by this device" / "no cartridge loaded",
which says nothing about health. Any other error answering a query (HARDWARE ERROR,
MEDIUM ERROR, a failing TEST UNIT READY) is shown in its section *and* drives the
verdict. "Healthy" needs TapeAlert or the error counters read and clean; without
either the verdict is "Not assessed". A non-tape (INQUIRY type not 01h) gets INQUIRY
only and the verdict "Not a tape drive". Only a drive that cannot be reached at all
(transport errors, no INQUIRY) raises.

``DriveInfo`` is shared by the CLI (text and ``--json``), the GUI and PDF reports;
rendering lives with them, ``to_dict()`` gives the JSON-safe form.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass, field, is_dataclass
from typing import TYPE_CHECKING, Any, Callable, TypeVar

from native.errors import CheckCondition, ParseError, UnitAttention

from app.drive import NOT_SUPPORTED, Maybe, Supported, TapeDrive, Unsupported, generation_from_product, is_not_supported
from app.timeouts import Timeouts
from native.scsi.asc import asc_text
from native.scsi.density import density_name, lto_generation
from native.scsi.devicelogs import (
    PAGE_DEVICE_STATISTICS,
    PAGE_DT_DEVICE_STATUS,
    PAGE_NON_MEDIUM_ERRORS,
    PAGE_PROTOCOL_PORT,
    PAGE_TAPE_DIAGNOSTIC,
    PAGE_TAPEALERT_RESPONSE,
    PAGE_TEMPERATURE,
    DeviceStatistics,
    DeviceStatus,
    NonMediumErrors,
    ProtocolPort,
    TapeAlertResponse,
    TapeDiagnostic,
)
from native.scsi.devicelogs import Temperature as TemperaturePage
from native.scsi.inquiry import DeviceIdentification
from native.scsi.logpages import (
    PAGE_HP_PERFORMANCE,
    PAGE_READ_ERRORS,
    PAGE_SEQUENTIAL_ACCESS,
    PAGE_VOLUME_STATISTICS,
    PAGE_WRITE_ERRORS,
    ErrorCounters,
    HpPerformance,
    SequentialAccess,
    VolumeStatistics,
)
from native.scsi.ltfs import LtfsVolume, from_mam
from native.scsi.mam import Mam
from native.transport import TransferLimit
from native.scsi.sense import sense_key_name
from native.scsi.tapealert import CLEANING_FLAGS
from native.scsi.vendorlogs import HP, VendorPage, vendor_family, vendor_page_from

from app.wear import Wear, cartridge_wear, drive_reported_limits, drive_wear
from app.health_rules import EVIDENCE, INFORMATIONAL, NO_CARTRIDGE as NO_CARTRIDGE_CLASS, Finding, Level, Subject, Verdict
from app.health_rules import classify, evaluate, tapealert_culprit

if TYPE_CHECKING:
    from app.history import History

T = TypeVar("T")

NO_CARTRIDGE = "no cartridge loaded"
NO_PATH_LIMIT = "not reported by this path"


# Exit status of ``tapediag info`` per verdict (documented in ``--help`` and the README).
# Chosen clear of 1 (device failure), 2 (bad input / not a tape), 3 (refused) and 130 (cancelled).
EXIT_CODES: dict[Verdict, int] = {
    Verdict.HEALTHY: 0,
    Verdict.ATTENTION: 10,
    Verdict.FAILING: 11,
    Verdict.NOT_ASSESSED: 12,
    Verdict.NOT_A_TAPE: 2,
}

NOT_A_TAPE = "not a tape drive"


@dataclass(frozen=True)
class Identity:
    vendor: str
    product: str
    revision: str
    serial: str | None
    wwn: str | None
    device_type: str


@dataclass(frozen=True)
class MediaState:
    """What the mode header says: density, block mode, write protect, buffering."""

    density_code: int | None
    density_name: str
    block_size: int | None  # 0 = variable-block mode
    write_protected: bool
    buffered_mode: int

    @property
    def block_mode(self) -> str:
        if self.block_size is None:
            return "unknown"
        return "variable" if self.block_size == 0 else f"fixed {self.block_size} bytes"


@dataclass(frozen=True)
class Limits:
    granularity: int
    min_block: int
    max_block: int


@dataclass(frozen=True)
class Compression:
    capable: bool
    enabled: bool
    algorithm: int


@dataclass(frozen=True)
class Cartridge:
    """The MAM fields a technician reads; ``attributes`` keeps every one by name."""

    barcode: str | None
    manufacturer: str | None
    serial: str | None
    medium_type: str | None
    density_code: int | None
    manufacture_date: str | None
    load_count: int | None
    remaining_capacity_mib: int | None
    maximum_capacity_mib: int | None
    mib_written_total: int | None
    mib_read_total: int | None
    mib_written_last_load: int | None
    mib_read_last_load: int | None
    attributes: dict[str, Any] = field(default_factory=dict)

    @classmethod
    def from_mam(cls, mam: Mam) -> "Cartridge":
        attributes: dict[str, Any] = {}
        for a in mam.attributes:
            value = a.value
            attributes[a.name] = value.hex() if isinstance(value, bytes) else value
        return cls(
            barcode=mam.barcode,
            manufacturer=mam.manufacturer,
            serial=mam.serial,
            medium_type=mam.medium_type,
            density_code=mam.density_code,
            manufacture_date=mam.manufacture_date,
            load_count=mam.load_count,
            remaining_capacity_mib=mam.remaining_capacity_mib,
            maximum_capacity_mib=mam.maximum_capacity_mib,
            mib_written_total=mam.mb_written_total,
            mib_read_total=mam.mb_read_total,
            mib_written_last_load=mam.mb_written_last_load,
            mib_read_last_load=mam.mb_read_last_load,
            attributes=attributes,
        )


@dataclass(frozen=True)
class Alert:
    code: int
    name: str
    severity: str
    text: str


@dataclass(frozen=True)
class ErrorCounts:
    """One direction of pages 0x02/0x03."""

    corrected: int | None
    uncorrected: int | None
    retries: int | None
    bytes_processed: int | None

    @classmethod
    def from_page(cls, page: ErrorCounters) -> "ErrorCounts":
        return cls(corrected=page.total_corrected, uncorrected=page.total_uncorrected,
                   retries=page.total_retries, bytes_processed=page.total_bytes_processed)


@dataclass(frozen=True)
class Performance:
    """HP LTO page 0x34 (``native.scsi.logpages.HpPerformance``), rates in MB/s, for the current tape.

    Why it matters: ``current_mb_s`` (what the host sends) far below ``max_possible_mb_s``
    (what this data allows) with repositions climbing is a host bottleneck; the drive is
    the limit when ``buffer_in_mb_s`` (the tape rate, after compression) is at ``native_mb_s``.
    """

    repositions_per_100mb: int | None
    buffer_in_mb_s: float | None
    max_possible_mb_s: float | None
    current_mb_s: float | None
    native_mb_s: float | None

    @classmethod
    def from_page(cls, page: HpPerformance) -> "Performance":
        return cls(page.repositions_per_100mb, page.buffer_in_mb_s, page.max_possible_mb_s, page.current_mb_s,
                   page.native_mb_s)


@dataclass(frozen=True)
class Temperature:
    """Log page 0x0D, degrees C; ``reference_celsius`` is the drive's rated maximum when it gives one."""

    celsius: int | None
    reference_celsius: int | None


@dataclass(frozen=True)
class DeviceState:
    """Log page 0x11 (DT device status): what the drive says about itself right now."""

    cleaning_required: bool
    cleaning_requested: bool
    medium_present: bool
    write_protected: bool
    activity: str
    flags: dict[str, bool]  # every flag of the page by name (``native.scsi.devicelogs.DT_FLAG_NAMES``)


@dataclass(frozen=True)
class MediumHours:
    density_code: int
    density: str
    medium_type: int
    head_hours: int


@dataclass(frozen=True)
class DriveStatistics:
    """Log page 0x14 (device statistics): the drive's lifetime figures by name, and head hours per medium."""

    figures: dict[str, int | str]
    per_medium: tuple[MediumHours, ...]


@dataclass(frozen=True)
class PhyCounters:
    """One SAS phy of log page 0x18: a bad cable or terminator drives these counters up."""

    port: int
    phy: int
    link_rate: str
    sas_address: str
    attached_sas_address: str
    invalid_dwords: int
    disparity_errors: int
    loss_of_sync: int
    phy_reset_problems: int


@dataclass(frozen=True)
class DiagnosticRecord:
    """One entry of log page 0x16 (tape diagnostic data): an error the drive kept, with context."""

    sense: str  # "MEDIUM ERROR: Write error (03/0C/00)"
    opcode: int
    medium_id: str
    head_hours: int
    timestamp: int
    repeat: bool
    # The entry's sense as numbers, for the drive-health rules (the text above is for people).
    key: int = 0
    asc: int = 0
    ascq: int = 0


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


HP_VENDORS = ("HP", "HPE")  # page 0x34 means "performance" only on HP drives (IBM: read forward errors)

#: The default of the optional sections (an immutable marker, shared).
NOT_REPORTED = Unsupported(NOT_SUPPORTED)


@dataclass(frozen=True)
class Health:
    """The verdict, the sentences behind it (``reasons``: what every front end prints) and the
    findings they come from, each with its evidence and culprit (``app.health_rules.Finding``)."""

    verdict: Verdict
    reasons: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]


@dataclass(frozen=True)
class Evidence:
    """An error a drive gave while answering a query, classified by its sense (``app.health_rules.classify``).

    ``kind`` is "evidence" (it says something about the drive, cartridge, path or host: ``level``
    and ``culprit`` say what) or "informational" (shown, not judged: NO SENSE with a filemark,
    RECOVERED ERROR, UNIT ATTENTION). ``query`` names the command ("LOG SENSE page 2Eh"),
    ``sense`` the decoded sense ("HARDWARE ERROR: Diagnostic failure on component 81h (40/81)").
    """

    level: Level | None
    query: str
    sense: str
    culprit: str = "drive"
    why: str = ""
    kind: str = EVIDENCE
    code: tuple[int, int, int] = (0, 0, 0)  # sense key, ASC, ASCQ


@dataclass(frozen=True)
class DriveInfo:
    device: str
    identity: Identity
    generation: int | None
    media: Maybe[MediaState]
    block_limits: Maybe[Limits]
    compression: Maybe[Compression]
    cartridge: Maybe[Cartridge]
    tapealerts: Maybe[tuple[Alert, ...]]
    write_errors: Maybe[ErrorCounts]
    read_errors: Maybe[ErrorCounts]
    cleaning_required: Maybe[bool]
    volume_statistics: Maybe[dict]
    performance: Maybe[Performance]
    health: Health
    # Drive-wide pages (issue 15); defaults keep older constructions valid, gather() sets them all.
    tapealert_source: str = ""  # which page the flags came from: 0x12 leaves them set, 0x2E clears them
    temperature: Maybe[Temperature] = NOT_REPORTED
    device_status: Maybe[DeviceState] = NOT_REPORTED
    device_statistics: Maybe[DriveStatistics] = NOT_REPORTED
    ports: Maybe[tuple[PhyCounters, ...]] = NOT_REPORTED
    diagnostics: Maybe[tuple[DiagnosticRecord, ...]] = NOT_REPORTED
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
        single values carry them under ``"value"``."""
        out = {name: _jsonable(getattr(self, name)) for name in self.__dataclass_fields__}
        out["health"]["exit_code"] = self.health.exit_code  # what `tapediag info` exits with, for scripts
        return out


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
        out = {k: _jsonable(getattr(value, k)) for k in value.__dataclass_fields__}
        if isinstance(value, MediaState):
            out["block_mode"] = value.block_mode
        return out
    if isinstance(value, (list, tuple)):
        return [_jsonable(v) for v in value]
    if isinstance(value, dict):
        return {str(k): _jsonable(v) for k, v in value.items()}
    return value


def _section(fn: Callable[[], T], evidence: "list[Evidence] | None" = None, what: str = "") -> "Maybe[T]":
    """Run one query; what the device cannot answer becomes Unsupported(reason).

    "Not supported" is ``app.drive.is_not_supported``'s rule (ILLEGAL REQUEST 20h/24h/26h);
    every other CHECK CONDITION is classified by the drive-health rules' sense table
    (``app.health_rules.classify``): no cartridge and not-ready-yet say nothing about health;
    an informational sense (NO SENSE, RECOVERED ERROR, UNIT ATTENTION) is shown in the
    section; any other error is evidence: appended to ``evidence`` with its verdict and
    culprit, the decoded sense as the reason.

    Transport failures (timeout, lost connection) still raise: the drive is gone
    and every following section would fail the same way.
    """
    try:
        return Supported(fn())
    except CheckCondition as err:
        if is_not_supported(err):
            return Unsupported(NOT_SUPPORTED)
        return _classified(err, evidence, what)
    except ParseError as err:
        return Unsupported(f"the device returned data tapediag cannot decode ({err})")


def _decoded(err: CheckCondition) -> str:
    return err.sense.describe() if err.sense is not None else str(err)


def _classify(err: CheckCondition, what: str) -> Evidence:
    """The error as the sense table classifies it (``app.health_rules``: one table for every query)."""
    found = classify(err.sense)
    code = (err.sense.key, err.sense.asc, err.sense.ascq) if err.sense is not None else (0, 0, 0)
    return Evidence(found.level, what or "a query", _decoded(err), found.culprit, found.why, found.kind, code)


def _classified(err: CheckCondition, evidence: "list[Evidence] | None", what: str) -> Unsupported:
    """The section shows the decoded sense; evidence goes to the verdict once, naming the query."""
    item = _classify(err, what)
    if item.kind == NO_CARTRIDGE_CLASS:
        return Unsupported(NO_CARTRIDGE)
    if item.kind == EVIDENCE and evidence is not None:
        evidence.append(item)
    if item.kind == EVIDENCE:
        return Unsupported(f"the device reported an error: {item.sense}")
    return Unsupported(f"the device answered {item.sense} ({item.why})")


def _settle(drive: TapeDrive, attempts: int = 4) -> Evidence | None:
    """One TEST UNIT READY to consume pending UNIT ATTENTIONs (after a load or reset).

    Its error is classified like any other query's (``_classify``), not made Failing
    whatever it is: no cartridge or becoming ready is fine (info also describes an
    empty drive), a parity error is the path's, a MEDIUM ERROR the cartridge's, a
    HARDWARE ERROR the drive's. It is returned, not raised: a broken drive is exactly
    when a technician runs ``info``, so every page that still answers is gathered after it.
    """
    for _ in range(attempts):
        try:
            drive.test_unit_ready()
            return None
        except UnitAttention:
            continue
        except CheckCondition as err:
            if is_not_supported(err):
                return None
            item = _classify(err, "TEST UNIT READY")
            return item if item.kind in (EVIDENCE, INFORMATIONAL) else None
    return None


def gather(drive: TapeDrive) -> DriveInfo:
    """Query the drive (read-only: nothing is written, nothing moves) into a DriveInfo."""
    inquiry = drive.inquiry()
    serial = _section(drive.serial_number)  # INQUIRY VPD: safe to ask any device type
    ident = _section(lambda: drive.vpd(0x83))
    identity = Identity(
        vendor=inquiry.vendor,
        product=inquiry.product,
        revision=inquiry.revision,
        serial=serial.value if isinstance(serial, Supported) else None,
        wwn=ident.value.wwn if isinstance(ident, Supported) and isinstance(ident.value, DeviceIdentification) else None,
        device_type=inquiry.device_type_name,
    )
    if not inquiry.is_tape:
        return _not_a_tape(drive.device, identity, inquiry.device_type)

    evidence: list[Evidence] = []
    tur = _settle(drive)
    if tur is not None:
        evidence.append(tur)

    def section(fn: Callable[[], T], what: str) -> "Maybe[T]":
        return _section(fn, evidence, what)

    mode = section(drive.mode_header, "MODE SENSE")  # one MODE SENSE serves density, block size, WP, buffering
    media: Maybe[MediaState]
    if isinstance(mode, Supported):
        md = mode.value
        media = Supported(MediaState(md.density_code, density_name(md.density_code), md.block_length, md.write_protected, md.buffered_mode))
    else:
        media = mode
    density = media.value.density_code if isinstance(media, Supported) else None
    generation = lto_generation(density) or generation_from_product(inquiry.product)

    limits = section(drive.read_block_limits, "READ BLOCK LIMITS")
    block_limits: Maybe[Limits] = (
        Supported(Limits(limits.value.granularity, limits.value.min_length, limits.value.max_length))
        if isinstance(limits, Supported) else limits
    )

    comp = section(drive.compression, "MODE SENSE (compression)")
    compression: Maybe[Compression]
    if isinstance(comp, Supported) and comp.value is not None:
        c = comp.value
        compression = Supported(Compression(capable=c.dcc, enabled=c.dce, algorithm=c.compression_algorithm))
    elif isinstance(comp, Supported):
        compression = Unsupported(NOT_SUPPORTED)
    else:
        compression = comp

    mam = section(drive.read_attributes, "READ ATTRIBUTE (MAM)")
    cartridge: Maybe[Cartridge] = Supported(Cartridge.from_mam(mam.value)) if isinstance(mam, Supported) else mam
    ltfs_volume = _ltfs(drive, mam.value) if isinstance(mam, Supported) else None

    pages = section(drive.supported_log_pages, "LOG SENSE (supported pages)")
    listed = set(pages.value) if isinstance(pages, Supported) else None
    # No LOG SENSE at all (tgt): do not ask five more times.
    no_log_sense = isinstance(pages, Unsupported) and pages.reason == NOT_SUPPORTED

    def log(page: int, read: Callable[[], Any] | None = None) -> Maybe:
        if no_log_sense or (listed is not None and page not in listed):
            return Unsupported(NOT_SUPPORTED)
        return section(read or (lambda: drive.log_sense(page)), f"LOG SENSE page {page:02X}h")

    # TapeAlert response (0x12) gives the same flags without clearing them: preferred where listed.
    # Page 0x2E is read once otherwise: reading it clears the flags.
    if listed is not None and PAGE_TAPEALERT_RESPONSE in listed:
        alerts_page = log(PAGE_TAPEALERT_RESPONSE, lambda: _typed(drive.log_sense(PAGE_TAPEALERT_RESPONSE), TapeAlertResponse))
        tapealert_source = "log page 0x12 (TapeAlert response: the flags stay set)"
    else:
        alerts_page = log(0x2E, drive.tapealert)
        tapealert_source = "log page 0x2E (reading it cleared the flags)" if isinstance(alerts_page, Supported) else ""
    tapealerts = _alerts(alerts_page)

    def counts(page: int) -> Maybe[ErrorCounts]:
        got = log(page)
        if isinstance(got, Supported) and isinstance(got.value, ErrorCounters):
            return Supported(ErrorCounts.from_page(got.value))
        return got if isinstance(got, Unsupported) else Unsupported(NOT_SUPPORTED)

    write_errors, read_errors = counts(PAGE_WRITE_ERRORS), counts(PAGE_READ_ERRORS)
    seq = log(PAGE_SEQUENTIAL_ACCESS)
    cleaning: Maybe[bool] = Unsupported(NOT_SUPPORTED)
    if isinstance(seq, Supported) and isinstance(seq.value, SequentialAccess) and seq.value.cleaning_required is not None:
        cleaning = Supported(seq.value.cleaning_required)
    vol = log(PAGE_VOLUME_STATISTICS)
    volume: Maybe[dict] = (Supported(vol.value.stats()) if isinstance(vol, Supported) and isinstance(vol.value, VolumeStatistics)
                           else vol if isinstance(vol, Unsupported) else Unsupported(NOT_SUPPORTED))

    performance: Maybe[Performance] = Unsupported(NOT_SUPPORTED)
    if inquiry.vendor.strip().upper() in HP_VENDORS:
        performance = log(PAGE_HP_PERFORMANCE,
                          lambda: Performance.from_page(HpPerformance.from_page(drive.log_sense(PAGE_HP_PERFORMANCE))))

    def listed_log(page: int, read: Callable[[], Any]) -> Maybe:
        """The drive-wide pages are optional: asked only when the supported-pages list names them, so
        a drive that could not even list its pages is not sent six more commands."""
        return log(page, read) if listed is not None else Unsupported(NOT_SUPPORTED)

    temperature: Maybe[Temperature] = listed_log(PAGE_TEMPERATURE, lambda: _temperature(drive))
    device_status: Maybe[DeviceState] = listed_log(PAGE_DT_DEVICE_STATUS, lambda: _device_state(drive))
    statistics: Maybe[DriveStatistics] = listed_log(PAGE_DEVICE_STATISTICS, lambda: _statistics(drive))
    ports: Maybe[tuple[PhyCounters, ...]] = listed_log(PAGE_PROTOCOL_PORT, lambda: _ports(drive))
    diagnostics: Maybe[tuple[DiagnosticRecord, ...]] = listed_log(PAGE_TAPE_DIAGNOSTIC, lambda: _diagnostics(drive))
    non_medium: Maybe[int] = listed_log(
        PAGE_NON_MEDIUM_ERRORS, lambda: _typed(drive.log_sense(PAGE_NON_MEDIUM_ERRORS), NonMediumErrors).count)
    encryption: Maybe[Encryption] = (section(lambda: _encryption(drive), "SECURITY PROTOCOL IN (encryption)")
                                     if (generation is None or generation >= 4) else Unsupported(NOT_SUPPORTED))
    vendor_pages = _vendor_pages(drive, inquiry.vendor, listed, log)
    wear = _wear(statistics, cartridge, volume, vendor_pages)
    if isinstance(device_status, Supported) and (device_status.value.cleaning_required or not isinstance(cleaning, Supported)):
        # DT device status CRQRD: the drive itself says it must be cleaned (clear evidence, like 0x0C's flag).
        cleaning = Supported(device_status.value.cleaning_required)

    limit = drive.transfer_limit()
    max_transfer: Maybe[TransferLimit] = Supported(limit) if limit is not None else Unsupported(NO_PATH_LIMIT)

    health = assess(tapealerts, write_errors, read_errors, cleaning, evidence=evidence, temperature=temperature,
                    device_status=device_status, device_statistics=statistics, ports=ports, diagnostics=diagnostics,
                    non_medium_errors=non_medium, tapealert_page=_TAPEALERT_PAGES.get(tapealert_source[:13], ""))
    return DriveInfo(
        device=drive.device,
        identity=identity,
        generation=generation,
        media=media,
        block_limits=block_limits,
        compression=compression,
        cartridge=cartridge,
        tapealerts=tapealerts,
        write_errors=write_errors,
        read_errors=read_errors,
        cleaning_required=cleaning,
        volume_statistics=volume,
        performance=performance,
        health=health,
        tapealert_source=tapealert_source,
        temperature=temperature,
        device_status=device_status,
        device_statistics=statistics,
        ports=ports,
        diagnostics=diagnostics,
        non_medium_errors=non_medium,
        encryption=encryption,
        vendor_pages=vendor_pages,
        wear=wear,
        max_transfer=max_transfer,
        command_timeouts=Supported(drive.command_timeouts()),
        ltfs=ltfs_volume,
    )


#: An empty TapeAlert page is no evidence: "no flags set" needs the flags to have been reported.
EMPTY_TAPEALERT = "the drive returned the TapeAlert page without any flag parameter: no evidence either way"
_TAPEALERT_PAGES = {"log page 0x12": "log page 12h (TapeAlert response)", "log page 0x2E": "log page 2Eh (TapeAlert)"}


def _alerts(page: Maybe[Any]) -> Maybe[tuple[Alert, ...]]:
    """The active flags of page 0x12 or 0x2E; a page holding no parameter at all says nothing (issue 25)."""
    if not isinstance(page, Supported):
        return page
    if not page.value.parameters:
        return Unsupported(EMPTY_TAPEALERT)
    return Supported(tuple(Alert(f.code, f.name, f.severity.value, f.definition.text) for f in page.value.active))


#: Vendor-specific log page codes (SPC-4: 30h-3Eh).
VENDOR_PAGE_CODES = range(0x30, 0x3F)


def _vendor_pages(drive: TapeDrive, vendor: str, listed: set[int] | None,
                  log: Callable[[int, Callable[[], Any]], Maybe]) -> Maybe[tuple[VendorPage, ...]]:
    """Every vendor page the drive lists, decoded by its vendor's table (``native.scsi.vendorlogs``).

    Gated by INQUIRY vendor: 34h is HP's performance page (shown as ``performance``) but IBM's read
    forward errors. A page that could not be read or decoded is still listed, with the reason (a drive
    error is evidence for the verdict as well; the raw bytes of a malformed page are in the ticket)."""
    family = vendor_family(vendor)
    codes = [c for c in sorted(listed or ()) if c in VENDOR_PAGE_CODES and not (family == HP and c == PAGE_HP_PERFORMANCE)]
    if not codes:
        return Unsupported(NOT_SUPPORTED)
    got: list[VendorPage] = []
    for code in codes:
        page = log(code, lambda code=code: vendor_page_from(family, drive.log_sense(code)))  # type: ignore[misc]
        got.append(page.value if isinstance(page, Supported) else VendorPage.unreadable(family, code, page.reason))
    return Supported(tuple(got))


def _wear(statistics: Maybe[DriveStatistics], cartridge: Maybe[Cartridge], volume: Maybe[dict],
          vendor_pages: Maybe[tuple[VendorPage, ...]]) -> Maybe[Wear]:
    """Drive and cartridge wear against published design figures (``app.wear``: sources, and what has none)."""
    drive_figures = drive_wear(statistics.value.figures) if isinstance(statistics, Supported) else ()
    reported = tuple(f for p in (vendor_pages.value if isinstance(vendor_pages, Supported) else ())
                     for f in drive_reported_limits(p.figures, p.source))
    cart = None
    if reported and not isinstance(cartridge, Supported):  # no MAM read, but the drive counts the cartridge itself
        cart = cartridge_wear(None, None, reported=reported)
    if isinstance(cartridge, Supported):
        c = cartridge.value
        stats = volume.value if isinstance(volume, Supported) else {}
        cart = cartridge_wear(lto_generation(c.density_code), c.load_count,
                              unrecovered_write=stats.get("total_unrecovered_write_errors"),
                              unrecovered_read=stats.get("total_unrecovered_read_errors"), reported=reported)
    if not drive_figures and cart is None:
        return Unsupported(NOT_SUPPORTED)
    return Supported(Wear(drive_figures, cart))


def _encryption(drive: TapeDrive) -> Encryption:
    """Capabilities, status, then the next block's status; all read-only, none moves the tape (see
    ``native.scsi.encryption``). The next block's page is optional: a drive without it, or without a cartridge,
    still has its encryption section, with the reason beside "next block"."""
    caps = drive.encryption_capabilities()
    status = drive.encryption_status()
    by_index = {a.index: a for a in caps.algorithms}
    active = status.encryption_mode or status.decryption_mode
    algorithm = by_index[status.algorithm_index].name if active and status.algorithm_index in by_index else None
    next_words, next_keys = _next_block(drive)
    return Encryption(capable=caps.capable, algorithms=tuple(a.name for a in caps.algorithms),
                      mode=status.encryption_mode_name, decryption=status.decryption_mode_name, algorithm=algorithm,
                      volume_has_encrypted_blocks=status.volume_has_encrypted_blocks,
                      key_instance_counter=status.key_instance_counter,
                      key_descriptors=tuple(f"{d.kind_name}: {d.text}" for d in status.descriptors),
                      next_block=next_words, next_block_key_descriptors=next_keys)


def _next_block(drive: TapeDrive) -> tuple[str, tuple[str, ...]]:
    """Page 0021h in words and its key descriptors; a transport failure propagates, a refusal is the reason."""
    try:
        nbes = drive.next_block_encryption_status()
    except (CheckCondition, ParseError) as err:
        return f"not read: {err}", ()
    return (f"block {nbes.logical_object}: {nbes.status_name}",
            tuple(f"{d.kind_name}: {d.text}" for d in nbes.descriptors))


P = TypeVar("P")


def _typed(page: Any, cls: type[P]) -> P:
    """The page as the typed class ``parse_log_page`` gives for its code, or ParseError (the section says so)."""
    if not isinstance(page, cls):
        raise ParseError(f"log page 0x{getattr(page, 'page_code', 0):02X} did not decode as {cls.__name__}")
    return page


def _temperature(drive: TapeDrive) -> Temperature:
    page = _typed(drive.log_sense(PAGE_TEMPERATURE), TemperaturePage)
    return Temperature(page.celsius, page.reference_celsius)


def _device_state(drive: TapeDrive) -> DeviceState:
    status = _typed(drive.log_sense(PAGE_DT_DEVICE_STATUS), DeviceStatus).status
    if status is None:
        raise ParseError("log page 0x11 has no very-high-frequency data parameter (0000h)")
    f = status.flags
    return DeviceState(cleaning_required=f["cleaning_required"], cleaning_requested=f["cleaning_requested"],
                       medium_present=f["medium_present"], write_protected=f["write_protected"],
                       activity=status.activity_name, flags=dict(f))


def _statistics(drive: TapeDrive) -> DriveStatistics:
    page = _typed(drive.log_sense(PAGE_DEVICE_STATISTICS), DeviceStatistics)
    per_medium = tuple(MediumHours(m.density_code, density_name(m.density_code), m.medium_type, m.hours)
                       for m in page.medium_type_hours)
    return DriveStatistics(page.stats(), per_medium)


def _ports(drive: TapeDrive) -> tuple[PhyCounters, ...]:
    page = _typed(drive.log_sense(PAGE_PROTOCOL_PORT), ProtocolPort)
    return tuple(PhyCounters(port.port, phy.phy_id, phy.link_rate, f"0x{phy.sas_address:016x}", f"0x{phy.attached_sas_address:016x}",
                             phy.invalid_dwords, phy.disparity_errors, phy.loss_of_sync, phy.phy_reset_problems)
                 for port in page.ports for phy in port.phys)


def _diagnostics(drive: TapeDrive) -> tuple[DiagnosticRecord, ...]:
    page = _typed(drive.log_sense(PAGE_TAPE_DIAGNOSTIC), TapeDiagnostic)
    return tuple(DiagnosticRecord(f"{sense_key_name(e.sense_key)}: {asc_text(e.asc, e.ascq)} ({e.sense_key:02X}/{e.asc:02X}/{e.ascq:02X})",
                                  e.opcode, e.medium_id, e.head_hours, e.timestamp, e.repeat, e.sense_key, e.asc, e.ascq)
                 for e in page.entries)


def _ltfs(drive: TapeDrive, mam: Mam) -> LtfsVolume | None:
    """The LTFS volume the cartridge memory names, with its partition count (mode page 11h, asked only then)."""
    from dataclasses import replace

    from app.ltfs import partition_count

    volume = from_mam(mam)
    return replace(volume, partitions=partition_count(drive)) if volume is not None else None


def _not_a_tape(device: str, identity: Identity, device_type: int) -> DriveInfo:
    """Identity only: nothing but INQUIRY was sent, and there is no tape verdict to give."""
    skipped = Unsupported(NOT_A_TAPE)
    reason = f"{device} is {_article(identity.device_type)} (peripheral type {device_type}), {NOT_A_TAPE}"
    return DriveInfo(device=device, identity=identity, generation=None, media=skipped, block_limits=skipped,
                     compression=skipped, cartridge=skipped, tapealerts=skipped, write_errors=skipped,
                     read_errors=skipped, cleaning_required=skipped, volume_statistics=skipped,
                     performance=skipped, health=Health(Verdict.NOT_A_TAPE, (reason,)), temperature=skipped,
                     device_status=skipped, device_statistics=skipped, ports=skipped, diagnostics=skipped,
                     non_medium_errors=skipped, encryption=skipped)


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _article(name: str) -> str:
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


def assess(tapealerts: Maybe[tuple[Alert, ...]], write_errors: Maybe[ErrorCounts], read_errors: Maybe[ErrorCounts],
           cleaning: Maybe[bool], *, evidence: "list[Evidence] | tuple[Evidence, ...]" = (),
           temperature: Maybe[Temperature] = NOT_REPORTED, device_status: Maybe[DeviceState] = NOT_REPORTED,
           device_statistics: Maybe[DriveStatistics] = NOT_REPORTED, ports: Maybe[tuple[PhyCounters, ...]] = NOT_REPORTED,
           diagnostics: Maybe[tuple[DiagnosticRecord, ...]] = NOT_REPORTED, non_medium_errors: Maybe[int] = NOT_REPORTED,
           tapealert_page: str = "") -> Health:
    """The verdict a technician acts on: the one health rule of tapediag (``info``, the assessment's health step).

    Every page that can signal trouble is turned into facts (``_subjects``) and judged by the
    rules of ``resources/rules/drive-health.json`` (``app.health_rules.evaluate``): TapeAlert
    flags, the error counters, cleaning required/requested (0Ch, 11h), temperature against the
    drive's own reference (0Dh), the device statistics' hard errors and temperature flag (14h),
    the kept diagnostic entries (16h), non-medium errors (06h), the SAS phy counters (18h), and
    every error a query got (``evidence``, classified by sense). Any Failing finding makes the
    verdict Failing, any Attention finding Attention; Notes are shown and do not move it.

    Healthy needs evidence of health: TapeAlert or the error counters read and clean. Without
    either (and nothing wrong found) the verdict is Not assessed, naming what the drive did not
    report. The positional parameters are the sections every drive may have; the keyword ones
    the drive-wide pages, which older callers may leave out.
    """
    subjects = _subjects(tapealerts, write_errors, read_errors, cleaning, evidence, temperature, device_status,
                         device_statistics, ports, diagnostics, non_medium_errors, tapealert_page)
    findings = evaluate(subjects)
    by_level = {level: [f for f in findings if f.level is level] for level in Level}
    judged = by_level[Level.FAILING] + by_level[Level.ATTENTION]
    notes = by_level[Level.NOTE]
    ordered = tuple(judged + notes)
    if by_level[Level.FAILING]:
        return Health(Verdict.FAILING, tuple(f.text for f in ordered), ordered)
    if judged:
        return Health(Verdict.ATTENTION, tuple(f.text for f in ordered), ordered)
    basis = _healthy_basis(tapealerts, write_errors, read_errors,
                           (("temperature", temperature), ("device status", device_status),
                            ("device statistics", device_statistics), ("SAS port", ports),
                            ("tape diagnostic data", diagnostics), ("non-medium errors", non_medium_errors)))
    if basis is None:
        by_reason: dict[str, list[str]] = {}
        for name, sec in (("TapeAlert", tapealerts), ("write error counters", write_errors),
                          ("read error counters", read_errors)):
            by_reason.setdefault(sec.reason if isinstance(sec, Unsupported) else "", []).append(name)
        missing = "; ".join(f"{_and(names)} ({reason})" for reason, names in by_reason.items())
        return Health(Verdict.NOT_ASSESSED, (f"the drive did not report {missing}",) + tuple(f.text for f in notes), ordered)
    return Health(Verdict.HEALTHY, (basis,) + tuple(f.text for f in notes), ordered)


def _healthy_basis(tapealerts: Maybe[Any], write_errors: Maybe[Any], read_errors: Maybe[Any],
                   drive_pages: tuple[tuple[str, Maybe[Any]], ...]) -> str | None:
    """What a Healthy verdict rests on, as the other verdicts name theirs (a ticket that says "Healthy"
    must say what was read: a drive may give only its write counters); None when nothing was read."""
    clean = ["TapeAlert: no warning or critical flag"] if isinstance(tapealerts, Supported) else []
    counted = [d for d, sec in (("write", write_errors), ("read", read_errors)) if isinstance(sec, Supported)]
    if counted:
        clean.append(f"{' and '.join(counted)} error counters: no uncorrected error")
    if not clean:
        return None
    read = [name for name, sec in drive_pages if isinstance(sec, Supported)]
    if read:
        clean.append(f"{_and_all(read)}: nothing past a threshold")
    return "; ".join(clean)


def _and_all(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _subjects(tapealerts: Maybe[tuple[Alert, ...]], write_errors: Maybe[ErrorCounts], read_errors: Maybe[ErrorCounts],
              cleaning: Maybe[bool], evidence: "list[Evidence] | tuple[Evidence, ...]", temperature: Maybe[Temperature],
              device_status: Maybe[DeviceState], statistics: Maybe[DriveStatistics], ports: Maybe[tuple[PhyCounters, ...]],
              diagnostics: Maybe[tuple[DiagnosticRecord, ...]], non_medium: Maybe[int], tapealert_page: str) -> list[Subject]:
    """The facts the drive-health rules read, one subject per thing a rule judges (``app.health_rules``)."""
    alerts = tapealerts.value if isinstance(tapealerts, Supported) else ()
    page = tapealert_page or "TapeAlert log page"
    out = [Subject("tapealert", {"code": a.code, "name": a.name, "severity": a.severity, "advice": a.text,
                                 "cleaning_flag": a.code in CLEANING_FLAGS, "culprit": tapealert_culprit(a.code),
                                 "tapealert_page": page}) for a in alerts]
    for code, direction, counts in ((0x02, "write", write_errors), (0x03, "read", read_errors)):
        if isinstance(counts, Supported):
            n = counts.value.uncorrected
            out.append(Subject("counters", {"page": code, "direction": direction, "uncorrected": n,
                                            "plural": "" if n == 1 else "s", "corrected": counts.value.corrected}))
    out.append(Subject("drive", _drive_facts(cleaning, alerts, temperature, device_status, statistics, ports, non_medium)))
    if isinstance(ports, Supported):
        out += [Subject("phy", {"port": p.port, "phy": p.phy, "invalid_dwords": p.invalid_dwords,
                                "disparity_errors": p.disparity_errors, "loss_of_sync": p.loss_of_sync,
                                "phy_reset_problems": p.phy_reset_problems, "errors": _phy_errors(p)}) for p in ports.value]
    if isinstance(diagnostics, Supported):
        out += [_diagnostic_subject(i, d) for i, d in enumerate(diagnostics.value)]
    return out + _query_subjects(evidence)


def _phy_errors(p: PhyCounters) -> int:
    return p.invalid_dwords + p.disparity_errors + p.loss_of_sync + p.phy_reset_problems


def _drive_facts(cleaning: Maybe[bool], alerts: tuple[Alert, ...], temperature: Maybe[Temperature],
                 device_status: Maybe[DeviceState], statistics: Maybe[DriveStatistics],
                 ports: Maybe[tuple[PhyCounters, ...]], non_medium: Maybe[int]) -> dict[str, Any]:
    """The drive-wide facts: None where the drive did not report one (a rule on it then does not fire)."""
    status = device_status.value if isinstance(device_status, Supported) else None
    figures = statistics.value.figures if isinstance(statistics, Supported) else {}
    temp = temperature.value if isinstance(temperature, Supported) else None
    by_status = status is not None and status.cleaning_required
    return {
        "cleaning_required": cleaning.value if isinstance(cleaning, Supported) else None,
        "cleaning_page": "log page 11h (DT device status)" if by_status else "log page 0Ch (sequential access)",
        "cleaning_parameter": "CRQRD" if by_status else "0100h cleaning required",
        "cleaning_requested": status.cleaning_requested if status is not None else None,
        "cleaning_flag_set": any(a.code in CLEANING_FLAGS for a in alerts),
        "temperature_c": temp.celsius if temp is not None else None,
        "reference_temperature_c": temp.reference_celsius if temp is not None else None,
        "max_temperature_exceeded": figures.get("max_mechanism_temperature_exceeded"),
        "hard_write_errors": figures.get("hard_write_errors"),
        "hard_read_errors": figures.get("hard_read_errors"),
        "power_on_hours": figures.get("lifetime_power_on_hours"),
        "non_medium_errors": non_medium.value if isinstance(non_medium, Supported) else None,
        "phy_errors": sum(_phy_errors(p) for p in ports.value) if isinstance(ports, Supported) else None,
    }


def _diagnostic_subject(index: int, entry: DiagnosticRecord) -> Subject:
    """A kept error, classified by its own sense as a query's would be (a MEDIUM ERROR is the cartridge's)."""
    from native.scsi.sense import Sense

    key, asc, ascq = entry.key, entry.asc, entry.ascq
    found = classify(Sense(response_code=0x70, key=key, asc=asc, ascq=ascq))
    return Subject("diagnostic", {"code": index, "head_hours": entry.head_hours, "sense": entry.sense, "opcode": entry.opcode,
                                  "medium": entry.medium_id or "-", "repeated": " (repeated)" if entry.repeat else "",
                                  "key": key, "asc": asc, "ascq": ascq, "class": found.kind, "culprit": found.culprit,
                                  "why": found.why})


def _query_subjects(evidence: "list[Evidence] | tuple[Evidence, ...]") -> list[Subject]:
    """One subject per distinct error, naming every query that got it: a drive failing every
    command reads as one diagnosis, not twelve copies of it."""
    grouped: dict[tuple[str, str], list[Evidence]] = {}
    for item in evidence:
        grouped.setdefault((item.kind, item.sense), []).append(item)
    out = []
    for (kind, sense), items in grouped.items():
        first = items[0]
        key, asc, ascq = first.code
        out.append(Subject("query", {"queries": ", ".join(i.query for i in items), "sense": sense, "class": kind,
                                     "verdict": first.level.value if first.level is not None else "Note",
                                     "culprit": first.culprit, "why": first.why, "key": key, "asc": asc, "ascq": ascq,
                                     "tur": any(i.query == "TEST UNIT READY" for i in items)}))
    return out


def snapshot(device: str, *, history: "History | None" = None) -> tuple[DriveInfo, int]:
    """Gather and record a ``drive-info`` run (issue 6: every snapshot is history); returns (info, run_id).

    The one entry point for the CLI and the GUI. The stored results are exactly
    ``DriveInfo.to_dict()``, the shape ``app.report`` reads. The device is opened before
    the run starts, so a device that cannot be reached leaves no run; one that drops
    out while being queried leaves a ``failed`` run with the error.
    """
    from app.history import record  # app.history imports nothing from here; kept local to stay light

    with TapeDrive.open(device) as drive:
        with record("drive-info", device, {}, history=history) as rec:
            info = gather(drive)
            rec.results = info.to_dict()
    return info, rec.run_id
