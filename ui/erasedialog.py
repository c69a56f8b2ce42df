"""Erase the cartridge in a drive (``tapediag erase``), from the drive's panel: a confirmation that names the cartridge.

Before anything is written the dialog shows what the erase's own checks found (``app.erase.check_cartridge``: the
barcode, the LTFS volume when there is one, what the cartridge holds, a long erase's time and that it cannot be
stopped once started) and decides nothing itself: a refusal that cannot be lifted (write-protected, WORM, the media,
a read-only session) leaves the Erase button off; a cartridge holding data needs its barcode typed, and every erase
the box ticked. The erase then runs on the drive's worker through ``app.execute`` (the CLI's run: recorded once),
confirmed for that one cartridge (``EraseParams.barcode``: another cartridge loaded since is refused).
"""
from __future__ import annotations

from html import escape as _escape

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (QCheckBox, QComboBox, QDialog, QFormLayout, QHBoxLayout, QLabel, QLineEdit,
                               QProgressBar, QPushButton, QVBoxLayout, QWidget)

from app.erase import EraseCheck, EraseParams
from app.events import Message, Progress
from native.errors import SafetyRefusal
from native.units import duration_text, percent
from ui import drivetests
from ui.form import widget_for
from ui.widgets import SEVERITY_COLOURS
from ui.worker import DeviceWorkers, Job, describe_error

#: What is typed to confirm the erase of a cartridge holding data that has no barcode in its memory.
NO_BARCODE_WORD = "ERASE"


def escape(text: str) -> str:
    """HTML-safe, quotes kept as they are (a volume's name reads 'ARCHIVE01', not &#x27;ARCHIVE01&#x27;)."""
    return _escape(text, quote=False)


def _red(text: str) -> str:
    return f"<span style='color:{SEVERITY_COLOURS['critical'].name()}'>{text}</span>"


def cartridge_html(check: EraseCheck) -> str:
    """The cartridge as the checks found it: its barcode, its LTFS volume, what it holds."""
    state = check.state
    lines = [f"Cartridge: <b>{escape(state.barcode)}</b>" if state.barcode else "Cartridge: no barcode in its memory"]
    if state.ltfs is not None:
        lines.append(f"<b>{escape(state.ltfs.describe())}</b>")
    held = state.held()
    lines.append(f"{'Holds data' if state.holds_data else 'On it'}: {escape(held)}" if held else "Holds data")
    if check.partitions > 1:
        lines.append(f"{check.partitions} partitions: each is erased from its start")
    return "<br>".join(lines)


def warning_html(check: EraseCheck, long: bool) -> str:
    """Why the erase cannot run, or what it will do: the data lost, a long erase's time and that it cannot be
    stopped once started."""
    refusal, cannot = check.refusal, check.cannot(long)
    if refusal is not None and not refusal.overridable:
        return _red(f"<b>Cannot erase:</b> {escape(refusal.message)}")
    if cannot:
        return _red(f"<b>Cannot erase:</b> {escape(cannot[:1].upper() + cannot[1:])}. A short erase can.")
    out = []
    if check.state.holds_data:
        out.append(_red("<b>Everything on this cartridge will be lost.</b>"))
    if long:
        took = f"about {duration_text(check.estimate_seconds)}" if check.estimate_seconds else "an unknown time"
        out.append(f"A long erase takes <b>{took}</b> ({escape(check.estimate_basis)}). Once the drive has started it, "
                   "<b>it cannot be stopped</b>: Stop waiting then only stops tapediag waiting; the drive erases on "
                   "to the end of the tape and is busy until then.")
    else:
        out.append("A short erase writes end of data at the start of the tape: seconds. The old data can no longer "
                   "be read, and stays on the tape until overwritten.")
    return "<br>".join(out)


