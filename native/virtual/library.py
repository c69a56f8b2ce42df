"""A virtual tape library (``virtual:library?drives=2&slots=12&ie=1``): a SCSI medium changer.

It answers what a real library's robot does (SMC-3): INQUIRY (peripheral type 08h),
TEST UNIT READY, REQUEST SENSE, MODE SENSE of the Element Address Assignment page (1Dh),
READ ELEMENT STATUS with volume tags (barcodes) and the drives' device identifiers,
MOVE MEDIUM and INITIALIZE ELEMENT STATUS, with real libraries' refusals: a move from an
empty element is 05/3B/0E, into a full one 05/3B/0D, an address that is no element
05/21/01. The state (which barcode is where) lives in ``library.json`` in the library's
folder (``dir=``, default the data directory's ``virtual-library``; ``library_state.py``):
read by every command and changed under a lock, so every process sees one library, as every
host sees one real library, and a trainer's library survives between runs. Nothing is
written before the first move: reading a library (and a read-only session) leaves its folder
as it was. A ``library.json`` that is not tapediag's is refused, never overwritten; a library
opened with another layout (``drives``, ``slots``, ``ie``) than its file holds is refused
too, rather than losing where its cartridges are. ``robotfault=N`` makes the
N-th move fail with a HARDWARE ERROR (04/15/01, mechanical positioning error) for training;
``robotfault=3,4`` the 3rd and the 4th (a robot that stays broken, so that a cartridge
cannot be put back). Moves are counted per opened library (per command).

The mail slot (``ie=N`` import/export elements) is reached by the robot like a slot.
PREVENT ALLOW MEDIUM REMOVAL on the changer locks and unlocks it for this session (the
state is kept per opened library, as a real library keeps it per I_T nexus);
``ielocked=1`` is a mail slot that another host's application has locked: a move to or
from it answers 05/53/02 (medium removal prevented), whatever this session sends.
INITIALIZE ELEMENT STATUS finds what was changed by hand in ``library.json``, as a real
library's barcode scan finds what an operator moved behind the door (every command reads
the file, so the other commands see it too).

Its drives are virtual LTO drives (``lto=N``, default 9; ``realtime=0`` makes them answer
at once): drive element N is ``drive_device(N)``, ``virtual:ltoN?library=DIR&drive=N``,
whose cartridge is the one the robot put there, a file per barcode in ``DIR/cartridges``
(created blank on its first load), so what is written through the drive stays with the
cartridge when it goes back to its slot. Its serial is the identifier the element reports
(``TDLIBDRV00N``), which is how ``app.library_discovery`` names it. A cartridge moved into a
drive is threaded (an LTO drive loads what is inserted); the robot refuses to pull a
threaded one until the drive has unloaded it (LOAD UNLOAD), as real libraries do: the
Quantum/Exabyte Magnum 1x7 LTO autoloader answers 05/3B/90 ("source cartridge is loaded
inside the tape drive and is not accessible", SCSI reference 1014826, MOVE MEDIUM), and
SMC-3 leaves the unload to the application unless the library offers it (StorageTek
SL150/SL4000's move option 11b). The threaded state is ``threaded`` in ``library.json``,
written by the drive on LOAD and UNLOAD.

Its cartridges are labelled for its drives' generation (``TD0001L9`` for ``lto=9``,
``...LA`` for LTO-10; the last slot holds a cleaning cartridge), and each cartridge's
memory says the same generation: the label's media identifier is the rule table's
(``native.scsi.media``). ``media=L8,L9,LZ`` labels the data cartridges with these media
identifiers instead, in turn (WORM ones are WORM cartridges): a library whose cartridges
do not all fit its drives, on purpose, for training. Such a cartridge is refused by
tapediag before the move; a robot asked anyway answers as a library whose drive cannot
load it does: 03/53/00 (media load or eject failed; the Quantum/Exabyte Magnum 1x7
autoloader, SCSI reference 1014826, MOVE MEDIUM) with the cartridge back in its source
element (Oracle StorageTek SL4000, MOVE MEDIUM: a failed load is moved back to the source).
A cartridge the drive can only read loads.

Options: ``drives`` (1-16), ``slots`` (1-500), ``ie`` (0-8), ``dir``, ``robotfault``,
``lto`` (5-10, the drives' generation), ``media`` (media identifiers, e.g. ``L8,L9``),
``realtime`` (0|1, the drives' and the robot's pacing), ``ielocked`` (0|1).

With ``realtime=1`` (the default) a move takes the robot time: a fixed grip-and-put part
and a part that grows with the distance the picker travels (elements in the order mail
slots, drives, slots), so far moves are slower, as on a real library, and the exerciser's
move-time plot has a shape. It is shortened (0.3-2 s) from a real robot's 10-60 s so that
a training session stays short; ``realtime=0`` moves at once (functional tests).

The commands' CDBs are read through their one declared layout (``native.scsi.smc``, ``native.scsi.cdb``),
as tapediag builds them; the answers' layouts are encoded here, independently, and the app's parsers
(``native/scsi/smc.py``) read them back in the tests.
"""
from __future__ import annotations

