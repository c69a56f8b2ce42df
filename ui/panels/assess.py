"""Drive assessment: the pass / warn / fail answer support desks ask for (``tapediag assess``).

The panel only gathers the two choices the CLI has (``--no-write``, ``--size``), shows the
tape engine's own check of the cartridge before the write step (``app.tapeperf.safety``:
a cartridge holding data needs the same confirmation as the tape performance test,
write-protect and WORM cannot be lifted), and runs ``app.assess`` as the CLI does.
"""
from __future__ import annotations

import dataclasses
from html import escape
from typing import Any

from PySide6.QtWidgets import QCheckBox

from app.assess.engine import AssessParams, AssessResult
from app.assess.kind import ASSESSMENT

from ui import drivetests
from ui.panels.verdictpanel import VerdictPanel
from ui.form import add_fields, given
from ui.worker import Job, describe_error

FULL = "Full assessment: self-test, then write, read back and verify on a scratch cartridge"
NO_WRITE = "No-write assessment: evidence and self-test only (partial; nothing is written)"


class AssessPanel(VerdictPanel):
    key = "assess"
    tab_title = "&Assessment"
    repeat_kind = "assessment"  # the history's "Repeat this run"
    title = "Drive assessment"
    description = ("PASS, PASS WITH WARNINGS, ATTENTION, FAIL or NOT ASSESSED, each step with its reason and the next "
                   "action; what the host caused is noted apart, never held against the drive. "
                   "The drive's pages are captured first (support evidence), then readiness, TapeAlert and the error "
                   "counters, the drive's self-test, and a write / read-back / verify of incompressible data on a "
                   "scratch cartridge. A cartridge holding data is only written after you confirm.")
    choose_hint = "Load a <b>scratch</b> cartridge for the full assessment; the next page can skip the write step."
    kind = ASSESSMENT
    verdict_title = "Drive assessment"
    presets = [(FULL, {"no_write": False, "size": ""}), (NO_WRITE, {"no_write": True, "size": ""})]

    def build_fields(self, form) -> None:
        fields = add_fields(self, AssessParams.FIELDS)  # the CLI's --no-write and --size, declared once
        no_write, size = fields["no_write"], fields["size"]
        assert isinstance(no_write, QCheckBox)
        no_write.toggled.connect(lambda on: size.setEnabled(not on))

    def make_params(self) -> Any:
        return AssessParams.from_values(given(self.values()))

    def confirm_text(self, params: Any) -> str:
        from ui.format import human_size

        text = (f"<p>Drive: <b>{escape(self.device or '')}</b></p><p>The assessment captures the drive's pages "
                "first, checks readiness, TapeAlert and the error counters, and runs the drive's own self-test "
                "(SEND DIAGNOSTIC).</p>")
        if params.no_write:
            return text + ("<p><b>Nothing is written.</b> Without the write, read-back and verify step the "
                           "assessment cannot PASS: it ends NOT ASSESSED (or ATTENTION, FAIL for what the evidence "
                           "and the self-test show), and says so.</p>")
        amount = human_size(params.size) if params.size else "4 drive buffers (at least 2 GiB)"
        return text + (f"<p>It then <b>writes {amount}</b> of incompressible data from the beginning of the tape, "
                       "reads it back and verifies every block. <b>Everything on the cartridge will be "
                       "overwritten:</b> load a scratch cartridge.</p><p>Before the write the cartridge is "
                       "checked; if it holds data you will be asked (or go back and choose not to write).</p>")

    def probe(self, params: Any) -> Job | None:
        """The tape engine's own check of the cartridge (rewind, read at BOT: no write) for the confirm page."""
        if params.no_write or not self.device:
            return None
        device = self.device
        self.found_label.setText("Checking what is on the cartridge…")
        self._probe_seq = getattr(self, "_probe_seq", 0) + 1
        seq = self._probe_seq
        return self.workers.submit(Job(device, "cartridge check", lambda job: drivetests.probe_scratch(device),
                                       on_done=lambda check: self._probed(check) if seq == self._probe_seq else None,
                                       on_error=lambda err: self._probe_failed(err) if seq == self._probe_seq
                                       else None))

    def set_device(self, device: str | None) -> None:
        if device != self.device:
            self._probe_seq = getattr(self, "_probe_seq", 0) + 1  # a check still on its way is stale
        super().set_device(device)

    def _probed(self, check: drivetests.CartridgeCheck) -> None:
        if check.refusal is None:
            self.refusal = None
            written = f" (MAM: {check.mam_mb_written:,} MB written in its life)" if check.mam_mb_written else ""
            self.found_label.setText(f"Checked: the cartridge is blank at the start of the tape{written}.")
            self._update_start()
            return
        self.show_refusal(check.refusal)  # the engine's decision (app.tapeperf.safety.decide), shown as it is

    def _probe_failed(self, err: BaseException) -> None:
        self.found_label.setText(f"Could not check the cartridge: {escape(describe_error(err))}")

    def phases(self, params: Any) -> tuple[str, ...]:
        return () if params.no_write else ("write", "read")

    def run_engine(self, job: Job, params: Any, force: bool) -> tuple[Any, dict, int | None]:
        if force:  # the confirmation on the confirm page: the CLI's --force (it never lifts write-protect/WORM)
            params = dataclasses.replace(params, force=True)
        run = drivetests.run_assessment(job.device, params, sink=job.sink, cancel=job.cancel)
        return run.result, run.results, run.run_id

    def headline_details(self, r: AssessResult) -> list[str]:
        return [f"Next: {escape(r.next_action)}"] if r.next_action else []
