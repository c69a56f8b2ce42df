"""``virtual:ltoN``: a SAS LTO drive in software, answering raw CDBs like the real one.

The device side only: every answer (data, status, fixed-format sense) is built here
from the cartridge file and the drive state, and every command takes the time the
timing model (``model.py``) says a real drive would take, so the host-side code
(``app/``) cannot tell it from hardware by behaviour or by throughput.

Deliberate simplifications, documented for users of the emulation: at most two partitions
(``partitions.py``); fixed-format sense only; no UNIT ATTENTION after load; positioning (rewind, locate,
space, a short erase) is instantaneous apart from flushing buffered writes (a long erase takes its time:
``erasing.py``); error counters
are zero unless ``worn=1`` or ``wornhead=N`` make the head need its ECC (or ``badtape=`` a worn stretch of
tape the drive rereads), TapeAlert flags only come
from ``tapealert=`` and ``alertat=`` (and 09h after a write to a protected cartridge); vendor pages
30h-3Dh follow the personality (``vendor=hp|ibm``, ``vendorpages.py``; IBM's undocumented pages are
listed but empty). The drive-wide
pages (0x06 0x0D 0x11 0x12 0x14 0x16 0x18 0x1A, ``health.py``) report a modelled drive life
driven by ``hours=``, ``temp=``, ``phyerrors=`` and the cleaning flags of ``tapealert=``.
"""
from __future__ import annotations

import re
import struct
import time
import zlib
from dataclasses import replace
from functools import partial
from typing import TYPE_CHECKING, Callable

from native.errors import CommandTimeout, ConnectionLost, InvalidParameter, TransportError
from native.paths import data_dir
from native.transport import (
    CHECK_CONDITION, DEFAULT_TIMEOUT, GOOD, Buffer, CommandResult, Fill, Repeated, Transport, WritableBuffer, make_data_in,
)
from native.virtual import health, pages
from native.virtual.cartridge import Cartridge, is_zero
from native.virtual.erasing import EraseCommands
from native.virtual.estimate import CompressionEstimator
from native.virtual.lag import IdealTwin
from native.virtual.model import ModelParams, TapeModel
from native.virtual.options import BAD_TAPE_PASSES, DEFAULT_CAPACITY, VirtualOptions, parse_device
from native.virtual.pacer import Pacer
from native.virtual.partitions import PartitionCommands
from native.virtual.positioning import PositioningCommands
from native.virtual.reports import ReportCommands
from native.virtual.sense import (
    BLANK_CHECK, HARDWARE_ERROR, ILLEGAL_REQUEST, MEDIUM_ERROR, NO_SENSE, NOT_READY, VOLUME_OVERFLOW, Check,
    fixed_sense, invalid_field, invalid_opcode, invalid_parameter,
)
from native.scsi import cdb as C
from native.scsi.media import ident_for
from native.virtual.specs import DENSITY

if TYPE_CHECKING:
    from array import array

_EMPTY = memoryview(b"")
_WRITES = frozenset({C.WRITE_6, C.WRITE_FILEMARKS_6})  # a failed cartridge file is a WRITE ERROR for these