import struct
import time
import zlib
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import parse_qsl, quote

from native.errors import InvalidParameter, TransportError
from native.transport import (
    CHECK_CONDITION,
    DEFAULT_TIMEOUT,
    GOOD,
    Buffer,
    CommandResult,
    Transport,
    WritableBuffer,
    make_data_in,
)
from native.scsi.media import MEDIA, Access, Medium, access, ident_for, medium_of_barcode
from native.virtual.library_state import LibraryState, StateFile
from native.scsi import cdb as C
from native.scsi.smc import MoveMedium, ReadElementStatus
from native.virtual.options import default_library_folder
from native.virtual.sense import HARDWARE_ERROR, ILLEGAL_REQUEST, MEDIUM_ERROR, NO_SENSE, UNIT_ATTENTION, fixed_sense
from native.virtual.specs import GENERATIONS

TRANSPORT, IE_FIRST, DRIVE_FIRST, SLOT_FIRST = 0, 10, 500, 1000
TYPE_TRANSPORT, TYPE_STORAGE, TYPE_IE, TYPE_DRIVE = 1, 2, 3, 4
_DESC_LEN = 12 + 36 + 4 + 16  # header, primary volume tag, identifier header, 16-byte identifier


@dataclass
class LibraryOptions:
    drives: int = 2
    slots: int = 12
    ie: int = 1
    folder: Path | None = None
    robot_fault: frozenset[int] = frozenset()  # fail these moves (1-based) with a robotics error
    lto: int = 9  # the drives' LTO generation
    media: tuple[str, ...] = ()  # media identifiers the data cartridges are labelled with, in turn (default: lto's)
    realtime: bool = True  # False: the drives answer at once (functional tests)
    ie_locked: bool = False  # another host's application holds the mail slot (PREVENT MEDIUM REMOVAL)


def parse_library(device: str) -> LibraryOptions:
    head, _, query = device.partition("?")
    if head.strip().lower() != "virtual:library":
        raise InvalidParameter(f"'{head}' is not the virtual library", hint="use virtual:library?drives=2&slots=12")
    opts = LibraryOptions()
    for key, value in parse_qsl(query, keep_blank_values=True):
        try:
            if key in ("drives", "slots", "ie"):
                number = int(value)
                low, high = (0 if key == "ie" else 1), {"drives": 16, "slots": 500, "ie": 8}[key]
                if not low <= number <= high:
                    raise ValueError
                setattr(opts, key, number)
            elif key == "dir":
                if not value or "\0" in value:
                    raise ValueError
                opts.folder = Path(value)
            elif key == "lto":
                opts.lto = int(value)
                if not 5 <= opts.lto <= 10:
                    raise ValueError
            elif key == "media":
                opts.media = _media(value)
            elif key in ("realtime", "ielocked"):
                if value not in ("0", "1"):
                    raise ValueError
                setattr(opts, "realtime" if key == "realtime" else "ie_locked", value == "1")
            elif key == "robotfault":
                opts.robot_fault = frozenset(int(n) for n in value.split(","))
                if not opts.robot_fault or min(opts.robot_fault) < 1:
                    raise ValueError
            else:
                raise InvalidParameter(f"unknown virtual library option '{key}'", hint="known: drives, slots, ie, dir, "
                                                                                        "robotfault, lto, media, "
                                                                                        "realtime, ielocked")
        except ValueError:
            raise InvalidParameter(f"{key}={value!r} is out of range for the virtual library") from None
    return opts


