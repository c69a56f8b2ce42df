"""Drive information: identity, firmware, cartridge (MAM), TapeAlert, error counters, health."""
from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import QHBoxLayout, QLabel, QPushButton, QVBoxLayout, QWidget

from app.info import DriveInfo
from ui import engines
from ui.erasedialog import EraseDialog
from ui.widgets import SEVERITY_COLOURS, ResultTree, headline
from ui.wizard import WizardPanel, button_row
from ui.worker import Job


class InfoPanel(WizardPanel):
    key = "info"
    tab_title = "Drive &info"
    title = "Drive information"
    description = ("Reads the drive's identity, firmware, the cartridge's memory (MAM), active TapeAlert flags "
                   "and error counters, the drive's temperature, status, lifetime statistics and SAS link counters, "
                   "and gives a health verdict. TapeAlert is read from the response page (0x12) where the drive "
                   "has it, which leaves the flags set; otherwise page 0x2E is read once, which clears them. "
                   "Nothing is written to the tape; Erase cartridge… shows what is on it and asks before it erases.")
    steps = ("Choose", "Read", "Results")

    def __init__(self, workers, parent: QWidget | None = None) -> None:
        super().__init__(workers, parent)
        choose = QWidget()
        self.device_label = QLabel("Select a drive in the device list.")
        self.device_label.setWordWrap(True)
        self.run_button = QPushButton("&Read drive information")
        self.run_button.setDefault(True)
        self.run_button.clicked.connect(self.start)
        # Erasing is the drive's own action on the cartridge in it (issue 30 §3): here, beside what is read of both.
        self.erase_buttons = (QPushButton("&Erase cartridge…"), QPushButton("&Erase cartridge…"))
        for button in self.erase_buttons:
            button.setToolTip("Erase the cartridge in this drive (short or long); you see what is on it and "
                              "confirm before anything is written")
            button.clicked.connect(self.ask_erase)
        self.erase_dialog: EraseDialog | None = None
        lay = QVBoxLayout(choose)
        lay.addWidget(self.device_label)
        row = button_row(self.run_button)
        row.insertWidget(0, self.erase_buttons[0])
        lay.addLayout(row)
        lay.addStretch(1)
        self.add_page("choose", choose, 0)
        running = QWidget()
        self.running_label = QLabel("Reading…")
        QVBoxLayout(running).addWidget(self.running_label)
        self.add_page("running", running, 1)
        results = QWidget()
        self.subject = QLabel("")
        self.subject.setObjectName("infoSubject")
        self.subject.setTextFormat(Qt.TextFormat.RichText)
        self.subject.setWordWrap(True)
        self.verdict = headline("")
        self.verdict.setObjectName("healthVerdict")
        self.tree = ResultTree()
        self.tree.setObjectName("infoTree")
        self.again_button = QPushButton("Read &again")
        self.again_button.clicked.connect(self.start)
        self.back_button = QPushButton("&Back")
        self.back_button.clicked.connect(lambda: self.show_page("choose"))
        lay = QVBoxLayout(results)
        lay.addWidget(self.subject)
        lay.addWidget(self.verdict)
        lay.addWidget(self.tree, 1)
        row = QHBoxLayout()
        row.addWidget(self.back_button)
        row.addStretch(1)
        row.addWidget(self.erase_buttons[1])
        row.addWidget(self.again_button)
        lay.addLayout(row)
        self.add_page("results", results, 2)
        self.show_page("choose")
        self.info: DriveInfo | None = None
        self.info_device: str | None = None  # the drive self.info was read from
        self.run_id: int | None = None
        self.set_device(None)

    def set_device(self, device: str | None) -> None:
        """Another drive selected: the previous drive's verdict goes (issue 11 §5: it was
        shown green under an unreachable target's name); it stays in the History."""
        super().set_device(device)
        self.run_button.setEnabled(device is not None)
        for button in self.erase_buttons:
            button.setEnabled(device is not None)
        if device:
            self.device_label.setText(f"Drive: <b>{escape(device)}</b>")
        if self.info_device is not None and device != self.info_device:
            self.clear_results()

    def ask_erase(self) -> EraseDialog | None:
        """The erase's confirmation for the selected drive's cartridge (``ui.erasedialog``): nothing is written
        before it is confirmed there."""
        if not self.device:
            return None
        self.erase_dialog = EraseDialog(self.workers, self.device, self)
        self.erase_dialog.open()
        return self.erase_dialog

    def clear_results(self) -> None:
        if self.info_device is not None:
            self.device_label.setText(self.device_label.text() + f"<br>The information read from "
                                      f"{escape(self.info_device)} is in History &amp; reports.")
        self.info = None
        self.info_device = None
        self.run_id = None
        self.subject.setText("")
        self.verdict.setText("")
        self.verdict.setPalette(self.palette())
        self.tree.clear()
        if self.current_page() == "results":
            self.show_page("choose")

    def start(self) -> Job | None:
        if not self.device:
            return None
        device = self.device
        self.running_label.setText(f"Reading drive information from {device}…")
        self.show_page("running")
        return self.workers.submit(Job(device, "drive information", lambda job: engines.drive_info(device),
                                       on_done=lambda outcome: self._done(device, outcome), on_error=self._failed,
                                       holds_selection=True))

    def _failed(self, err: BaseException) -> None:
        self.show_page("choose")
        self.show_error("Drive information", err)

    def _done(self, device: str, outcome: engines.DriveInfoRead) -> None:
        from app.info_kind import reasons as health_reasons

        info, self.run_id = outcome.info, outcome.run_id
        self.info = info
        self.info_device = device
        self.tree.clear()
        verdict = info.health.verdict.value
        reasons = health_reasons(info)  # with their culprits, as the report words them
        colour = SEVERITY_COLOURS.get(verdict.lower())
        ident = info.identity
        # A non-tape has no health verdict: say what it is instead of "Health: ...".
        title = verdict if verdict == "Not a tape drive" else f"Health: {verdict}"
        text = (f"<b>{title}</b> — {ident.vendor} {ident.product}, firmware {ident.revision or '?'}, "
                f"serial {ident.serial or '?'}")
        if reasons:
            text += "<br>" + "<br>".join(f"• {r}" for r in reasons)
        self.verdict.setText(text)
        run = f" (run {self.run_id})" if self.run_id is not None else ""
        self.subject.setText(f"Drive information of <b>{escape(device)}</b>{run}")
        self.verdict.setPalette(self.palette())
        if colour is not None:
            pal = self.verdict.palette()
            pal.setColor(self.verdict.foregroundRole(), colour)
            self.verdict.setPalette(pal)
        from app import visits
        from app.info_view import Row, Section, sections

        view = sections(info)
        if outcome.history:
            view.append(Section(visits.TITLE, tuple(Row("", line) for line in outcome.history)))
        self.tree.show_view(view)
        self.show_page("results")
