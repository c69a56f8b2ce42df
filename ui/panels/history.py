"""History & reports: every recorded run, its figures and curve; export and PDF report."""
from __future__ import annotations

from html import escape
from pathlib import Path
from typing import Callable

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QAbstractItemView,
    QFileDialog,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QSplitter,
    QTableWidget,
    QTableWidgetItem,
    QTabWidget,
    QVBoxLayout,
    QWidget,
)

from app.compare.model import Comparison
from app.history import Run
from app.runs import registry
from ui import engines
from native.iscsi_url import display_device
from ui.compareview import ComparePicker, ComparisonView
from ui.format import unbroken
from ui.plot import ThroughputPlot
from ui.widgets import SEVERITY_COLOURS, ResultTree
from ui.wizard import WizardPanel
from ui.worker import Job

HISTORY_KEY = "history"  # worker key: the SQLite file, not a device

STATUS_COLOURS = {"complete": SEVERITY_COLOURS["healthy"], "failed": SEVERITY_COLOURS["critical"],
                  "cancelled": SEVERITY_COLOURS["warning"], "incomplete": SEVERITY_COLOURS["warning"],
                  "refused": SEVERITY_COLOURS["info"]}


class HistoryPanel(WizardPanel):
    key = "history"
    tab_title = "&History"
    title = "History & reports"
    description = ("Every test run is recorded with its parameters, results and samples. "
                   "Select runs to review them, export the samples, or save a PDF report.")
    steps = ("Choose runs", "Review", "Report")
    #: "Repeat this run": the run, for the main window to hand to its kind's panel (``TestPanel.repeat``).
    repeat_requested = Signal(object)

    def __init__(self, workers, parent: QWidget | None = None) -> None:
        super().__init__(workers, parent)
        #: Whether runs of a kind can be repeated (a panel runs that kind): the main window says.
        self.can_repeat: Callable[[str], bool] = lambda kind: False
        self.comparison: Comparison | None = None
        self.table = QTableWidget(0, 6)
        self.table.setObjectName("runTable")
        self.table.setHorizontalHeaderLabels(["Run", "Kind", "Device", "Status", "Started (UTC)", "Result"])
        self.table.setSelectionBehavior(QAbstractItemView.SelectionBehavior.SelectRows)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.setWordWrap(False)
        self.table.itemSelectionChanged.connect(self._selection_changed)
        # The selected run's whole result line: the table's Result column is cut to its
        # width (at 1024 pixels most of a tape run's headline), this label wraps.
        self.summary = QLabel("Select a run to review it.")
        self.summary.setObjectName("runSummary")
        self.summary.setWordWrap(True)
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        self.summary.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.details = ResultTree()
        self.plot = ThroughputPlot()
        detail_tabs = QTabWidget()
        detail_tabs.addTab(self.plot, "Throughput")
        detail_tabs.addTab(self.details, "Parameters && results")
        self.detail_tabs = detail_tabs
        self.refresh_button = QPushButton("&Refresh")
        self.refresh_button.clicked.connect(self.refresh)
        self.csv_button = QPushButton("Export samples (CSV)…")
        self.csv_button.clicked.connect(self.export_csv)
        self.report_button = QPushButton("&Save report…")
        self.report_button.clicked.connect(self.ask_save_report)
        self.delete_button = QPushButton("&Delete")
        self.delete_button.clicked.connect(self.delete_selected)
        self.repeat_button = QPushButton("Rep&eat this run")
        self.repeat_button.setToolTip("The same test with the same parameters on the same drive, from its panel: "
                                      "the same checks and confirmations as any run")
        self.repeat_button.clicked.connect(self.repeat_selected)
        self.compare_button = QPushButton("Compare &with…")
        self.compare_button.setToolTip("Compare the selected run with another (or the two selected runs): "
                                       "what differs, and each figure improved, worse or within noise")
        self.compare_button.clicked.connect(self.ask_compare)
        row = QHBoxLayout()
        for b in (self.refresh_button, self.csv_button, self.delete_button, self.repeat_button, self.compare_button):
            row.addWidget(b)
        row.addStretch(1)
        row.addWidget(self.report_button)
        lower = QWidget()
        lower_layout = QVBoxLayout(lower)
        lower_layout.setContentsMargins(0, 0, 0, 0)
        lower_layout.addWidget(self.summary)
        lower_layout.addWidget(detail_tabs, 1)
        split = QSplitter(Qt.Orientation.Vertical)
        split.addWidget(self.table)
        split.addWidget(lower)
        split.setChildrenCollapsible(False)
        split.setStretchFactor(0, 2)
        split.setStretchFactor(1, 3)
        split.setSizes([200, 420])
        page = QWidget()
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(split, 1)
        layout.addLayout(row)
        self.add_page("runs", page, 0)
        self.add_page("compare", self._compare_page(), 1)
        self.show_page("runs")
        self.runs: list = []
        self.current_run: Run | None = None
        self._reviewing: tuple | None = None  # the run (id, status, end) the last review job was asked for
        self.last_report: Path | None = None
        self._update_buttons()
        self.refresh()

    def _compare_page(self) -> QWidget:
        page = QWidget()
        self.compare_view = ComparisonView()
        back = QPushButton("&Back to the runs")
        back.clicked.connect(lambda: self.show_page("runs"))
        self.compare_report_button = QPushButton("Save comparison &report…")
        self.compare_report_button.clicked.connect(self.ask_save_comparison)
        row = QHBoxLayout()
        row.addWidget(back)
        row.addStretch(1)
        row.addWidget(self.compare_report_button)
        layout = QVBoxLayout(page)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.compare_view, 1)
        layout.addLayout(row)
        return page

    def showEvent(self, event) -> None:  # noqa: N802 (Qt)
        super().showEvent(event)
        self.refresh()

    # -- listing ------------------------------------------------------------------------
    def refresh(self) -> Job:
        return self.workers.submit(Job(HISTORY_KEY, "history", lambda job: engines.list_runs(),
                                       on_done=self._listed, on_error=lambda e: self.show_error("History", e)))

    def _listed(self, runs: list) -> None:
        selected = self.selected_ids()
        self.runs = runs
        self.table.setRowCount(len(runs))
        for r, run in enumerate(runs):
            cells = [str(run.id), registry.title(run.kind), run.device, run.status, run.started_at.replace("T", " ")[:19],
                     engines.run_headline(run)]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(text)
                if c == 5:
                    item.setToolTip(text)
                if c == 0:
                    item.setData(Qt.ItemDataRole.UserRole, run.id)
                if c == 3 and run.status in STATUS_COLOURS:
                    item.setForeground(STATUS_COLOURS[run.status])
                self.table.setItem(r, c, item)
        header = self.table.horizontalHeader()
        for c in range(5):
            header.setSectionResizeMode(c, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(5, QHeaderView.ResizeMode.Stretch)
        for r, run in enumerate(runs):
            if run.id in selected:
                self.table.selectRow(r)
        self._update_buttons()

    def _run_id_at(self, row: int) -> int | None:
        """The run id a table row holds (its first cell's data; None for a row not filled yet)."""
        item = self.table.item(row, 0)
        return None if item is None else item.data(Qt.ItemDataRole.UserRole)

    def selected_ids(self) -> list[int]:
        rows = sorted({i.row() for i in self.table.selectedItems()})
        return [run_id for r in rows if (run_id := self._run_id_at(r)) is not None]

    def select_run(self, run_id: int) -> bool:
        for r in range(self.table.rowCount()):
            if self._run_id_at(r) == run_id:
                self.table.selectRow(r)
                return True
        return False

    def _selection_changed(self) -> None:
        """Review the last selected run: one job that reads it once (``engines.review_run``), and none when the
        selection changed but that run did not (a refreshed list re-selecting its rows, a second row added)."""
        self._update_buttons()
        ids = self.selected_ids()
        if not ids:
            self.summary.setText("Select a run to review it.")
            self._reviewing = None
            return
        self.show_page("runs")
        run_id = ids[-1]
        listed = next((r for r in self.runs if r.id == run_id), None)
        key = (run_id, listed.status, listed.finished_at) if listed is not None else (run_id,)
        if key == self._reviewing:  # the same run as listed before: a run that has since ended is read again
            return
        self._reviewing = key
        self.workers.submit(Job(HISTORY_KEY, "load run", lambda job: engines.review_run(run_id),
                                on_done=self._loaded, on_error=lambda e: self.show_error("History", e)))

    def _loaded(self, review: engines.RunReview) -> None:
        run = review.run
        self.current_run = run
        self.summary.setText(unbroken(f"<b>Run {run.id}</b> — {escape(registry.title(run.kind))} on "
                                      f"<b>{escape(display_device(run.device))}</b>, {escape(run.status)}: "
                                      f"{escape(review.headline)}"))
        self.details.show_view(review.sections)
        self.plot.clear()
        if review.curves:  # several drives: each drive and their aggregate, as the report draws them
            self.plot.show_curves(review.curves)
        else:
            self.plot.add_samples(list(run.samples), final=True)
        self.plot.set_reference_rates(review.references)
        self.plot.set_stretches(review.stretches)

    def _update_buttons(self) -> None:
        n = len(self.selected_ids())
        self.csv_button.setEnabled(n == 1)
        self.delete_button.setEnabled(n >= 1)
        self.report_button.setEnabled(n >= 1)
        self.compare_button.setEnabled(n in (1, 2))
        run = self._selected_run() if n == 1 else None
        self.repeat_button.setEnabled(run is not None and not run.damaged and self.can_repeat(run.kind))

    def _selected_run(self):
        ids = self.selected_ids()
        return next((r for r in self.runs if ids and r.id == ids[0]), None)

    # -- repeat and compare ----------------------------------------------------------------
    def repeat_selected(self) -> None:
        """Hand the selected run to the main window, which opens its kind's panel on its drive with its parameters."""
        run = self._selected_run()
        if run is not None and self.can_repeat(run.kind):
            self.repeat_requested.emit(run)

    def ask_compare(self) -> None:
        """Two runs selected: compare them; one: pick the other (``ComparePicker``). The older is *before*."""
        ids = self.selected_ids()
        if len(ids) == 1:
            run = self._selected_run()
            picker = ComparePicker(run, self.runs, self)
            other = picker.chosen() if picker.exec() else None
            if other is None:
                return
            ids = [ids[0], other]
        if len(ids) == 2:
            self.compare(min(ids), max(ids))

    def compare(self, before: int, after: int) -> Job:
        return self.workers.submit(Job(HISTORY_KEY, "compare", lambda job: engines.compare_runs(before, after),
                                       on_done=self._compared, on_error=lambda e: self.show_error("Compare", e)))

    def _compared(self, comparison: Comparison) -> None:
        self.comparison = comparison
        self.compare_view.show_comparison(comparison)
        self.show_page("compare")

    def ask_save_comparison(self) -> None:
        c = self.comparison
        if c is None:
            return
        from ui.reportdialog import ask_report

        answer = ask_report(self, f"tapediag-compare-{c.before.run_id}-{c.after.run_id}.pdf")
        if answer:
            self.save_comparison(*answer)

    def save_comparison(self, path: Path, meta: dict | None = None) -> Job | None:
        """One PDF with both runs and the comparison on page 1 (``tapediag compare A B -o FILE``)."""
        c = self.comparison
        if c is None:
            return None
        ids = [c.before.run_id, c.after.run_id]
        return self.workers.submit(Job(HISTORY_KEY, "report",
                                       lambda job: engines.save_report(ids, path, meta or {}, comparison=c),
                                       on_done=self._report_saved, on_error=lambda e: self.show_error("Report", e)))

    # -- actions --------------------------------------------------------------------------
    def export_csv(self) -> None:
        ids = self.selected_ids()
        if len(ids) != 1:
            return
        path, _ = QFileDialog.getSaveFileName(self, "Export samples", f"tapediag-run-{ids[0]}.csv", "CSV (*.csv)")
        if path:
            self.workers.submit(Job(HISTORY_KEY, "export", lambda job: engines.export_csv(ids[0], Path(path)),
                                    on_error=lambda e: self.show_error("Export", e)))

    def delete_selected(self) -> None:
        ids = self.selected_ids()
        self.workers.submit(Job(HISTORY_KEY, "delete", lambda job: engines.delete_runs(ids),
                                on_done=lambda _r: self.refresh(), on_error=lambda e: self.show_error("Delete", e)))

    def ask_save_report(self) -> None:
        ids = self.selected_ids()
        if not ids:
            return
        from ui.reportdialog import ask_report

        answer = ask_report(self, f"tapediag-report-{'-'.join(map(str, ids))}.pdf")
        if answer:
            self.save_report(ids, *answer)

    def save_report(self, ids: list[int], path: Path, meta: dict | None = None) -> Job:
        self.show_page("runs")
        return self.workers.submit(Job(HISTORY_KEY, "report", lambda job: engines.save_report(ids, path, meta or {}),
                                       on_done=self._report_saved, on_error=lambda e: self.show_error("Report", e)))

    def _report_saved(self, path: Path) -> None:
        self.last_report = Path(path)
        window = self.window()
        if hasattr(window, "statusBar"):
            window.statusBar().showMessage(f"Report saved to {path}", 8000)
