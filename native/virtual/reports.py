"""Reporting commands: REPORT DENSITY SUPPORT, READ ATTRIBUTE (MAM), LOG SENSE.

Values come from the cartridge's lifetime counters and the per-load counters the
data path keeps; layouts live in ``pages.py``. Byte counts are exact; "MB" in log
pages is 10^6 bytes and MAM figures are MiB, as SPC-4 names them.
"""
from __future__ import annotations

import struct
from typing import Callable

from native.scsi import cdb as C
from native.transport import Buffer
from native.virtual import buffers, health, opcodes, pages, vendorpages
from native.virtual.base import DriveBase
from native.virtual.options import BAD_TAPE_ERROR_BYTES
from native.virtual.sense import invalid_field
from native.virtual.specs import DENSITY


class ReportCommands(DriveBase):
    def _maintenance_in(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        """MAINTENANCE IN: only REPORT SUPPORTED OPERATION CODES, all commands (reporting options 000b)."""
        command = C.ReportSupportedOpcodes.parse(cdb)
        if command.service_action != C.SA_REPORT_SUPPORTED_OPCODES or command.reporting_options:
            raise invalid_field()
        report = opcodes.supported_commands(self._handlers, timeouts=command.rctd)
        return self._reply(report.to_bytes(), command.allocation_length, buf)

    def _report_density(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        command = C.ReportDensitySupport.parse(cdb)
        media, alloc = command.media, command.allocation_length
        if command.medium_type:
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

    def _host_attributes(self, number: int) -> dict[int, bytes]:
        """The attributes the host wrote (``partitions.PartitionCommands``); none by default."""
        return {}

    def _mam(self, number: int = 0) -> pages.MamValues:
        """The cartridge memory as partition ``number`` reports it: its own capacities, the cartridge's
        lifetime totals (each partition file counts its own bytes: ``partitions.py``)."""
        parts = getattr(self, "parts", [self.cart])
        part, meta, mib = parts[number], parts[0].meta, pages.MiB
        return pages.MamValues(
            remaining_mib=max(0, part.meta.capacity - part.tape_used()) // mib,
            maximum_mib=part.meta.capacity // mib,
            load_count=meta.load_count,
            density_code=DENSITY[meta.generation],
            mib_written_life=sum(p.meta.host_bytes_written for p in parts) // mib,
            mib_read_life=sum(p.meta.host_bytes_read for p in parts) // mib,
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
        command = C.ReadAttribute.parse(cdb)
        action, first, alloc = command.service_action, command.first_attribute, command.allocation_length
        if not 0 <= command.partition < len(getattr(self, "parts", [self.cart])) or command.volume != 0:
            raise invalid_field()
        attrs = pages.mam_attributes(self._mam(command.partition))
        attrs = dict(sorted({**attrs, **self._host_attributes(command.partition)}.items()))
        chosen = [ident for ident in attrs if ident >= first]
        if action == C.AttributeAction.VALUES:
            body = b"".join(attrs[i] for i in chosen)
        elif action in (C.AttributeAction.LIST, 0x05):  # 05h: supported attributes
            body = b"".join(struct.pack(">H", i) for i in chosen)
        else:
            raise invalid_field()
        return self._reply(struct.pack(">I", len(body)) + body, alloc, buf)

    def _log_sense(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        command = C.LogSense.parse(cdb)
        page, pointer, alloc = command.page_code, command.parameter_pointer, command.allocation_length
        if command.sp or command.subpage_code:
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
        builders: dict[int, Callable[[], list[bytes]]] = {
            0x02: lambda: self._log_errors(self.load["host_w"]),
            0x03: lambda: self._log_errors(self.load["host_r"], self.load["tape_reread"] // BAD_TAPE_ERROR_BYTES), 0x0C: self._log_sequential,
            0x17: self._log_volume, 0x1B: self._log_compression, 0x2E: self._log_tapealert,
            # drive-wide pages (issue 15), in ``health.py``
            0x06: lambda: health.non_medium_errors(self.life), 0x0D: lambda: health.temperature(self.life),
            0x11: self._log_device_status, 0x12: lambda: health.tapealert_response(self.tapealert),
            0x14: lambda: health.device_statistics(self.life, serial=self.serial,
                                                   density_code=DENSITY[self.cart.meta.generation]),
            0x16: lambda: health.tape_diagnostic(self.life),
            0x18: lambda: health.protocol_port(self.life, sas_address=self.naa, interface_rate=self.spec.interface_rate),
            0x1A: lambda: health.power_conditions(self.life),
            # vendor pages both personalities list (``vendorpages.py``)
            0x30: self._log_tape_usage, 0x31: self._log_tape_capacity, 0x32: self._log_compression,
        }
        if self.opts.vendor == vendorpages.IBM:
            for code in vendorpages.NOT_ON_IBM:
                del builders[code]
            builders.update({code: vendorpages.undocumented for code in vendorpages.IBM_UNDOCUMENTED})
            builders[0x37] = lambda: vendorpages.ibm_performance(worn=self.opts.worn_head > 0)
        else:
            builders[0x34] = self._log_hp_performance
        return builders

    def _log_tape_usage(self) -> list[bytes]:
        meta = self.cart.meta
        return vendorpages.tape_usage(loads=meta.load_count, tape_written=meta.tape_bytes_written,
                                      tape_read=meta.tape_bytes_read, worn_head=self.opts.worn_head)

    def _log_tape_capacity(self) -> list[bytes]:
        meta, mib = self.cart.meta, pages.MiB
        return vendorpages.tape_capacity(remaining_mib=max(0, meta.capacity - self.cart.tape_used()) // mib,
                                         maximum_mib=meta.capacity // mib)

    def _security_protocol_in(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        """SECURITY PROTOCOL IN, protocol 20h (tape data encryption), pages 0000h/0010h/0020h/0021h."""
        command = C.SecurityProtocolIn.parse(cdb)
        page, alloc = command.protocol_specific, command.allocation_length
        if command.security_protocol != C.PROTOCOL_TAPE_ENCRYPTION or command.inc_512:
            raise invalid_field()
        encrypted = self.opts.encrypt and self.loaded and self.cart.count > 0
        next_block = None
        if page == 0x0021:
            self._medium()
            next_block = (self.pos, self._next_block_encryption())
        data = health.encryption_page(page, encrypt=self.opts.encrypt, volume_encrypted=encrypted,
                                      key_descriptor=self.opts.key_descriptor, next_block=next_block)
        if data is None:
            raise invalid_field()
        return self._reply(data, alloc, buf)

    def _read_buffer(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        """READ BUFFER(10): the error history (mode 1Ch) and, as an IBM drive, the dump (buffer 01h, modes 02h/03h);
        layouts in ``buffers.py``. Anything else is an invalid field, as on a drive without those buffers."""
        command = C.ReadBuffer.parse(cdb)
        mode, ident, offset, alloc = command.mode, command.buffer_id, command.offset, command.allocation_length
        vendor = vendorpages.product(self.opts.vendor, self.spec.generation)[0]
        if mode == C.BufferMode.ERROR_HISTORY:
            if ident in buffers.CLEAR_IDS:
                self.life.error_history_cleared = True
                return 0
            history = {} if self.life.error_history_cleared else buffers.error_history(
                vendor=vendor, serial=self.serial, hours=self.life.power_on_hours,
                errors=[(d[9] & 0x0F, d[10], d[11]) for d in self.life.diagnostics])
            if ident == 0x00 or ident in buffers.SNAPSHOT_IDS:
                return self._reply(buffers.directory(vendor, history), alloc, buf)
            data = history.get(ident)
        elif self.opts.vendor == vendorpages.IBM and ident == buffers.DUMP_BUFFER \
                and mode in (C.BufferMode.DATA, C.BufferMode.DESCRIPTOR):
            data = buffers.dump(self.serial)
            if mode == C.BufferMode.DESCRIPTOR:
                return self._reply(buffers.descriptor(len(data)), alloc, buf)
        else:
            data = None
        if data is None or offset > len(data):
            raise invalid_field()
        return self._reply(data[offset:], alloc, buf)

    def _next_block_encryption(self) -> int:
        """The next block's ENCRYPTION STATUS as a drive knows it without moving the tape (a model): a filemark or
        end of data is not a logical block (2h); a block is known once the drive has read since the load (its
        read-ahead holds it): encrypted and decryptable (5h) with ``encrypt=1``, else not encrypted (3h); before
        any read, not yet read (1h)."""
        if self.pos >= self.cart.count or self.cart.is_filemark(self.pos):
            return 0x2
        if not self.load["host_r"]:
            return 0x1
        return 0x5 if self.opts.encrypt else 0x3

    def _log_device_status(self) -> list[bytes]:
        return health.dt_device_status(self.life, loaded=self.loaded, write_protected=self.cart.meta.write_protect,
                                       compression=self.mode.compression, alerts=bool(self.tapealert),
                                       encryption=self.opts.encrypt)

    def _log_errors(self, processed: int, rereads: int = 0) -> list[bytes]:
        """Pages 02h/03h: zero errors, or with a worn head (``worn=1``, ``wornhead=N``) the model's corrected
        rewrites/rereads (``vendorpages.worn_retries``: counted as corrected with delay, retried and corrected),
        plus ``rereads`` (the worn stretch of ``badtape=``, reads only).
        The data still comes back right: the drive's ECC and retries correct it, as they would."""
        worn = self.opts.worn_head + float(self.cart.meta.extra.get("worn_media", 0.0))  # the drive's head + the cartridge
        retries = vendorpages.worn_retries(processed, worn) + rereads
        return ([pages.counter(0, 0), pages.counter(1, retries), pages.counter(2, retries), pages.counter(3, retries),
                 pages.counter(4, retries)] + [pages.counter(5, processed, 8), pages.counter(6, 0)])

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
            pages.counter(0x0100, int(self.life.cleaning_required), 8),
        ]

    def _log_volume(self) -> list[bytes]:
        """Page 17h. With no cartridge loaded the page is not valid (Page Valid 0) and names no volume: an
        unloaded drive has no volume serial or barcode to report (issue 31: 'info ...?loaded=0' showed both)."""
        if not self.loaded:
            return [pages.log_param(0x0000, b"\x00", 0x03), pages.counter(0x0001, 0)]
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
            pages.log_param(0x0042, pages.ascii_field(meta.barcode, 32), 0x01),
            pages.log_param(0x0043, pages.ascii_field("TAPEDIAG", 8), 0x01),
            pages.log_param(0x0080, bytes([int(meta.write_protect)]), 0x03),
            pages.log_param(0x0081, bytes([int(meta.worm)]), 0x03),
        ]

    def _log_compression(self) -> list[bytes]:
        # SSC counts this page's "megabytes" in units of 1 048 576 bytes, with the
        # remainder in the following "bytes" parameter (unlike the decimal MB of 0x17).
        ld, mb = self.load, pages.MiB
        ratio = lambda host, tape: int(100 * host / tape) if tape else 0  # noqa: E731
        params = [pages.counter(0x0000, ratio(ld["host_r"], ld["tape_r"]), 2),
                  pages.counter(0x0001, ratio(ld["host_w"], ld["tape_w"]), 2)]
        for code, value in ((0x0002, ld["host_r"]), (0x0004, ld["tape_r"]), (0x0006, ld["host_w"]), (0x0008, ld["tape_w"])):
            params += [pages.counter(code, value // mb), pages.counter(code + 1, value % mb)]
        return params + [pages.counter(0x0100, int(self.mode.compression), 1)]

    def _log_hp_performance(self) -> list[bytes]:
        """HP LTO page 0x34 (the drive plays an HPE drive): how well the host feeds it.

        Rates are in units of 100 KB/s, as HP's reference lays the page out; control
        byte 60h. Repositions are the model's back-hitches per 100 MB the host moved.
        """
        model, stats, unit = self.model, self.model.stats, 100_000
        ratio = (self.load["host_w"] / self.load["tape_w"]) if self.load["tape_w"] else 1.0
        interface = self.spec.interface_rate
        buffer_in = stats.host_bytes / model.t if model.t > 0 else 0.0
        values = (
            round(stats.backhitches * 100_000_000 / stats.host_bytes) if stats.host_bytes else 0,
            buffer_in / unit,
            min(interface, self.spec.speed_steps[-1] * ratio) / unit,
            min(interface, model.speed * ratio) / unit,
            self.spec.native_rate / unit,
        )
        return [pages.log_param(code, int(round(v)).to_bytes(2, "big") if v < 0xFFFF else b"\xff\xff", 0x60)
                for code, v in enumerate(values)]

    def _log_tapealert(self) -> list[bytes]:
        flags, self.tapealert = self.tapealert, set()  # reading the page clears the flags
        return [pages.log_param(code, bytes([1 if code in flags else 0]), 0x03) for code in range(1, 65)]
