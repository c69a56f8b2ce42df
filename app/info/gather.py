"""Gathering: ``gather(drive)`` asks a drive everything ``info`` shows, read-only (nothing is written,
nothing moves), one step per group of queries, and hands what it read to the judge (``app.info.judge``).

Each section is ``Supported(value)`` or ``Unsupported(reason)``: a drive that lacks a page (ILLEGAL
REQUEST 20h/24h; tgt has no LOG SENSE at all) or has no cartridge loaded gives a readable "not supported
by this device" / "no cartridge loaded", which says nothing about health. Any other error answering a
query (HARDWARE ERROR, MEDIUM ERROR, a failing TEST UNIT READY) is shown in its section *and* becomes
evidence for the verdict. A non-tape (INQUIRY type not 01h) gets INQUIRY only and the verdict "Not a
tape drive". Only a drive that cannot be reached at all (transport errors, no INQUIRY) raises.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Callable, TypeVar

from app.drive import NOT_SUPPORTED, Maybe, Supported, TapeDrive, Unsupported, generation_from_product, is_not_supported
from app.health_rules import EVIDENCE, INFORMATIONAL, NO_CARTRIDGE as NO_CARTRIDGE_CLASS, Verdict, classify
from app.info.judge import Evidence, Health, assess
from app.info.model import NO_CARTRIDGE, NOT_A_TAPE, DriveInfo, Encryption, Identity
from app.wear import Wear, cartridge_wear, drive_reported_limits, drive_wear
from native.errors import CheckCondition, ParseError, UnitAttention
from native.scsi.density import lto_generation
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
    DtStatus,
    NonMediumErrors,
    ProtocolPort,
    TapeAlertResponse,
    TapeDiagnostic,
    Temperature,
)
from native.scsi.inquiry import DeviceIdentification, Inquiry
from native.scsi.logpages import (
    PAGE_HP_PERFORMANCE,
    PAGE_READ_ERRORS,
    PAGE_SEQUENTIAL_ACCESS,
    PAGE_VOLUME_STATISTICS,
    PAGE_WRITE_ERRORS,
    ErrorCounters,
    HpPerformance,
    SequentialAccess,
    TapeAlertFlag,
    VolumeStatistics,
)
from native.scsi.ltfs import LtfsVolume, from_mam
from native.scsi.mam import Mam
from native.scsi.vendorlogs import HP, VendorPage, vendor_family, vendor_page_from

T = TypeVar("T")
P = TypeVar("P")

NO_PATH_LIMIT = "not reported by this path"
HP_VENDORS = ("HP", "HPE")  # page 0x34 means "performance" only on HP drives (IBM: read forward errors)
#: An empty TapeAlert page is no evidence: "no flags set" needs the flags to have been reported.
EMPTY_TAPEALERT = "the drive returned the TapeAlert page without any flag parameter: no evidence either way"
_TAPEALERT_PAGES = {"log page 0x12": "log page 12h (TapeAlert response)", "log page 0x2E": "log page 2Eh (TapeAlert)"}
#: Vendor-specific log page codes (SPC-4: 30h-3Eh).
VENDOR_PAGE_CODES = range(0x30, 0x3F)


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


@dataclass
class _Reading:
    """One pass over a drive: the errors its queries gave (evidence for the verdict) and the log pages it
    lists, so that a page it does not list is not asked for."""

    drive: TapeDrive
    evidence: list[Evidence] = field(default_factory=list)
    listed: set[int] | None = None
    no_log_sense: bool = False  # the drive has no LOG SENSE at all (tgt): no page is asked for

    def section(self, fn: Callable[[], T], what: str) -> "Maybe[T]":
        return _section(fn, self.evidence, what)

    def log(self, page: int, read: Callable[[], Any] | None = None) -> Maybe[Any]:
        """A log page, typed by ``parse_log_page``; not asked when the drive does not list it."""
        if self.no_log_sense or (self.listed is not None and page not in self.listed):
            return Unsupported(NOT_SUPPORTED)
        return self.section(read or (lambda: self.drive.log_sense(page)), f"LOG SENSE page {page:02X}h")

    def listed_log(self, page: int, read: Callable[[], Any]) -> Maybe[Any]:
        """The drive-wide pages are optional: asked only when the supported-pages list names them, so
        a drive that could not even list its pages is not sent six more commands."""
        return self.log(page, read) if self.listed is not None else Unsupported(NOT_SUPPORTED)

    def typed_log(self, page: int, cls: type[P], *, listed: bool = False) -> Maybe[P]:
        """A log page as its typed class (an answer that does not decode as it says so in the section)."""
        read = (lambda: _typed(self.drive.log_sense(page), cls))
        return self.listed_log(page, read) if listed else self.log(page, read)


def gather(drive: TapeDrive) -> DriveInfo:
    """Query the drive (read-only: nothing is written, nothing moves) into a DriveInfo."""
    inquiry = drive.inquiry()
    identity = _identity(drive, inquiry)
    if not inquiry.is_tape:
        return _not_a_tape(drive.device, identity, inquiry.device_type)
    reading = _Reading(drive)
    tur = _settle(drive)
    if tur is not None:
        reading.evidence.append(tur)
    media = reading.section(drive.mode_header, "MODE SENSE")  # one MODE SENSE: density, block size, WP, buffering
    density = media.value.density_code if isinstance(media, Supported) else None
    generation = lto_generation(density) or generation_from_product(inquiry.product)
    sections: dict[str, Any] = {"media": media, **_cartridge_sections(reading)}
    sections.update(_log_sections(reading, inquiry.vendor))
    sections.update(_drive_pages(reading))
    sections["encryption"] = (reading.section(lambda: _encryption(drive), "SECURITY PROTOCOL IN (encryption)")
                              if (generation is None or generation >= 4) else Unsupported(NOT_SUPPORTED))
    sections["vendor_pages"] = _vendor_pages(drive, inquiry.vendor, reading)
    sections["wear"] = _wear(sections["device_statistics"], sections["cartridge"], sections["volume_statistics"],
                             sections["vendor_pages"])
    status = sections["device_status"]
    if isinstance(status, Supported) and (status.value.cleaning_required
                                          or not isinstance(sections["cleaning_required"], Supported)):
        # DT device status CRQRD: the drive itself says it must be cleaned (clear evidence, like 0x0C's flag).
        sections["cleaning_required"] = Supported(status.value.cleaning_required)
    limit = drive.transfer_limit()
    return DriveInfo(device=drive.device, identity=identity, generation=generation,
                     health=_judge(sections, reading.evidence),
                     max_transfer=Supported(limit) if limit is not None else Unsupported(NO_PATH_LIMIT),
                     command_timeouts=Supported(drive.command_timeouts()), **sections)


def _identity(drive: TapeDrive, inquiry: Inquiry) -> Identity:
    serial = _section(drive.serial_number)  # INQUIRY VPD: safe to ask any device type
    ident = _section(lambda: drive.vpd(0x83))
    return Identity(
        vendor=inquiry.vendor,
        product=inquiry.product,
        revision=inquiry.revision,
        serial=serial.value if isinstance(serial, Supported) else None,
        wwn=ident.value.wwn if isinstance(ident, Supported) and isinstance(ident.value, DeviceIdentification) else None,
        device_type=inquiry.device_type_name,
    )


def _cartridge_sections(reading: _Reading) -> dict[str, Any]:
    """Block limits, the compression page, the cartridge memory and the LTFS volume it names."""
    drive = reading.drive
    limits = reading.section(drive.read_block_limits, "READ BLOCK LIMITS")
    comp = reading.section(drive.compression, "MODE SENSE (compression)")
    if isinstance(comp, Supported) and comp.value is None:
        comp = Unsupported(NOT_SUPPORTED)  # the drive has no data compression page
    mam: Maybe[Mam] = reading.section(drive.read_attributes, "READ ATTRIBUTE (MAM)")
    ltfs = _ltfs(drive, mam.value) if isinstance(mam, Supported) else None
    return {"block_limits": limits, "compression": comp, "cartridge": mam, "ltfs": ltfs}


def _ltfs(drive: TapeDrive, mam: Mam) -> LtfsVolume | None:
    """The LTFS volume the cartridge memory names, with its partition count (mode page 11h, asked only then)."""
    volume = from_mam(mam)
    if volume is None:
        return None
    from dataclasses import replace

    from app.ltfs import partition_count  # with a volume to count the partitions of (issue 32 §3)

    return replace(volume, partitions=partition_count(drive))


def _log_sections(reading: _Reading, vendor: str) -> dict[str, Any]:
    """The supported-pages list, then TapeAlert, the error counters, cleaning, volume statistics and
    (HP) performance. TapeAlert response (0x12) gives the same flags without clearing them: preferred
    where listed; page 0x2E is read once otherwise, since reading it clears the flags."""
    drive = reading.drive
    pages = reading.section(drive.supported_log_pages, "LOG SENSE (supported pages)")
    reading.listed = set(pages.value) if isinstance(pages, Supported) else None
    reading.no_log_sense = isinstance(pages, Unsupported) and pages.reason == NOT_SUPPORTED
    if reading.listed is not None and PAGE_TAPEALERT_RESPONSE in reading.listed:
        alerts_page = reading.typed_log(PAGE_TAPEALERT_RESPONSE, TapeAlertResponse)
        source = "log page 0x12 (TapeAlert response: the flags stay set)"
    else:
        alerts_page = reading.log(0x2E, drive.tapealert)
        source = "log page 0x2E (reading it cleared the flags)" if isinstance(alerts_page, Supported) else ""
    write_errors = _as(reading.log(PAGE_WRITE_ERRORS), ErrorCounters)
    read_errors = _as(reading.log(PAGE_READ_ERRORS), ErrorCounters)
    seq = reading.log(PAGE_SEQUENTIAL_ACCESS)
    cleaning: Maybe[bool] = Unsupported(NOT_SUPPORTED)
    if isinstance(seq, Supported) and isinstance(seq.value, SequentialAccess) and seq.value.cleaning_required is not None:
        cleaning = Supported(seq.value.cleaning_required)
    vol = _as(reading.log(PAGE_VOLUME_STATISTICS), VolumeStatistics)
    performance: Maybe[HpPerformance] = Unsupported(NOT_SUPPORTED)
    if vendor.strip().upper() in HP_VENDORS:
        performance = reading.log(PAGE_HP_PERFORMANCE, lambda: HpPerformance.from_page(drive.log_sense(PAGE_HP_PERFORMANCE)))
    return {"tapealerts": _alerts(alerts_page), "tapealert_source": source, "write_errors": write_errors,
            "read_errors": read_errors, "cleaning_required": cleaning,
            "volume_statistics": Supported(vol.value.stats()) if isinstance(vol, Supported) else vol,
            "performance": performance}


def _drive_pages(reading: _Reading) -> dict[str, Any]:
    """The drive-wide pages (issue 15), each asked only where the drive lists it."""
    return {  # in this order: the order they are asked in
        "temperature": reading.typed_log(PAGE_TEMPERATURE, Temperature, listed=True),
        "device_status": _dt_status(reading.typed_log(PAGE_DT_DEVICE_STATUS, DeviceStatus, listed=True)),
        "device_statistics": reading.typed_log(PAGE_DEVICE_STATISTICS, DeviceStatistics, listed=True),
        "ports": _each(reading.typed_log(PAGE_PROTOCOL_PORT, ProtocolPort, listed=True), lambda p: p.ports),
        "diagnostics": _each(reading.typed_log(PAGE_TAPE_DIAGNOSTIC, TapeDiagnostic, listed=True), lambda p: p.entries),
        "non_medium_errors": reading.listed_log(
            PAGE_NON_MEDIUM_ERRORS, lambda: _typed(reading.drive.log_sense(PAGE_NON_MEDIUM_ERRORS), NonMediumErrors).count),
    }


def _judge(sections: dict[str, Any], evidence: list[Evidence]) -> Health:
    """The verdict over what was read (``app.info.judge.assess``, the one health rule)."""
    return assess(sections["tapealerts"], sections["write_errors"], sections["read_errors"],
                  sections["cleaning_required"], evidence=evidence, temperature=sections["temperature"],
                  device_status=sections["device_status"], device_statistics=sections["device_statistics"],
                  ports=sections["ports"], diagnostics=sections["diagnostics"],
                  non_medium_errors=sections["non_medium_errors"],
                  tapealert_page=_TAPEALERT_PAGES.get(sections["tapealert_source"][:13], ""))


def _typed(page: Any, cls: type[P]) -> P:
    """The page as the typed class ``parse_log_page`` gives for its code, or ParseError (the section says so)."""
    if not isinstance(page, cls):
        raise ParseError(f"log page 0x{getattr(page, 'page_code', 0):02X} did not decode as {cls.__name__}")
    return page


def _as(section: Maybe[Any], cls: type[P]) -> Maybe[P]:
    """A page read with ``_Reading.log`` as its typed class; one of another class is not supported."""
    if isinstance(section, Supported) and not isinstance(section.value, cls):
        return Unsupported(NOT_SUPPORTED)
    return section


def _each(section: Maybe[P], items: Callable[[P], tuple[T, ...]]) -> Maybe[tuple[T, ...]]:
    return Supported(items(section.value)) if isinstance(section, Supported) else section


def _dt_status(page: Maybe[DeviceStatus]) -> Maybe[DtStatus]:
    """Page 0x11's very-high-frequency parameter (0000h); a page without it is undecodable, and says so."""
    if not isinstance(page, Supported):
        return page
    if page.value.status is None:
        return Unsupported("the device returned data tapediag cannot decode "
                           "(log page 0x11 has no very-high-frequency data parameter (0000h))")
    return Supported(page.value.status)


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


