"""Reads a cartridge from BOT to EOD without writing, and without leaving a setting changed.

Why it is read-only by construction: the scan only sends REWIND, LOCATE, READ, LOG SENSE, READ
ATTRIBUTE and the queries of ``info`` (none of them in ``app.drive.STATE_CHANGING_OPCODES``). A
cartridge with two partitions (LTFS) is read partition by partition, each from its start (LOCATE
with a partition: positioning, not writing), its LTFS volume named from its labels (``app.ltfs``),
and the tape is put back at the start of the partition it was found in. It reads in variable-block mode with the drive's
largest block as the buffer, so every block, whatever size the backup application wrote,
comes back whole with its length (ILI); a drive left in fixed-block mode is switched to
variable for the scan and put back afterwards, also after a failure or a cancel (Ctrl-C,
SIGTERM, SIGHUP, the GUI's Cancel), and in a read-only session (``--read-only``) it is not
switched at all: the scan refuses. A cancel before the switch changes nothing; a READ the
drive does not answer after a cancel is given up (``app.commandwatch``), and when that cost
the connection the result says the block mode could not be put back.
"""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

from app import ltfs, media
from app.drive import ReadOnlyRefusal, Supported, TapeDrive, supported
from app.events import CancelToken, EventSink, Message, PhaseFinished, PhaseStarted, discard
from app.scan.params import ScanParams
from app.scan.results import FileLayout, ScanResult, slow_zones, zones_from
from app.scan.rules import judge
from app.tapeperf.engine import SamplePublisher, lag_probe
from app.tapeperf.logs import DriveLogs
from app.tapeperf.rated import BUFFER_MIB
from app.tapeperf.results import MiB, SampleLog, summarize
from native.errors import Cancelled, ConnectionLost, DeviceError, HardwareError, MediumError

if TYPE_CHECKING:
    from app.history.keys import RunKeys
    from app.visits import Prior

#: The largest READ the scan sends: LTO's maximum block (8 MiB); a drive reporting less caps it lower.
MAX_READ = 8 << 20
#: The history's kind of a scan run (``app.runs``), for every front end that records one.
RUN_KIND = "media-scan"
PUBLISH_INTERVAL = 0.1