class EraseDialog(QDialog):
    """One erase of the cartridge in ``device`` (module docstring)."""

    def __init__(self, workers: DeviceWorkers, device: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workers, self.device = workers, device
        self.check: EraseCheck | None = None
        self.job: Job | None = None
        self.run_id: int | None = None
        self._seq = 0
        self.setWindowTitle("Erase a cartridge")
        self.setMinimumWidth(600)  # the LTFS volume's UUID and a long erase's warning on few lines (1024x700 screens)
        self._build()
        self.timer = QTimer(self)
        self.timer.setInterval(100)
        self.timer.timeout.connect(self._drain)
        self.recheck()

    def _build(self) -> None:
        lay = QVBoxLayout(self)
        heading = QLabel(f"Erase the cartridge in <b>{escape(self.device)}</b>")
        heading.setWordWrap(True)
        lay.addWidget(heading)
        form = QFormLayout()
        kind = widget_for(EraseParams.FIELDS[0])  # short or long, declared once with the CLI's options
        assert isinstance(kind, QComboBox)
        self.kind: QComboBox = kind
        self.kind.setToolTip(EraseParams.FIELDS[0].help)
        self.kind.currentIndexChanged.connect(self.recheck)
        form.addRow(EraseParams.FIELDS[0].label, self.kind)
        lay.addLayout(form)
        self.cartridge = self._rich("eraseCartridge")
        self.warning = self._rich("eraseWarning")
        self.typed_label = QLabel("")
        self.typed = QLineEdit()
        self.typed.setObjectName("eraseTyped")
        self.typed_label.setBuddy(self.typed)
        self.tick = QCheckBox("I &understand: erase this cartridge")
        self.tick.setObjectName("eraseTick")
        for widget in (self.cartridge, self.warning, self.typed_label, self.typed, self.tick):
            lay.addWidget(widget)
        self.typed.textChanged.connect(self._update)
        self.tick.toggled.connect(self._update)
        self.progress = QProgressBar()
        self.progress.hide()
        self.status = self._rich("eraseStatus")
        lay.addWidget(self.progress)
        lay.addWidget(self.status)
        lay.addStretch(1)
        self.erase_button = QPushButton("E&rase")
        self.erase_button.clicked.connect(self.start)
        self.close_button = QPushButton("&Cancel")
        self.close_button.clicked.connect(self.reject)
        row = QHBoxLayout()
        row.addStretch(1)
        row.addWidget(self.erase_button)
        row.addWidget(self.close_button)
        lay.addLayout(row)

    @staticmethod
    def _rich(name: str) -> QLabel:
        label = QLabel("")
        label.setObjectName(name)
        label.setTextFormat(Qt.TextFormat.RichText)
        label.setWordWrap(True)
        return label

    # -- the check --------------------------------------------------------------------------------
    def params(self) -> EraseParams:
        return EraseParams.from_values({"erase": self.kind.currentData()})

    def recheck(self) -> Job | None:
        """Ask the erase's own checks (worker thread) what is in the drive; only the newest answer is shown."""
        if self.job is not None:
            return None
        self.check = None
        self._seq += 1
        seq, device, params = self._seq, self.device, self.params()
        self.cartridge.setText("Checking what is on the cartridge…")
        self.warning.setText("")
        self._show_confirmation(False, False)
        return self.workers.submit(Job(device, "cartridge check", lambda job: drivetests.erase_check(device, params),
                                       on_done=lambda check: self._checked(seq, check),
                                       on_error=lambda err: self._check_failed(seq, err)))

    def _checked(self, seq: int, check: EraseCheck) -> None:
        if seq != self._seq:
            return
        self.check = check
        self.cartridge.setText(cartridge_html(check))
        self.warning.setText(warning_html(check, self.params().long))
        allowed = (check.refusal is None or check.refusal.overridable) and not check.cannot(self.params().long)
        self._show_confirmation(allowed, allowed and self.needs_typing())
        self._update()
        self._fit()

    def _check_failed(self, seq: int, err: BaseException) -> None:
        if seq != self._seq:
            return
        words = err.message if isinstance(err, SafetyRefusal) else describe_error(err)
        self.cartridge.setText(_red(f"<b>Cannot erase:</b> {escape(words)}"))
        self._update()
        self._fit()

    def _fit(self) -> None:
        """Grown to show every line the texts wrap to (a wrapped label's height is known once its text is)."""
        layout = self.layout()
        if layout is not None:
            layout.activate()
        self.resize(self.width(), max(self.height(), self.sizeHint().height()))

    # -- the confirmation ----------------------------------------------------------------------------
    def needs_typing(self) -> bool:
        """A cartridge holding data: its barcode is typed (the refusal ``force`` lifts)."""
        return self.check is not None and self.check.refusal is not None and self.check.refusal.overridable

    def confirm_word(self) -> str:
        return self.check.state.barcode if self.check is not None and self.check.state.barcode else NO_BARCODE_WORD

    def _show_confirmation(self, tick: bool, typed: bool) -> None:
        self.tick.setChecked(False)
        self.tick.setVisible(tick)
        self.typed.clear()
        self.typed.setVisible(typed)
        self.typed_label.setVisible(typed)
        what = "the cartridge's barcode" if self.confirm_word() != NO_BARCODE_WORD else "the word"
        self.typed_label.setText(f"To erase it, type {what} <b>{escape(self.confirm_word())}</b> here:")
        self.tick.setText("I &understand: erase this cartridge" + ("; its data will be lost" if typed else ""))

    def confirmed(self) -> bool:
        """Whether the erase may be started: checked, allowed, ticked, and for data the barcode typed."""
        if self.check is None or self.job is not None or self.run_id is not None:
            return False
        if self.check.refusal is not None and not self.check.refusal.overridable or self.check.cannot(self.params().long):
            return False
        typed = not self.needs_typing() or self.typed.text().strip() == self.confirm_word()
        return self.tick.isChecked() and typed

    def _update(self, *_: object) -> None:
        self.erase_button.setEnabled(self.confirmed())

    # -- the erase ------------------------------------------------------------------------------------
    def start(self) -> Job | None:
        if not self.confirmed() or self.check is None:
            return None
        params = EraseParams.from_values({"erase": self.kind.currentData(), "force": self.needs_typing(),
                                          "barcode": self.check.state.barcode or None})
        device = self.device
        self.job = Job(device, "erase", lambda job: drivetests.run_erase(device, params, sink=job.sink, cancel=job.cancel),
                       on_done=self._done, on_error=self._failed, holds_selection=True)
        for widget in (self.kind, self.typed, self.tick, self.erase_button):
            widget.setEnabled(False)
        self.progress.setRange(0, 0)  # busy until the drive reports how far it is
        self.progress.show()
        self.status.setText("Erasing…")
        self.close_button.setText("Stop &waiting" if params.long else "&Stop")
        self.timer.start()
        return self.workers.submit(self.job)

    def _drain(self) -> None:
        if self.job is None:
            return
        for event in self.job.drain():
            if isinstance(event, Progress) and event.total_bytes:
                self.progress.setRange(0, event.total_bytes)
                self.progress.setValue(event.done_bytes)
                left = f", about {duration_text(event.eta_s)} left" if event.eta_s is not None else ""
                self.status.setText(f"Erasing: {percent(event.done_bytes / event.total_bytes)}{left}")
            elif isinstance(event, Message) and event.level in ("warning", "error"):
                self.status.setText(escape(event.text))

    def _finish(self, text: str) -> None:
        self._drain()
        self.timer.stop()
        self.job = None
        self.progress.hide()
        self.warning.setText("")  # what the erase would do: it has been done, or refused
        self.cartridge.setText(self.cartridge.text().replace("Cartridge:", "Before the erase, cartridge:", 1))
        self.status.setText(text)
        self.erase_button.hide()
        self.close_button.setText("&Close")
        self.close_button.setEnabled(True)
        self._fit()

    def _done(self, recorded: drivetests.Recorded) -> None:
        from app.erase.kind import ERASE

        self.run_id = recorded.run_id
        result = recorded.result
        words = ERASE.headline(result)
        self._finish(f"<b>{escape(words[:1].upper() + words[1:])}</b> (run {recorded.run_id})<br>"
                     f"The tape now: {escape(result.state_after)}")

    def _failed(self, err: BaseException) -> None:
        if isinstance(err, SafetyRefusal):
            self._finish(_red(f"<b>Refused:</b> {escape(err.message)}. Nothing was written."))
        else:
            self._finish(_red(f"<b>Failed:</b> {escape(describe_error(err))}"))

    def reject(self) -> None:
        """Cancel before the erase: nothing was written. While it runs: stop (waiting); the dialog stays until the
        run has ended and says what the tape is left as."""
        if self.job is not None:
            self.job.cancel.cancel()
            self.close_button.setEnabled(False)
            self.status.setText("Stopping…")
            return
        super().reject()


__all__ = ["EraseDialog", "cartridge_html", "warning_html"]