def _article(name: str) -> str:
    return ("an " if name[:1].lower() in "aeiou" else "a ") + name


def _alerts(page: Maybe[Any]) -> Maybe[tuple[TapeAlertFlag, ...]]:
    """The active flags of page 0x12 or 0x2E; a page holding no parameter at all says nothing (issue 25)."""
    if not isinstance(page, Supported):
        return page
    if not page.value.parameters:
        return Unsupported(EMPTY_TAPEALERT)
    return Supported(tuple(page.value.active))


def _vendor_pages(drive: TapeDrive, vendor: str, reading: _Reading) -> Maybe[tuple[VendorPage, ...]]:
    """Every vendor page the drive lists, decoded by its vendor's table (``native.scsi.vendorlogs``).

    Gated by INQUIRY vendor: 34h is HP's performance page (shown as ``performance``) but IBM's read
    forward errors. A page that could not be read or decoded is still listed, with the reason (a drive
    error is evidence for the verdict as well; the raw bytes of a malformed page are in the ticket)."""
    family = vendor_family(vendor)
    codes = [c for c in sorted(reading.listed or ()) if c in VENDOR_PAGE_CODES
             and not (family == HP and c == PAGE_HP_PERFORMANCE)]
    if not codes:
        return Unsupported(NOT_SUPPORTED)
    got: list[VendorPage] = []
    for code in codes:
        page = reading.log(code, lambda code=code: vendor_page_from(family, drive.log_sense(code)))  # type: ignore[misc]
        got.append(page.value if isinstance(page, Supported) else VendorPage.unreadable(family, code, page.reason))
    return Supported(tuple(got))


def _wear(statistics: Maybe[DeviceStatistics], cartridge: Maybe[Mam], volume: Maybe[dict],
          vendor_pages: Maybe[tuple[VendorPage, ...]]) -> Maybe[Wear]:
    """Drive and cartridge wear against published design figures (``app.wear``: sources, and what has none)."""
    drive_figures = drive_wear(statistics.value.stats()) if isinstance(statistics, Supported) else ()
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


__all__ = ["EMPTY_TAPEALERT", "HP_VENDORS", "NO_PATH_LIMIT", "VENDOR_PAGE_CODES", "gather"]
