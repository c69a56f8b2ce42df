"""``virtual:ltoN``: a SAS LTO drive in software, answering raw CDBs like the real one.

The device side only: every answer (data, status, fixed-format sense) is built here
from the cartridge file and the drive state, and every command takes the time the
timing model (``model.py``) says a real drive would take, so the host-side code
(``app/``) cannot tell it from hardware by behaviour or by throughput.

Deliberate simplifications, documented for users of the emulation: one partition;
no UNIT ATTENTION after load; positioning (rewind, locate, space) is instantaneous
apart from flushing buffered writes; errors counters are always zero unless TapeAlert
flags are injected with ``tapealert=``.
"""
from __future__ import annotations

import struct
import zlib
from typing import Callable

from native.errors import CommandTimeout, ConnectionLost, InvalidParameter
from native.paths import data_dir
from native.transport import CHECK_CONDITION, DEFAULT_TIMEOUT, GOOD, Buffer, CommandResult, Transport, WritableBuffer, make_data_in
from native.virtual import pages
from native.virtual.cartridge import Cartridge
from native.virtual.estimate import CompressionEstimator
from native.virtual.model import ModelParams, TapeModel
from native.virtual.options import DEFAULT_CAPACITY, VirtualOptions, parse_device
from native.virtual.pacer import Pacer
from native.virtual.sense import (
    BLANK_CHECK, NO_SENSE, VOLUME_OVERFLOW, Check, fixed_sense, invalid_field, invalid_opcode,
    invalid_parameter, no_medium, worm_overwrite, write_protected,
)
from native.virtual.specs import DENSITY

_CDB_LEN = {0: 6, 1: 10, 2: 10, 4: 16, 5: 12}
_EMPTY = memoryview(b"")


