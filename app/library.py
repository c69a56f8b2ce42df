"""Tape libraries: the robot (SCSI medium changer) behind a device string, its inventory and moves.

Why a class of its own and not ``TapeDrive``: changer commands go only to a changer
(peripheral type 08h), as tape commands go only to a tape; each object checks its own
type before its first command (``app.device.ScsiDevice``, their one base). A read-only session (``app.device.STATE_CHANGING_OPCODES``,
the one list) refuses MOVE MEDIUM and INITIALIZE ELEMENT STATUS here as it refuses writes
in the drive object. A move is checked against a fresh inventory first (source full,
destination empty, both real elements), so the robot is asked only for moves that can
work; what it still refuses is one line with its decoded sense.

A move out of a drive (``Changer.move``) first makes the drive safe to empty, as a
backup application does: the tape drive behind the element is found by the serial its
device identifier names (``app.library_drives.drive_devices``, never guessed), asked
TEST UNIT READY (busy, "becoming ready" or an operation in progress: refused) and
unloaded (LOAD UNLOAD), so the robot never pulls a threaded tape. A drive that cannot be
named is refused unless the operator says it is unloaded (``unload=False``). A drive
held by PREVENT MEDIUM REMOVAL (the library answers 05/53/02) is the backup
application's: it is said in one line, and ALLOW MEDIUM REMOVAL is sent only when asked.

A move to or from the mail slot (an import/export element) is made with the library's
removal prevented (PREVENT MEDIUM REMOVAL to the changer), so the operator cannot open
the mail slot while the robot reaches into it, and allowed again afterwards (ALLOW)
only because tapediag prevented it: never when the PREVENT was refused or not sent, so
another application's prevention is never lifted by tapediag (it is per I_T nexus
anyway, SPC-4 6.15). A library that refuses the move because removal is prevented
(05/53/02) is said in one line. INITIALIZE ELEMENT STATUS (a full barcode scan: minutes
on a big library) is sent only on request (``Changer.initialize_element_status``).
"""
from __future__ import annotations

import contextlib
import re
import time
from dataclasses import dataclass

from app.device import ScsiDevice
from app.drive import TapeDrive
from native.scsi import cdb as C
from native.scsi.inquiry import Inquiry, device_type_name
from native.scsi.smc import (
    PAGE_ELEMENT_ADDRESS,
    Element,
    ElementMap,
    ElementType,
    initialize_element_status,
    move_medium,
    parse_element_status,
    read_element_status,
)
from native.errors import (
    CheckCondition,
    DeviceBusy,
    DeviceError,
    IllegalRequest,
    InvalidParameter,
    NotReady,
    ParseError,
    SafetyRefusal,
    TapediagError,
    UnitAttention,
)
from native.iscsi_url import display_device
from native.transport import DEFAULT_TIMEOUT, Transport
from native.units import plural

PERIPHERAL_CHANGER = 0x08
MOVE_TIMEOUT = 600.0  # a big library's robot crosses several frames
INIT_TIMEOUT = 3600.0  # INITIALIZE ELEMENT STATUS scans every barcode: an hour on a big multi-frame library
_DESCRIPTOR_MAX = 12 + 36 + 36 + 4 + 64  # base, both volume tags, a 64-byte identifier


class NotAChanger(InvalidParameter):
    """The device is not a medium changer: no changer command was sent (exit 2)."""


class MailSlotPrevented(SafetyRefusal):
    """The library refused a move to or from its mail slot: medium removal is prevented there by
    another application (05/53/02). Nothing moved (exit 3)."""

    def __init__(self, message: str) -> None:
        super().__init__(message, reason="mail slot", overridable=False,
                         hint="the backup software that locked it must release it")


class DriveNotSafe(SafetyRefusal):
    """A cartridge was not moved out of a drive: the drive is busy, cannot be named or unloaded,
    or holds the medium (PREVENT MEDIUM REMOVAL). The cartridge is still in the drive (exit 3)."""

    def __init__(self, message: str, *, overridable: bool = False, hint: str | None = None) -> None:
        super().__init__(message, reason="drive", overridable=overridable, hint=hint)


#: NOT READY answers of a drive at work: becoming ready (04/01), operation in progress (04/07),
#: SA creation in progress (04/13); and NO SENSE 00/16 (operation in progress).
_BUSY = {(0x04, 0x01), (0x04, 0x07), (0x04, 0x13), (0x00, 0x16)}


