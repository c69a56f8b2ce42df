"""Media scan: a read-only look at the customer's own cartridge (``tapediag scan``).

Reads from BOT to end of data (or up to a limit) without writing; the layout the backup
application wrote, the read rate, where the drive repositioned while the host kept up,
the error counters, and a cartridge verdict (keep / check again / monitor / retire), with what the scan found
about the drive, the connection and the host kept apart from the cartridge's verdict.
"""
from __future__ import annotations

from html import escape
from typing import Any

from app.scan.kind import MEDIA_SCAN
from app.scan.params import ScanParams
from app.scan.results import ScanResult
from native.errors import SafetyRefusal
from ui import drivetests
from ui.panels.verdictpanel import VerdictPanel
from ui.form import add_fields, given
from ui.widgets import SEVERITY_COLOURS
from ui.worker import Job

WHOLE = "Whole cartridge: BOT to end of data"
QUICK = "Quick look: the first 10 GB"
TEN_MINUTES = "Ten minutes of reading"


class ScanPanel(VerdictPanel):
    key = "scan"
    tab_title = "&Media scan"
    repeat_kind = "media-scan"  # the history's "Repeat this run"
    title = "Media scan"
    description = ("Reads the loaded cartridge from the beginning to the end of its data without writing anything: "
                   "the files and block sizes the backup application wrote, the read rate, where the drive "
                   "repositioned while the host kept up, the read error counters and TapeAlert, and a cartridge "
                   "verdict (keep; check again when something was seen in this scan only; monitor once seen twice; "
                   "retire), with the drive's and the host's findings apart. A drive left in fixed-block mode is put "
                   "back as found.")
    choose_hint = "The cartridge in the drive is read, never written: a customer's backup tape is safe here."
    kind = MEDIA_SCAN
    verdict_title = ""  # the headline names it: "Cartridge KEEP: 0.54 GB read at 406.8 MB/s"
    presets = [(WHOLE, {"limit": "", "zone": "1GB"}), (QUICK, {"limit": "10GB", "zone": "1GB"}),
               (TEN_MINUTES, {"limit": "10min", "zone": "1GB"})]

    def build_fields(self, form) -> None:
        add_fields(self, ScanParams.FIELDS)  # the CLI's --limit and --zone, declared once

    def make_params(self) -> Any:
        return ScanParams.from_values(given(self.values()))

    def confirm_text(self, params: Any) -> str:
        from ui.format import human_duration, human_size

        if params.limit_bytes is not None:
            extent = f"the first {human_size(params.limit_bytes)} of the cartridge (a partial scan)"
        elif params.limit_seconds is not None:
            extent = f"the cartridge for {human_duration(params.limit_seconds)} (a partial scan)"
        else:
            extent = "the cartridge from the beginning of the tape to the end of its data"
        return (f"<p>Drive: <b>{escape(self.device or '')}</b></p><p>The scan reads {extent}.</p>"
                "<p><b>Nothing is written.</b> A drive in fixed-block mode is switched to variable blocks for "
                "the scan and put back afterwards; in a read-only session the scan refuses instead of "
                "switching. The tape is rewound at the end.</p>")

    def phases(self, params: Any) -> tuple[str, ...]:
        return ("read",)

    def run_engine(self, job: Job, params: Any, force: bool) -> tuple[Any, dict, int | None]:
        run = drivetests.run_scan(job.device, params, sink=job.sink, cancel=job.cancel)
        return run.result, run.results, run.run_id

    def headline_details(self, r: ScanResult) -> list[str]:
        lines = [f"• {escape(reason)}" for reason in r.reasons]
        for f in r.findings:
            action = f" <i>What to do:</i> {escape(f.action)}" if f.action else ""
            colour = SEVERITY_COLOURS.get(f.severity, SEVERITY_COLOURS["information"]).name()
            lines.append(f"<b style='color:{colour}'>{escape(f.culprit.capitalize())}:</b> {escape(f.text)}" + action)
        return lines

    def show_refusal(self, err: SafetyRefusal) -> None:
        """A refused scan (a read-only session and a drive in fixed-block mode): it wrote nothing."""
        super().show_refusal(err)
        self.found_label.setText(f"<b>Refused:</b> {escape(str(err))}")