class MediaScan:
    """One read-only scan of the loaded cartridge.

    ``prior(keys)``: the visits of this cartridge and this drive recorded before the scan (default: the
    history, ``app.visits.prior_visits``), which turn what one scan cannot settle into a verdict: a slow
    stretch seen again is MONITOR, errors spread evenly are the cartridge's when it erred in other drives
    too and the head's when the drive erred on other cartridges."""

    def __init__(self, drive: TapeDrive, params: ScanParams, *, clock: Callable[[], float] = time.perf_counter,
                 prior: "Callable[[RunKeys], Prior] | None" = None) -> None:
        self.drive, self.params, self.clock = drive, params, clock
        self.prior = prior
        self._lost = False  # the path to the drive is gone: nothing more may be sent

    def run(self, sink: EventSink = discard, cancel: CancelToken | None = None) -> ScanResult:
        cancel = cancel or CancelToken()
        drive = self.drive
        result = ScanResult(device=drive.device, params=self.params.to_dict())
        inq = drive.inquiry()
        result.vendor, result.product = inq.vendor, inq.product
        serial = supported(drive.serial_number)
        result.serial = serial.value if isinstance(serial, Supported) else ""
        drive.wait_ready(timeout=300.0)
        fit = media.check_loaded(drive, writes=False, doing="the media scan")  # an incompatible cartridge: refused
        for note in media.notes(fit, writes=False):
            sink(Message("warning", note))
        mode = drive.block_size()
        if mode and drive.read_only:
            raise ReadOnlyRefusal(drive.device, f"the drive is in fixed-block mode ({mode} bytes) and the scan "
                                                "reads in variable mode; it was not switched")
        limits = supported(drive.read_block_limits)
        largest = limits.value.max_length if isinstance(limits, Supported) and limits.value.max_length else MAX_READ
        result.max_block_read = min(largest, MAX_READ)
        logs = DriveLogs(drive)
        before = logs.snapshot(result)  # type: ignore[arg-type]
        result.buffer_bytes = logs.buffer_bytes() or self._published_buffer()
        if cancel.cancelled:  # nothing switched yet, nothing read
            result.status, result.partial, result.end_reason = "cancelled", True, "cancelled"
            result.settings = "no setting changed (cancelled before the scan began)"
            judge(result)
            return result
        found_in = self._partition_now()
        if mode:
            drive.set_block_size(0)
        try:
            self._recognise(result, sink)
            self._read(result, sink, cancel)
        finally:
            result.settings = (self._restore(mode, found_in) if not self._lost else
                               "the connection was lost: nothing more was sent"
                               + (f" (the drive may be left in variable-block mode; it was fixed {mode} bytes)" if mode else ""))
        if not self._lost:
            try:
                logs.finish(result, before)  # type: ignore[arg-type]
            except DeviceError as err:
                result.log_notes.append(f"log pages after the scan could not be read: {err}")
            result.cartridge = self._cartridge()
        judge(result, self._prior(result))
        return result

    def _partition_now(self) -> int:
        """The partition the tape is in (READ POSITION), where the scan puts it back; 0 when not reported."""
        try:
            return self.drive.read_position().partition
        except DeviceError:
            return 0

    def _recognise(self, result: ScanResult, sink: EventSink) -> None:
        """How many partitions to read, and the LTFS volume the labels name (READs at BOT only). An LTFS volume
        has two partitions ("Volume Layout" of the format specification): a one-partition cartridge whose memory
        names no volume is not read twice at BOT."""
        result.partitions = ltfs.partition_count(self.drive) or 1
        if result.partitions < 2 and ltfs.from_cartridge_memory(self.drive) is None:
            return
        try:
            volume = ltfs.recognise(self.drive, labels=True)
        except ConnectionLost:
            raise
        except DeviceError as err:  # the read below meets the same error and says what it means for the scan
            result.log_notes.append(f"the labels at BOT could not be read: {err}")
            return
        if volume is not None:
            result.ltfs = volume
            sink(Message("info", f"{volume.describe()}: holds data; reading both partitions, nothing is written"))

    def _published_buffer(self) -> int | None:
        """The drive's generation's buffer, for a drive that does not report its own (page 0x0C)."""
        try:
            generation = self.drive.generation()
        except DeviceError:
            return None
        return BUFFER_MIB[generation] * MiB if generation in BUFFER_MIB else None

    def _prior(self, result: ScanResult) -> "Prior":
        """The visits recorded before this scan of its cartridge (MAM serial, else barcode) and its drive."""
        from app.history.keys import RunKeys

        keys = RunKeys(result.serial or None, result.cartridge.get("barcode") or None,
                       result.cartridge.get("serial") or None)
        if self.prior is not None:
            return self.prior(keys)
        from app.visits import prior_visits

        return prior_visits(keys)

    def _read(self, result: ScanResult, sink: EventSink, cancel: CancelToken) -> None:
        drive, clock, p = self.drive, self.clock, self.params
        ph, log = result.read, SampleLog("read", lag_probe=lag_probe(drive))
        buf = bytearray(result.max_block_read)
        view = memoryview(buf)
        drive.rewind()
        partition = 0
        t0 = clock()
        deadline = t0 + p.limit_seconds if p.limit_seconds is not None else None
        sink(PhaseStarted("read", p.limit_bytes))
        publish = SamplePublisher(sink, log, result, p.limit_bytes, deadline, 0.0, t0, clock)
        current = FileLayout(0)
        file_t0 = 0.0
        done, reason = 0, ""
        while True:
            if cancel.cancelled:
                reason = "cancelled"
                break
            a = clock()
            try:
                out = drive.read(view)
            except Cancelled as err:  # a READ given up after the cancel: what the drive may be doing, once
                self._lost = isinstance(err, ConnectionLost)
                reason = "cancelled"
                sink(Message("warning", str(err)))
                break
            except ConnectionLost as err:
                self._lost = True
                reason, result.error, result.status, result.error_kind = "lost", str(err), "failed", "lost"
                break
            except DeviceError as err:
                reason, result.error, result.status = "error", str(err), "failed"
                result.error_kind = ("medium" if isinstance(err, MediumError) else
                                     "hardware" if isinstance(err, HardwareError) else "other")
                break
            b = clock()
            if out.nbytes:
                if current.blocks == 0:
                    file_t0 = a - t0
                current.add(out.nbytes)
                current.seconds = b - t0 - file_t0
                log.add(b - t0, b - a, out.nbytes)
                done += out.nbytes
                if out.ili and out.residual < 0:
                    result.oversize_blocks += 1
            if out.filemark:
                ph.filemarks += 1
                result.files.append(current)
                current = FileLayout(len(result.files), partition=partition)
            if out.eod or (out.nbytes == 0 and not out.filemark):
                if partition + 1 < result.partitions:  # the next partition, from its start (LOCATE: no write)
                    if current.blocks:
                        result.files.append(current)
                    partition += 1
                    drive.locate(0, partition=partition)
                    current = FileLayout(len(result.files), partition=partition)
                    continue
                reason = "end of data" if (done or result.files) else "blank cartridge"
                break
            if p.limit_bytes is not None and done >= p.limit_bytes or deadline is not None and b >= deadline:
                reason, result.partial = "limit reached", True
                break
            if b - publish.last >= PUBLISH_INTERVAL:
                publish(done, b)
        if current.blocks:
            result.files.append(current)
        end = clock() - t0
        publish.finish(done, clock())
        if reason == "cancelled":
            result.status, result.partial = "cancelled", True
        result.end_reason = reason
        ph.bytes, ph.ios, ph.blocks, ph.end_reason = done, len(log), len(log), reason
        summarize(ph, log, 0.0, end, buffer_bytes=result.buffer_bytes)
        result.zones = zones_from(log, p.zone_bytes, ph.stalls)
        result.slow_zones, result.typical_zone_mb_s = slow_zones(result.zones, p.zone_bytes)
        sink(PhaseFinished("read", ph.to_dict()))

    def _restore(self, mode: int | None, partition: int = 0) -> str:
        """Put the block mode back and the tape at the start of the partition it was in; say what was done."""
        notes = []
        try:
            if mode:
                self.drive.set_block_size(mode)
                notes.append(f"block mode put back to fixed {mode} bytes")
            if partition:
                self.drive.locate(0, partition=partition)
                notes.append(f"tape put back at the start of partition {partition}, where it was found")
            else:
                self.drive.rewind()
                notes.append("tape rewound to BOT")
        except DeviceError as err:
            notes.append(f"could not put the drive back ({err}); it may be left in variable-block mode")
        return "; ".join(notes) if mode else "no setting changed; " + "; ".join(notes)

    def _cartridge(self) -> dict[str, object]:
        """The cartridge memory's figures (barcode, loads, totals), as ``info`` shows them."""
        from app.info.stored import cartridge_fields

        mam = supported(self.drive.read_attributes)
        if not isinstance(mam, Supported):
            return {}
        return {k: v for k, v in cartridge_fields(mam.value).items() if v not in (None, "", ())}
