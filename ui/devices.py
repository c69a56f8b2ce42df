"""The device pane: discovered drives, virtual drives, remembered iSCSI targets.

Listing and identifying devices touches hardware (sysfs, INQUIRY over iSCSI), so both
run on workers; the pane only shows what comes back.
"""
from __future__ import annotations

from html import escape
from typing import TYPE_CHECKING

from PySide6.QtCore import Qt, Signal
from PySide6.QtWidgets import (
    QFormLayout,
    QGroupBox,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QPushButton,
    QSizePolicy,
    QVBoxLayout,
    QWidget,
)

from ui import engines
from ui.widgets import ElidedLabel
from ui.worker import DeviceWorkers, Job, describe_error

DISCOVERY_KEY = "discovery"  # worker key for listing (never a device string)

if TYPE_CHECKING:
    from ui.addtarget import AddTargetDialog


class DevicePane(QWidget):
    """Emits ``device_selected(device_string)``."""

    device_selected = Signal(str)

    def __init__(self, workers: DeviceWorkers, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workers = workers
        title = QLabel("Devices")
        font = title.font()
        font.setBold(True)
        title.setFont(font)
        self.list = QListWidget()
        self.list.setObjectName("deviceList")
        self.list.setAccessibleName("Devices")
        # Long iSCSI names are shortened in the middle (host and LUN stay readable); the
        # tooltip has the whole name. No sideways scrolling of a device list.
        self.list.setTextElideMode(Qt.TextElideMode.ElideMiddle)
        self.list.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.list.setWordWrap(False)
        self.list.currentItemChanged.connect(self._on_current)
        self.refresh_button = QPushButton("Refresh")
        self.refresh_button.setToolTip("List the devices again (F5)")
        self.refresh_button.clicked.connect(self.refresh)
        self.add_button = QPushButton("Add iSCSI target…")
        self.add_button.clicked.connect(self.ask_add_target)
        self.forget_button = QPushButton("Forget")
        self.forget_button.setToolTip("Forget the selected remembered iSCSI target")
        self.forget_button.clicked.connect(self.forget_selected)
        buttons = QHBoxLayout()
        buttons.addWidget(self.refresh_button)
        buttons.addWidget(self.forget_button)
        self.identity_box = QGroupBox("Selected device")
        form = QFormLayout(self.identity_box)
        self.identity: dict[str, QLabel] = {}
        for key, caption in (("device", "Device"), ("vendor", "Vendor"), ("product", "Product"),
                             ("revision", "Firmware"), ("serial", "Serial"), ("status", "Status")):
            label = ElidedLabel("–") if key == "device" else QLabel("–")
            label.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            label.setWordWrap(key != "device")
            # A long error or iSCSI name wraps within the pane instead of widening it
            # (which squeezed the panel tabs off a 1024-pixel window).
            label.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
            self.identity[key] = label
            form.addRow(caption + ":", label)
        self.notes = QLabel("")
        self.notes.setWordWrap(True)
        self.notes.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.notes.setForegroundRole(self.notes.foregroundRole().PlaceholderText)
        self.notes.hide()
        self.lock_note = QLabel("")
        self.lock_note.setObjectName("selectionLocked")
        self.lock_note.setWordWrap(True)
        self.lock_note.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.lock_note.setTextFormat(Qt.TextFormat.RichText)
        self.lock_note.hide()
        layout = QVBoxLayout(self)
        layout.addWidget(title)
        layout.addWidget(self.lock_note)
        layout.addWidget(self.list, 1)
        layout.addWidget(self.notes)
        layout.addLayout(buttons)
        layout.addWidget(self.add_button)
        layout.addWidget(self.identity_box)
        self.selected: str | None = None
        self.locked_to: str | None = None
        self._wanted: str | None = None
        self.last_error: str | None = None
        self.identity_cache: dict[str, dict] = {}

    # -- listing -------------------------------------------------------------------------
    def refresh(self, select: str | None = None) -> Job | None:
        """List devices on a worker; then select ``select`` (or keep the selection).

        Not while a run holds the selection (None): re-listing would move it."""
        if self.locked_to is not None:
            return None
        self._wanted = select or self.selected
        self.refresh_button.setEnabled(False)
        return self.workers.submit(
            Job(DISCOVERY_KEY, "device discovery", lambda job: (engines.list_devices(), engines.transport_notes()),
                on_done=self._listed, on_error=self._list_failed)
        )

    def _listed(self, outcome: tuple[list[engines.DeviceRow], list[str]]) -> None:
        entries, notes = outcome
        self.notes.setText("\n".join(notes))
        self.notes.setVisible(bool(notes))
        self.refresh_button.setEnabled(True)
        self.list.blockSignals(True)
        self.list.clear()
        for row in entries:
            item = QListWidgetItem(f"{row.label}\n{row.device}")
            item.setData(Qt.ItemDataRole.UserRole, row.device)
            item.setData(Qt.ItemDataRole.UserRole + 1, row.kind)
            item.setToolTip(f"{row.device}\n{row.description}" if row.description else row.device)
            if row.reachable is False:
                item.setForeground(self.palette().color(self.palette().ColorGroup.Disabled,
                                                        self.palette().ColorRole.Text))
                item.setText(f"{row.label} — unreachable\n{row.device}")
            self.list.addItem(item)
        self.list.blockSignals(False)
        wanted = self._wanted if self._wanted in {row.device for row in entries} else default_device(entries)
        if wanted:
            self.select(wanted)

    def _list_failed(self, err: BaseException) -> None:
        self.refresh_button.setEnabled(True)
        self.last_error = describe_error(err)
        self.identity["status"].setText(self.last_error)

    def devices(self) -> list[str]:
        return [self.list.item(i).data(Qt.ItemDataRole.UserRole) for i in range(self.list.count())]

    def select(self, device: str) -> bool:
        """Make ``device`` the selection; False when it is not listed or a run holds another."""
        if self.locked_to is not None and device != self.locked_to:
            return False
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.ItemDataRole.UserRole) == device:
                self.list.setCurrentRow(i)
                return True
        return False

    # -- remembered iSCSI targets --------------------------------------------------------
    def ask_add_target(self) -> "AddTargetDialog":
        """The Add-target dialog (non-modal to the workers: discovery and the test run there)."""
        from ui.addtarget import AddTargetDialog

        dialog = AddTargetDialog(self.workers, self)
        dialog.saved.connect(lambda device: self.refresh(select=device))
        self.add_dialog = dialog
        dialog.open()
        return dialog

    def add_target(self, url: str) -> Job:
        return self.workers.submit(
            Job(DISCOVERY_KEY, "add iSCSI target", lambda job: engines.add_target(url),
                on_done=lambda _r: self.refresh(select=url), on_error=self._list_failed)
        )

    def forget_selected(self) -> None:
        item = self.list.currentItem()
        if item is None or item.data(Qt.ItemDataRole.UserRole + 1) != "iscsi":
            return
        url = item.data(Qt.ItemDataRole.UserRole)
        self.workers.submit(
            Job(DISCOVERY_KEY, "forget iSCSI target", lambda job: engines.forget_target(url),
                on_done=lambda _r: self.refresh(), on_error=self._list_failed)
        )

    # -- the selection lock ---------------------------------------------------------------
    def lock(self, device: str, what: str) -> None:
        """A test runs on ``device``: keep it selected and say so until ``unlock``.

        Why: the panels label their results with the selected drive; a click elsewhere
        mid-run would put the running drive's figures under another drive's name.
        """
        if self.locked_to == device:
            return
        self.locked_to = device
        if self.selected != device:
            self._select_row(device)
        for widget in (self.list, self.refresh_button, self.add_button, self.forget_button):
            widget.setEnabled(False)
        self.lock_note.setText(f"<b>Selection locked</b>: {escape(what)} is running on {escape(device)}. "
                               "Another drive can be selected when it ends or is cancelled.")
        self.lock_note.show()

    def unlock(self) -> None:
        if self.locked_to is None:
            return
        self.locked_to = None
        self.list.setEnabled(True)
        self.refresh_button.setEnabled(True)
        self.add_button.setEnabled(True)
        item = self.list.currentItem()
        self.forget_button.setEnabled(item is not None and item.data(Qt.ItemDataRole.UserRole + 1) == "iscsi")
        self.lock_note.hide()

    def _select_row(self, device: str) -> None:
        for i in range(self.list.count()):
            if self.list.item(i).data(Qt.ItemDataRole.UserRole) == device:
                self.list.setCurrentRow(i)
                return

    # -- selection and identity ----------------------------------------------------------
    def _on_current(self, current: QListWidgetItem | None, _previous: object) -> None:
        if current is None:
            return
        device = current.data(Qt.ItemDataRole.UserRole)
        if self.locked_to is not None and device != self.locked_to:
            # Keyboard, a re-listing or a script moved the row: put it back, change nothing.
            self.list.blockSignals(True)
            self._select_row(self.locked_to)
            self.list.blockSignals(False)
            return
        if device == self.selected and self.locked_to is not None:
            return
        self.selected = device
        self.forget_button.setEnabled(current.data(Qt.ItemDataRole.UserRole + 1) == "iscsi")
        for label in self.identity.values():
            label.setText("–")
        self.identity["device"].setText(device)
        self.identity["status"].setText("Identifying…")
        self.device_selected.emit(device)
        self.workers.submit(
            Job(device, "identify", lambda job: engines.identify(device),
                on_done=lambda ident: self._identified(device, ident),
                on_error=lambda err: self._identify_failed(device, err))
        )

    def _identified(self, device: str, ident: dict) -> None:
        self.identity_cache[device] = ident
        if device != self.selected:
            return
        for key in ("vendor", "product", "revision", "serial"):
            self.identity[key].setText(str(ident.get(key) or "–"))
        self.identity["status"].setText(ident.get("status", "Ready"))

    def _identify_failed(self, device: str, err: BaseException) -> None:
        if device == self.selected:
            self.identity["status"].setText(describe_error(err))


def default_device(entries: list[engines.DeviceRow]) -> str | None:
    """The device to select with none remembered: the first attached drive a technician
    came to test, else the newest virtual LTO (what the README promises on a machine
    with no drive), else whatever is listed first."""
    real = [row for row in entries if row.kind != "virtual" and row.reachable is not False]
    if real:
        return real[0].device
    virtual = [row.device for row in entries if row.device in engines.VIRTUAL_DRIVES]
    if virtual:
        return max(virtual, key=engines.VIRTUAL_DRIVES.index)
    return entries[0].device if entries else None
