"""Tape library: the element map, checked moves and the robotics exerciser (``tapediag library`` / ``library-test``).

Thin on purpose: what an element holds and how it is said (``app.library_view``), whether
a move may be made (``app.library.Changer.move``: the same checks, drive unload and mail
slot lock as the CLI), the exerciser and its verdict (``app.libtest``, ``app.runs``) all
live in ``app/``; this panel chooses, shows and asks, through ``ui.libraryops`` on the
library's own worker (never on the GUI thread). The library is chosen here, not in the
device pane (which lists tape drives): the virtual library by default, or a changer that
discovery found, or any device string typed in.
"""
from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtGui import QPalette, QShowEvent
from PySide6.QtWidgets import (
    QCheckBox,
    QComboBox,
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QListWidget,
    QProgressBar,
    QPushButton,
    QTreeWidget,
    QTreeWidgetItem,
    QVBoxLayout,
    QWidget,
)

from app.events import Message, RobotMove
from app.libtest.kind import LIBRARY_TEST
from app.libtest.params import LibraryTestParams
from app.libtest.kind import rows as libtest_rows
from native.errors import TapediagError
from ui import libraryops
from ui.form import line_edit
from ui.moveplot import MoveTimePlot
from ui.panels.verdictpanel import verdict_colour
from ui.widgets import SEVERITY_COLOURS, ResultTree, error_label, headline
from ui.wizard import WizardPanel
from ui.worker import Job, describe_error

DRAIN_MS = 100
COLUMNS = ("Element", "Address", "Cartridge", "Notes", "Tape drive")


