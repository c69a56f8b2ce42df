"""The shape shared by the three test panels (tape performance, create data, read data):
choose → parameters (with presets) → confirm → run (live plot) → results.

Subclasses describe their fields and call their engine through ``ui.engines``; this
base does the page flow, validation display, the destructive-step confirmation,
running on the device's worker, and settings persistence.
"""
from __future__ import annotations

from html import escape
from typing import Any, TypeVar

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QBoxLayout,
    QCheckBox,
    QComboBox,
    QFileDialog,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from native.errors import Cancelled, SafetyRefusal, TapediagError
from ui.runview import RunView
from ui.settings import load_json, save_json
from ui.widgets import SEVERITY_COLOURS, ResultTree, ValidatedField, error_label, headline
from ui.wizard import WizardPanel, button_row, nav_row
from ui.worker import Job, describe_error

Field = ValidatedField | QComboBox | QCheckBox
F = TypeVar("F", ValidatedField, QComboBox, QCheckBox)


class TestPanel(WizardPanel):
    """Subclasses set ``presets`` and implement the ``_``-less hooks below."""

    presets: list[tuple[str, dict[str, Any]]] = []
    #: The run kind (``app.runs``) this panel runs, whose recorded runs the history's "Repeat this run" brings here;
    #: "" for a panel that does not repeat runs.
    repeat_kind = ""

    def __init__(self, workers, parent: QWidget | None = None) -> None:
        super().__init__(workers, parent)
        self.fields: dict[str, Field] = {}
        self.job: Job | None = None
        self.result: Any = None
        self.result_dict: dict | None = None
        self.run_id: int | None = None
        self.refusal: SafetyRefusal | None = None
        self.outcome: str = ""
        self.last_report = None
        self._build_choose()
        self._build_params()
        self._build_confirm()
        self._build_run()
        self._build_results()
        self.show_page("choose")
        saved = load_json(f"{self.key}/params")
        if isinstance(saved, dict):
            self.apply_values(saved)

    # -- hooks ---------------------------------------------------------------------------
    def build_choose(self, layout: QVBoxLayout) -> None:
        """Widgets of the first page (device or directory)."""

    def build_fields(self, form: QFormLayout) -> None:
        """Add the parameter fields (``self.add_field``)."""

    def target(self) -> str | None:
        """The worker key: the device string, or the directory for disk tests."""
        return self.device

    def subject(self) -> str:
        """What a run of this panel runs on, as its run and results pages name it."""
        return f"drive {self.device}" if self.device else ""

    def make_params(self) -> Any:
        """The engine's parameter object from the fields; raises InvalidParameter."""
        raise NotImplementedError

    def confirm_text(self, params: Any) -> str:
        raise NotImplementedError

    def run_engine(self, job: Job, params: Any, force: bool) -> tuple[Any, dict, int | None]:
        """Worker thread: run the engine; returns (result, result dict, history run id)."""
        raise NotImplementedError

    def probe(self, params: Any) -> Job | None:
        """Optionally look at the target before the confirm page's Start (no writes)."""
        return None

    def phases(self, params: Any) -> tuple[str, ...]:
        """The sample phases this run will produce (their curves are set up before it starts)."""
        return ()

    def references(self, params: Any) -> list[tuple[str, float]]:
        return []

    def result_headline(self, result: Any) -> str:
        """The typed result's headline (HTML)."""
        return ""

    def result_sections(self, result: Any) -> list[tuple[str, Any, bool]]:
        """The typed result as (title, data, expanded) sections."""
        return [("Results", self.result_dict or {}, True)]

    def plot_stretches(self, result: Any) -> list[Any]:
        """What the plot marks besides the samples (``RunKind.stretches``: a write's flush); none by default."""
        return []

    # -- pages ---------------------------------------------------------------------------
    def _build_choose(self) -> None:
        page = QWidget()
        lay = QVBoxLayout(page)
        self.build_choose(lay)
        self.choose_next = QPushButton("&Next")
        self.choose_next.setDefault(True)
        self.choose_next.clicked.connect(self.go_params)
        lay.addStretch(1)
        lay.addLayout(button_row(self.choose_next))
        self.add_page("choose", page, 0)

    def _build_params(self) -> None:
        page = QWidget()
        lay = QVBoxLayout(page)
        self.preset = QComboBox()
        self.preset.setObjectName("preset")
        self.preset.addItem("Custom")
        for name, _ in self.presets:
            self.preset.addItem(name)
        self.preset.activated.connect(self._preset_chosen)
        preset_row = QFormLayout()
        preset_row.addRow("Pr&eset:", self.preset)
        lay.addLayout(preset_row)
        box = QGroupBox("Parameters")
        self.form = QFormLayout(box)
        self.form.setFieldGrowthPolicy(QFormLayout.FieldGrowthPolicy.AllNonFixedFieldsGrow)
        self.build_fields(self.form)
        lay.addWidget(box)
        self.params_error = error_label("paramsError")
        lay.addWidget(self.params_error)
        lay.addStretch(1)
        back = QPushButton("&Back")
        back.clicked.connect(lambda: self.show_page("choose"))
        self.params_next = QPushButton("&Next")
        self.params_next.setDefault(True)
        self.params_next.clicked.connect(self.go_confirm)
        lay.addLayout(nav_row(back, self.params_next))
        self.add_page("params", page, 1)

    def _build_confirm(self) -> None:
        page = QWidget()
        lay = QVBoxLayout(page)
        self.confirm_label = QLabel("")
        self.confirm_label.setObjectName("confirmText")
        self.confirm_label.setWordWrap(True)
        self.confirm_label.setTextFormat(Qt.TextFormat.RichText)
        self.found_label = headline("")
        self.found_label.setObjectName("cartridgeFinding")
        self.confirm_box = QCheckBox("")
        self.confirm_box.setObjectName("confirmOverwrite")
        self.confirm_box.toggled.connect(self._update_start)
        self.confirm_box.hide()
        lay.addWidget(self.confirm_label)
        lay.addWidget(self.found_label)
        lay.addWidget(self.confirm_box)
        lay.addStretch(1)
        back = QPushButton("&Back")
        back.clicked.connect(lambda: self.show_page("params"))
        self.start_button = QPushButton("&Start test")
        self.start_button.setDefault(True)
        self.start_button.clicked.connect(self.start)
        lay.addLayout(nav_row(back, self.start_button))
        self.add_page("confirm", page, 2)

    def _build_run(self) -> None:
        self.runview = RunView()
        self.add_page("run", self.runview, 3)

    def _build_results(self) -> None:
        page = QWidget()
        lay = QVBoxLayout(page)
        self.result_subject = QLabel("")
        self.result_subject.setObjectName("resultSubject")
        self.result_subject.setTextFormat(Qt.TextFormat.RichText)
        self.result_subject.setWordWrap(True)
        self.result_label = headline("")
        self.result_label.setObjectName("resultHeadline")
        self.result_tree = ResultTree()
        self.result_tree.setObjectName("resultTree")
        self.results_plot_holder = QVBoxLayout()
        lay.addWidget(self.result_subject)
        lay.addWidget(self.result_label)
        lay.addLayout(self.results_plot_holder, 3)
        lay.addWidget(self.result_tree, 2)
        self.new_button = QPushButton("&New test")
        self.new_button.clicked.connect(self._new_test)
        self.report_button = QPushButton("&Save report…")
        self.report_button.clicked.connect(self.ask_save_report)
        row = QHBoxLayout()
        row.addWidget(self.new_button)
        for extra in self.result_buttons():
            row.addWidget(extra)
        row.addStretch(1)
        row.addWidget(self.report_button)
        lay.addLayout(row)
        self.add_page("results", page, 4)

    def result_buttons(self) -> list[QPushButton]:
        """Extra buttons beside "New test" on the results page."""
        return []

    def set_device(self, device: str | None) -> None:
        """A new selection in the device pane; a half-done wizard for another drive restarts,
        and results taken from another drive say so (issue 11 §5)."""
        changed = device != self.device
        super().set_device(device)
        if changed and self.uses_device and self.current_page() in ("params", "confirm"):
            self.show_page("choose")
        if changed and self.uses_device:
            self._label_results()

    uses_device = True  # the disk panels test a directory, not the selected drive

    # -- fields and presets --------------------------------------------------------------
    def add_field(self, name: str, label: str, field: F, tip: str = "") -> F:
        self.fields[name] = field
        if tip:
            field.setToolTip(tip)
        if isinstance(field, ValidatedField):
            field.edit.textChanged.connect(self._field_changed)
        elif isinstance(field, QComboBox):
            field.currentIndexChanged.connect(self._field_changed)
        else:
            field.toggled.connect(self._field_changed)
        self.form.addRow(label, field)
        return field

    def values(self) -> dict[str, Any]:
        out: dict[str, Any] = {}
        for name, f in self.fields.items():
            if isinstance(f, ValidatedField):
                out[name] = f.text()
            elif isinstance(f, QComboBox):
                out[name] = f.currentData() if f.currentData() is not None else f.currentText()
            else:
                out[name] = f.isChecked()
        return out

    def apply_values(self, values: dict[str, Any]) -> None:
        for name, v in values.items():
            f = self.fields.get(name)
            if isinstance(f, ValidatedField):
                f.setText(str(v))
            elif isinstance(f, QComboBox):
                i = f.findData(v)
                if i < 0:
                    i = f.findText(str(v))
                if i >= 0:
                    f.setCurrentIndex(i)
                elif f.isEditable():
                    f.setEditText(str(v))
            elif isinstance(f, QCheckBox):
                f.setChecked(bool(v))

    def apply_preset(self, name: str) -> None:
        for i, (preset_name, values) in enumerate(self.presets):
            if preset_name == name or preset_name.startswith(name):
                self.apply_values(values)
                self.preset.setCurrentIndex(i + 1)
                return
        raise KeyError(name)

    def _preset_chosen(self, index: int) -> None:
        if index > 0:
            self._applying = True
            self.apply_values(self.presets[index - 1][1])
            self._applying = False
            self.preset.setCurrentIndex(index)

    def _field_changed(self, *_: object) -> None:
        if not getattr(self, "_applying", False) and self.preset.currentIndex() > 0:
            name, values = self.presets[self.preset.currentIndex() - 1]
            if any(str(self.values().get(k)) != str(v) for k, v in values.items()):
                self.preset.setCurrentIndex(0)
        self.validate()

    def validate(self) -> Any:
        """Fields first (reason beside each), then the engine's own cross-checks."""
        bad = [f for f in self.fields.values() if isinstance(f, ValidatedField) and not f.ok]
        params = None
        if bad:
            self.params_error.setText("Correct the highlighted fields.")
        else:
            try:
                params = self.make_params()
                self.params_error.setText("")
            except (TapediagError, ValueError) as err:
                self.params_error.setText(str(err))
        self.params_next.setEnabled(params is not None)
        return params

    def save_settings(self) -> None:
        save_json(f"{self.key}/params", self.values())

    def repeat(self, values: dict[str, Any]) -> None:
        """Fill the form with a recorded run's parameters (``engines.repeat_values``; every other field blank, its
        default) and go to the confirm page: the run starts only from there, after the same checks and the same
        confirmation as any run (a cartridge that holds data: the overwrite box)."""
        self.preset.setCurrentIndex(0)
        self._applying = True
        for name, field in self.fields.items():
            if name not in values and isinstance(field, ValidatedField):
                field.setText("")
        self.apply_values(values)
        self._applying = False
        self.show_page("params")
        self.go_confirm()

    # -- flow -------------------------------------------------------------------------
    def go_params(self) -> None:
        if self.target() is None:
            self.show_error(self.title, "Choose a device first.")
            return
        self.show_page("params")
        self.validate()

    def go_confirm(self) -> None:
        params = self.validate()
        if params is None:
            return
        self.save_settings()
        self.params = params
        self.refusal = None
        self.confirm_label.setText(self.confirm_text(params))
        self.found_label.setText("")
        self.found_label.setPalette(self.palette())
        self.confirm_box.hide()
        self.confirm_box.setChecked(False)
        self._update_start()
        self.show_page("confirm")
        self.probe(params)

    def _update_start(self) -> None:
        if self.refusal is None:
            self.start_button.setEnabled(True)
            self.start_button.setText("&Start test")
        elif self.refusal.overridable:
            self.start_button.setEnabled(self.confirm_box.isChecked())
            self.start_button.setText("&Overwrite and start")
        else:
            self.start_button.setEnabled(False)

    def start(self) -> Job | None:
        target = self.target()
        if target is None:
            return None
        # A job for a busy device waits its turn on that device's worker: never a race.
        force = self.refusal is not None and self.refusal.overridable and self.confirm_box.isChecked()
        params = self.params
        self.result = self.result_dict = self.run_id = None
        self.run_subject = self.subject()
        job = Job(target, self.title.lower(), lambda j: self.run_engine(j, params, force),
                  on_done=self._done, on_error=self._failed, holds_selection=self.uses_device)
        self.job = job
        self._plot_to_run_page()
        self.runview.attach(job, references=self.references(params), phases=self.phases(params),
                            subject=f"{escape(self.title)} on <b>{escape(self.run_subject)}</b>")
        self.show_page("run")
        return self.workers.submit(job)

    def cancel(self) -> None:
        if self.job is not None:
            self.runview.cancel_button.click()

    def _done(self, outcome: tuple[Any, dict, int | None]) -> None:
        from app.history import result_status

        self.result, self.result_dict, self.run_id = outcome
        # As the history recorded it: "failed", or a disk test "stopped" by a full disk, is failed; a watch that
        # saw nothing run on its drive is complete (its headline says so).
        status = result_status(self.result)
        if self.job and self.job.cancel.cancelled:
            status = "cancelled"
        self.outcome = status
        self.runview.detach({"cancelled": "Cancelled: partial results below.",
                             "failed": "Failed: partial results below."}.get(status, "Finished."))
        self._show_results()
        if status == "failed":
            self.show_error(self.title, str(getattr(self.result, "error", None) or "the test failed"))

    def _failed(self, err: BaseException) -> None:
        if isinstance(err, SafetyRefusal):
            self.runview.detach("Refused: nothing was written.")
            self.show_refusal(err)
            self.show_page("confirm")
            return
        if isinstance(err, Cancelled):
            self.outcome = "cancelled"
            self.runview.detach("Cancelled.")
            self.show_page("params")
            return
        self.outcome = "failed"
        self.runview.detach(f"Failed: {describe_error(err)}")
        self.show_error(self.title, err)

    def show_refusal(self, err: SafetyRefusal) -> None:
        """The confirm page says what the engine found and, if it may be overridden, asks."""
        self.refusal = err
        self.found_label.setText(f"<b>{'Found on the cartridge' if err.overridable else 'Cannot write'}:</b> "
                                 f"{err.reason}" + ("" if err.overridable else f"<br>{err}"))
        pal = self.found_label.palette()
        pal.setColor(self.found_label.foregroundRole(), SEVERITY_COLOURS["critical"])
        self.found_label.setPalette(pal)
        if err.overridable:
            self.confirm_box.setText("I &understand: overwrite this cartridge; its data will be destroyed")
            self.confirm_box.setChecked(False)
            self.confirm_box.show()
        else:
            self.confirm_box.hide()
        self._update_start()

    def _show_results(self) -> None:
        text = self.result_headline(self.result)
        if self.outcome in ("cancelled", "failed"):
            text = f"<b>{self.outcome.capitalize()}</b> — partial results. " + text
        self.result_label.setText(text)
        self._label_results()
        self.result_tree.show_sections(self.result_sections(self.result))
        self.runview.plot.set_stretches(self.plot_stretches(self.result))
        self.report_button.setEnabled(self.run_id is not None)
        self._plot_to_results_page()
        self.show_page("results")

    def _label_results(self) -> None:
        """Name the drive (or directory) the shown results were taken from; warn when the
        device pane now selects another drive, so they are never read as its results."""
        subject = getattr(self, "run_subject", "")
        if not subject:
            self.result_subject.setText("")
            return
        run = f" (run {self.run_id})" if self.run_id is not None else ""
        text = f"Results of <b>{escape(subject)}</b>{run}"
        if self.uses_device and self.device and subject != self.subject():
            text += (f"<br><span style='color:{SEVERITY_COLOURS['warning'].name()}'><b>Not the selected "
                     f"device</b> ({escape(self.device)}): these results belong to {escape(subject)}.</span>")
        self.result_subject.setText(text)

    def _plot_to_results_page(self) -> None:
        self.results_plot_holder.addWidget(self.runview.plot)

    def _plot_to_run_page(self) -> None:
        layout = self.runview.layout()
        if self.runview.plot.parent() is not self.runview and isinstance(layout, QBoxLayout):
            layout.insertWidget(layout.indexOf(self.runview.progress), self.runview.plot, 1)

    def _new_test(self) -> None:
        self._plot_to_run_page()
        self.show_page("params")

    # -- report ----------------------------------------------------------------------------
    def ask_save_report(self) -> None:
        from ui.reportdialog import ask_report

        if self.run_id is None:
            return
        answer = ask_report(self, f"tapediag-{self.key}-run-{self.run_id}.pdf")
        if answer:
            self.save_report(*answer)

    def save_report(self, path, meta: dict | None = None) -> Job | None:
        from pathlib import Path

        from ui import engines

        if self.run_id is None:
            return None
        run_id, meta = self.run_id, meta or {}
        return self.workers.submit(Job("history", "report", lambda j: engines.save_report([run_id], Path(path), meta),
                                       on_done=self._report_saved, on_error=lambda e: self.show_error("Report", e)))

    def _report_saved(self, path) -> None:
        self.last_report = path
        self.result_label.setText(self.result_label.text() + f"<br>Report saved to {path}")


def path_picker(edit: ValidatedField, parent: QWidget, title: str) -> QPushButton:
    button = QPushButton("&Browse…")

    def pick() -> None:
        path = QFileDialog.getExistingDirectory(parent, title, edit.text() or "")
        if path:
            edit.setText(path)

    button.clicked.connect(pick)
    return button


def combo(items: list[tuple[str, Any]], *, editable: bool = False) -> QComboBox:
    box = QComboBox()
    box.setEditable(editable)
    for text, data in items:
        box.addItem(text, data)
    return box