@dataclass(frozen=True)
class DriveRelease:
    """How a drive was made ready for its cartridge to leave: the tape drive used, if any."""

    device: str | None
    unloaded: bool  # False: the drive already had no threaded tape, or --no-unload
    allowed: bool = False  # ALLOW MEDIUM REMOVAL was sent on request


def release_drive(device: str, name: str, *, allow_removal: bool = False) -> DriveRelease:
    """Check the tape drive ``device`` (drive element ``name``) is idle, then unload it.

    TEST UNIT READY decides: GOOD, a tape is threaded and is unloaded; NOT READY with no
    medium (3A/xx) or "initializing command required" (04/02), the tape is already out of
    the drive's path; busy (``_BUSY``) or any other answer, refused with the drive's sense.
    A drive another program has open (the backup application: EBUSY) or another tapediag has
    claimed is refused as busy, never with advice to force the move: it is at work.
    """
    from app.claims import DeviceInUse, claimed

    try:
        with TapeDrive.open(device) as drive, claimed(drive, f"library --move (unloading {name})"):
            drive.require_tape()
            ready = _threaded(drive, name, device)
            if allow_removal:
                drive.prevent_medium_removal(False)
            if ready:
                drive.unload()
    except DriveNotSafe:
        raise
    except (DeviceBusy, DeviceInUse) as err:
        raise _busy(name, device, err) from None
    except IllegalRequest as err:  # a real drive refuses UNLOAD while PREVENT MEDIUM REMOVAL is set
        if _is_prevented(err):
            raise _prevented(name, allow_removal) from None
        raise DriveNotSafe(f"{name} ({device}) could not be checked and unloaded: {err}; the cartridge is still "
                           f"in {name}") from None
    except DeviceError as err:
        raise DriveNotSafe(f"{name} ({device}) could not be checked and unloaded: {err}; the cartridge is still "
                           f"in {name}") from None
    return DriveRelease(device, ready, allow_removal)


def _busy(name: str, device: str, err: TapediagError) -> DriveNotSafe:
    """A drive at work for another program: named busy, the cartridge left where it is, no way around it offered."""
    return DriveNotSafe(f"{name} ({device}) is busy: {err.message}; the cartridge is still in {name}, nothing moved",
                        hint="wait until that job has ended; a cartridge is never pulled from a drive in use")


def _is_prevented(err: CheckCondition) -> bool:
    return err.sense is not None and (err.sense.asc, err.sense.ascq) == (0x53, 0x02)


def _prevented(name: str, allowed: bool = False) -> DriveNotSafe:
    """PREVENT MEDIUM REMOVAL is per I_T nexus (SPC-4 6.15): an ALLOW lifts only the prevention of the
    initiator port it comes from (a local HBA shared with the backup software), not another host's or
    another iSCSI session's; that one ends when its application releases it or its session ends."""
    if allowed:
        return DriveNotSafe(f"{name}: medium removal still prevented (05/53/02) after ALLOW MEDIUM REMOVAL: another "
                            f"host or session (the backup software) holds the cartridge in {name}; nothing moved",
                            hint="stop that application's job or session")
    return DriveNotSafe(f"{name}: medium removal prevented (05/53/02): an application (the backup software) holds "
                        f"the cartridge in {name}; nothing moved",
                        hint="release it there, or use --allow-removal to send ALLOW MEDIUM REMOVAL")


def _threaded(drive: TapeDrive, name: str, device: str) -> bool:
    for _ in range(3):  # a unit attention (a load, a reset) is consumed by the TUR that reports it
        try:
            drive.test_unit_ready()
            return True
        except UnitAttention:
            continue
        except CheckCondition as err:
            sense = err.sense
            code = (sense.asc, sense.ascq) if sense is not None else None
            if isinstance(err, NotReady) and code is not None and (code[0] == 0x3A or code == (0x04, 0x02)):
                return False
            what = sense.describe() if sense is not None else str(err)
            if code in _BUSY:
                raise DriveNotSafe(f"{name} ({device}) is busy ({what}); the cartridge is still in {name}",
                                   hint="wait until the drive is idle, or stop the backup application's job") from None
            raise DriveNotSafe(f"{name} ({device}) is not ready to be emptied ({what}); the cartridge is still in "
                               f"{name}") from None
    raise DriveNotSafe(f"{name} ({device}) keeps reporting a unit attention; the cartridge is still in {name}")


