"""Guided troubleshooting: the white paper's five steps, the bottleneck table and
recommendations. Figures are typed in or taken from recorded runs ("run 12")."""
from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (
    QAbstractItemView,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QPushButton,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.troubleshoot.model import Diagnosis
from ui import engines
from ui.format import unbroken
from ui.settings import load_json, save_json
from ui.widgets import SEVERITY_COLOURS, ValidatedField, error_label, headline
from ui.wizard import WizardPanel, nav_row
from ui.worker import Job
from native.units import rate_figure

FIGURES = [
    ("tape_write", "Tape &write (MB/s or run N):", "step 1: a tape performance run's write rate"),
    ("tape_read", "Tape r&ead:", "step 2: the tape read rate"),
    ("disk_read", "Disk read, &single stream:", "step 3: the backup source, one reader"),
    ("disk_read_parallel", "Disk read, p&arallel:", "step 3: the backup source, several readers"),
    ("disk_write", "Disk write (restore &target):", "step 4: create-data on the restore target"),
    ("disk_write_parallel", "Disk write, pa&rallel:", "step 4: the restore target, several writers"),
    ("backup", "&Backup application achieved:", "step 5: what the backup job reported, or a watch of the job (run N)"),
    ("restore", "Restore application achie&ved:", "step 5: what the restore job reported, or a watch of it (run N)"),
]
REC_COLOURS = {"high": SEVERITY_COLOURS["critical"], "medium": SEVERITY_COLOURS["warning"],
               "info": SEVERITY_COLOURS["info"]}


class TroubleshootPanel(WizardPanel):
    key = "troubleshoot"
    tab_title = "Trouble&shoot"
    title = "Troubleshooting"
    description = ("Finds the bottleneck of a slow backup or restore the way HP's white paper does: measure the "
                   "tape, the disk that is read and the disk that is written, compare with what the backup "
                   "application achieved. Enter MB/s figures, or 'run 12' to take one from the history.")
    steps = ("Figures", "Workload", "Results")

    def __init__(self, workers, parent: QWidget | None = None) -> None:
        super().__init__(workers, parent)
        self.fields: dict[str, ValidatedField] = {}
        figures = QWidget()
        box = QGroupBox("Measured figures (leave blank what was not measured)")
        form = QFormLayout(box)
        for key, label, tip in FIGURES:
            if key == "backup":  # the components measured first, then what the application achieved
                self._network_row(form)
            application = key in ("backup", "restore")  # what the job reported, or a recorded watch of the job
            f = ValidatedField(engines.check_figure, "")
            f.setToolTip(tip)
            f.edit.setPlaceholderText("MB/s, or run N of a watch" if application else "MB/s, or run N")
            self.fields[key] = f
            form.addRow(label, f)
        self.latest_button = QPushButton("Use the &latest recorded runs")
        self.latest_button.clicked.connect(self.fill_from_history)
        lay = QVBoxLayout(figures)
        lay.addWidget(box)
        lay.addWidget(self.latest_button, 0, Qt.AlignmentFlag.AlignLeft)
        lay.addStretch(1)
        self.figures_next = QPushButton("&Next")
        self.figures_next.setDefault(True)
        self.figures_next.clicked.connect(lambda: self.show_page("workload"))
        lay.addLayout(nav_row(None, self.figures_next))
        self.add_page("figures", figures, 0)

        workload = QWidget()
        box = QGroupBox("The backup job")
        form = QFormLayout(box)
        self.fields["streams"] = ValidatedField(engines.check_optional_count, "")
        self.fields["block_size"] = ValidatedField(engines.check_optional_block, "")
        self.fields["block_size"].edit.setPlaceholderText("e.g. 64K, 256K")
        self.fields["network"] = ValidatedField(engines.check_optional_link, "")
        self.fields["network"].edit.setPlaceholderText("blank = local; 1GbE, 10GbE, or a measured 940Mbit")
        self.fields["drive"] = ValidatedField(engines.check_optional_generation, "")
        self.fields["drive"].edit.setPlaceholderText("e.g. LTO-9 (taken from a tape run when blank)")
        self.sw_compression = QComboBox()
        for text, data in (("Unknown", None), ("Off", False), ("On", True)):
            self.sw_compression.addItem(text, data)
        self.fields["network_rate"] = ValidatedField(engines.check_rate, "")
        self.fields["network_rate"].edit.setPlaceholderText("MB/s measured (e.g. iperf); blank: the link's practical rate")
        self.fields["file_count"] = ValidatedField(engines.check_file_count, "")
        self.fields["file_count"].edit.setPlaceholderText("how many files the backup holds")
        self.fields["application"] = ValidatedField(lambda text: text, "")
        self.fields["application"].edit.setPlaceholderText("e.g. Data Protector, NetWorker (for the report)")
        self.small_files = QComboBox()
        for text, data in (("Unknown", None), ("Yes: millions of small files", True), ("No", False)):
            self.small_files.addItem(text, data)
        self.os = QComboBox()  # the white paper's advice differs by OS (Table 6)
        for text, os_name in (("Unknown", None), ("Windows", "windows"), ("Linux", "linux"), ("UNIX", "unix"),
                              ("Other", "other")):
            self.os.addItem(text, os_name)
        form.addRow("Parallel &streams:", self.fields["streams"])
        form.addRow("Bloc&k size:", self.fields["block_size"])
        form.addRow("&Network link:", self.fields["network"])
        form.addRow("Drive &generation:", self.fields["drive"])
        form.addRow("Software &compression:", self.sw_compression)
        form.addRow("Measured network &rate:", self.fields["network_rate"])
        form.addRow("Millions of s&mall files:", self.small_files)
        form.addRow("File co&unt:", self.fields["file_count"])
        form.addRow("&Operating system:", self.os)
        form.addRow("Backup app&lication:", self.fields["application"])
        self.input_error = error_label()
        lay = QVBoxLayout(workload)
        lay.addWidget(box)
        lay.addWidget(self.input_error)
        lay.addStretch(1)
        back = QPushButton("&Back")
        back.clicked.connect(lambda: self.show_page("figures"))
        self.analyse_button = QPushButton("F&ind the bottleneck")
        self.analyse_button.setDefault(True)
        self.analyse_button.clicked.connect(self.analyse)
        lay.addLayout(nav_row(back, self.analyse_button))
        self.add_page("workload", workload, 1)

        results = QWidget()
        self.verdict = headline("")
        self.verdict.setObjectName("troubleshootVerdict")
        self.table = QTableWidget(0, 4)
        self.table.setObjectName("bottleneckTable")
        self.table.setHorizontalHeaderLabels(["Test", "Performance (MB/s)", "Bottleneck?", "Source"])
        self.table.verticalHeader().setVisible(False)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        # The test's name, figure and verdict whole, the source wrapped in what is left (at 1024 px the names were
        # cut: "Backup: Network ...", then the source: "125 MB/s line rate, practical..."). Each row grows to its
        # wrapped source whenever the column's width changes (a window resized, the results shown).
        header = self.table.horizontalHeader()
        for column in range(3):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        # After the resize is done (the rows' heights asked for in the signal itself were those of the old width).
        header.sectionResized.connect(lambda *_: QTimer.singleShot(0, self._fit_table))
        self.table.setWordWrap(True)
        self.table.setTextElideMode(Qt.TextElideMode.ElideNone)
        self.recommendations = QTextBrowser()
        self.recommendations.setObjectName("recommendations")
        self.recommendations.setOpenLinks(False)
        lay = QVBoxLayout(results)
        lay.addWidget(self.verdict)
        lay.addWidget(self.table, 2)
        lay.addWidget(QLabel("<b>Recommendations</b>"))
        lay.addWidget(self.recommendations, 3)
        again = QPushButton("&Change figures")
        again.clicked.connect(lambda: self.show_page("figures"))
        self.report_button = QPushButton("&Save report…")
        self.report_button.clicked.connect(self.ask_save_report)
        lay.addLayout(nav_row(again, self.report_button))
        self.add_page("results", results, 2)
        self.show_page("figures")
        self.diagnosis: Diagnosis | None = None
        self.run_id: int | None = None
        self.last_report = None
        self.recommendation_titles: list[str] = []
        saved = load_json("troubleshoot/values")
        if isinstance(saved, dict):
            for k, v in saved.items():
                k = {"generation": "drive"}.get(k, k)  # saved before the field took the CLI's name (--drive)
                if k in self.fields:
                    self.fields[k].setText(str(v))

    def values(self) -> dict:
        out = {k: f.text().strip() for k, f in self.fields.items()}
        out["software_compression"] = self.sw_compression.currentData()
        out["small_files"] = self.small_files.currentData()
        out["os"] = self.os.currentData()
        return out

    def save_settings(self) -> None:
        save_json("troubleshoot/values", {k: v for k, v in self.values().items()
                                          if k not in ("software_compression", "small_files", "os")})

    def _network_row(self, form: QFormLayout) -> None:
        """The network, measured by tapediag's own net-test (a recorded run), or one run now in its window."""
        self.fields["network_run"] = ValidatedField(engines.check_optional_run, "")
        self.fields["network_run"].setToolTip("a recorded net-test run: its backup (client to server) and restore "
                                              "(server to client) figures are the network's")
        self.fields["network_run"].edit.setPlaceholderText("run N of a network test")
        self.measure_network = QPushButton("Measure the networ&k…")
        self.measure_network.setToolTip("Open the Network test (Ctrl+0); 'Use the latest recorded runs' then "
                                        "takes its run")
        self.measure_network.clicked.connect(self.open_network_test)
        row = QHBoxLayout()
        row.addWidget(self.fields["network_run"])
        row.addWidget(self.measure_network)
        row.addStretch(1)
        form.addRow("Network (net-test run):", row)

    def open_network_test(self) -> None:
        """The Network test's window (the main window's, beside this form)."""
        show = getattr(self.window(), "show_panel", None)
        if callable(show):
            show("network")

    def fill_from_history(self) -> Job:
        return self.workers.submit(Job("history", "latest runs", lambda job: engines.latest_figures(),
                                       on_done=self._filled, on_error=lambda e: self.show_error(self.title, e)))

    def _filled(self, figures: dict[str, str]) -> None:
        for key, text in figures.items():
            if key in self.fields:
                self.fields[key].setText(text)

    def analyse(self) -> Job | None:
        bad = [k for k, f in self.fields.items() if not f.ok]
        if bad:
            self.input_error.setText("Correct the highlighted fields.")
            return None
        self.input_error.setText("")
        values = self.values()
        self.save_settings()
        return self.workers.submit(Job("history", "troubleshoot", lambda job: engines.run_troubleshoot(values),
                                       on_done=self._done, on_error=self._failed))

    def _failed(self, err: BaseException) -> None:
        self.input_error.setText(str(err))
        self.show_error(self.title, err)

    def _done(self, outcome: tuple[Diagnosis, int | None]) -> None:
        self.diagnosis, self.run_id = outcome
        d = self.diagnosis
        self.verdict.setText(f"<b>{escape(d.verdict)}</b>")
        rows = [(t.direction, r) for t in d.tables for r in t.rows]
        self.table.setRowCount(len(rows))
        for i, (direction, r) in enumerate(rows):
            cells = [f"{direction.capitalize()}: {r.test}", "–" if r.mb_s is None else rate_figure(r.mb_s),
                     r.bottleneck_text, r.source]
            for c, text in enumerate(cells):
                item = QTableWidgetItem(unbroken(text))
                item.setToolTip(text)
                if r.bottleneck:
                    font = item.font()
                    font.setBold(True)
                    item.setFont(font)
                    if c == 2:
                        item.setForeground(SEVERITY_COLOURS["critical"])
                self.table.setItem(i, c, item)
        self._fit_table()
        self.recommendation_titles = [rec.title for rec in d.recommendations]
        html = []
        for rec in d.recommendations:
            colour = REC_COLOURS.get(rec.severity, SEVERITY_COLOURS["info"]).name()
            html.append(
                f"<p><span style='color:{colour}; font-weight:bold'>■ {escape(rec.severity.upper())}</span>"
                f" &nbsp;<b>{escape(rec.title)}</b><br>{escape(rec.advice)}<br>"
                f"<i>Why:</i> {escape(rec.reason)} <span style='color:gray'>({escape(rec.source)})</span></p>")
        self.recommendations.setHtml("".join(html) or "<p>No rule applies to these figures.</p>")
        self.report_button.setEnabled(self.run_id is not None)
        self.show_page("results")

    def _fit_table(self) -> None:
        """Every row as tall as its wrapped source, and the table as tall as its rows: the recommendations below
        scroll, the table does not (its last row was hidden at 700 pixels)."""
        table = self.table
        table.resizeRowsToContents()
        rows = sum(table.rowHeight(r) for r in range(table.rowCount()))
        table.setFixedHeight(table.horizontalHeader().height() + rows + 2 * table.frameWidth())

    def ask_save_report(self) -> None:
        from ui.reportdialog import ask_report

        if self.run_id is None:
            return
        answer = ask_report(self, f"tapediag-troubleshoot-{self.run_id}.pdf")
        if answer:
            path, meta = answer
            run_id = self.run_id
            self.workers.submit(Job("history", "report", lambda j: engines.save_report([run_id], path, meta),
                                    on_done=lambda p: setattr(self, "last_report", p),
                                    on_error=lambda e: self.show_error("Report", e)))
