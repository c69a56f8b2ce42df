"""Tape performance: write and/or read a pattern with a known compression ratio and
watch the drive's throughput live, against its rated native and compressed rates."""
from __future__ import annotations

import threading
from html import escape
from typing import Any

from PySide6.QtWidgets import QComboBox, QLabel, QVBoxLayout

from native.errors import Cancelled

from app.tapeperf import TapePerfParams, TapePerfResult
from app.tapeperf.multi import ALONE, MultiParams
from app.tapeperf.multiresult import MultiTapePerfResult
from app.tapeperf.session import CartridgeCheck
from ui import engines
from ui.form import add_fields, given
from ui.panels.testpanel import TestPanel
from ui.widgets import ValidatedField, fit_placeholder
from ui.worker import Job
from native.units import rate_text

LTT_DEFAULT = "L&TT Windows default: 256 KB fixed blocks, 1 MB I/O, 2:1, 32 GB, no filemarks"
HPUX = "HP-UX style: 128 KB × 8 blocks × 8192 repeats (8 GB), 2:1"
QUICK = "Quick check: 256 KB variable blocks, 2:1, 1 GB"
NATIVE = "Native rate: incompressible (random) data, 256 KB fixed blocks, 1 MB I/O, 8 GB"


def _size_words(check: CartridgeCheck) -> str:
    """What the write will send and whether it fits the cartridge (``app.tapeperf.sizing``), for the confirm page:
    a size that does not fit is said in bold, with what is written instead."""
    plan = check.size
    if plan is None or plan.size is None:
        return f"<br>Writes {escape(plan.why)}." if plan is not None else ""
    if plan.capped:  # why: "8.16 GB: the 34.4 GB (32 GiB) asked for does not fit, the cartridge holds ..."
        size, _, why = plan.why.partition(": ")
        return f"<br><b>Does not fit:</b> {escape(why)}. <b>The test writes {escape(size)}.</b>"
    return f"<br>Writes {escape(plan.why)}."


