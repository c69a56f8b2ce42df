"""The main window: device pane on the left, one wizard panel per task on the right."""
from __future__ import annotations

import gc
import logging

from PySide6.QtCore import QByteArray, Qt
from PySide6.QtGui import QAction, QCloseEvent, QKeySequence
from PySide6.QtWidgets import (QApplication, QDialog, QLabel, QMainWindow, QMessageBox, QSplitter, QTabWidget,
                               QVBoxLayout, QWidget)

from app import __version__
from ui import engines, gcthread
from ui.devices import DevicePane
from ui.runview import RunView
from ui.settings import settings
from ui.widgets import without_mnemonic
from ui.worker import DeviceWorkers
from ui.wizard import WizardPanel

log = logging.getLogger(__name__)


def _panel_classes() -> list[type[WizardPanel]]:
    """The panels in tab order (Ctrl+1…9): the drive's own tests first, then the disks, the analysis, the history,
    the library (its own device, chosen on the panel)."""
    from ui.panels.assess import AssessPanel
    from ui.panels.diskpanels import CreateDataPanel, ReadDataPanel
    from ui.panels.history import HistoryPanel
    from ui.panels.info import InfoPanel
    from ui.panels.library import LibraryPanel
    from ui.panels.scan import ScanPanel
    from ui.panels.tapeperf import TapePerfPanel
    from ui.panels.troubleshoot import TroubleshootPanel

    return [InfoPanel, TapePerfPanel, AssessPanel, ScanPanel, CreateDataPanel, ReadDataPanel, TroubleshootPanel,
            HistoryPanel, LibraryPanel]


def _window_panel_classes() -> list[type[WizardPanel]]:
    """Panels in a window of their own (Panels menu, Ctrl+0): a tenth tab does not fit a 1024-pixel window with
    its title whole. The network test is one: the troubleshooting panel opens it too."""
    from ui.panels.network import NetworkPanel

    return [NetworkPanel]


class PanelWindow(QDialog):
    """A panel in its own window, not modal: the main window stays usable (the troubleshooting form beside it)."""

    def __init__(self, panel: WizardPanel, parent: QWidget) -> None:
        super().__init__(parent)
        self.panel = panel
        self.setWindowTitle(f"{panel.title} — tapediag")
        QVBoxLayout(self).addWidget(panel)
        self.resize(880, 640)