class LibraryPanel(WizardPanel):
    key = "library"
    tab_title = "&Library"
    title = "Tape library"
    description = ("The library's element map: robot, drives, mail slots and slots, with barcodes, cleaning "
                   "cartridges and exceptions, and which tape drive each drive element is. A move is checked first "
                   "(never from an empty element or into a full one; a drive is unloaded, never while busy). The "
                   "exerciser times moves between slots and empty drives, stops at the first robotics error and "
                   "puts every cartridge back.")
    steps = ("Library", "Exercise", "Results")

    def __init__(self, workers, parent: QWidget | None = None) -> None:
        super().__init__(workers, parent)
        self.view: libraryops.LibraryView | None = None
        self.job: Job | None = None
        self.result_dict: dict | None = None
        self.run_id: int | None = None
        self.moves_done = 0
        self.last_report = None
        self._build_library_page()
        self._build_running_page()
        self._build_results_page()
        self.timer = QTimer(self)
        self.timer.setInterval(DRAIN_MS)
        self.timer.timeout.connect(self.drain)
        self.show_page("library")
        self._listed_once = False

    # -- pages ------------------------------------------------------------------------------
    def _build_library_page(self) -> None:
        page = QWidget()
        lay = QVBoxLayout(page)
        row = QHBoxLayout()
        self.library = QComboBox()
        self.library.setObjectName("libraryDevice")
        self.library.setEditable(True)
        self.library.setSizeAdjustPolicy(QComboBox.SizeAdjustPolicy.AdjustToMinimumContentsLengthWithIcon)
        self.library.addItem(libraryops.DEFAULT_LIBRARY)
        self.library.setToolTip("The virtual library, a changer discovery found (/dev/sgN, an iSCSI changer LUN), "
                                "or a device string such as virtual:library?drives=4&slots=24")
        label = QLabel("Li&brary:")
        label.setBuddy(self.library)
        self.list_button = QPushButton("Find &libraries")
        self.list_button.clicked.connect(self.refresh_list)
        self.read_button = QPushButton("&Read inventory")
        self.read_button.setDefault(True)
        self.read_button.clicked.connect(lambda: self.read())
        self.init_button = QPushButton("Initiali&ze element status")
        self.init_button.setToolTip("INITIALIZE ELEMENT STATUS: the library scans every element again (minutes on "
                                    "a big library), then the inventory is read")
        self.init_button.clicked.connect(lambda: self.read(initialize=True))
        row.addWidget(label)
        row.addWidget(self.library, 1)
        for button in (self.list_button, self.read_button, self.init_button):
            row.addWidget(button)
        lay.addLayout(row)
        self.summary = QLabel("Read the inventory of a library.")
        self.summary.setObjectName("librarySummary")
        self.summary.setTextFormat(Qt.TextFormat.RichText)
        lay.addWidget(self.summary)
        self.status = QLabel("")
        self.status.setObjectName("libraryStatus")
        self.status.setWordWrap(True)
        self.status.setTextFormat(Qt.TextFormat.RichText)
        self.error = error_label("libraryError")
        self.error.hide()  # shown with a line to say: an empty one would leave a gap above the map
        lay.addWidget(self.status)
        lay.addWidget(self.error)
        self.map = QTreeWidget()
        self.map.setObjectName("elementMap")
        self.map.setColumnCount(len(COLUMNS))
        self.map.setHeaderLabels(list(COLUMNS))
        self.map.setUniformRowHeights(True)
        self.map.setAlternatingRowColors(True)
        self.map.setTextElideMode(Qt.TextElideMode.ElideMiddle)  # a long device string keeps its "&drive=N" end
        header = self.map.header()
        for column in range(len(COLUMNS)):
            header.setSectionResizeMode(column, QHeaderView.ResizeMode.ResizeToContents)
        header.setSectionResizeMode(3, QHeaderView.ResizeMode.Stretch)
        self.map.itemClicked.connect(self._element_clicked)
        lay.addWidget(self.map, 1)
        boxes = QHBoxLayout()
        move_box = QGroupBox("Move a cartridge")
        form = QFormLayout(move_box)
        self.source = QComboBox()
        self.source.setObjectName("moveSource")
        self.destination = QComboBox()
        self.destination.setObjectName("moveDestination")
        form.addRow("Fr&om:", self.source)
        form.addRow("&To:", self.destination)
        self.no_unload = QCheckBox("The drive is already &unloaded (do not unload it)")
        self.allow_removal = QCheckBox("Send &ALLOW MEDIUM REMOVAL to the drive first")
        self.allow_removal.setToolTip("Lifts a PREVENT sent through this host's port (a stopped backup application), "
                                      "never another host's or session's")
        form.addRow(self.no_unload)
        form.addRow(self.allow_removal)
        self.move_button = QPushButton("&Move")
        self.move_button.clicked.connect(self.move_cartridge)
        form.addRow(self.move_button)
        exercise_box = QGroupBox("Exerciser")
        form = QFormLayout(exercise_box)
        # library-test's options, declared once (app.libtest.params): labels, defaults, placeholders, tooltips
        self.moves, self.slots, self.drives = (line_edit(f) for f in LibraryTestParams.FIELDS[:3])
        self.moves.setObjectName("exerciseMoves")
        for field, edit in zip(LibraryTestParams.FIELDS, (self.moves, self.slots, self.drives)):
            form.addRow(field.label, edit)
        self.exercise_button = QPushButton("Run the &exerciser")
        self.exercise_button.clicked.connect(self.exercise)
        form.addRow(self.exercise_button)
        boxes.addWidget(move_box, 1)
        boxes.addWidget(exercise_box, 1)
        lay.addLayout(boxes)
        self.add_page("library", page, 0)
        self._enable()

    def _build_running_page(self) -> None:
        page = QWidget()
        lay = QVBoxLayout(page)
        self.run_subject = QLabel("")
        self.run_subject.setTextFormat(Qt.TextFormat.RichText)
        self.current = QLabel("Starting…")
        self.current.setObjectName("currentMove")
        font = self.current.font()
        font.setBold(True)
        self.current.setFont(font)
        self.cancel_button = QPushButton("&Cancel")
        self.cancel_button.clicked.connect(self.cancel)
        top = QHBoxLayout()
        top.addWidget(self.current, 1)
        top.addWidget(self.cancel_button)
        self.progress = QProgressBar()
        self.progress.setObjectName("exerciseProgress")
        self.progress.setFormat("%v of %m moves")
        self.plot = MoveTimePlot()
        self.messages = QListWidget()
        self.messages.setMaximumHeight(110)
        lay.addWidget(self.run_subject)
        lay.addLayout(top)
        lay.addWidget(self.progress)
        self.run_plot_holder = QVBoxLayout()
        self.run_plot_holder.addWidget(self.plot)
        lay.addLayout(self.run_plot_holder, 1)
        lay.addWidget(self.messages)
        self.add_page("running", page, 1)

    def _build_results_page(self) -> None:
        page = QWidget()
        lay = QVBoxLayout(page)
        self.result_subject = QLabel("")
        self.result_subject.setTextFormat(Qt.TextFormat.RichText)
        self.result_label = headline("")
        self.result_label.setObjectName("exerciseVerdict")
        self.result_plot_holder = QVBoxLayout()
        self.result_tree = ResultTree()
        self.result_tree.setObjectName("exerciseResult")
        back = QPushButton("&Back to the library")
        back.clicked.connect(self.back_to_library)
        self.report_button = QPushButton("&Save report…")
        self.report_button.clicked.connect(self.ask_save_report)
        row = QHBoxLayout()
        row.addWidget(back)
        row.addStretch(1)
        row.addWidget(self.report_button)
        lay.addWidget(self.result_subject)
        lay.addWidget(self.result_label)
        lay.addLayout(self.result_plot_holder, 3)
        lay.addWidget(self.result_tree, 2)
        lay.addLayout(row)
        self.add_page("results", page, 2)

    # -- the library ------------------------------------------------------------------------
    def device_string(self) -> str:
        return self.library.currentText().strip()

    def set_device(self, device: str | None) -> None:
        """The device pane selects tape drives; the library is chosen on this panel."""
        super().set_device(device)

    def showEvent(self, event: QShowEvent) -> None:  # noqa: N802 (Qt)
        """Discovery's changers are listed when the panel is first shown, not at the window's start."""
        super().showEvent(event)
        if not self._listed_once:
            self._listed_once = True
            self.refresh_list()

    def refresh_list(self) -> Job:
        return self.workers.submit(Job("discovery", "finding libraries", lambda job: libraryops.list_libraries(),
                                       on_done=self._listed, on_error=lambda err: self._say_error(err)))

    def _listed(self, devices: list[str]) -> None:
        current = self.device_string()
        self.library.clear()
        for device in devices:
            self.library.addItem(device)
        self.library.setEditText(current or libraryops.DEFAULT_LIBRARY)

    def read(self, *, initialize: bool = False) -> Job | None:
        device = self.device_string()
        if not device:
            self._say_error("Choose a library first.")
            return None
        self.status.setText("INITIALIZE ELEMENT STATUS: the library scans every element (minutes on a big library)…"
                            if initialize else f"Reading the inventory of {escape(device)}…")
        return self._submit(Job(device, "library inventory",
                                lambda job: libraryops.read_library(device, initialize=initialize),
                                on_done=self._show, on_error=self._say_error))

    def move_cartridge(self) -> Job | None:
        device, source, destination = self.device_string(), self.source.currentText(), self.destination.currentText()
        if not source or not destination:
            self._say_error("Choose a full element to move from and an empty one to move to.")
            return None
        unload, allow = not self.no_unload.isChecked(), self.allow_removal.isChecked()
        self.status.setText(f"Moving {escape(source)} to {escape(destination)}…")
        return self._submit(Job(device, "library move",
                                lambda job: libraryops.move(device, source, destination, unload=unload,
                                                            allow_removal=allow),
                                on_done=self._show, on_error=self._say_error))

    def _submit(self, job: Job) -> Job:
        self.error.setText("")
        self.error.hide()
        self.last_error = None
        self.job = job
        self._enable()
        return self.workers.submit(job)

    def _enable(self) -> None:
        idle = self.job is None or self.job.finished
        for button in (self.read_button, self.init_button, self.exercise_button, self.list_button):
            button.setEnabled(idle)
        self.move_button.setEnabled(idle and self.view is not None and bool(self.source.count())
                                    and bool(self.destination.count()))

    def _say_error(self, err: BaseException | str) -> None:
        """The one line the CLI would print, in the panel (no dialog: the map stays in sight)."""
        text = err if isinstance(err, str) else describe_error(err)
        self.last_error = text
        self.error.setText(text)
        self.error.show()
        self.status.setText("")
        self._enable()

    def _show(self, view: libraryops.LibraryView) -> None:
        self.view = view
        self.summary.setText(f"<b>{escape(view.summary)}</b> — {escape(view.device)}")
        self.status.setText("<br>".join(escape(line) for line in view.moved) if view.moved
                            else f"Inventory read from {escape(view.device)}.")
        self.map.clear()
        from app.library_view import GROUPS

        dim = self.palette().color(QPalette.ColorGroup.Disabled, QPalette.ColorRole.Text)
        for kind, title in GROUPS:
            rows = [r for r in view.rows if r.type is kind]
            if not rows:
                continue
            full = sum(1 for r in rows if r.full)
            group = QTreeWidgetItem([title, "", f"{full} of {len(rows)} full"])
            group.setToolTip(0, f"{kind.word} elements")
            font = group.font(0)
            font.setBold(True)
            group.setFont(0, font)
            self.map.addTopLevelItem(group)
            for r in rows:
                drive = r.drive_device or ("no listed tape drive matches" if kind.word == "drive" else "")
                item = QTreeWidgetItem([r.name, str(r.address), r.contents, r.notes, drive])
                item.setData(0, Qt.ItemDataRole.UserRole, r.name)
                item.setToolTip(4, drive)
                if r.exception:
                    colour = SEVERITY_COLOURS["critical"]
                elif r.cleaning:
                    colour = SEVERITY_COLOURS["attention"]
                else:
                    colour = None
                for column in range(len(COLUMNS)):
                    if colour is not None:
                        item.setForeground(column, colour)
                    elif not r.full and column == 2:
                        item.setForeground(column, dim)
                group.addChild(item)
            group.setExpanded(True)
        for combo, names in ((self.source, view.sources), (self.destination, view.destinations)):
            keep = combo.currentText()
            combo.clear()
            combo.addItems(names)
            if keep in names:
                combo.setCurrentText(keep)
        self._enable()

    def _element_clicked(self, item: QTreeWidgetItem, _column: int) -> None:
        """A full element becomes the move's source, an empty one its destination."""
        name = item.data(0, Qt.ItemDataRole.UserRole)
        if not name or self.view is None:
            return
        if name in self.view.sources:
            self.source.setCurrentText(name)
        elif name in self.view.destinations:
            self.destination.setCurrentText(name)

    # -- the exerciser ----------------------------------------------------------------------
    def exercise(self) -> Job | None:
        device = self.device_string()
        try:
            params = libraryops.exercise_params({"moves": self.moves.text(), "slots": self.slots.text(),
                                                 "drives": self.drives.text()})
        except TapediagError as err:  # InvalidParameter: the CLI's one line
            self._say_error(err)
            return None
        self.result_dict = self.run_id = None
        self.moves_done = 0
        self.plot.clear()
        self.messages.clear()
        self.progress.setRange(0, params.moves)
        self.progress.setValue(0)
        self.current.setText("Reading the library and choosing cartridges…")
        self.run_subject.setText(f"Library exerciser on <b>{escape(device)}</b>: {params.moves} moves")
        self.cancel_button.setEnabled(True)
        self.run_plot_holder.addWidget(self.plot)
        job: Job = Job(device, "library exerciser",
                       lambda j: libraryops.run_exerciser(device, params, sink=j.sink, cancel=j.cancel),
                       on_done=self._exercised, on_error=self._exercise_failed)
        self.show_page("running")
        self.timer.start()
        return self._submit(job)

    def cancel(self) -> None:
        if self.job is not None:
            self.job.cancel.cancel()
        self.cancel_button.setEnabled(False)
        self.current.setText("Cancelling: every cartridge moved is put back…")

    def drain(self) -> None:
        if self.job is None:
            return
        for event in self.job.drain():
            if isinstance(event, RobotMove):
                self._robot_move(event)
            elif isinstance(event, Message) and event.level != "info":
                self.messages.addItem(event.text)

    def _robot_move(self, m: RobotMove) -> None:
        what = f"{m.barcode} {m.source} → {m.destination}" + (" (putting back)" if m.returning else "")
        if m.error is not None:
            self.plot.add_move(m.number, None, failed=True)
            self.messages.addItem(f"move {m.number}: {m.barcode} {m.source} -> {m.destination}: {m.error}")
            self.current.setText(f"Robot error on move {m.number}: putting every cartridge back…")
        elif m.seconds is None:
            self.current.setText(f"Move {m.number}" + (f" of {m.planned}" if not m.returning else "") + f": {what}…")
        else:
            self.plot.add_move(m.number, m.seconds, returning=m.returning)
            self.messages.addItem(f"move {m.number}: {m.barcode} {m.source} -> {m.destination} in {m.seconds:.2f} s"
                                  + (" (putting back)" if m.returning else ""))
            self.messages.scrollToBottom()
            if not m.returning:
                self.moves_done += 1
                self.progress.setValue(min(self.moves_done, self.progress.maximum()))

    def _exercised(self, outcome: libraryops.Exercised) -> None:
        self.drain()
        self.timer.stop()
        self.result_dict, self.run_id = outcome.result_dict, outcome.run_id
        r = outcome.result
        self.result_label.setText(f"<span style='color:{verdict_colour(LIBRARY_TEST, r)}'><b>"
                                  f"Library exerciser: {escape(LIBRARY_TEST.headline(r))}</b></span>")
        self.result_subject.setText(f"Results of <b>{escape(r.device)}</b> (run {self.run_id}, "
                                    "in History &amp; reports)")
        self.result_tree.show_sections([(label, value, True) for label, value in libtest_rows(r)])
        self.result_plot_holder.addWidget(self.plot)
        self.report_button.setEnabled(True)
        self.show_page("results")
        self.read()  # the map behind "Back" shows where everything is now

    def _exercise_failed(self, err: BaseException) -> None:
        self.drain()
        self.timer.stop()
        self.run_plot_holder.addWidget(self.plot)
        self.show_page("library")
        self._say_error(err)

    def back_to_library(self) -> None:
        self.run_plot_holder.addWidget(self.plot)
        self.show_page("library")

    # -- report ----------------------------------------------------------------------------
    def ask_save_report(self) -> None:
        from ui.reportdialog import ask_report

        if self.run_id is None:
            return
        answer = ask_report(self, f"tapediag-library-run-{self.run_id}.pdf")
        if answer:
            self.save_report(*answer)

    def save_report(self, path: Any, meta: dict | None = None) -> Job | None:
        from pathlib import Path

        from ui import engines

        if self.run_id is None:
            return None
        run_id, meta = self.run_id, meta or {}
        return self.workers.submit(Job("history", "report", lambda j: engines.save_report([run_id], Path(path), meta),
                                       on_done=self._report_saved, on_error=self._say_error))

    def _report_saved(self, path: Any) -> None:
        self.last_report = path
        self.result_label.setText(self.result_label.text() + f"<br>Report saved to {escape(str(path))}")
