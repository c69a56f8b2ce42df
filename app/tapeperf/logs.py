"""The drive's own counters, read before and after a performance test (never during).

Error counters (pages 0x02/0x03) and the Data Compression page (0x1B) are read at both
ends and reported as deltas; TapeAlert only once, after the test: from the TapeAlert
response page (0x12) where the drive lists it (its flags stay set), else from 0x2E, whose
reading clears them. A page the drive lacks is "not supported", never
a failure of the test.
"""
from __future__ import annotations

from app.drive import TapeDrive
from native.scsi.devicelogs import PAGE_TAPEALERT_RESPONSE, TapeAlertResponse
from native.scsi.logpages import SequentialAccess
from app.tapeperf.results import LogDelta, TapePerfResult
from native.errors import DeviceError

# (page, attribute of the typed page, label) of the counters read before and after.
COUNTERS = (
    (0x02, "total_corrected", "write errors corrected"),
    (0x02, "total_uncorrected", "write errors uncorrected"),
    (0x03, "total_corrected", "read errors corrected"),
    (0x03, "total_uncorrected", "read errors uncorrected"),
    (0x1B, "bytes_from_host", "bytes from host (compression page)"),
    (0x1B, "bytes_written_to_tape", "bytes written to tape (compression page)"),
    (0x1B, "bytes_read_from_tape", "bytes read from tape (compression page)"),
    (0x1B, "bytes_to_host", "bytes to host (compression page)"),
)
PAGE_NAMES = {0x02: "write error counters (0x02)", 0x03: "read error counters (0x03)", 0x1B: "data compression (0x1B)",
              0x2E: "TapeAlert (0x2E)"}

Snapshot = dict[str, "int | None"]


class DriveLogs:
    """Reads one drive's counters; asks for the supported-pages list once."""

    def __init__(self, drive: TapeDrive) -> None:
        self.drive = drive
        self._pages: tuple[int, ...] | None = None
        self._pages_unknown = False

    def pages(self) -> tuple[int, ...] | None:
        """The supported log pages, or None when the drive cannot list them (then try each)."""
        if self._pages is None and not self._pages_unknown:
            try:
                self._pages = self.drive.supported_log_pages()
            except DeviceError:
                self._pages_unknown = True
        return self._pages

    def buffer_bytes(self) -> int | None:
        """The drive's buffer as it reports it (page 0x0C parameter 0008h), or None: the span over which
        a stall is told the host's or the drive's (``app.tapeperf.results.stall_cause``)."""
        pages = self.pages()
        if pages is not None and 0x0C not in pages:
            return None
        try:
            page = self.drive.log_sense(0x0C)
        except DeviceError:
            return None
        mb = page.buffer_mb if isinstance(page, SequentialAccess) else None
        return mb * 1_000_000 if mb else None

    def _not_supported(self, result: TapePerfResult, page: int) -> None:
        note = f"log page {PAGE_NAMES[page]}: not supported"
        if note not in result.log_notes:
            result.log_notes.append(note)

    def snapshot(self, result: TapePerfResult) -> Snapshot:
        """The counters now; pages the drive lacks give None (and a note in ``result``)."""
        pages = self.pages()
        cache: dict[int, object] = {}
        values: Snapshot = {}
        for page, attr, label in COUNTERS:
            if page not in cache:
                cache[page] = None
                if pages is None or page in pages:
                    try:
                        cache[page] = self.drive.log_sense(page)
                    except DeviceError:
                        pass
                if cache[page] is None:
                    self._not_supported(result, page)
            obj = cache[page]
            values[label] = getattr(obj, attr, None) if obj is not None else None
        return values

    def finish(self, result: TapePerfResult, before: Snapshot) -> None:
        """Deltas since ``before``, the drive's compression ratio, and TapeAlert (read once)."""
        try:
            after = self.snapshot(result)
        except DeviceError as err:
            result.log_notes.append(f"log pages after the test could not be read: {err}")
            return
        result.log_deltas = [LogDelta(name, before.get(name), after.get(name)) for name in after]
        by = {d.name: d.delta for d in result.log_deltas}
        host, tape = by.get("bytes from host (compression page)"), by.get("bytes written to tape (compression page)")
        if not (host and tape):  # a read-only test: the read side of the same page
            host, tape = by.get("bytes to host (compression page)"), by.get("bytes read from tape (compression page)")
        if host and tape:
            result.drive_ratio = host / tape
            result.drive_ratio_note = "from the Data Compression log page (0x1B)"
        else:
            result.drive_ratio_note = "the drive reports no compression figures for this run"
        pages = self.pages()
        if pages is not None and PAGE_TAPEALERT_RESPONSE in pages:
            # TapeAlert response (0x12): the same flags, and reading it leaves them set for the next look.
            try:
                response = self.drive.log_sense(PAGE_TAPEALERT_RESPONSE)
            except DeviceError:
                response = None
            if isinstance(response, TapeAlertResponse):
                result.tapealert = [f"{f.code:02X}h {f.name}" for f in response.active]
                return
        if pages is not None and 0x2E not in pages:
            self._not_supported(result, 0x2E)
            return
        try:
            alert = self.drive.tapealert()
        except DeviceError:
            self._not_supported(result, 0x2E)
            return
        result.tapealert = [f"{f.code:02X}h {f.name}" for f in alert.active]