def device_pane_width(window_width: int) -> int:
    """The device pane's first width: a quarter of the window less 16, 240-480 pixels (room for
    "iscsi://host:port/iqn…" on a large screen, and for the nine tabs at 1024 pixels)."""
    return max(240, min(480, window_width // 4 - 16))


class MainWindow(QMainWindow):
    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"tapediag {__version__} — tape drive diagnostics")
        self.workers = DeviceWorkers(self)
        self.devices = DevicePane(self.workers)
        self.tabs = QTabWidget()
        self.tabs.setObjectName("panels")
        self.tabs.setDocumentMode(True)
        # Nine tabs must fit a 1024-pixel window: never scroll them out of sight. Hence the
        # short tab titles ("Drive info"); the panel's heading and the tab's tooltip say it whole.
        self.tabs.setUsesScrollButtons(False)
        self.tabs.setElideMode(Qt.TextElideMode.ElideRight)
        self.panels: dict[str, WizardPanel] = {}
        for cls in _panel_classes():
            panel = cls(self.workers)
            self.panels[cls.key] = panel
            # No Alt+letter on the tabs: each page's fields need the letters, and the
            # tabs have Ctrl+1…9 (and the Panels menu, where their mnemonics live).
            self.tabs.addTab(panel, without_mnemonic(cls.tab_title))
            self.tabs.setTabToolTip(self.tabs.count() - 1, f"{cls.title} (Ctrl+{self.tabs.count()})")
        self.windows: dict[str, PanelWindow] = {}
        for cls in _window_panel_classes():
            panel = cls(self.workers)
            self.panels[cls.key] = panel
            self.windows[cls.key] = PanelWindow(panel, self)
        self.splitter = QSplitter(Qt.Orientation.Horizontal)
        self.splitter.addWidget(self.devices)
        self.splitter.addWidget(self.tabs)
        # The device pane grows with the window (1 : 3), so long iSCSI names get room on
        # a large screen; its width on first start is set in _restore.
        self.splitter.setStretchFactor(0, 1)
        self.splitter.setStretchFactor(1, 3)
        self.splitter.setChildrenCollapsible(False)
        self.setCentralWidget(self.splitter)
        self.devices.device_selected.connect(self._device_selected)
        history = self.panels.get("history")
        if history is not None:  # "Repeat this run": the run's kind's panel, on its drive, with its parameters
            history.can_repeat = lambda kind: self._repeat_panel(kind) is not None  # type: ignore[attr-defined]
            history.repeat_requested.connect(self.repeat_run)  # type: ignore[attr-defined]
        self.workers.busy_changed.connect(self._busy_changed)
        self.busy_label = QLabel("Ready")
        self.statusBar().addPermanentWidget(self.busy_label)
        self._menus()
        self._restore()
        self.devices.refresh(select=settings().value("last_device"))
        # Everything built so far (Qt wrappers, pyqtgraph items, modules) lives as long as
        # the window: freezing it keeps the collector's full passes, which hold the GIL
        # and so stall the GUI mid-run, from walking those objects again and again.
        gc.collect()
        gc.freeze()
        gcthread.start()  # collection on this thread only, until the window closes (ui.gcthread)
        self._collecting = True

    def _menus(self) -> None:
        file_menu = self.menuBar().addMenu("&File")
        refresh = QAction("&Refresh devices", self, shortcut=QKeySequence(QKeySequence.StandardKey.Refresh))
        refresh.triggered.connect(lambda: self.devices.refresh())
        file_menu.addAction(refresh)
        add = QAction("Add &iSCSI target…", self)
        add.triggered.connect(self.devices.ask_add_target)
        file_menu.addAction(add)
        self.refresh_action, self.add_target_action = refresh, add
        read_only = QAction("Read-&only session", self, checkable=True)
        read_only.setToolTip("Never send a command that writes to a tape or changes a drive's state")
        read_only.toggled.connect(self.set_read_only)
        file_menu.addAction(read_only)
        self.read_only_action = read_only
        file_menu.addSeparator()
        quit_action = QAction("&Quit", self, shortcut=QKeySequence(QKeySequence.StandardKey.Quit))
        quit_action.triggered.connect(self.close)
        file_menu.addAction(quit_action)
        self.quit_action = quit_action
        view = self.menuBar().addMenu("&Panels")
        for i, panel in enumerate(p for p in self.panels.values() if p.key not in self.windows):
            action = QAction(type(panel).tab_title, self, shortcut=QKeySequence(f"Ctrl+{i + 1}"))
            action.triggered.connect(lambda _=False, p=panel: self.show_panel(p.key))
            view.addAction(action)
        view.addSeparator()
        for key in self.windows:
            action = QAction(f"{type(self.panels[key]).tab_title}…", self, shortcut=QKeySequence("Ctrl+0"))
            action.triggered.connect(lambda _=False, k=key: self.show_panel(k))
            view.addAction(action)
        help_menu = self.menuBar().addMenu("&Help")
        about = QAction("&About tapediag", self)
        about.triggered.connect(self._about)
        help_menu.addAction(about)

    def set_read_only(self, on: bool) -> None:
        """The session-wide read-only switch (the CLI's --read-only); the title says it is on."""
        engines.set_read_only(on)
        title = f"tapediag {__version__} — tape drive diagnostics"
        self.setWindowTitle(title + (" [read-only]" if on else ""))
        if self.read_only_action.isChecked() != on:
            self.read_only_action.setChecked(on)

    def _about(self) -> None:
        QMessageBox.about(
            self,
            "About tapediag",
            f"<b>tapediag {__version__}</b><p>Open diagnostics for tape drives and the disks that feed them: "
            "drive health, tape and disk performance, bottleneck analysis, reports.</p>",
        )

    def show_panel(self, key: str) -> WizardPanel:
        panel = self.panels[key]
        if key in self.windows:  # a panel in its own window: shown and brought to the front
            window = self.windows[key]
            window.show()
            window.raise_()
            window.activateWindow()
            return panel
        self.tabs.setCurrentWidget(panel)
        return panel

    def _repeat_panel(self, kind: str) -> WizardPanel | None:
        return next((p for p in self.panels.values() if getattr(p, "repeat_kind", "") == kind), None)

    def repeat_run(self, run) -> WizardPanel | None:
        """Open the panel of ``run``'s kind on its drive with its parameters, at the confirm page (``TestPanel.repeat``):
        it starts from there like any run. A drive not in the device list (a virtual drive with options, a target
        since forgotten) is given to the panel directly, and the status bar says so."""
        panel = self._repeat_panel(run.kind)
        if panel is None or self.workers.selection_holder() is not None:
            return None
        if not self.devices.select(run.device):
            panel.set_device(run.device)
            self.statusBar().showMessage(f"Repeating run {run.id} on {run.device} (not in the device list)", 8000)
        self.show_panel(panel.key)
        panel.repeat(engines.repeat_values(run))  # type: ignore[attr-defined]
        return panel

    def _device_selected(self, device: str) -> None:
        s = settings()
        s.setValue("last_device", device)
        for panel in self.panels.values():
            panel.set_device(device)
        self.statusBar().showMessage(f"Selected {device}", 3000)

    def _busy_changed(self, device: str, busy: bool) -> None:
        jobs = self.workers.active_jobs()
        names = [j.title + (f" on {j.device}" if j.holds_selection else "") for j in jobs]
        self.busy_label.setText(f"Working: {', '.join(names)}" if jobs else "Ready")
        holder = self.workers.selection_holder()
        if holder is not None:
            self.devices.lock(holder.device, holder.title)
        else:
            self.devices.unlock()
        for action in (self.refresh_action, self.add_target_action):
            action.setEnabled(holder is None)

    # -- settings ----------------------------------------------------------------------
    def _restore(self) -> None:
        s = settings()
        geometry = s.value("geometry")
        if isinstance(geometry, QByteArray) and not geometry.isEmpty():
            self.restoreGeometry(geometry)
        else:
            self.resize(1280, 860)
        split = s.value("splitter")
        if isinstance(split, QByteArray) and not split.isEmpty():
            self.splitter.restoreState(split)
        else:
            width = max(self.width(), 800)
            pane = device_pane_width(width)
            self.splitter.setSizes([pane, width - pane])
        tab = s.value("panel")
        if tab in self.panels:
            self.tabs.setCurrentWidget(self.panels[tab])

    def closeEvent(self, event: QCloseEvent) -> None:
        """Cancel running tests and wait for the device threads before closing."""
        s = settings()
        s.setValue("geometry", self.saveGeometry())
        s.setValue("splitter", self.splitter.saveState())
        current = self.tabs.currentWidget()
        s.setValue("panel", getattr(current, "key", ""))
        for panel in self.panels.values():
            panel.save_settings()
        s.sync()
        if self.workers.active_jobs():
            self.statusBar().showMessage("Cancelling the running test…")
            QApplication.processEvents()
        self.workers.shutdown()
        for view in self.findChildren(RunView):
            view.release_gc()
        if self._collecting:
            self._collecting = False
            gcthread.stop()
        super().closeEvent(event)