@dataclass(frozen=True)
class Moved:
    """A move the robot made: its two elements, how the drive was released (a move out of a drive),
    and for a move to or from the mail slot whether tapediag held the library's removal prevented
    (True: PREVENT sent and ALLOW sent after; False: the library does not support PREVENT; None: no
    mail slot in the move)."""

    source: Element
    destination: Element
    release: DriveRelease | None = None
    mail_slot_locked: bool | None = None
    notes: tuple[str, ...] = ()  # the media check's one-line notes (an unknown label, a read-only load)

    def to_dict(self, inv: "Inventory") -> dict[str, object]:
        return {"source": inv.name(self.source), "destination": inv.name(self.destination),
                "barcode": self.source.barcode, "drive": self.release.device if self.release else None,
                "unloaded": self.release.unloaded if self.release else False,
                "allow_removal_sent": self.release.allowed if self.release else False,
                "mail_slot_locked": self.mail_slot_locked}


@dataclass(frozen=True)
class Inventory:
    device: str
    vendor: str
    product: str
    elements: tuple[Element, ...]

    def of(self, kind: ElementType) -> tuple[Element, ...]:
        return tuple(e for e in self.elements if e.type is kind)

    def find(self, name: str) -> Element:
        """``slot:3`` (1-based, as on a library's panel), ``drive:0`` / ``ie:0`` (0-based), or an address."""
        match = re.fullmatch(r"(slot|drive|ie|robot):(\d+)", name.strip().lower())
        if match:
            kind = {"slot": ElementType.STORAGE, "drive": ElementType.DATA_TRANSFER, "ie": ElementType.IMPORT_EXPORT,
                    "robot": ElementType.TRANSPORT}[match.group(1)]
            index = int(match.group(2)) - (1 if kind is ElementType.STORAGE else 0)
            elements = self.of(kind)
            if 0 <= index < len(elements):
                return elements[index]
            raise InvalidParameter(f"{name}: the library has {plural(len(elements), kind.word + ' element')}")
        if name.strip().isdigit():
            address = int(name)
            for element in self.elements:
                if element.address == address:
                    return element
            raise InvalidParameter(f"element address {address} is not in this library")
        raise InvalidParameter(f"{name!r} names no element", hint="use slot:N, drive:N, ie:N or an element address")

    def name(self, element: Element) -> str:
        """By type and address, so an element read before a move is named by a later inventory too."""
        same = [e.address for e in self.of(element.type)]
        index = same.index(element.address) + (1 if element.type is ElementType.STORAGE else 0)
        return f"{element.type.word}:{index}"

    def to_dict(self) -> dict[str, object]:
        return {"device": self.device, "vendor": self.vendor, "product": self.product,
                "elements": [{"name": self.name(e), "type": e.type.word, "address": e.address, "full": e.full,
                              "barcode": e.barcode, "cleaning": e.cleaning, "source": e.source,
                              "identifier": e.identifier,
                              "exception": f"{e.exception[0]:02X}/{e.exception[1]:02X}" if e.exception else None}
                             for e in self.elements]}


#: Seconds a changer command may take (``ScsiDevice._timeout_of``); any other, the default minute.
CHANGER_TIMEOUTS = {C.MOVE_MEDIUM: MOVE_TIMEOUT, C.INITIALIZE_ELEMENT_STATUS: INIT_TIMEOUT}


