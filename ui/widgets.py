"""Small shared widgets: result trees from ``to_dict()`` forms, validated fields."""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Callable, Iterable

from PySide6.QtCore import Qt
from PySide6.QtGui import QColor, QPalette
from PySide6.QtWidgets import (
    QHBoxLayout,
    QHeaderView,
    QLabel,
    QLineEdit,
    QSizePolicy,
    QTreeWidget,
    QTreeWidgetItem,
    QWidget,
)

from ui.format import unbroken

if TYPE_CHECKING:
    from app.info_view import Section

SEVERITY_COLOURS = {
    # TapeAlert severities and health verdicts; readable on light and dark palettes.
    "critical": QColor("#d62728"),
    "failing": QColor("#d62728"),
    "warning": QColor("#e08a00"),
    "attention": QColor("#e08a00"),
    "information": QColor("#1f77b4"),
    "info": QColor("#1f77b4"),
    "healthy": QColor("#2ca02c"),
    # No evidence either way / no tape verdict at all: neutral grey, never green.
    "not assessed": QColor("#7f7f7f"),
    "not a tape drive": QColor("#7f7f7f"),
}


_WORDS = {"mib": "MiB", "mb": "MB", "gb": "GB", "wwn": "WWN", "io": "I/O", "ios": "I/Os", "mam": "MAM",
          "p50": "p50", "s": "s", "bot": "BOT", "eod": "EOD", "id": "ID"}


def _label(key: str) -> str:
    words = [_WORDS.get(w.lower(), w) for w in key.replace("_", " ").split(" ")]
    text = " ".join(words)
    return text[:1].upper() + text[1:]


#: The widest a line edit grows to show its placeholder whole (a longer one is cut; its tooltip has it all).
PLACEHOLDER_MAX_PX = 420


def fit_placeholder(edit: QLineEdit) -> None:
    """Wide enough to read what a blank field means (at 1024 px "from the generation; or 1K, ..." was cut)."""
    if edit.placeholderText():
        wanted = edit.fontMetrics().horizontalAdvance(edit.placeholderText()) + 16
        edit.setMinimumWidth(min(wanted, PLACEHOLDER_MAX_PX))


def _scalar(value: Any) -> str:
    if value is None:
        return "–"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:,.3f}".rstrip("0").rstrip(".") if abs(value) < 1e6 else f"{value:,.0f}"
    if isinstance(value, int):
        return f"{value:,}" if abs(value) >= 10000 else str(value)
    return str(value)


class ResultTree(QTreeWidget):
    """A two-column Field/Value tree for nested JSON-safe dicts."""

    def __init__(self, parent: QWidget | None = None, *, skip: tuple[str, ...] = ("samples",)) -> None:
        super().__init__(parent)
        self.setColumnCount(2)
        self.setHeaderLabels(["Field", "Value"])
        self.setAlternatingRowColors(True)
        self.setUniformRowHeights(True)
        self.header().setSectionResizeMode(0, QHeaderView.ResizeMode.ResizeToContents)
        self.skip = skip

    def show_sections(self, sections: list[tuple[str, Any, bool]]) -> None:
        self.clear()
        for title, data, expanded in sections:
            self.add_section(title, data, expanded=expanded)

    def show_view(self, sections: "Iterable[Section]") -> None:
        """Sections already formatted by ``app/`` (``app.info_view``): labels and values shown as given.

        A row with an indent sits under the row before it (a SAS phy's counters under the phy)."""
        self.clear()
        for section in sections:
            top = QTreeWidgetItem([section.title, ""])
            font = top.font(0)
            font.setBold(True)
            top.setFont(0, font)
            self.addTopLevelItem(top)
            if len(section.rows) == 1 and not section.rows[0].label:  # "not supported by this device": said once
                top.setText(1, section.rows[0].value)
                continue
            parent = top
            judged: list[QTreeWidgetItem] = []
            for row in section.rows:
                item = QTreeWidgetItem(parent if row.indent else top, [row.label, row.value])
                item.setToolTip(1, row.value)
                if not row.indent:
                    parent = item
                colour = SEVERITY_COLOURS.get(row.severity or "")
                if colour is not None:
                    item.setForeground(1, colour)
                if row.severity in ("attention", "failing"):  # a health finding: its evidence shown, not folded
                    judged.append(item)
            top.setExpanded(section.expanded)
            for item in judged:
                item.setExpanded(True)

    def add_section(self, title: str, data: Any, *, colour: QColor | None = None,
                    expanded: bool = True) -> QTreeWidgetItem:
        item = QTreeWidgetItem([title, "" if isinstance(data, (dict, list)) else _scalar(data)])
        item.setToolTip(1, item.text(1))
        font = item.font(0)
        font.setBold(True)
        item.setFont(0, font)
        if colour is not None:
            item.setForeground(1, colour)
        self.addTopLevelItem(item)
        if isinstance(data, (dict, list)):
            self._add(item, data)
        item.setExpanded(expanded)
        return item

    def _add(self, parent: QTreeWidgetItem, data: Any) -> None:
        items: Iterable[tuple[Any, Any]]
        if isinstance(data, dict):
            items = data.items()
        else:
            items = ((f"#{i + 1}", v) for i, v in enumerate(data))
        for key, value in items:
            if key in self.skip:
                continue
            if isinstance(value, (dict, list)):
                if isinstance(value, list) and len(value) > 200:
                    QTreeWidgetItem(parent, [_label(str(key)), f"{len(value)} entries"])
                    continue
                child = QTreeWidgetItem(parent, [_label(str(key)), "" if value else "none"])
                self._add(child, value)
            else:
                child = QTreeWidgetItem(parent, [_label(str(key)), _scalar(value)])
                child.setToolTip(1, _scalar(value))  # a value wider than the window is elided: the tooltip has it all
                colour = (SEVERITY_COLOURS.get(value.split(":")[0].strip().lower())
                          if isinstance(value, str) else None)
                if colour is not None:
                    child.setForeground(1, colour)

    def find_value(self, field: str) -> str | None:
        """The value shown for the first row named ``field``, in display order (tests, screenshots)."""
        wanted = _label(field).lower()
        # topLevelItem/child are None only for an index out of range, which these never are.
        stack = [item for i in reversed(range(self.topLevelItemCount())) if (item := self.topLevelItem(i))]
        while stack:
            item = stack.pop()
            if item.text(0).lower() == wanted and item.text(1):
                return item.text(1)
            stack.extend(child for i in reversed(range(item.childCount())) if (child := item.child(i)))
        return None