class TapePerfPanel(TestPanel):
    key = "tapeperf"
    tab_title = "&Tape perf."  # short: nine tabs fit 1024 pixels; the heading and tooltip say it whole
    repeat_kind = "tape-perf"  # the history's "Repeat this run"
    title = "Tape performance"
    description = ("Writes data with a known compression ratio to the cartridge and reads it back, measuring "
                   "throughput on the host side (no drive polling while streaming, which would disturb it). "
                   "Writing destroys what is on the cartridge: you will be asked before anything is overwritten.")
    presets = [
        (LTT_DEFAULT, {"direction": "write+read", "pattern": "2:1", "block_size": "256K", "mode": "fixed",
                       "io_size": "1M", "size": "32G", "filemarks_every": "0", "compression": "on", "start": "bot",
                       "verify": False}),
        (HPUX, {"direction": "write+read", "pattern": "2:1", "block_size": "128K", "mode": "fixed",
                "io_size": "1M", "size": "8G", "filemarks_every": "0", "compression": "on", "start": "bot",
                "verify": False}),
        (QUICK, {"direction": "write+read", "pattern": "2:1", "block_size": "256K", "mode": "variable",
                 "io_size": "256K", "size": "1G", "filemarks_every": "0", "compression": "on", "start": "bot",
                 "verify": False}),
        (NATIVE, {"direction": "write+read", "pattern": "random", "block_size": "256K", "mode": "fixed",
                  "io_size": "1M", "size": "8G", "filemarks_every": "0", "compression": "on", "start": "bot",
                  "verify": False}),
    ]

    def build_choose(self, layout: QVBoxLayout) -> None:
        self.device_label = QLabel("Select a tape drive in the device list.")
        self.device_label.setWordWrap(True)
        layout.addWidget(self.device_label)

    def set_device(self, device: str | None) -> None:
        if device != self.device:
            self._probe_seq = getattr(self, "_probe_seq", 0) + 1  # a check still on its way is stale
        super().set_device(device)
        if device:
            self.device_label.setText(f"Drive: <b>{device}</b><br>Choose the test on the next page; "
                                      "presets reproduce the settings technicians know from L&amp;TT and HP-UX.")

    def build_fields(self, form) -> None:
        fields = add_fields(self, TapePerfParams.FIELDS)  # tape-perf's options, declared once (app.tapeperf.params)
        block, mode, io = fields["block_size"], fields["mode"], fields["io_size"]
        assert isinstance(block, ValidatedField) and isinstance(mode, QComboBox) and isinstance(io, ValidatedField)
        self.block_field, self.mode_field, self.io_field = block, mode, io
        # Several drives at once: the others (device strings; the CLI names them all as its devices), how long alone.
        others = self.add_field("others", "Other d&rives at once:", ValidatedField(engines.check_other_drives, ""),
                                "several drives at once: the other drives' device strings, separated by spaces; each "
                                "drive runs alone first, then all together, and the result says whether the path they "
                                "share (HBA, port, target) limits them")
        others.edit.setPlaceholderText("none; e.g. /dev/sg4 iscsi://host/iqn/2")
        fit_placeholder(others.edit)
        add_fields(self, (ALONE,))
        self.mode_field.currentIndexChanged.connect(self._mode_changed)
        self._mode_changed()

    def _mode_changed(self, *_: object) -> None:
        # In variable-block mode every command moves one block: the I/O size is the block size.
        variable = self.mode_field.currentData() == "variable"
        self.io_field.setEnabled(not variable)
        if variable:
            self.io_field.setText(self.block_field.text())

    def make_params(self) -> TapePerfParams | MultiParams:
        values = given(self.values())  # a blank field: the declared default, as an option left out
        if values["mode"] == "variable":
            values.pop("io_size", None)  # disabled: one block per command, the conversion's variable-mode default
        others, alone = str(values.pop("others", "") or ""), str(values.pop("alone", "") or "")
        test = engines.tapeperf_params(values)
        if others.strip() and self.device:  # several drives at once: the selected one first
            return engines.tapeperf_multi_params(self.device, others, test, alone)
        return test

    def subject(self) -> str:
        params = getattr(self, "params", None)
        if isinstance(params, MultiParams):
            return f"drives {', '.join(params.devices)}"
        return super().subject()

    def confirm_text(self, params: Any) -> str:
        from ui.format import human_bytes, human_duration, human_size

        if isinstance(params, MultiParams):
            alone = ("not measured alone (no verdict on the shared path)" if not params.measures_alone else
                     f"each alone first for {human_size(params.alone_size) if params.alone_size else ''}"
                     + (" at most " if params.alone_size and params.alone_duration else "")
                     + (human_duration(params.alone_duration) if params.alone_duration else ""))
            text = (f"<p><b>{len(params.devices)} drives at once</b>: {', '.join(params.devices)}; {alone}, "
                    "then all together.</p>")
            one = self.confirm_text(params.test)  # the same test on each drive, said once
            return text + one.replace(f"<p>Drive: <b>{self.device}</b></p>", "", 1).replace("the cartridge",
                                                                                            "each cartridge")

        where = "the beginning of the tape" if params.start == "bot" else "the end of the recorded data"
        amount = (f"{human_size(params.size)} ({human_bytes(params.size)})" if params.size is not None
                  else f"for {human_duration(params.duration)}" if params.duration is not None
                  else "enough to judge the drive (auto; the amount is shown once the cartridge is checked)")
        text = f"<p>Drive: <b>{self.device}</b></p>"
        if params.writes:
            text += (f"<p>This test <b>writes {amount}</b> of {params.pattern.name} data in {params.mode} "
                     f"{human_size(params.block_size)} blocks ({human_size(params.io_size)} per command), "
                     f"starting at {where}"
                     + (f", with a filemark every {human_size(params.filemarks_every)}" if params.filemarks_every else "")
                     + ".</p>")
            if params.start == "bot":
                text += "<p><b>Everything on the cartridge will be overwritten.</b></p>"
            else:
                text += "<p>Data already on the cartridge is kept; the test data is appended after it.</p>"
        if params.reads:
            text += "<p>It then reads the data back" if params.writes else \
                "<p>This test reads the cartridge from the beginning"
            text += " to the end of the test data" + (" and verifies every block" if params.verify else "") + ".</p>"
        if params.host_rate_limit:
            text += f"<p>The host is throttled to {rate_text(params.host_rate_limit / 1e6)} (a slow source on purpose).</p>"
        if not params.writes:
            text += "<p>Nothing is written.</p>"
        else:
            text += "<p>Before the first write the engine checks the cartridge; if it holds data you will be asked.</p>"
        return text

    def probe(self, params: Any) -> Job | None:
        """Read what is on the cartridge (the engine's own safety probe) for the confirm page."""
        test = params.test if isinstance(params, MultiParams) else params
        if not test.writes or not self.device:
            return None
        device = self.device
        self.found_label.setText("Checking what is on the cartridge…")
        self._probe_seq = getattr(self, "_probe_seq", 0) + 1
        seq = self._probe_seq
        check = ((lambda job: engines.tapeperf_probe_multi(params)) if isinstance(params, MultiParams) else
                 (lambda job: engines.tapeperf_probe(device, params)))
        return self.workers.submit(Job(device, "cartridge check", check,
                                       on_done=lambda check: self._probed(check) if self._current_probe(seq) else None,
                                       on_error=lambda err: self._probe_failed(err) if self._current_probe(seq)
                                       else None))

    def _current_probe(self, seq: int) -> bool:
        """Only the newest check's answer reaches the confirm page: an older one (another
        drive selected since, or Back and Next again) would describe another cartridge."""
        return seq == self._probe_seq

    def _probed(self, check: CartridgeCheck) -> None:
        self.refusal = check.refusal  # the engine's decision (app.media, app.tapeperf.safety.decide)
        if self.refusal is None:
            mb = check.state.mam_mb_written
            written = f" (MAM: {mb:,} MB written in its life)" if mb else ""
            many = isinstance(getattr(self, "params", None), MultiParams)
            self.found_label.setText(("Checked: every drive's cartridge is blank at the start of the tape." if many else
                                      f"Checked: the cartridge is blank at the start of the tape{written}.")
                                     + _size_words(check) + "".join(f"<br>{escape(n)}" for n in check.media_notes))
            return
        self.show_refusal(self.refusal)
        if self.refusal.overridable:  # the data may be overwritten on request: what would be written, then
            self.found_label.setText(self.found_label.text() + _size_words(check))

    def _probe_failed(self, err: BaseException) -> None:
        from ui.worker import describe_error

        self.found_label.setText(f"Could not check the cartridge: {describe_error(err)}")

    def phases(self, params: Any) -> tuple[str, ...]:
        if isinstance(params, MultiParams):  # one curve per drive and their sum (ui.plot: by drive)
            from ui.plot import ALL_DRIVES

            return tuple(f"drive {i}" for i in range(1, len(params.devices) + 1)) + (ALL_DRIVES,)
        return tuple(p for p in ("write", "read") if getattr(params, p + "s"))

    def start(self) -> Job | None:
        """Several drives: the other drives' workers are held (a job on each that waits) before the test
        runs, so no other panel sends them a command meanwhile; one worker per drive stays the rule."""
        params = getattr(self, "params", None)
        self._held: tuple[list[threading.Event], threading.Event] | None = None
        if isinstance(params, MultiParams) and self.target() is not None:
            release, ready = threading.Event(), []
            for device in params.devices[1:]:
                started = threading.Event()

                def hold(job: Job, started: threading.Event = started) -> None:
                    started.set()
                    while not release.wait(0.2) and not job.cancel.cancelled:
                        pass

                ready.append(started)
                self.workers.submit(Job(device, "held by a test on several drives", hold))
            self._held = (ready, release)
        return super().start()

    def run_engine(self, job: Job, params: Any, force: bool):
        if isinstance(params, MultiParams):
            ready, release = self._held or ([], threading.Event())
            try:
                for started in ready:  # each other drive's worker idle and held: none of its jobs runs now
                    while not started.wait(0.2):
                        if job.cancel.cancelled:
                            raise Cancelled("cancelled while waiting for the other drives' work to end")
                return engines.run_tapeperf_multi(job, params, force)
            finally:
                release.set()
        return engines.run_tapeperf(job, job.device, params, force)

    def result_headline(self, r: TapePerfResult | MultiTapePerfResult) -> str:
        if isinstance(r, MultiTapePerfResult):
            return engines.tapeperf_multi_headline(r)
        return engines.tapeperf_headline(r)

    def plot_stretches(self, r: TapePerfResult | MultiTapePerfResult):
        """A short write's flush, shaded, with both figures named under the plot (``app.tapeperf.buffered``)."""
        from app.tapeperf.kind import TAPE_PERF

        return TAPE_PERF.stretches(r) if isinstance(r, TapePerfResult) and TAPE_PERF.stretches else []

    def result_sections(self, r: TapePerfResult | MultiTapePerfResult):
        from app.tapeperf.kind import multi_rows
        from ui.summaries import tapeperf_sections

        if isinstance(r, MultiTapePerfResult):  # several drives: the run kind's rows, as the report prints them
            return [("Result", dict(multi_rows(r)), True)]
        return tapeperf_sections(r)
