"""The "Add iSCSI target" dialog: portal, target name (found by SendTargets), LUN, CHAP.

Before a target is remembered it is tried (login + INQUIRY, nothing else); a portal that
does not answer, or a LUN that is not a tape drive, is remembered only when the
technician says so. The dialog only collects fields and shows outcomes: the URL rule,
discovery and the check are ``app.targets`` (through ``ui.engines``), on a worker.
"""
from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Signal
from PySide6.QtWidgets import (
    QComboBox,
    QDialog,
    QDialogButtonBox,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QMessageBox,
    QPushButton,
    QSpinBox,
    QVBoxLayout,
    QWidget,
)

from native.errors import TapediagError
from native.iscsi import display_device
from ui import engines
from ui.widgets import SEVERITY_COLOURS
from ui.worker import DeviceWorkers, Job, describe_error

if TYPE_CHECKING:
    from app.targets import TargetCheck

DISCOVERY_KEY = "discovery"  # the device pane's worker for listing: adding waits its turn there


class AddTargetDialog(QDialog):
    """Emits ``saved(device)`` (the shown form, without a CHAP secret) once remembered."""

    saved = Signal(str)

    def __init__(self, workers: DeviceWorkers, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Add iSCSI target")
        self.workers = workers
        self.host = QLineEdit()
        self.host.setPlaceholderText("IP address or host name of the iSCSI portal")
        self.port = QLineEdit("3260")
        self.port.setMaximumWidth(90)
        self.discover_button = QPushButton("&Discover targets")
        self.discover_button.setToolTip("Ask the portal which targets it offers (iSCSI SendTargets)")
        self.discover_button.clicked.connect(self.discover)
        portal = QHBoxLayout()
        portal.addWidget(self.host, 1)
        port_label = QLabel("P&ort:")
        port_label.setBuddy(self.port)
        portal.addWidget(port_label)
        portal.addWidget(self.port)
        portal.addWidget(self.discover_button)
        self.iqn = QComboBox()
        self.iqn.setEditable(True)
        self.iqn.setObjectName("targetName")
        iqn_edit = self.iqn.lineEdit()  # an editable combo box always has its line edit
        if iqn_edit is not None:
            iqn_edit.setPlaceholderText("iqn.… — type it, or Discover")
        self.iqn.setMinimumContentsLength(48)
        self.lun = QSpinBox()
        self.lun.setRange(0, 16383)
        self.lun.setMaximumWidth(120)
        self.lun.setToolTip("The drive's logical unit number; tgt and many virtual tape libraries put the "
                            "first drive at LUN 1 (LUN 0 is often the library or a controller)")
        self.user = QLineEdit()
        self.user.setPlaceholderText("optional: only if the target asks for CHAP")
        self.secret = QLineEdit()
        self.secret.setEchoMode(QLineEdit.EchoMode.Password)
        self.secret.setPlaceholderText("kept only in tapediag's remembered-targets file (mode 600)")
        form = QFormLayout()
        host_label = QLabel("&Host:")
        host_label.setBuddy(self.host)
        form.addRow(host_label, portal)
        form.addRow("&Target name (IQN):", self.iqn)
        form.addRow("&LUN:", self.lun)
        form.addRow("CHAP &user:", self.user)
        form.addRow("CHAP s&ecret:", self.secret)
        self.status = QLabel("")
        self.status.setObjectName("addTargetStatus")
        self.status.setWordWrap(True)
        self.preview = QLabel("")
        self.preview.setObjectName("addTargetUrl")
        self.preview.setWordWrap(True)
        self.buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        self.save_button = self.buttons.button(QDialogButtonBox.StandardButton.Save)
        self.save_button.setToolTip("Try the target (log in, INQUIRY), then remember it")
        self.buttons.accepted.connect(self.test_and_save)
        self.buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addLayout(form)
        layout.addWidget(self.preview)
        layout.addWidget(self.status)
        layout.addStretch(1)
        layout.addWidget(self.buttons)
        for edit in (self.host, self.port, self.user, self.secret):
            edit.textChanged.connect(self._update)
        self.iqn.currentTextChanged.connect(self._update)
        self.lun.valueChanged.connect(self._update)
        self.question: QMessageBox | None = None
        self.discovered: list = []
        self.remembered: str | None = None
        self.busy = False
        self.resize(640, self.sizeHint().height())
        self._update()

    # -- fields ---------------------------------------------------------------------------
    def url(self) -> str:
        """The device string from the fields (with the secret); InvalidParameter if wrong."""
        return engines.target_url(self.host.text(), self.port.text(), self.iqn.currentText(), str(self.lun.value()),
                                  self.user.text(), self.secret.text())

    def _update(self, *_: object) -> None:
        ok = False
        self.preview.setText("")
        try:
            shown = display_device(self.url())
            self.preview.setText(f"Device: {shown}")
            self.preview.setToolTip(shown)
            ok = True
        except TapediagError as err:
            if self.host.text().strip() and self.iqn.currentText().strip():
                self.preview.setText(f"Not yet a device: {err}")
        self.save_button.setEnabled(ok and not self.busy)
        self.discover_button.setEnabled(bool(self.host.text().strip()) and not self.busy)

    def _say(self, text: str, level: str = "") -> None:
        self.status.setText(text)
        colour = {"error": SEVERITY_COLOURS["critical"], "ok": SEVERITY_COLOURS["healthy"]}.get(level)
        self.status.setStyleSheet(f"color: {colour.name()}" if colour is not None else "")

    def _busy(self, busy: bool) -> None:
        self.busy = busy
        for w in (self.host, self.port, self.iqn, self.lun, self.user, self.secret):
            w.setEnabled(not busy)
        self._update()

    # -- discovery ------------------------------------------------------------------------
    def discover(self) -> Job | None:
        host, port, user, secret = self.host.text(), self.port.text(), self.user.text(), self.secret.text()
        if not host.strip() or self.busy:
            return None
        self._busy(True)
        self._say(f"Asking {host.strip()}:{port.strip() or 3260} for its targets…")
        return self.workers.submit(Job(DISCOVERY_KEY, "iSCSI discovery",
                                       lambda job: engines.discover_targets(host, port, user, secret),
                                       on_done=self._discovered, on_error=self._discovery_failed))

    def _discovered(self, targets: list) -> None:
        self._busy(False)
        self.discovered = targets
        typed = self.iqn.currentText()
        self.iqn.clear()
        for t in targets:
            self.iqn.addItem(t.iqn)
            self.iqn.setItemData(self.iqn.count() - 1, ", ".join(t.portals))
        if targets:
            self.iqn.setCurrentIndex(0)
            self._say(f"The portal offers {len(targets)} target{'s' if len(targets) != 1 else ''}: "
                      "choose one and its LUN.", "ok")
        else:
            self.iqn.setEditText(typed)
            self._say("The portal answered but offers no target to this initiator "
                      "(check the target's access list).", "error")

    def _discovery_failed(self, err: BaseException) -> None:
        self._busy(False)
        self._say(f"Discovery failed: {describe_error(err)}", "error")

    # -- test, then save --------------------------------------------------------------
    def test_and_save(self) -> Job | None:
        """Try the target; remember it when a tape drive answers, else ask first."""
        if self.busy:
            return None
        try:
            url = self.url()
        except TapediagError as err:
            self._say(str(err), "error")
            return None
        self._busy(True)
        self._say(f"Trying {display_device(url)}…")
        return self.workers.submit(Job(DISCOVERY_KEY, "iSCSI target check", lambda job: engines.check_target(url),
                                       on_done=lambda check: self._checked(url, check),
                                       on_error=lambda err: self._check_failed(url, err)))

    def _checked(self, url: str, check: "TargetCheck") -> None:
        self._busy(False)
        what = " ".join(x for x in (check.vendor, check.product) if x) or "a device"
        if check.is_tape:
            self._say(f"Found {what}, a tape drive.", "ok")
            self.save(url)
            return
        self._ask(url, f"LUN {self.lun.value()} of this target is {what}, a {escape(check.type_name)} "
                       "(not a tape drive).", "Another LUN of the target may be the drive.")

    def _check_failed(self, url: str, err: BaseException) -> None:
        self._busy(False)
        self._say(describe_error(err), "error")
        self._ask(url, escape(describe_error(err)),
                  "Save it anyway only if the target is down for now and will be back.")

    def _ask(self, url: str, finding: str, advice: str) -> None:
        box = QMessageBox(QMessageBox.Icon.Question, "Save anyway?",
                          f"<p>{finding}</p><p>{advice}</p><p><b>Save {escape(display_device(url))} anyway?</b></p>",
                          QMessageBox.StandardButton.Save | QMessageBox.StandardButton.Cancel, self)
        box.setObjectName("saveAnyway")
        box.setDefaultButton(QMessageBox.StandardButton.Cancel)
        box.finished.connect(lambda _result: self._answered(box, url))
        self.question = box
        box.open()

    def _answered(self, box: QMessageBox, url: str) -> None:
        if box.standardButton(box.clickedButton()) == QMessageBox.StandardButton.Save:
            self.save(url)
        else:
            self._say("Not saved. Correct the fields, or Cancel.", "error")

    def save(self, url: str) -> Job:
        self._busy(True)
        return self.workers.submit(Job(DISCOVERY_KEY, "add iSCSI target", lambda job: engines.add_target(url),
                                       on_done=lambda _r: self._saved(url), on_error=self._save_failed))

    def _saved(self, url: str) -> None:
        self._busy(False)
        self.remembered = display_device(url)
        self.saved.emit(self.remembered)
        self.accept()

    def _save_failed(self, err: BaseException) -> None:
        self._busy(False)
        self._say(f"Not saved: {describe_error(err)}", "error")
