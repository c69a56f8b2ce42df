"""Watch a backup: the customer's own job on the selected drive, read-only (``tapediag watch``, ``app.watch``).

The form is the kind's field table (``WatchParams.FIELDS``: for how long, until the job has been idle how long,
the backup process, its disks and interfaces), the run goes through ``app.execute`` on the drive's worker like
any test, the live curve is the kernel's own count of the job's bytes, and the results page is the run kind's
words: the one number (the share of time the drive waited for data) and its verdict first, the evidence and the
streaming floor with the source of its speed steps under it, every figure in the table below.
"""
from __future__ import annotations

from html import escape
from typing import Any

from app.watch.kind import WATCH
from app.watch.node import unavailable_for
from app.watch.params import WatchParams
from app.watch.result import WatchResult
from app.watch.text import ACTIONS
from native.errors import InvalidParameter
from native.units import duration_text
from ui import drivetests
from ui.form import add_fields, given
from ui.panels.verdictpanel import VerdictPanel
from ui.worker import Job

UNTIL_DONE = "Until the backup ends (1 minute without I/O)"
TEN_MINUTES = "Ten minutes of the backup"
ONE_HOUR = "One hour of the backup"


class WatchPanel(VerdictPanel):
    key = "watch"
    tab_title = "&Watch"  # short: the tabs must fit 1024 pixels; the heading and tooltip say it whole
    title = "Watch a backup"
    description = ("Watches the backup another program is running on this drive and names its bottleneck: the share "
                   "of the job's time the drive waited for data, and whether the source (a disk, the backup "
                   "process, the network) or the drive set the pace, with the evidence. Read-only: during the job "
                   "only the Linux kernel's tape statistics are read; the drive itself is asked only before and after. "
                   "Start it while the backup runs.")
    choose_hint = ("The backup running on this drive is watched, never touched: nothing is written, and nothing is "
                   "sent to the drive while the job runs. Name the drive the job writes to (its /dev/nstN).")
    kind = WATCH
    verdict_title = ""  # the headline says it: "The drive waited for data 63% of the time: ..."
    presets = [(UNTIL_DONE, {"for_": "", "until_idle": "60s"}), (TEN_MINUTES, {"for_": "10min", "until_idle": "0"}),
               (ONE_HOUR, {"for_": "1h", "until_idle": "0"})]

    def build_fields(self, form) -> None:
        add_fields(self, WatchParams.FIELDS)  # the CLI's --for, --until-idle, --pid ..., declared once

    def make_params(self) -> Any:
        why = unavailable_for(self.device or "")
        if why:  # said on the form, before Next: a virtual or iSCSI drive has no kernel statistics to watch
            raise InvalidParameter(why)
        params = WatchParams.from_values({**given(self.values()), "device": self.device or ""})
        params.validate()
        return params

    def confirm_text(self, params: Any) -> str:
        p: WatchParams = params
        if p.for_:
            extent = f"for {duration_text(p.for_)}" + (
                f", or less once the backup has ended (no I/O for {duration_text(p.until_idle)})" if p.until_idle else "")
        else:
            extent = f"until the drive has had no I/O for {duration_text(p.until_idle)} (the backup ended)"
        asked = ("Before and after the watch it asks the drive, through its SCSI generic node, for its identity and "
                 "its log pages (INQUIRY, LOG SENSE): nothing else." if p.query_drive == "on" else
                 "Nothing at all is sent to the drive.")
        return (f"<p>Drive: <b>{escape(p.device)}</b></p><p>The watch reads the kernel's tape statistics for this "
                f"drive {escape(extent)}, several times a second, with the disks and the process feeding it.</p>"
                f"<p><b>Nothing is written and nothing is sent to the drive while the backup runs.</b> "
                f"{escape(asked)}</p><p>Start the backup first, or start it now: the watch waits for it.</p>")

    def phases(self, params: Any) -> tuple[str, ...]:
        return ("write",)

    def run_engine(self, job: Job, params: Any, force: bool) -> tuple[Any, dict, int | None]:
        run = drivetests.run_watch(job.device, params, sink=job.sink, cancel=job.cancel)
        return run.result, run.results, run.run_id

    def headline_details(self, r: WatchResult) -> list[str]:
        """Under the headline (the number, the verdict, its culprit): the evidence, the streaming floor with the source
        of its speed steps (how well that table fits this drive: in the table below), and what to do. Kept short: at
        1024×700 a longer block pushed its last lines under the plot."""
        lines = [f"• {escape(e)}" for e in r.verdict.evidence[:4]]
        if r.floor is not None:
            source = r.floor.source
            lines.append(f"<b>Streaming floor:</b> {escape(r.floor.line)}"
                         + (f" <i>(speed steps: {escape(source)})</i>" if source else ""))
        action = ACTIONS.get(r.verdict.kind, ("", ""))[1]
        if action and not (r.floor is not None and r.floor.below):  # below the floor, its line says what to do
            lines.append(f"<i>What to do:</i> {escape(action)}")
        return lines

    def _update_start(self) -> None:
        super()._update_start()
        self.start_button.setText("&Start watching")  # a watch starts no test of its own
