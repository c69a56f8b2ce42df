"""The drive's own word, asked once before the watch and once after it, never during the job.

Through the SCSI generic node beside the st node (the st node is the backup's: st allows one
open at a time, and closing /dev/stN would rewind). Only queries are sent, and only these:
INQUIRY (identity, serial), REPORT SUPPORTED OPERATION CODES (``TapeDrive`` learns its command
timeouts from it) and LOG SENSE. ``QueriesOnly`` refuses anything else before it leaves the
machine and records every command sent, so the result lists exactly what the drive was asked.

Read at both ends: the error counters (02h, 03h) and the Data Compression page (1Bh, whose
byte counts give the data's compression ratio over the watch). TapeAlert only from its
response page (12h), which leaves the flags set; never page 2Eh, whose reading clears flags
the backup application may be waiting to see. A drive that cannot be asked (no sg node, no
permission, reserved by the backup) gives the kernel's figures alone, and the result says why.
"""
from __future__ import annotations

import time
from typing import Callable

from app.drive import TapeDrive, generation_from_product
from app.tapeperf.logs import COUNTERS
from app.tapeperf.speedmatch import form_from_product
from app.watch.result import CounterChange, DriveFigures
from native.errors import DeviceError, DevicePermissionDenied, SafetyRefusal, TapediagError
from native.scsi import cdb as C
from native.scsi.devicelogs import PAGE_TAPEALERT_RESPONSE, TapeAlertResponse
from native.transport import DEFAULT_TIMEOUT, Buffer, CommandResult, Transport, TransferLimit, WritableBuffer

#: The only commands watch sends: opcode -> name (MAINTENANCE IN only as REPORT SUPPORTED OPERATION CODES).
ALLOWED = {op: C.opcode_name(op) for op in (C.INQUIRY, C.LOG_SENSE, C.MAINTENANCE_IN)}

Snapshot = dict[str, "int | None"]


