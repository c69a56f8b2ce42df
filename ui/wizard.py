"""The wizard frame every panel uses: a step strip over a stack of pages.

Like L&TT's test screens a panel walks choose → parameters → confirm → run →
results. Pages carry their own buttons (the last step's buttons differ too much for a
common Back/Next bar); the strip shows where the technician is.
"""
from __future__ import annotations

from PySide6.QtCore import Qt
from PySide6.QtGui import QFont, QPalette
from PySide6.QtWidgets import (
    QFrame,
    QHBoxLayout,
    QLabel,
    QMessageBox,
    QPushButton,
    QStackedWidget,
    QVBoxLayout,
    QWidget,
)

from ui.worker import DeviceWorkers, describe_error


class WizardPanel(QWidget):
    """Title, description, step strip and a page stack. Subclasses add pages."""

    key = ""  # settings key and MainWindow.panels key
    tab_title = "Panel"
    title = "Panel"
    description = ""
    steps: tuple[str, ...] = ("Choose", "Parameters", "Confirm", "Run", "Results")

    def __init__(self, workers: DeviceWorkers, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.workers = workers
        self.setObjectName(type(self).__name__)
        heading = QLabel(self.title)
        font = heading.font()
        font.setPointSizeF(font.pointSizeF() * 1.5)
        font.setWeight(QFont.Weight.DemiBold)
        heading.setFont(font)
        blurb = QLabel(self.description)
        blurb.setWordWrap(True)
        blurb.setForegroundRole(QPalette.ColorRole.PlaceholderText)
        self._step_labels: list[QLabel] = []
        strip = QHBoxLayout()
        strip.setSpacing(4)
        for i, name in enumerate(self.steps):
            if i:
                arrow = QLabel("›")
                arrow.setForegroundRole(QPalette.ColorRole.PlaceholderText)
                strip.addWidget(arrow)
            label = QLabel(f"{i + 1}. {name}")
            label.setMargin(4)
            self._step_labels.append(label)
            strip.addWidget(label)
        strip.addStretch(1)
        line = QFrame()
        line.setFrameShape(QFrame.Shape.HLine)
        line.setFrameShadow(QFrame.Shadow.Sunken)
        self.stack = QStackedWidget()
        layout = QVBoxLayout(self)
        layout.addWidget(heading)
        if self.description:
            layout.addWidget(blurb)
        layout.addLayout(strip)
        layout.addWidget(line)
        layout.addWidget(self.stack, 1)
        self._pages: dict[str, tuple[QWidget, int]] = {}
        self.device: str | None = None
        self.last_error: str | None = None

    # -- pages ----------------------------------------------------------------------------
    def add_page(self, key: str, widget: QWidget, step: int) -> QWidget:
        self._pages[key] = (widget, step)
        self.stack.addWidget(widget)
        return widget

    def show_page(self, key: str) -> None:
        widget, step = self._pages[key]
        self.stack.setCurrentWidget(widget)
        for i, label in enumerate(self._step_labels):
            font = label.font()
            font.setBold(i == step)
            label.setFont(font)
            label.setEnabled(i <= step)
            label.setAutoFillBackground(i == step)
            label.setBackgroundRole(QPalette.ColorRole.Highlight if i == step else QPalette.ColorRole.Window)
            label.setForegroundRole(QPalette.ColorRole.HighlightedText if i == step else QPalette.ColorRole.WindowText)
        focus = widget.focusProxy() or _first_focusable(widget)
        if focus is not None:
            focus.setFocus(Qt.FocusReason.OtherFocusReason)

    def current_page(self) -> str:
        current = self.stack.currentWidget()
        return next(k for k, (w, _) in self._pages.items() if w is current)

    # -- device and errors --------------------------------------------------------------
    def set_device(self, device: str | None) -> None:
        """The device pane's selection changed (panels that test disks ignore it)."""
        self.device = device

    def save_settings(self) -> None:
        """Persist the panel's last parameters (called when the window closes)."""

    def show_error(self, title: str, err: BaseException | str) -> QMessageBox:
        """A non-blocking dialog with the decoded cause (``str(err)``), never a traceback."""
        text = err if isinstance(err, str) else describe_error(err)
        self.last_error = text
        box = QMessageBox(QMessageBox.Icon.Critical, title, text, QMessageBox.StandardButton.Ok, self)
        box.setObjectName("errorDialog")
        box.open()
        return box


def _first_focusable(widget: QWidget) -> QWidget | None:
    for child in widget.findChildren(QWidget):
        if child.focusPolicy() & Qt.FocusPolicy.TabFocus and child.isEnabled() and not child.isHidden():
            return child
    return None


def button_row(*buttons: QPushButton, stretch_first: bool = True) -> QHBoxLayout:
    row = QHBoxLayout()
    if stretch_first:
        row.addStretch(1)
    for b in buttons:
        row.addWidget(b)
    return row


def nav_row(back: QPushButton | None, forward: QPushButton) -> QHBoxLayout:
    """A wizard page's navigation: Back (if any) on the left, the step forward on the right."""
    row = QHBoxLayout()
    if back is not None:
        row.addWidget(back)
    row.addStretch(1)
    row.addWidget(forward)
    return row