class Changer(ScsiDevice):
    """One medium changer over a transport (``ScsiDevice``: the gates, the statuses, the watch). Not
    thread-safe: one worker per device."""

    PERIPHERAL = PERIPHERAL_CHANGER
    KIND = "library"

    def __init__(self, transport: Transport, *, device: str | None = None, read_only: bool | None = None) -> None:
        super().__init__(transport, device=device, read_only=read_only)
        self._robot_address: int | None = None

    def _timeout_of(self, opcode: int) -> float:
        return CHANGER_TIMEOUTS.get(opcode, DEFAULT_TIMEOUT)

    def _wrong_type(self, inquiry: Inquiry) -> InvalidParameter:
        return NotAChanger(f"{self.device} is a {device_type_name(inquiry.device_type)} device "
                           f"(peripheral type {inquiry.device_type}), not a media changer")

    def _ask(self, cdb: bytes, alloc: int = 0) -> bytes:
        """A command that must succeed, with the data it returns. A library reports UNIT ATTENTION after
        power-on or a door opened: the command is sent again (twice at most)."""
        for attempt in range(3):
            try:
                return self._data_in(cdb, alloc, timeout=self._timeout_of(cdb[0]))
            except UnitAttention:
                if attempt == 2:
                    raise
        raise AssertionError("not reached")

    def identify(self) -> Inquiry:
        """The library's INQUIRY (read once)."""
        return self._inquiry or self.inquiry()

    def element_map(self) -> ElementMap | None:
        """The Element Address Assignment page (1Dh), or None when the library does not report it."""
        try:
            data = self._ask(C.mode_sense6(PAGE_ELEMENT_ADDRESS, dbd=True), 255)
        except IllegalRequest:
            return None
        try:
            return ElementMap.parse_page(data[4 + data[3]:]) if len(data) >= 4 else None
        except ParseError:
            return None

    def inventory(self) -> Inventory:
        """Every element, one READ ELEMENT STATUS per element type.

        Why per type and not one request for all: tgt's answer to "all types" overlays its
        pages on each other (1.0.85, docs/tgt-changer.md), and a real library's answer to one
        type is the form every backup application uses. The element map (1Dh) says which
        types exist and how many, so an absent type (no mail slot) is not asked for.
        """
        inquiry = self.identify()
        self.require_type()
        emap = self.element_map()
        elements: list[Element] = []
        for kind in ElementType:
            first, count = emap.of(kind) if emap is not None else (0, 0xFFFF)
            if count == 0:
                continue
            alloc = min(0xFFFFFF, 16 + count * _DESCRIPTOR_MAX) if emap is not None else 0xFFFF
            try:
                data = self._ask(read_element_status(element_type=kind, start=first, count=count, alloc=alloc), alloc)
            except IllegalRequest:
                if emap is not None:
                    raise
                continue  # no map and no element of this type
            elements += [e for e in parse_element_status(data) if e.type is kind]
        robot = next((e.address for e in elements if e.type is ElementType.TRANSPORT), None)
        self._robot_address = robot if robot is not None else self._robot_address
        return Inventory(self.device, inquiry.vendor, inquiry.product, tuple(elements))

    def initialize_element_status(self) -> None:
        """INITIALIZE ELEMENT STATUS (07h): the library checks every element again (a barcode scan). Sent only
        on request: minutes on a big library, hence the long timeout."""
        self._ask(initialize_element_status())

    def move(self, source: str, destination: str, *, unload: bool = True, allow_removal: bool = False,
             writes: bool = False) -> Moved:
        """Move the cartridge in ``source`` to ``destination`` (names as ``Inventory.find``).

        Into a drive, the cartridge's label is checked against the drive's generation first
        (``media_fit``): a cartridge the drive cannot use is refused before the robot moves,
        and with ``writes`` (a write test follows) one it can only read too.
        Out of a drive, the drive is released first (``release_drive``) through the tape drive
        its identifier names; ``unload=False`` is the operator's word that it is unloaded.
        ``allow_removal`` sends ALLOW MEDIUM REMOVAL to that drive: only on the operator's request.
        To or from the mail slot, the library's removal is prevented for the move (``_lock``).
        """
        self.require_writable(C.MOVE_MEDIUM)  # refused before the inventory and the drive's unload
        inv = self.inventory()
        src, dst = check_move(inv, source, destination)
        notes = media_fit(inv, src, dst, writes=writes)
        release = None
        if src.type is ElementType.DATA_TRANSFER and (unload or allow_removal):
            release = release_drive(_drive_of(inv, src), inv.name(src), allow_removal=allow_removal)
        mail_slot = next((e for e in (src, dst) if e.type is ElementType.IMPORT_EXPORT), None)
        locked = self._lock() if mail_slot is not None else None
        try:
            self.send_move(src, dst)
        except BaseException as err:
            if locked:  # the move's error is the one to say; the ALLOW is still owed
                with contextlib.suppress(DeviceError):
                    self._unlock()
            if not isinstance(err, IllegalRequest) or not _is_prevented(err):
                raise
            if src.type is ElementType.DATA_TRANSFER:
                raise _prevented(inv.name(src), release is not None and release.allowed) from None
            where = inv.name(mail_slot) if mail_slot is not None else f"{inv.name(src)} -> {inv.name(dst)}"
            raise MailSlotPrevented(f"{where}: medium removal prevented by the library (05/53/02): another "
                                    "application holds its mail slot; nothing moved") from None
        if locked:
            self._unlock()
        return Moved(src, dst, release, locked, notes)

    def _lock(self) -> bool:
        """PREVENT MEDIUM REMOVAL to the changer: True when the library took it (then ``_unlock`` is owed),
        False when it does not support it (05/20/00 or 05/24/00: tgt's changer, docs/tgt-changer.md)."""
        try:
            self._ask(C.prevent_allow_medium_removal(prevent=True))
        except IllegalRequest as err:
            if err.sense is not None and err.sense.asc in (0x20, 0x24):
                return False
            raise
        return True

    def _unlock(self) -> None:
        """ALLOW MEDIUM REMOVAL: only after tapediag's own PREVENT (``_lock``); it lifts no other application's."""
        try:
            self._ask(C.prevent_allow_medium_removal(prevent=False))
        except DeviceError as err:
            raise DeviceError(f"ALLOW MEDIUM REMOVAL after the move failed: {err}; the library may keep its "
                              "mail slot locked until this host's session ends", device=self.device) from None

    def send_move(self, src: Element, dst: Element) -> float:
        """MOVE MEDIUM for a move ``check_move`` passed; the seconds the robot took."""
        robot = self._robot_address if self._robot_address is not None else 0  # set by the inventory before
        start = time.monotonic()
        self._ask(move_medium(robot, src.address, dst.address))
        return time.monotonic() - start