def _media(value: str) -> tuple[str, ...]:
    """``media=L8,L9``: media identifiers of cartridges a virtual drive can hold (data or WORM, LTO-5...10)."""
    idents = tuple(v.strip().upper() for v in value.split(","))
    for ident in idents:
        medium = medium_of_barcode(f"XX0000{ident}")
        if medium is None or medium.cleaning or medium.format == "M8" or medium.generation not in GENERATIONS:
            raise InvalidParameter(f"media={value}: {ident or 'an empty item'} is not the media identifier of a "
                                   "cartridge the virtual drives hold", hint="L5...L9, LA, or WORM LV...LZ")
    return idents


def cartridge_medium(barcode: str, drive_generation: int) -> Medium:
    """The medium a library cartridge is made as when first loaded: its label's media identifier, the drive's
    own generation when the label names none a virtual drive holds."""
    medium = medium_of_barcode(barcode)
    if medium is None or medium.cleaning or medium.generation not in GENERATIONS or medium.format == "M8":
        return next(m for m in MEDIA if m.ident == ident_for(drive_generation))
    return medium


class VirtualLibrary(Transport):
    def __init__(self, device: str) -> None:
        self.device = device
        self.opts = parse_library(device)
        if self.opts.folder is None:
            self.opts.folder = default_library_folder()
        self.folder = self.opts.folder
        if self.folder.exists() and not self.folder.is_dir():
            raise InvalidParameter(f"dir={self.folder} is not a folder", hint="name a folder for the library's state")
        self.store = StateFile(self.folder)
        self.state_path = self.store.path
        self.state = self._fresh()
        self.moves = 0
        self.prevented = False  # this session's PREVENT MEDIUM REMOVAL (the mail slot locked)
        self.initialized = 0  # INITIALIZE ELEMENT STATUS commands answered
        self._unit_attention = True
        self._load()  # a foreign or damaged file, or another layout, is refused here, at open

    # -- state --------------------------------------------------------------------------
    def _addresses(self) -> dict[int, int]:
        o = self.opts
        out = {TRANSPORT: TYPE_TRANSPORT}
        out.update({IE_FIRST + i: TYPE_IE for i in range(o.ie)})
        out.update({DRIVE_FIRST + i: TYPE_DRIVE for i in range(o.drives)})
        out.update({SLOT_FIRST + i: TYPE_STORAGE for i in range(o.slots)})
        return out

    @property
    def contents(self) -> dict[int, str | None]:
        """Element address -> barcode (None: empty), as last read."""
        return self.state.contents

    @property
    def sources(self) -> dict[int, int]:
        return self.state.sources

    @property
    def threaded(self) -> set[int]:
        """Drive elements whose tape is threaded (loaded, not unloaded)."""
        return self.state.threaded

    def _fresh(self) -> LibraryState:
        """A new library: every slot full with a barcoded scratch cartridge, the last one a cleaner."""
        contents: dict[int, str | None] = {a: None for a in self._addresses()}
        idents = self.opts.media or (ident_for(self.opts.lto),)
        for i in range(self.opts.slots):
            label = f"CLN{i:03d}L1" if i == self.opts.slots - 1 else f"TD{i:04d}{idents[i % len(idents)]}"
            contents[SLOT_FIRST + i] = label
        return LibraryState(contents)

    def _load(self) -> None:
        """The library as its file now says (a new one while there is none); refused when the file holds
        another layout than this library's options (its cartridges' places would be lost)."""
        saved = self.store.read()
        if saved is not None:
            self._check_layout(saved)
        self.state = saved or self._fresh()

    def save(self) -> None:
        """Write the library's file now if it has none: a new library a trainer may then edit by hand."""
        self.store.create(self.state)

    def _check_layout(self, saved: LibraryState) -> None:
        if sorted(saved.contents) == sorted(self._addresses()):
            return

        def count(first: int, last: int) -> int:
            return sum(1 for a in saved.contents if first <= a < last)

        held = (f"{count(DRIVE_FIRST, SLOT_FIRST)} drive(s), {count(SLOT_FIRST, 1 << 16)} slot(s) and "
                f"{count(IE_FIRST, DRIVE_FIRST)} mail slot(s)")
        o = self.opts
        raise InvalidParameter(f"the virtual library in {self.folder} has {held}, not the drives={o.drives}, "
                               f"slots={o.slots}, ie={o.ie} asked for; its cartridges stay where they are",
                               hint="open it with its own layout, or give a new library its own dir=")

    # -- SCSI ---------------------------------------------------------------------------
    def execute(self, cdb: bytes, *, data_out: Buffer | None = None, data_in: int | WritableBuffer = 0,
                timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        cdb = bytes(cdb)
        buf = make_data_in(data_in) if (not isinstance(data_in, int) or data_in) else memoryview(bytearray())
        op = cdb[0] if cdb else -1
        if op not in (C.INQUIRY, C.REQUEST_SENSE) and self._unit_attention:
            self._unit_attention = False
            return self._check(UNIT_ATTENTION, 0x29, 0x00)  # power on / reset, as a library reports first
        if len(cdb) < C.cdb_length(op):
            return self._check(ILLEGAL_REQUEST, 0x20, 0x00)
        if op == C.INQUIRY:
            answer = self._inquiry(cdb)
        elif op == C.TEST_UNIT_READY:
            answer = b""
        elif op == C.PREVENT_ALLOW_MEDIUM_REMOVAL:  # this session's lock on the mail slot
            self.prevented = bool(C.PreventAllowMediumRemoval.parse(cdb).prevent)
            answer = b""
        elif op == C.INITIALIZE_ELEMENT_STATUS:  # scan again, finding what changed by hand
            self.initialized += 1
            self._load()
            answer = b""
        elif op == C.REQUEST_SENSE:
            answer = fixed_sense(NO_SENSE, 0, 0)
        elif op in (C.MODE_SENSE_6, C.MODE_SENSE_10):
            answer = self._mode_sense(cdb)
        elif op == C.READ_ELEMENT_STATUS:
            self._load()
            answer = self._read_element_status(cdb)
        elif op == C.MOVE_MEDIUM:
            return self._move(cdb)
        else:
            return self._check(ILLEGAL_REQUEST, 0x20, 0x00)  # invalid command operation code
        if isinstance(answer, CommandResult):
            return answer
        n = min(len(answer), len(buf))
        buf[:n] = answer[:n]
        return CommandResult(GOOD, b"", buf[:n], n)

    def _check(self, key: int, asc: int, ascq: int) -> CommandResult:
        return CommandResult(CHECK_CONDITION, fixed_sense(key, asc, ascq), memoryview(bytearray()), 0)

    def _inquiry(self, cdb: bytes) -> bytes | CommandResult:
        command = C.Inquiry.parse(cdb)
        if command.evpd:
            if command.page_code == 0x80:
                serial = b"TDLIB0001"
                return bytes([0x08, 0x80, 0, len(serial)]) + serial
            if command.page_code == 0x00:
                return bytes([0x08, 0x00, 0, 3, 0x00, 0x80, 0x83])
            if command.page_code == 0x83:  # the library's WWN (NAA 5), one per folder: what tells two libraries apart
                naa = (0x5 << 60) | (0x001438 << 36) | (zlib.crc32(str(self.folder.resolve()).encode()) & 0xFFFFFFFFF)
                return bytes([0x08, 0x83, 0, 12, 0x01, 0x03, 0, 8]) + naa.to_bytes(8, "big")
            return self._check(ILLEGAL_REQUEST, 0x24, 0x00)
        data = bytearray(96)
        data[0] = 0x08  # medium changer
        data[1] = 0x80  # removable
        data[2], data[3], data[4] = 0x06, 0x02, 91
        data[8:16] = b"TAPEDIAG"
        data[16:32] = b"VIRTUAL LIBRARY ".ljust(16)
        data[32:36] = b"V1.0"
        return bytes(data)

    def _mode_sense(self, cdb: bytes) -> bytes | CommandResult:
        ten = cdb[0] == C.MODE_SENSE_10
        if (C.ModeSense10.parse(cdb) if ten else C.ModeSense6.parse(cdb)).page_code not in (0x1D, 0x3F):
            return self._check(ILLEGAL_REQUEST, 0x24, 0x00)
        o = self.opts
        page = bytes([0x1D, 0x12]) + struct.pack(">8H", TRANSPORT, 1, SLOT_FIRST, o.slots, IE_FIRST, o.ie,
                                                  DRIVE_FIRST, o.drives) + bytes(2)
        if ten:
            return struct.pack(">HBBBBH", len(page) + 6, 0, 0, 0, 0, 0) + page
        return bytes([len(page) + 3, 0, 0, 0]) + page

    def _read_element_status(self, cdb: bytes) -> bytes | CommandResult:
        command = ReadElementStatus.parse(cdb)
        wanted_type, voltag, dvcid = command.element_type, command.voltag, command.dvcid
        layout = self._addresses()
        chosen = [a for a in sorted(layout)
                  if a >= command.start and (not wanted_type or layout[a] == wanted_type)][:command.count]
        if not chosen:
            return self._check(ILLEGAL_REQUEST, 0x21, 0x01)
        pages = bytearray()
        for etype in (TYPE_TRANSPORT, TYPE_STORAGE, TYPE_IE, TYPE_DRIVE):
            addrs = [a for a in chosen if layout[a] == etype]
            if not addrs:
                continue
            desc = b"".join(self._descriptor(a, etype, voltag, dvcid) for a in addrs)
            pages += bytes([etype, 0x80 if voltag else 0]) + struct.pack(">H", _DESC_LEN) + bytes(1) \
                + len(desc).to_bytes(3, "big") + desc
        header = struct.pack(">HH", chosen[0], len(chosen)) + bytes(1) + len(pages).to_bytes(3, "big")
        return (header + bytes(pages))[:command.allocation_length]

    def _descriptor(self, address: int, etype: int, voltag: bool, dvcid: bool) -> bytes:
        barcode = self.contents.get(address)
        flags = 0x01 if barcode else 0
        if etype == TYPE_IE:
            flags |= 0x08 | 0x20 | 0x10  # access, import and export enabled
        elif etype in (TYPE_STORAGE, TYPE_DRIVE):
            flags |= 0x08
        source = self.sources.get(address)
        d = struct.pack(">HBx2s3xB", address, flags, b"\0\0", 0x80 if (barcode and source is not None) else 0)
        d += struct.pack(">H", source or 0)
        d += ((barcode or "").encode().ljust(32) + bytes(4)) if voltag else bytes(36)
        ident = drive_serial(address - DRIVE_FIRST).encode() if etype == TYPE_DRIVE and dvcid else b""
        d += bytes([0x02, 0x01, 0, len(ident)]) + ident.ljust(16, b"\0")
        return d[:_DESC_LEN].ljust(_DESC_LEN, b"\0")

    def _robot_time(self, source: int, destination: int) -> float:
        """Seconds the picker takes (``realtime=1``): 0.3 s to grip and put, 0.04 s per element crossed, a
        little scatter (fixed per move number, so runs repeat), at most 2 s."""
        order = [a for a in sorted(self._addresses()) if a != TRANSPORT]
        crossed = abs(order.index(source) - order.index(destination))
        scatter = ((self.moves * 2654435761) % 1000) / 1000 * 0.12
        return min(2.0, 0.3 + 0.04 * crossed + scatter)

    def _move(self, cdb: bytes) -> CommandResult:
        move = MoveMedium.parse(cdb)
        source, destination = move.source, move.destination
        layout = self._addresses()
        if move.transport != TRANSPORT or source not in layout or destination not in layout \
                or TYPE_TRANSPORT in (layout[source], layout[destination]):
            return self._check(ILLEGAL_REQUEST, 0x21, 0x01)  # invalid element address
        # Under the state's lock, on the state as it is now: another process may have moved since.
        with self.store.changing(self._fresh) as state:
            self._check_layout(state)
            self.state = state
            refusal = self._refusal(source, destination, layout)
            if refusal is not None:
                return refusal
            self.moves += 1
            if self.moves in self.opts.robot_fault:
                return self._check(HARDWARE_ERROR, 0x15, 0x01)  # mechanical positioning error: the cartridge did not move
            if self.opts.realtime:
                time.sleep(self._robot_time(source, destination))
            barcode = state.contents[source]
            if layout[destination] == TYPE_DRIVE and not self._loads(barcode or ""):
                return self._check(MEDIUM_ERROR, 0x53, 0x00)  # media load or eject failed: the drive refused it, put back
            state.contents[source], state.contents[destination] = None, barcode
            state.sources[destination] = state.sources.pop(source, source)
            if layout[destination] == TYPE_DRIVE:
                state.threaded.add(destination)
        return CommandResult(GOOD, b"", memoryview(bytearray()), 0)

    def _refusal(self, source: int, destination: int, layout: dict[int, int]) -> CommandResult | None:
        """What a real library answers to a move it cannot make, or None."""
        if not self.contents[source]:
            return self._check(ILLEGAL_REQUEST, 0x3B, 0x0E)  # medium source element empty
        if self.contents[destination] and destination != source:
            return self._check(ILLEGAL_REQUEST, 0x3B, 0x0D)  # medium destination element full
        if self.opts.ie_locked and TYPE_IE in (layout[source], layout[destination]):
            return self._check(ILLEGAL_REQUEST, 0x53, 0x02)  # medium removal prevented: another host locked the mail slot
        if source in self.threaded:
            return self._check(ILLEGAL_REQUEST, 0x3B, 0x90)  # the cartridge is loaded inside the drive: unload it first
        return None

    def _loads(self, barcode: str) -> bool:
        """Whether the library's drives can load this cartridge (read it at least: ``native.scsi.media``)."""
        medium = medium_of_barcode(barcode)
        return medium is None or access(self.opts.lto, medium) is not Access.NONE

    def drive_device(self, index: int) -> str:
        """The device string of drive element ``index``: a virtual LTO drive holding that element's cartridge."""
        return library_drive_device(self.opts, self.folder, index)

    def close(self) -> None:
        pass


def library_drive_device(opts: LibraryOptions, folder: Path, index: int) -> str:
    """The device string of drive element ``index``: ``virtual:lto9?drive=0`` in the default library (no data
    directory's path in what the library's map, ``show`` and the history print), ``library=DIR`` in another."""
    where = "" if folder.resolve() == default_library_folder().resolve() else \
        f"library={quote(str(folder.resolve()), safe='/:')}&"
    return f"virtual:lto{opts.lto}?{where}drive={index}" + ("" if opts.realtime else "&realtime=0")


def drive_serial(index: int) -> str:
    """A library drive's serial: the identifier its element reports."""
    return f"TDLIBDRV{index:03d}"


def drive_cartridge(folder: Path, index: int) -> tuple[str | None, bool]:
    """(barcode, threaded) of drive element ``index`` in the library at ``folder``; (None, False) when empty
    or when the library has no state yet. A foreign or damaged ``library.json`` is refused (one line)."""
    saved = StateFile(folder).read()
    if saved is None:
        return None, False
    address = DRIVE_FIRST + index
    return (saved.contents.get(address) or None), address in saved.threaded


def set_threaded(folder: Path, index: int, threaded: bool) -> None:
    """A library drive loaded (True) or unloaded (False) its tape: the robot may pull it only when unloaded.
    A library without a state file has no cartridge in any drive: nothing to say then."""
    store = StateFile(folder)
    if store.read() is None:
        return

    def none() -> LibraryState:  # not reached: the file exists (a library's file is never removed by tapediag)
        raise TransportError(f"the virtual library's {store.path} vanished")

    with store.changing(none) as state:
        if threaded:
            state.threaded.add(DRIVE_FIRST + index)
        else:
            state.threaded.discard(DRIVE_FIRST + index)


def open_library(device: str) -> VirtualLibrary:
    return VirtualLibrary(device)