class VirtualDrive(Transport):
    """One virtual drive with its cartridge; see the module docstring."""

    def __init__(self, device: str, opts: VirtualOptions) -> None:
        self.device = device
        self.opts = opts
        self.spec = opts.spec
        gen = opts.generation
        path = opts.cartridge or data_dir() / "virtual" / f"lto{gen}.cart"
        crc = zlib.crc32(str(path).encode())
        self.serial = f"TDV{gen}{crc % 10**6:06d}"
        self.naa = (0x5 << 60) | (0x001438 << 36) | (crc & 0xFFFFFFFFF)
        self.cart = Cartridge.open(
            path,
            generation=gen,
            capacity=opts.capacity or DEFAULT_CAPACITY,
            worm=bool(opts.worm),
            serial=f"TDC{crc % 10**7:07d}L{gen}",
            barcode=opts.barcode or f"TD{crc % 10**4:04d}L{gen}",
        )
        self._check_cartridge(opts)
        self.loaded = opts.loaded
        self.pos = 0
        self.mode = pages.ModeState(density_code=DENSITY[self.cart.meta.generation])
        self.tapealert = set(opts.tapealert)
        self.model = TapeModel(
            ModelParams(self.spec.speed_steps, self.spec.buffer_size, self.spec.interface_rate, opts.backhitch, opts.restart)
        )
        self.pacer = Pacer(realtime=opts.realtime)
        self.estimator = CompressionEstimator(self.spec.history)
        self.load = {"host_w": 0, "host_r": 0, "tape_w": 0, "tape_r": 0}
        self._closed = False
        self.last_io_error = ""  # the OS error behind the last MEDIUM ERROR (disk full...)
        if self.loaded:
            self.cart.meta.load_count += 1
            self.cart.save_meta()
        self._handlers: dict[int, Callable[[bytes, Buffer | None, memoryview], int]] = {
            0x00: self._test_unit_ready, 0x01: self._rewind, 0x03: self._request_sense,
            0x05: self._read_block_limits, 0x08: self._read6, 0x0A: self._write6,
            0x10: self._write_filemarks, 0x11: self._space6, 0x12: self._inquiry,
            0x15: self._mode_select, 0x55: self._mode_select, 0x1A: self._mode_sense, 0x5A: self._mode_sense,
            0x16: self._nop, 0x17: self._nop, 0x1E: self._nop,
            0x19: self._erase, 0x1B: self._load_unload, 0x2B: self._locate, 0x92: self._locate,
            0x34: self._read_position, 0x44: self._report_density, 0x4D: self._log_sense,
            0x8C: self._read_attribute, 0x91: self._space16,
        }

    def _check_cartridge(self, opts: VirtualOptions) -> None:
        meta = self.cart.meta
        if DENSITY.get(meta.generation) not in self.spec.readable:
            self.cart.close()
            raise InvalidParameter(f"{self.cart.path} is an LTO-{meta.generation} cartridge; an {self.spec.name} drive cannot use it")
        if opts.worm is not None and opts.worm != meta.worm:
            self.cart.close()
            raise InvalidParameter(f"{self.cart.path} is {'a' if meta.worm else 'not a'} WORM cartridge (worm={int(opts.worm)})")
        if opts.capacity is not None and opts.capacity != meta.capacity:
            if self.cart.count:
                self.cart.close()
                raise InvalidParameter(f"{self.cart.path} holds data; its capacity stays {meta.capacity} bytes")
            meta.capacity = opts.capacity
        if "wp" in opts.explicit:
            meta.write_protect = opts.write_protect
        self.cart.save_meta()

    # ------------------------------------------------------------------ Transport
    def execute(self, cdb: bytes, *, data_out: Buffer | None = None, data_in: int | WritableBuffer = 0,
                timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        if self._closed:
            raise ConnectionLost("the virtual drive is closed", device=self.device)
        buf = make_data_in(data_in) if (not isinstance(data_in, int) or data_in) else _EMPTY
        cdb = bytes(cdb)
        self._t = self.pacer.now()
        self._t_done = self._t
        try:
            handler = self._handlers.get(cdb[0]) if cdb else None
            if handler is None or len(cdb) < _CDB_LEN.get(cdb[0] >> 5, 6):
                raise invalid_opcode()
            n = handler(cdb, data_out, buf)
            status, sense = GOOD, b""
        except Check as check:
            status, sense, n = CHECK_CONDITION, check.sense, check.transferred
        except OSError as exc:  # the cartridge file failed: a write/read error on "tape"
            # 03/0C/00 WRITE ERROR or 03/11/00 UNRECOVERED READ ERROR, as a drive would say.
            status, sense, n = CHECK_CONDITION, fixed_sense(0x3, 0x0C if cdb[0] in (0x0A, 0x10) else 0x11, 0), 0
            self.last_io_error = str(exc)
        if self._t_done - self._t > timeout:
            self.pacer.finish(self._t + timeout)
            raise CommandTimeout(f"command 0x{cdb[0]:02X} timed out after {timeout:g} s", device=self.device)
        self.pacer.finish(self._t_done)
        return CommandResult(status, sense, buf[:n], n)

    def close(self) -> None:
        if not self._closed:
            self._closed = True
            self.cart.close()

    # ------------------------------------------------------------------ helpers
    def _medium(self) -> None:
        if not self.loaded:
            raise no_medium()

    @staticmethod
    def _reply(data: bytes, alloc: int, buf: memoryview) -> int:
        n = min(len(data), alloc, len(buf))
        buf[:n] = data[:n]
        return n

    def _writable(self) -> None:
        self._medium()
        if self.cart.meta.write_protect:
            raise write_protected()
        if DENSITY[self.cart.meta.generation] not in self.spec.writable:
            raise Check(0x7, 0x30, 0x05)  # cannot write medium: incompatible format (read-only generation)
        if self.cart.meta.worm and self.pos < self.cart.count and not self.cart.all_filemarks_from(self.pos):
            raise worm_overwrite()

    def _reposition(self, pos: int) -> None:
        self._t_done = self.model.reposition(self._t)
        self.pos = pos

    @property
    def _early_warning(self) -> int:
        cap = self.cart.meta.capacity
        return self.opts.early_warning if self.opts.early_warning is not None else max(cap // 64, 1 << 20)

    def _nop(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        return 0

    # ------------------------------------------------------------------ identity
    def _inquiry(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        alloc = struct.unpack_from(">H", cdb, 3)[0]
        if cdb[1] & 0x01:
            data = pages.vpd_page(cdb[2], self.spec, self.serial, self.naa)
            if data is None:
                raise invalid_field()
        elif cdb[2]:
            raise invalid_field()
        else:
            data = pages.standard_inquiry(self.spec)
        return self._reply(data, alloc, buf)

    def _test_unit_ready(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        return 0

    def _request_sense(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        if cdb[1] & 0x01:
            raise invalid_field()  # descriptor format: we only speak fixed format
        sense = fixed_sense(0x2, 0x3A, 0) if not self.loaded else fixed_sense(NO_SENSE, 0, 0)
        return self._reply(sense, cdb[4], buf)

    def _read_block_limits(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        if cdb[1] & 0x01:
            raise invalid_field()
        return self._reply(bytes([0, 0xFF, 0xFF, 0xFF, 0, 1]), 6, buf)

    # ------------------------------------------------------------------ mode pages
    def _mode_sense(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        ten = cdb[0] == 0x5A
        dbd, pc, code, sub = cdb[1] & 0x08, cdb[2] >> 6, cdb[2] & 0x3F, cdb[3]
        alloc = struct.unpack_from(">H", cdb, 7)[0] if ten else cdb[4]
        if pc == 3:
            raise Check(0x5, 0x39, 0x00)  # saving parameters not supported
        if code == 0x3F and sub in (0, 0xFF):
            codes = pages.MODE_PAGES
        elif code in pages.MODE_PAGES and sub == 0:
            codes = (code,)
        elif code == 0 and sub == 0:
            codes = ()
        else:
            raise invalid_field()
        changeable = pc == 1
        body = b"".join(pages.mode_page(c, self.mode, changeable) for c in codes)
        bd = b"" if dbd else pages.block_descriptor(self.mode, changeable)
        dsp = 0 if changeable else (0x80 if self.loaded and self.cart.meta.write_protect else 0) | 0x10
        if ten:
            header = struct.pack(">HBBBBH", 6 + len(bd) + len(body), 0, dsp, 0, 0, len(bd))
        else:
            header = bytes([3 + len(bd) + len(body), 0, dsp, len(bd)])
        return self._reply(header + bd + body, alloc, buf)

    def _mode_select(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        ten = cdb[0] == 0x55
        length = struct.unpack_from(">H", cdb, 7)[0] if ten else cdb[4]
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
        new = pages.ModeState(self.mode.block_length, self.mode.compression, self.mode.density_code)
        if bdlen:
            bd = data[hlen : hlen + 8]
            if bd[0] and bd[0] not in self.spec.readable:
                raise invalid_parameter()
            new.block_length = int.from_bytes(bd[5:8], "big")
        rest = data[hlen + bdlen :]
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
            rest = rest[2 + plen :]
        self.mode = new
        return 0

    # ------------------------------------------------------------------ data path
    def _read6(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        fixed, sili = cdb[1] & 0x01, cdb[1] & 0x02
        length = int.from_bytes(cdb[2:5], "big")
        if fixed and (sili or not self.mode.block_length):
            raise invalid_field()
        start = self.pos
        try:
            if fixed:
                return self._read_fixed(length, buf)
            return self._read_variable(length, bool(sili), buf)
        finally:
            self._account_read(start)

    def _account_read(self, start: int) -> None:
        # Everything from start to the new position went past the heads.
        tape = self.cart.tape_used(self.pos) - self.cart.tape_used(start) if self.pos > start else 0
        if tape:
            self.load["tape_r"] += tape
            self.cart.meta.tape_bytes_read += tape

    def _host_read(self, nbytes: int, tape: int) -> None:
        self.load["host_r"] += nbytes
        self.cart.meta.host_bytes_read += nbytes
        self._t_done = self.model.transfer(self._t_done, nbytes, tape, "read")

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
        n = cart.read_into(pos, buf[:length])
        self.pos += 1
        self._host_read(n, cart.charged(pos))
        if actual != length and not sili:
            raise Check(NO_SENSE, 0x00, 0x00, info=length - actual, ili=True, transferred=n)
        return n

    def _read_fixed(self, count: int, buf: memoryview) -> int:
        size, cart = self.mode.block_length, self.cart
        run = cart.run_of_blocks(self.pos, size, min(count, len(buf) // size))
        done = cart.read_blocks(self.pos, run, size, buf) if run else 0
        if run:
            tape = cart.tape_used(self.pos + run) - cart.tape_used(self.pos)
            self.pos += run
            self._host_read(done, tape)
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
        self._host_read(n, cart.charged(pos))
        raise Check(NO_SENSE, 0x00, 0x00, info=count - run, ili=True, transferred=done + n)

    def _write6(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._writable()
        fixed = cdb[1] & 0x01
        length = int.from_bytes(cdb[2:5], "big")
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
        fits = min(blocks, max(0, limit - cart.tape_used()) // charged)
        if fits:
            cart.append_blocks(data[: fits * size], size, charged)
            self.pos += fits
            self.load["tape_w"] += fits * charged
            self.cart.meta.tape_bytes_written += fits * charged
            self.load["host_w"] += fits * size
            self.cart.meta.host_bytes_written += fits * size
            self._t_done = self.model.transfer(self._t_done, fits * size, fits * charged, "write")
        if fits < blocks:
            raise Check(VOLUME_OVERFLOW, 0x00, 0x02, info=(blocks - fits) if fixed else length, eom=True)
        if cart.tape_used() > limit - self._early_warning:
            raise Check(NO_SENSE, 0x00, 0x02, info=0, eom=True)
        return 0

    def _write_filemarks(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        count = int.from_bytes(cdb[2:5], "big")
        if cdb[1] & 0x02:
            raise invalid_field()  # setmarks
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
        if not cdb[1] & 0x01:  # not IMMED: the buffer goes to tape first
            self._t_done = self.model.flush(self._t_done)
        if count and self.cart.tape_used() > self.cart.meta.capacity - self._early_warning:
            raise Check(NO_SENSE, 0x00, 0x02, info=0, eom=True)
        return 0

    def _erase(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        if self.cart.meta.write_protect:
            raise write_protected()
        if self.cart.meta.worm and self.pos < self.cart.count:
            raise worm_overwrite()
        self._reposition(self.pos)
        self.cart.truncate(self.pos)
        return 0

    # ------------------------------------------------------------------ positioning
    def _rewind(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        self._reposition(0)
        return 0

    def _load_unload(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        if cdb[4] & 0x04:
            raise invalid_field()  # EOT: not supported
        if cdb[4] & 0x01:  # LOAD
            if not self.loaded:
                self.loaded = True
                self.cart.meta.load_count += 1
                self.load = dict.fromkeys(self.load, 0)
            self._reposition(0)
        elif self.loaded:
            self._reposition(0)
            self.loaded = False
            self.cart.flush()
        return 0

    def _locate(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        if cdb[0] == 0x2B:
            dest_type, cp = 0, cdb[1] & 0x02
            partition, target = cdb[8], struct.unpack_from(">I", cdb, 3)[0]
        else:
            dest_type, cp = (cdb[1] >> 3) & 0x07, cdb[1] & 0x02
            partition, target = cdb[3], struct.unpack_from(">Q", cdb, 4)[0]
        if cp and partition != 0:
            raise invalid_field()
        cart = self.cart
        if dest_type == 3:
            self._reposition(cart.count)
            return 0
        if dest_type == 1:
            where = 0 if target == 0 else cart.filemark_position(target - 1)
            target = where + 1 if (where is not None and target) else (0 if target == 0 else cart.count + 1)
        elif dest_type != 0:
            raise invalid_field()
        if target > cart.count:
            self._reposition(cart.count)
            raise Check(BLANK_CHECK, 0x00, 0x05)
        self._reposition(target)
        return 0

    def _space6(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        count = int.from_bytes(cdb[2:5], "big", signed=True)
        return self._space(cdb[1] & 0x07, count)

    def _space16(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        count = int.from_bytes(cdb[4:12], "big", signed=True)
        return self._space(cdb[1] & 0x0F, count)

    def _space(self, code: int, count: int) -> int:
        self._medium()
        cart, pos = self.cart, self.pos
        if code == 3:
            self._reposition(cart.count)
            return 0
        if code not in (0, 1):
            raise invalid_field()
        if count == 0:
            return 0
        if code == 0 and count > 0:
            fm = cart.next_filemark(pos)
            stop = fm if fm is not None else cart.count
            if count <= stop - pos:
                self._reposition(pos + count)
            elif fm is not None:
                self._reposition(fm + 1)
                raise Check(NO_SENSE, 0x00, 0x01, info=count - (fm - pos), filemark=True)
            else:
                self._reposition(cart.count)
                raise Check(BLANK_CHECK, 0x00, 0x05, info=count - (stop - pos))
        elif code == 0:
            want = -count
            fm = cart.prev_filemark(pos)
            floor = fm + 1 if fm is not None else 0
            if want <= pos - floor:
                self._reposition(pos - want)
            elif fm is not None:
                self._reposition(fm)
                raise Check(NO_SENSE, 0x00, 0x01, info=want - (pos - floor), filemark=True)
            else:
                self._reposition(0)
                raise Check(NO_SENSE, 0x00, 0x04, info=want - pos, eom=True)
        elif count > 0:
            before = cart.filemarks_before(pos)
            where = cart.filemark_position(before + count - 1)
            if where is not None:
                self._reposition(where + 1)
            else:
                passed = cart.filemarks_before(cart.count) - before
                self._reposition(cart.count)
                raise Check(BLANK_CHECK, 0x00, 0x05, info=count - passed)
        else:
            before = cart.filemarks_before(pos)
            k = before + count  # count is negative
            if k >= 0:
                self._reposition(cart.filemark_position(k))
            else:
                self._reposition(0)
                raise Check(NO_SENSE, 0x00, 0x04, info=-count - before, eom=True)
        return 0

    def _read_position(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        action = cdb[1] & 0x1F
        pos, cart = self.pos, self.cart
        flags = (0x80 if pos == 0 else 0) | (0x40 if cart.tape_used(pos) > cart.meta.capacity - self._early_warning else 0)
        if action in (0x00, 0x01):
            if pos > 0xFFFFFFFF:
                data = bytes([flags | 0x04]) + bytes(19)
            else:
                data = struct.pack(">BBxxII8x", flags, 0, pos, pos)
            return self._reply(data, 20, buf)
        if action == 0x06:
            data = struct.pack(">B3xIQQ8x", flags, 0, pos, cart.filemarks_before(pos))
            return self._reply(data, 32, buf)
        if action == 0x08:
            data = struct.pack(">BBHxBBBQQQ", flags, 0, 0x1C, 0, 0, 0, pos, pos, 0)
            return self._reply(data, struct.unpack_from(">H", cdb, 7)[0], buf)
        raise invalid_field()

    # ------------------------------------------------------------------ reports
    def _report_density(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        media, medium_type = cdb[1] & 0x01, cdb[1] & 0x02
        alloc = struct.unpack_from(">H", cdb, 7)[0]
        if medium_type:
            raise invalid_field()
        if media:
            self._medium()
            code = DENSITY[self.cart.meta.generation]
            desc = [pages.density_descriptor(code, writable=code in self.spec.writable and not self.cart.meta.write_protect,
                                             default=True, capacity_mb=self.cart.meta.capacity // pages.MB)]
        else:
            desc = [pages.density_descriptor(code, writable=code in self.spec.writable, default=code == self.spec.density_code)
                    for code in self.spec.readable]
        return self._reply(pages.report_density(desc), alloc, buf)

    def _mam(self) -> pages.MamValues:
        meta, mib = self.cart.meta, pages.MiB
        return pages.MamValues(
            remaining_mib=max(0, meta.capacity - self.cart.tape_used()) // mib,
            maximum_mib=meta.capacity // mib,
            load_count=meta.load_count,
            density_code=DENSITY[meta.generation],
            mib_written_life=meta.host_bytes_written // mib,
            mib_read_life=meta.host_bytes_read // mib,
            mib_written_load=self.load["host_w"] // mib,
            mib_read_load=self.load["host_r"] // mib,
            manufacturer="TAPEDIAG",
            serial=meta.serial,
            manufactured=meta.manufactured,
            worm=meta.worm,
            barcode=meta.barcode,
        )

    def _read_attribute(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        action = cdb[1] & 0x1F
        partition, first = cdb[7], struct.unpack_from(">H", cdb, 8)[0]
        alloc = struct.unpack_from(">I", cdb, 10)[0]
        if partition != 0 or cdb[5] != 0:
            raise invalid_field()
        attrs = pages.mam_attributes(self._mam())
        chosen = [ident for ident in attrs if ident >= first]
        if action == 0x00:
            body = b"".join(attrs[i] for i in chosen)
        elif action in (0x01, 0x05):
            body = b"".join(struct.pack(">H", i) for i in chosen)
        else:
            raise invalid_field()
        return self._reply(struct.pack(">I", len(body)) + body, alloc, buf)

    def _log_sense(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        page, sub = cdb[2] & 0x3F, cdb[3]
        pointer, alloc = struct.unpack_from(">HH", cdb, 5)
        if cdb[1] & 0x01 or sub:
            raise invalid_field()  # saving parameters / subpages
        builders = self._log_pages()
        if page == 0x00:  # supported pages: bare page codes, not parameters
            return self._reply(pages.log_page(0x00, [bytes([0x00, *sorted(builders)])]), alloc, buf)
        builder = builders.get(page)
        if builder is None:
            raise invalid_field()
        params = [p for p in builder() if struct.unpack_from(">H", p)[0] >= pointer]
        return self._reply(pages.log_page(page, params), alloc, buf)

    def _log_pages(self) -> dict[int, Callable[[], list[bytes]]]:
        return {0x02: lambda: self._log_errors(self.load["host_w"]),
                0x03: lambda: self._log_errors(self.load["host_r"]), 0x0C: self._log_sequential,
                0x17: self._log_volume, 0x1B: self._log_compression, 0x2E: self._log_tapealert}

    @staticmethod
    def _log_errors(processed: int) -> list[bytes]:
        return [pages.counter(code, 0) for code in range(5)] + [pages.counter(5, processed, 8), pages.counter(6, 0)]

    def _log_sequential(self) -> list[bytes]:
        mb, cart = pages.MB, self.cart
        return [
            pages.counter(0x0000, self.load["host_w"], 8),
            pages.counter(0x0001, self.load["tape_w"], 8),
            pages.counter(0x0002, self.load["tape_r"], 8),
            pages.counter(0x0003, self.load["host_r"], 8),
            pages.counter(0x0004, cart.tape_used() // mb),
            pages.counter(0x0005, (cart.meta.capacity - self._early_warning) // mb),
            pages.counter(0x0006, self._early_warning // mb),
            pages.counter(0x0007, cart.tape_used(self.pos) // mb),
            pages.counter(0x0008, self.spec.buffer_size // mb),
            pages.counter(0x0100, 0, 8),
        ]

    def _log_volume(self) -> list[bytes]:
        meta, mb = self.cart.meta, pages.MB
        ratio = lambda host, tape: int(100 * host / tape) if tape else 0  # noqa: E731
        serial = pages.ascii_field(meta.serial, 32)
        return [
            pages.log_param(0x0000, b"\x01", 0x03),
            pages.counter(0x0001, meta.load_count),
            pages.counter(0x0002, meta.tape_bytes_written // (400 * 1024)),  # data sets: 400 KiB of tape each (approximation)
            pages.counter(0x0007, meta.tape_bytes_read // (400 * 1024)),
            pages.counter(0x000E, self.load["host_w"] // mb),
            pages.counter(0x000F, self.load["host_r"] // mb),
            pages.counter(0x0010, meta.host_bytes_written // mb),
            pages.counter(0x0011, meta.host_bytes_read // mb),
            pages.counter(0x0012, ratio(self.load["host_w"], self.load["tape_w"]), 2),
            pages.counter(0x0013, ratio(self.load["host_r"], self.load["tape_r"]), 2),
            pages.counter(0x0016, meta.capacity // mb),
            pages.counter(0x0017, self.cart.tape_used() // mb),
            pages.log_param(0x0040, serial, 0x01),
        ]

    def _log_compression(self) -> list[bytes]:
        ld, mb = self.load, pages.MB
        ratio = lambda host, tape: int(100 * host / tape) if tape else 0  # noqa: E731
        params = [pages.counter(0x0000, ratio(ld["host_r"], ld["tape_r"]), 2),
                  pages.counter(0x0001, ratio(ld["host_w"], ld["tape_w"]), 2)]
        for code, value in ((0x0002, ld["host_r"]), (0x0004, ld["tape_r"]), (0x0006, ld["host_w"]), (0x0008, ld["tape_w"])):
            params += [pages.counter(code, value // mb), pages.counter(code + 1, value % mb)]
        return params + [pages.counter(0x0100, int(self.mode.compression), 1)]

    def _log_tapealert(self) -> list[bytes]:
        flags, self.tapealert = self.tapealert, set()  # reading the page clears the flags
        return [pages.log_param(code, bytes([1 if code in flags else 0]), 0x03) for code in range(1, 65)]


def open_virtual(device: str) -> VirtualDrive:
    """Open ``virtual:ltoN[?options]`` (see ``native.virtual.options`` for the options)."""
    return VirtualDrive(device, parse_device(device))