def _drive_of(inv: Inventory, src: Element) -> str:
    """The tape drive behind drive element ``src``, to check and unload it through; refused when it cannot be
    named. ``--no-unload`` is offered only when no listed drive is at work for another program: a busy drive
    that could not be identified may be this one, and pulling a tape from under a backup is the harm to avoid."""
    from app.library_drives import drive_matches

    name = inv.name(src)
    found = drive_matches(inv, {src.address})
    device = next((d.device for d in found.drives if d.device), None)
    if device is not None:
        return device
    ident = f"its identifier {src.identifier.strip()!r}" if src.identifier.strip() else \
        "the library reports no identifier for it"
    if found.unidentified:
        busy = ", ".join(found.unidentified)
        raise DriveNotSafe(f"{name} (address {src.address}): no listed tape drive matches {ident}, and {busy} "
                           f"{'is' if len(found.unidentified) == 1 else 'are'} busy (in use by another program) and "
                           f"could not be identified, so {name} may be at work; the cartridge is still in {name}, "
                           "nothing moved",
                           hint="wait until that program's job has ended, then move it")
    raise DriveNotSafe(f"{name} (address {src.address}): no listed tape drive matches {ident}, so it "
                       f"cannot be checked and unloaded; the cartridge is still in {name}",
                       overridable=True,
                       hint="add the drive ('tapediag devices --add-iscsi URL'), or unload it "
                            "yourself and use --no-unload")


def media_fit(inv: Inventory, src: Element, dst: Element, *, writes: bool = False,
              device: str | None = None) -> tuple[str, ...]:
    """Before a cartridge goes into a drive: its label against the drive's generation (``app.media``).

    Raises ``MediaRefusal`` (nothing moved) for a cartridge the drive cannot use, or, with ``writes``, one it
    can only read; returns the notes to say (an unknown label, a read-only load). Nothing to check (no
    drive destination, no label with a media identifier, no tape drive named by the element): ()."""
    from app import media
    from native.scsi.media import medium_of_barcode

    label = src.barcode.strip()
    if dst.type is not ElementType.DATA_TRANSFER or not label:
        return ()
    if medium_of_barcode(label) is None:  # nothing the rules can check: said, not refused
        return tuple(media.judge(media.DriveGeneration(None, ""), barcode=label).notes)
    if device is None:
        from app.library_drives import drive_devices

        device = drive_devices(inv, {dst.address}).get(dst.address)
    if device is None:
        return ()
    try:
        with TapeDrive.open(device) as drive:
            generation = media.drive_generation(drive)
    except TapediagError as err:  # the move may still be wanted (the library loads it); said, not refused
        return (f"{label}: the drive in {inv.name(dst)} ({display_device(device)}) could not be asked its generation ({err}); the "
                "label was not checked",)
    fit = media.judge(generation, barcode=label)
    refused = media.refusal(fit, writes=writes, doing=f"moving {label} into {inv.name(dst)}", test=False)
    if refused is not None:
        raise refused
    return tuple(media.notes(fit, writes=writes))


def check_move(inv: Inventory, source: str, destination: str) -> tuple[Element, Element]:
    """The two elements of a move that can work by ``inv``: both real, source full, destination empty."""
    src, dst = inv.find(source), inv.find(destination)
    if ElementType.TRANSPORT in (src.type, dst.type):
        raise InvalidParameter("the robot's picker is neither a source nor a destination")
    if not src.full:
        raise InvalidParameter(f"{inv.name(src)} (address {src.address}) is empty: nothing to move")
    if dst.full:
        raise InvalidParameter(f"{inv.name(dst)} (address {dst.address}) already holds {dst.barcode or 'a cartridge'}")
    return src, dst


__all__ = ["Changer", "DriveNotSafe", "DriveRelease", "Inventory", "MailSlotPrevented", "Moved", "NotAChanger",
           "check_move", "media_fit", "release_drive"]