class QueriesOnly(Transport):
    """A transport that passes only ``ALLOWED`` commands and remembers each one sent."""

    def __init__(self, inner: Transport, clock: Callable[[], float] = time.monotonic) -> None:
        self.inner = inner
        self.device = inner.device
        self.clock = clock
        self.sent: list[tuple[float, str]] = []

    def execute(self, cdb: bytes, *, data_out: Buffer | None = None, data_in: int | WritableBuffer = 0,
                timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        name = ALLOWED.get(cdb[0])
        if name is None or data_out is not None or (
                cdb[0] == C.MAINTENANCE_IN
                and C.ReportSupportedOpcodes.parse(cdb).service_action != C.SA_REPORT_SUPPORTED_OPCODES):
            raise SafetyRefusal(f"watch did not send opcode {cdb[0]:02X}h to {self.device}: it sends a drive in use "
                                "nothing but INQUIRY, REPORT SUPPORTED OPERATION CODES and LOG SENSE",
                                reason="watch is read-only", overridable=False)
        label = f"{name} {C.LogSense.parse(cdb).page_code:02X}h" if cdb[0] == C.LOG_SENSE else name
        if cdb[0] == C.INQUIRY and (inquiry := C.Inquiry.parse(cdb)).evpd:
            label = f"INQUIRY VPD {inquiry.page_code:02X}h"
        self.sent.append((self.clock(), label))
        return self.inner.execute(cdb, data_in=data_in, timeout=timeout)

    def transfer_limit(self) -> TransferLimit | None:
        return self.inner.transfer_limit()

    def close(self) -> None:
        self.inner.close()


def _open(sg: str) -> QueriesOnly:
    from native import open_transport

    return QueriesOnly(open_transport(sg))


class DriveQuery:
    """Asks the drive at the start (``begin``) and at the end (``end``); holds no node open in between."""

    def __init__(self, sg: str | None, *, opener: Callable[[str], QueriesOnly] = _open,
                 clock: Callable[[], float] = time.monotonic) -> None:
        self.sg = sg
        self.opener = opener
        self.clock = clock
        self.t0 = clock()
        self.figures = DriveFigures(sg=sg or "")
        self._before: Snapshot = {}
        self._pages: tuple[int, ...] | None = None

    def _session(self, work: Callable[[TapeDrive], None], when: str) -> None:
        if self.sg is None:
            self.figures.why_not = "no SCSI generic node beside the st node (load the sg module to read the drive's pages)"
            return
        try:
            transport = self.opener(self.sg)
        except DevicePermissionDenied as err:
            self.figures.why_not = f"{self.sg} may not be opened by this user: {err.hint or 'run as root'}"
            return
        except TapediagError as err:
            self.figures.why_not = f"{self.sg} could not be opened: {err}"
            return
        already = len(transport.sent)
        try:
            work(TapeDrive(transport, device=self.sg, read_only=True))
        except TapediagError as err:
            self.figures.notes.append(f"the drive did not answer {when}: {err}")
        finally:
            self.figures.sent += [f"{label} at {t - self.t0:.1f} s ({when})" for t, label in transport.sent[already:]]
            transport.close()

    def begin(self) -> None:
        self._session(self._first, "before the watch")

    def end(self) -> DriveFigures:
        if self.figures.queried:
            self._session(self._last, "after the watch")
        return self.figures

    def _first(self, drive: TapeDrive) -> None:
        inquiry = drive.inquiry()
        drive.require_tape()
        f = self.figures
        f.queried = True
        f.vendor, f.product, f.revision = inquiry.vendor, inquiry.product, inquiry.revision
        try:
            f.serial = drive.serial_number()
        except DeviceError:
            f.serial = ""
        f.generation = generation_from_product(inquiry.product)
        f.form = form_from_product(inquiry.product)
        try:
            self._pages = drive.supported_log_pages()
        except DeviceError:
            self._pages = None
        self._before = self._counters(drive)

    def _counters(self, drive: TapeDrive) -> Snapshot:
        values: Snapshot = {}
        cache: dict[int, object] = {}
        for page, attr, label in COUNTERS:
            if page not in cache:
                cache[page] = None
                if self._pages is None or page in self._pages:
                    try:
                        cache[page] = drive.log_sense(page)
                    except DeviceError:
                        pass
            values[label] = getattr(cache[page], attr, None) if cache[page] is not None else None
        return values

    def _last(self, drive: TapeDrive) -> None:
        f = self.figures
        try:
            serial = drive.serial_number()
        except DeviceError:
            serial = f.serial
        if serial != f.serial:
            f.notes.append(f"the drive answering on {self.sg} changed during the watch (serial {f.serial} -> {serial}): "
                           "its counters are not compared")
            return
        after = self._counters(drive)
        f.counters = [CounterChange(name, self._before.get(name), after.get(name)) for name in after]
        self._ratio()
        if self._pages is not None and PAGE_TAPEALERT_RESPONSE in self._pages:
            page = drive.log_sense(PAGE_TAPEALERT_RESPONSE)
            if isinstance(page, TapeAlertResponse):
                f.tapealert = [f"{a.code:02X}h {a.name}" for a in page.active]
        else:
            f.notes.append("TapeAlert not read: this drive lists no TapeAlert response page (12h), and reading page 2Eh "
                           "would clear flags the backup application may be waiting to see")

    def _ratio(self) -> None:
        """The data's compression ratio over the watch, from the Data Compression page's byte counts."""
        f = self.figures
        by = {c.name: c for c in f.counters}
        pairs = (("bytes from host (compression page)", "bytes written to tape (compression page)"),
                 ("bytes to host (compression page)", "bytes read from tape (compression page)"))
        for host_name, tape_name in pairs:
            host, tape = by.get(host_name), by.get(tape_name)
            if host is None or tape is None:
                continue
            if host.delta and tape.delta:
                f.ratio, f.ratio_note = host.delta / tape.delta, "over the watch, from the Data Compression log page (1Bh)"
                return
            if host.after and tape.after and host.delta is None:
                f.ratio_note = "the drive's compression counters went back during the watch (a cartridge change?)"
                return
        f.ratio_note = f.ratio_note or "the drive reports no compression figures for this watch"