class ValidatedField(QWidget):
    """A line edit with the reason it is wrong shown beside it, checked as typed.

    ``check(text)`` returns the parsed value or raises ``InvalidParameter`` (the
    engine's own parsing/validation, so the GUI rejects what the CLI rejects).
    """

    def __init__(self, check: Callable[[str], Any], text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.check = check
        self.edit = QLineEdit(text)
        self.error = error_label("fieldError")
        layout = QHBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.edit, 1)
        layout.addWidget(self.error, 2)
        self.setFocusProxy(self.edit)
        self.edit.textChanged.connect(self.revalidate)
        self.value: Any = None
        self.revalidate()

    def revalidate(self) -> bool:
        from native.errors import TapediagError

        try:
            self.value = self.check(self.edit.text())
        except (TapediagError, ValueError) as err:
            self.value = None
            self.error.setText(str(err))
            self.edit.setStyleSheet("QLineEdit { border: 1px solid #d62728; }")
            return False
        self.error.setText("")
        self.edit.setStyleSheet("")
        return True

    @property
    def ok(self) -> bool:
        return self.error.text() == ""

    def text(self) -> str:
        return self.edit.text()

    def setText(self, text: str) -> None:
        self.edit.setText(text)


class ElidedLabel(QLabel):
    """One line that shortens itself in the middle to the width it gets ("iscsi://127.0.0.1:3260/
    iqn.20…drive-01/1"); the whole text is in the tooltip and in ``full_text()``.

    Why: a device string has no spaces, so a word-wrapped label cannot break it and
    either widens its pane or is cut at the edge.
    """

    def __init__(self, text: str = "", parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self._full = ""
        self.setSizePolicy(QSizePolicy.Policy.Ignored, QSizePolicy.Policy.Preferred)
        self.setText(text)

    def setText(self, text: str) -> None:  # noqa: N802 (Qt)
        self._full = text
        self.setToolTip(text if len(text) > 24 else "")
        self._elide()

    def full_text(self) -> str:
        return self._full

    def resizeEvent(self, event: Any) -> None:  # noqa: N802 (Qt)
        super().resizeEvent(event)
        self._elide()

    def _elide(self) -> None:
        width = max(self.width() - 2, 20)
        super().setText(self.fontMetrics().elidedText(self._full, Qt.TextElideMode.ElideMiddle, width))


def without_mnemonic(text: str) -> str:
    """``text`` with its mnemonic marker removed and '&&' kept (a literal '&' where Qt
    draws mnemonics): "&History && reports" -> "History && reports"."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "&":
            out.append("&&" if text[i + 1:i + 2] == "&" else "")
            i += 2 if text[i + 1:i + 2] == "&" else 1
        else:
            out.append(text[i])
            i += 1
    return "".join(out)


def error_label(object_name: str = "") -> QLabel:
    """An empty, word-wrapped label in the critical colour: where a reason for refusing input goes."""
    label = QLabel("")
    if object_name:
        label.setObjectName(object_name)
    label.setWordWrap(True)
    pal = label.palette()
    pal.setColor(QPalette.ColorRole.WindowText, SEVERITY_COLOURS["critical"])
    label.setPalette(pal)
    return label


class Headline(QLabel):
    """A verdict line that wraps, with every figure kept whole (``ui.format.unbroken``): at a narrow width a
    rate was cut at its slash, "814.5 MB/" over "s". ``text()`` is the text as shown, joins included."""

    def setText(self, text: str) -> None:  # noqa: N802 (Qt)
        super().setText(unbroken(text))


def headline(text: str, colour: QColor | None = None) -> QLabel:
    label = Headline()
    label.setText(text)
    label.setWordWrap(True)
    label.setTextFormat(Qt.TextFormat.RichText)
    font = label.font()
    font.setPointSizeF(font.pointSizeF() * 1.15)
    label.setFont(font)
    if colour is not None:
        pal = label.palette()
        pal.setColor(QPalette.ColorRole.WindowText, colour)
        label.setPalette(pal)
    return label