class VirtualDrive(PartitionCommands, EraseCommands, PositioningCommands, ReportCommands, Transport):
    """One virtual drive with its cartridge; see the module docstring."""

    def __init__(self, device: str, opts: VirtualOptions) -> None:
        self.device = device
        self.opts = opts
        self.spec = opts.spec
        gen = opts.generation
        path = opts.cartridge or data_dir() / "virtual" / f"lto{gen}.cart"
        self.empty = False  # a library drive with no cartridge in it
        barcode = opts.barcode
        cart_gen, worm = gen, bool(opts.worm)
        if opts.library is not None and opts.library_drive is not None:
            from native.virtual.library import cartridge_medium, drive_cartridge

            held, threaded = drive_cartridge(opts.library, opts.library_drive)
            if held is not None and not re.fullmatch(r"[A-Za-z0-9_-]{1,32}", held):
                raise InvalidParameter(f"the virtual library's drive {opts.library_drive} holds {held!r}, which "
                                       "cannot name a cartridge file (letters, digits, - and _ only)")
            self.empty = held is None
            # An empty drive still needs a cartridge object: a placeholder never loaded (LOAD answers 02/3A/00).
            path = opts.library / "cartridges" / (f"{held}.cart" if held else f".drive{opts.library_drive}-empty.cart")
            path.parent.mkdir(parents=True, exist_ok=True)
            barcode = held or "EMPTY"
            opts.loaded = threaded
            if held:  # made, when first loaded, as its label says (TD0001L8: an LTO-8 cartridge), as a real one is
                medium = cartridge_medium(held, gen)
                cart_gen, worm = medium.generation, medium.worm
        crc = zlib.crc32(str(path).encode())
        self.serial = f"TDV{gen}{crc % 10**6:06d}"
        if opts.library_drive is not None:
            from native.virtual.library import drive_serial

            self.serial = drive_serial(opts.library_drive)
        self.naa = (0x5 << 60) | (0x001438 << 36) | (crc & 0xFFFFFFFFF)
        self.cart = Cartridge.open(
            path,
            generation=cart_gen,
            capacity=opts.capacity or DEFAULT_CAPACITY,
            worm=worm,
            serial=f"TDC{crc % 10**7:07d}L{cart_gen}",
            barcode=barcode or f"TD{crc % 10**4:04d}{ident_for(gen)}",  # the label's media identifier: L9, LA
        )
        self._check_cartridge(opts)
        if opts.serial is not None:
            self.serial = opts.serial
        self.loaded = opts.loaded
        self.pos = 0
        self.mode = pages.ModeState(density_code=DENSITY[self.cart.meta.generation])
        self._open_partitions()
        self.tapealert = set(opts.tapealert)
        self._alert_due = opts.alert_at  # (flags, host bytes): raised mid-test, once
        # Cleaning wanted survives a read of page 0x2E (which clears the flags): it is the drive's state.
        self.life = self._life(opts)
        params = ModelParams(self.spec.speed_steps, self.spec.buffer_size, self.spec.interface_rate, opts.backhitch,
                             opts.restart)
        self.model = TapeModel(params)
        self.pacer = Pacer(realtime=opts.realtime)
        self.twin = IdealTwin(params) if opts.realtime else None
        self._phase_start = True
        self._overrun = 0.0  # seconds the host's fill ran past the command's completion (``repeat``)
        self._prefilled: tuple[bytearray, Fill, int] | None = None  # (spare, fill, block) left filled by ``repeat``
        self.estimator = CompressionEstimator(self.spec.history)
        # tape_reread: tape passed over again in the worn stretch of ``badtape=`` (its corrected read errors)
        self.load = {"host_w": 0, "host_r": 0, "tape_w": 0, "tape_r": 0, "tape_reread": 0}
        self._closed = False
        self.last_io_error = ""  # the OS error behind the last MEDIUM ERROR (disk full...)
        self._stored, self._storage_seconds = 0, 0.0  # the cartridge file's I/O (emulator_storage)
        if self.loaded and opts.library is None:  # a library drive's load was counted when the robot loaded it
            self.cart.meta.load_count += 1
            self.life.loads_this_session += 1
            self.cart.save_meta()
        self._handlers = self._command_table()

    def _command_table(self) -> dict[int, Callable[[bytes, Buffer | None, memoryview], int]]:
        """The handler of each opcode the drive answers (REPORT SUPPORTED OPERATION CODES lists these); every
        handler reads its CDB through the command's declared layout (``native.scsi.cdb``)."""
        return {
            C.TEST_UNIT_READY: self._test_unit_ready, C.REWIND: self._rewind, C.REQUEST_SENSE: self._request_sense,
            C.READ_BLOCK_LIMITS: self._read_block_limits, C.READ_6: self._read6, C.WRITE_6: self._write6,
            C.WRITE_FILEMARKS_6: self._write_filemarks, C.SPACE_6: self._space6, C.INQUIRY: self._inquiry,
            C.MODE_SELECT_6: self._mode_select, C.MODE_SELECT_10: self._mode_select,
            C.MODE_SENSE_6: self._mode_sense, C.MODE_SENSE_10: self._mode_sense,
            C.RESERVE_6: self._nop, C.RELEASE_6: self._nop, C.PREVENT_ALLOW_MEDIUM_REMOVAL: self._nop,
            C.ERASE_6: self._erase, C.LOAD_UNLOAD: self._load_unload, C.LOCATE_10: self._locate,
            C.LOCATE_16: self._locate, C.READ_POSITION: self._read_position,
            C.REPORT_DENSITY_SUPPORT: self._report_density, C.LOG_SENSE: self._log_sense,
            C.READ_ATTRIBUTE: self._read_attribute, C.SPACE_16: self._space16,
            C.SECURITY_PROTOCOL_IN: self._security_protocol_in, C.SEND_DIAGNOSTIC: self._send_diagnostic,
            C.MAINTENANCE_IN: self._maintenance_in, C.READ_BUFFER: self._read_buffer, C.FORMAT_MEDIUM: self._format_medium,
            C.WRITE_ATTRIBUTE: self._write_attribute,
        }

    def _life(self, opts: VirtualOptions) -> health.DriveLife:
        """The drive's own state for the drive-wide pages, with the trainer's alarms (``reftemp=``, ``clean=``,
        ``harderrors=``, ``nonmedium=``, ``maxtemp=``, ``diag=``)."""
        life = health.DriveLife(power_on_hours=opts.hours, temperature=opts.temperature, phy_errors=opts.phy_errors,
                                cleaning_required=health.CLEAN_NOW in self.tapealert or opts.cleaning == "required",
                                cleaning_requested=health.CLEAN_PERIODIC in self.tapealert or opts.cleaning == "requested",
                                reference_temperature=opts.reference_temperature,
                                max_temperature_exceeded=opts.max_temperature_exceeded,
                                hard_write_errors=opts.hard_errors[0], hard_read_errors=opts.hard_errors[1],
                                non_medium_errors=opts.non_medium_errors)
        if opts.diagnostic is not None:
            key, asc, ascq = opts.diagnostic
            life.diagnostics.append(health.diagnostic_entry(
                sense_key=key, asc=asc, ascq=ascq, opcode=0x0A, density_code=DENSITY[self.cart.meta.generation],
                head_hours=life.head_hours, hours_since_clean=life.head_hours % health.HEAD_HOURS_PER_CLEANING,
                medium_id=self.cart.meta.serial, revision=self.spec.revision, timestamp_ms=0))
        return life

    def _send_diagnostic(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        """SEND DIAGNOSTIC: the default self-test (SELFTEST bit) passes, or fails as ``selftest=fail`` asks;
        other forms (self-test codes, diagnostic pages) are not implemented, as on many drives."""
        command = C.SendDiagnostic.parse(cdb)
        if not command.self_test or command.self_test_code:
            raise invalid_field()
        self._t_done = self._t + 2.0  # a real drive's self-test takes seconds
        if self.twin is not None:
            self.twin.hold(2.0)
        if self.opts.selftest_fails:
            raise Check(HARDWARE_ERROR, 0x40, 0x80)  # DIAGNOSTIC FAILURE ON COMPONENT 80h
        return 0

    def _check_cartridge(self, opts: VirtualOptions) -> None:
        meta = self.cart.meta
        if DENSITY.get(meta.generation) not in self.spec.readable:
            self.cart.close()
            raise InvalidParameter(f"{self.cart.path} is an LTO-{meta.generation} cartridge; an {self.spec.name} drive cannot use it")
        if opts.worm is not None and opts.worm != meta.worm:
            self.cart.close()
            raise InvalidParameter(f"{self.cart.path} is {'a' if meta.worm else 'not a'} WORM cartridge (worm={int(opts.worm)})")
        if opts.capacity is not None and opts.capacity != meta.extra.get("medium_capacity", meta.capacity):
            if self.cart.count:
                self.cart.close()
                raise InvalidParameter(f"{self.cart.path} holds data; its capacity stays {meta.capacity} bytes")
            meta.capacity = opts.capacity
        if "wp" in opts.explicit:
            meta.write_protect = opts.write_protect
        if opts.worn_media is not None:  # kept in the cartridge: it follows the cartridge into any drive
            meta.extra["worn_media"] = opts.worn_media
        self.cart.save_meta()

    # ------------------------------------------------------------------ Transport
    def execute(self, cdb: bytes, *, data_out: Buffer | None = None, data_in: int | WritableBuffer = 0,
                timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        return self._execute(cdb, data_out, data_in, timeout)

    def repeat(self, cdb: bytes, *, data_out: bytearray | None = None, data_in: memoryview | None = None,
               timeout: float = DEFAULT_TIMEOUT, count: int, until: float, starts: "array[float]",
               ends: "array[float]", fill: Fill | None = None, first: int = 0, step: int = 1,
               spare: bytearray | None = None, clock: Callable[[], float] = time.perf_counter) -> Repeated:
        """``Transport.repeat``; given a ``spare`` buffer, a WRITE's next buffer is filled while the WRITE is
        in flight, as the iSCSI transport does (issue 32.2).

        Filled between the commands, the host's fill added to the drive's time: serial with the link, it
        cost zeros and 4.3:1 writes (link-bound on LTO-9, 0.87 ms a MiB) 5-10 % of the rate a host that
        prepares its next buffer while the drive works reaches. Here the fill runs after the drive's work
        for the command and before the pacer waits for its completion, hidden under the drive's time
        like the emulator's own work; the twin (``lag.py``) is told the host worked that long alongside,
        so a fill longer than the command counts as the host's time, not as the emulator's lag.
        """
        if data_out is None or fill is None or spare is None or not self.pacer.realtime or count < 1:
            return super().repeat(cdb, data_out=data_out, data_in=data_in, timeout=timeout, count=count, until=until,
                                  starts=starts, ends=ends, fill=fill, first=first, step=step, clock=clock)
        # A burst that stopped at ``until`` had filled its next buffer already: the next call goes on with it.
        ready = self._prefilled
        self._prefilled = None
        if ready is not None and ready[0] in (data_out, spare) and ready[1] is fill and ready[2] == first:
            buffers = (data_out, spare) if ready[0] is data_out else (spare, data_out)
        else:
            buffers = (data_out, spare)
            fill(data_out, first)
        for i in range(count):
            a = clock()
            if a >= until:
                self._prefilled = (buffers[i & 1], fill, first + i * step)
                return Repeated(i)
            during = partial(fill, buffers[(i + 1) & 1], first + (i + 1) * step) if i + 1 < count else None
            try:
                result = self._execute(cdb, buffers[i & 1], 0, timeout, during)
            except TransportError as err:
                starts[i], ends[i] = a, clock()
                return Repeated(i, error=err)
            # The command ended for the drive when its time was up; a fill still running then is the
            # host's time between commands, as it would be had it run after the command.
            starts[i], ends[i] = a, clock() - self._overrun
            if result.status != GOOD:
                return Repeated(i, tail=result)
        return Repeated(count)

    def _execute(self, cdb: bytes, data_out: Buffer | None, data_in: int | WritableBuffer, timeout: float,
                 during: Callable[[], object] | None = None) -> CommandResult:
        """One command; ``during`` (the host's work while the command is in flight) runs once the drive has
        done its part, before the pacer waits for the command's completion."""
        if self._closed:
            raise ConnectionLost("the virtual drive is closed", device=self.device)
        buf = make_data_in(data_in) if (not isinstance(data_in, int) or data_in) else _EMPTY
        cdb = bytes(cdb)
        twin = self.twin
        sent = self.pacer.wall()
        if twin is not None:
            twin.arrive(sent)
        self._t = self.pacer.now()
        self._t_done = self._t
        self._settle = False
        try:
            handler = self._handlers.get(cdb[0]) if cdb else None
            if self._erasing is not None and cdb:
                handler = self._while_erasing(cdb[0], handler)
            if handler is None or len(cdb) < C.cdb_length(cdb[0]):
                raise invalid_opcode()
            n = handler(cdb, data_out, buf)
            status, sense = GOOD, b""
        except Check as check:
            status, sense, n = CHECK_CONDITION, check.sense, check.transferred
        except OSError as exc:  # the cartridge file failed: a write/read error on "tape"
            # 03/0C/00 WRITE ERROR or 03/11/00 UNRECOVERED READ ERROR, as a drive would say.
            status, sense, n = CHECK_CONDITION, fixed_sense(MEDIUM_ERROR, 0x0C if cdb[0] in _WRITES else 0x11, 0), 0
            self.last_io_error = str(exc)
        if status == CHECK_CONDITION and len(sense) > 13 and sense[2] & 0x0F in (MEDIUM_ERROR, HARDWARE_ERROR):
            self._remember_error(cdb[0], sense)
        if self._alert_due is not None and self.load["host_w"] + self.load["host_r"] >= self._alert_due[1]:
            self.tapealert.update(self._alert_due[0])
            self._alert_due = None
        self._overrun = 0.0
        if during is not None and status == GOOD:
            began = self.pacer.wall()
            during()
            ended = self.pacer.wall()
            if twin is not None:
                twin.overlap(ended - began)
            # Past the command's completion the host was still filling: that time is the host's.
            self._overrun = max(0.0, ended - max(began, self.pacer.wall_at(self._t_done)))
        if self._t_done - self._t > timeout:
            self.pacer.finish(self._t + timeout)
            if twin is not None:
                twin.cut(timeout)
                twin.returned(self.pacer.wall())
            raise CommandTimeout(f"command 0x{cdb[0]:02X} timed out after {timeout:g} s", device=self.device)
        moved = n + (memoryview(data_out).nbytes if data_out is not None else 0)
        self.pacer.through_link(sent, moved, self.spec.interface_rate)
        self.pacer.finish(self._t_done, settle=self._settle, host=self._overrun)
        if twin is not None:
            twin.returned(self.pacer.wall())
        return CommandResult(status, sense, buf[:n], n)

    @property
    def emulator_lag(self) -> float | None:
        """Seconds the run is behind the drive's model now (``lag.py``); None when not paced."""
        return self.twin.lag if self.twin is not None and self.pacer.realtime else None

    @property
    def emulator_storage(self) -> tuple[int, float] | None:
        return (self._stored, self._storage_seconds) if self.pacer.realtime else None

    def _timed_io(self, started: float, nbytes: int) -> None:
        """Count a cartridge-file transfer that began at ``started`` (perf_counter)."""
        self._storage_seconds += time.perf_counter() - started
        self._stored += nbytes

    def _remember_error(self, opcode: int, sense: bytes) -> None:
        """A MEDIUM or HARDWARE ERROR goes into the tape diagnostic data page (0x16), newest last, four kept."""
        life = self.life
        entry = health.diagnostic_entry(sense_key=sense[2] & 0x0F, asc=sense[12], ascq=sense[13], opcode=opcode,
                                        density_code=DENSITY[self.cart.meta.generation], head_hours=life.head_hours,
                                        hours_since_clean=life.head_hours % health.HEAD_HOURS_PER_CLEANING,
                                        medium_id=self.cart.meta.serial, revision=self.spec.revision,
                                        timestamp_ms=int(self._t * 1000))
        life.diagnostics = (life.diagnostics + [entry])[-4:]

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self._close_partitions()

    # ------------------------------------------------------------------ identity
    def _inquiry(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        command = C.Inquiry.parse(cdb)
        if command.evpd:
            data = pages.vpd_page(command.page_code, self.spec, self.serial, self.naa)
            if data is None:
                raise invalid_field()
        elif command.page_code:
            raise invalid_field()
        else:
            data = pages.standard_inquiry(self.spec)
        return self._reply(data, command.allocation_length, buf)

    def _test_unit_ready(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        bad = self.opts.tur_sense
        if bad is not None:  # ``tur=``: a trainer's drive whose TEST UNIT READY fails this way
            raise Check(bad.key, bad.asc, bad.ascq, deferred=bad.deferred, filemark=bad.filemark)
        self._medium()
        return 0

    def _request_sense(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        command = C.RequestSense.parse(cdb)
        if command.desc:
            raise invalid_field()  # descriptor format: we only speak fixed format
        sense = fixed_sense(NOT_READY, 0x3A, 0) if not self.loaded else fixed_sense(NO_SENSE, 0, 0)
        return self._reply(sense, command.allocation_length, buf)

    def _read_block_limits(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        if C.ReadBlockLimits.parse(cdb).mloc:
            raise invalid_field()
        return self._reply(bytes([0, 0xFF, 0xFF, 0xFF, 0, 1]), 6, buf)

    # ------------------------------------------------------------------ mode pages
    def _mode_sense(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        ten = cdb[0] == C.MODE_SENSE_10
        command = C.ModeSense10.parse(cdb) if ten else C.ModeSense6.parse(cdb)
        dbd, pc, code, sub = command.dbd, command.pc, command.page_code, command.subpage_code
        alloc = command.allocation_length
        if pc == C.PageControl.SAVED:
            raise Check(ILLEGAL_REQUEST, 0x39, 0x00)  # saving parameters not supported
        codes: tuple[int, ...]
        if code == 0x3F and sub in (0, 0xFF):
            codes = pages.MODE_PAGES
        elif code in pages.MODE_PAGES and sub == 0:
            codes = (code,)
        elif code == 0 and sub == 0:
            codes = ()
        else:
            raise invalid_field()
        changeable = pc == C.PageControl.CHANGEABLE
        state = pages.ModeState() if pc == C.PageControl.DEFAULT else self.mode  # default values: the power-on settings
        body = b"".join(pages.mode_page(c, state, changeable) for c in codes)
        bd = b"" if dbd else pages.block_descriptor(state, changeable)
        dsp = 0 if changeable else (0x80 if self.loaded and self.cart.meta.write_protect else 0) | 0x10
        if ten:
            header = struct.pack(">HBBBBH", 6 + len(bd) + len(body), 0, dsp, 0, 0, len(bd))
        else:
            header = bytes([3 + len(bd) + len(body), 0, dsp, len(bd)])
        return self._reply(header + bd + body, alloc, buf)

    def _mode_select(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        """MODE SELECT (6)/(10): the block descriptor's length and density, then each page the drive takes
        (compression 0Fh, partitions 11h); anything malformed is 05/26/00 and changes nothing."""
        ten = cdb[0] == C.MODE_SELECT_10
        length = (C.ModeSelect10.parse(cdb) if ten else C.ModeSelect6.parse(cdb)).parameter_list_length
        data = bytes(out or b"")[:length]
        if len(data) < length:
            raise invalid_parameter()
        if not length:
            return 0
        hlen = 8 if ten else 4
        if len(data) < hlen:
            raise invalid_parameter()
        bdlen = struct.unpack_from(">H", data, 6)[0] if ten else data[3]
        if bdlen not in (0, 8) or len(data) < hlen + bdlen:
            raise invalid_parameter()
        new = replace(self.mode)
        if bdlen:
            bd = data[hlen : hlen + 8]
            if bd[0] and bd[0] not in self.spec.readable:
                raise invalid_parameter()
            new.block_length = int.from_bytes(bd[5:8], "big")
        self._select_pages(data[hlen + bdlen :], new)
        self.mode = new
        return 0

    def _select_pages(self, rest: bytes, new: pages.ModeState) -> None:
        """The mode pages of a MODE SELECT's parameter list, into ``new``."""
        while rest:
            if len(rest) < 2 or rest[0] & 0x40:
                raise invalid_parameter()
            code, plen = rest[0] & 0x3F, rest[1]
            page = rest[2 : 2 + plen]
            if len(page) < plen or code not in pages.MODE_PAGES:
                raise invalid_parameter()
            if code == 0x0F:
                if plen < 1:
                    raise invalid_parameter()
                new.compression = bool(page[0] & 0x80)
            elif code == 0x11:
                new.partition_request = self._requested_partitions(page)
            rest = rest[2 + plen :]

    # ------------------------------------------------------------------ data path
    def _read6(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        command = C.Read6.parse(cdb)
        fixed, sili, length = command.fixed, command.sili, command.transfer_length
        if fixed and (sili or not self.mode.block_length):
            raise invalid_field()
        start = self.pos
        try:
            if fixed:
                return self._read_fixed(length, buf)
            return self._read_variable(length, sili, buf)
        finally:
            self._account_read(start)

    def _account_read(self, start: int) -> None:
        # Everything from start to the new position went past the heads.
        tape = self.cart.tape_used(self.pos) - self.cart.tape_used(start) if self.pos > start else 0
        if tape:
            self.load["tape_r"] += tape
            self.cart.meta.tape_bytes_read += tape

    def _host_read(self, nbytes: int, tape: int, at: int) -> None:
        """``tape`` bytes of tape from ``at`` (bytes of tape from BOT) read for the host's ``nbytes``."""
        self.load["host_r"] += nbytes
        self.cart.meta.host_bytes_read += nbytes
        self._transfer(nbytes, tape + self._reread(at, tape), "read")

    def _reread(self, at: int, tape: int) -> int:
        """Tape passed over again to read the worn stretch of ``badtape=`` (counted as corrected read errors)."""
        if self.opts.bad_tape is None:
            return 0
        first, last = self.opts.bad_tape
        inside = max(0, min(at + tape, last) - max(at, first))
        if not inside:
            return 0
        extra = inside * (BAD_TAPE_PASSES - 1)
        self.load["tape_reread"] += extra
        return extra

    def _read_variable(self, length: int, sili: bool, buf: memoryview) -> int:
        if length == 0:
            return 0
        cart, pos = self.cart, self.pos
        if pos >= cart.count:
            raise Check(BLANK_CHECK, 0x00, 0x05, info=length)
        if cart.is_filemark(pos):
            self.pos += 1
            raise Check(NO_SENSE, 0x00, 0x01, info=length, filemark=True)
        actual = cart.length(pos)
        started = time.perf_counter()
        n = cart.read_into(pos, buf[:length])
        self._timed_io(started, n)
        self.pos += 1
        self._host_read(n, cart.charged(pos), cart.tape_used(pos))
        if actual != length and not sili:
            raise Check(NO_SENSE, 0x00, 0x00, info=length - actual, ili=True, transferred=n)
        return n

    def _read_fixed(self, count: int, buf: memoryview) -> int:
        size, cart = self.mode.block_length, self.cart
        run = cart.run_of_blocks(self.pos, size, min(count, len(buf) // size))
        started = time.perf_counter()
        done = cart.read_blocks(self.pos, run, size, buf) if run else 0
        self._timed_io(started, done)
        if run:
            at = cart.tape_used(self.pos)
            tape = cart.tape_used(self.pos + run) - at
            self.pos += run
            self._host_read(done, tape, at)
        if run == count:
            return done
        pos = self.pos  # what stopped the run: EOD, a filemark or a block of another size
        if pos >= cart.count:
            raise Check(BLANK_CHECK, 0x00, 0x05, info=count - run, transferred=done)
        if cart.is_filemark(pos):
            self.pos += 1
            raise Check(NO_SENSE, 0x00, 0x01, info=count - run, filemark=True, transferred=done)
        n = cart.read_into(pos, buf[done : done + size])
        self.pos += 1
        self._host_read(n, cart.charged(pos), cart.tape_used(pos))
        raise Check(NO_SENSE, 0x00, 0x00, info=count - run, ili=True, transferred=done + n)

    def _write6(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._writable()
        command = C.Write6.parse(cdb)
        fixed, length = command.fixed, command.transfer_length
        if fixed and not self.mode.block_length:
            raise invalid_field()
        size = self.mode.block_length if fixed else length
        total = length * size if fixed else length
        data = memoryview(out if out is not None else b"").cast("B")
        if len(data) != total:
            raise invalid_field()
        if total == 0:
            return 0
        cart = self.cart
        cart.truncate(self.pos)
        tape_total = self.estimator.compressed(data) if self.mode.compression else total
        blocks = length if fixed else 1
        charged = max(1, tape_total // blocks)
        limit = cart.meta.capacity
        zero = is_zero(data)
        fits = min(blocks, max(0, limit - cart.tape_used()) // charged)
        if not zero:  # the file's disk budget ends the "tape" too (highly compressible data)
            fits = min(fits, max(0, self._max_file - cart.file_bytes) // (size + 32))
        if fits:
            started = time.perf_counter()
            cart.append_blocks(data[: fits * size], size, charged, zero=zero)
            self._timed_io(started, 0 if zero else fits * size)
            self.pos += fits
            self.load["tape_w"] += fits * charged
            self.cart.meta.tape_bytes_written += fits * charged
            self.load["host_w"] += fits * size
            self.cart.meta.host_bytes_written += fits * size
            self._transfer(fits * size, fits * charged, "write")
        if fits < blocks:
            raise Check(VOLUME_OVERFLOW, 0x00, 0x02, info=(blocks - fits) if fixed else length, eom=True)
        if self._past_early_warning():
            raise Check(NO_SENSE, 0x00, 0x02, info=0, eom=True)
        return 0

    def _write_filemarks(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        command = C.WriteFilemarks6.parse(cdb)
        count = command.count
        if command.setmarks:
            raise invalid_field()
        self._medium()
        if count:
            self._writable()
            cart = self.cart
            cart.truncate(self.pos)
            for i in range(count):
                if cart.tape_used() + 4096 > cart.meta.capacity:
                    raise Check(VOLUME_OVERFLOW, 0x00, 0x02, info=count - i, eom=True)
                cart.append_filemark()
                self.pos += 1
        if not command.immed:  # the buffer goes to tape first
            self._flush()
        if count and self._past_early_warning():
            raise Check(NO_SENSE, 0x00, 0x02, info=0, eom=True)
        return 0


def open_virtual(device: str) -> VirtualDrive:
    """Open ``virtual:ltoN[?options]`` (see ``native.virtual.options`` for the options)."""
    return VirtualDrive(device, parse_device(device))
