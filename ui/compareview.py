"""Two recorded runs compared (``app.compare``), as the history panel shows them, and the picker of the other run.

The words are the comparison's own (the CLI prints and the PDF's page 1 shows the same strings); each
judgement is coloured by its tone (improved green, worse red, the rest grey), so a screen copied into a
ticket reads as the report does.
"""
from __future__ import annotations

from html import escape

from PySide6.QtCore import Qt
from PySide6.QtWidgets import (
    QAbstractItemView,
    QDialog,
    QDialogButtonBox,
    QHeaderView,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QTableWidget,
    QTableWidgetItem,
    QTextBrowser,
    QVBoxLayout,
    QWidget,
)

from app.compare.model import Comparison
from app.history import Run
from ui.widgets import SEVERITY_COLOURS

#: A row's tone (``app.compare.noise.JUDGEMENTS``) as the GUI's colour.
TONE_COLOURS = {"good": SEVERITY_COLOURS["healthy"], "bad": SEVERITY_COLOURS["critical"],
                "warn": SEVERITY_COLOURS["warning"], "none": SEVERITY_COLOURS["not assessed"]}
COLUMNS = ("Figure", "Before", "After", "Change", "Judgement")


class ComparisonView(QWidget):
    """What differs first, then the figures' table, then how noise was judged."""

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.comparison: Comparison | None = None
        self.heading = QLabel("")
        self.heading.setObjectName("comparisonHeading")
        self.heading.setWordWrap(True)
        self.heading.setTextFormat(Qt.TextFormat.RichText)
        self.heading.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        self.table = QTableWidget(0, len(COLUMNS))
        self.table.setObjectName("comparisonTable")
        self.table.setHorizontalHeaderLabels(list(COLUMNS))
        self.table.verticalHeader().setVisible(False)
        self.table.setEditTriggers(QAbstractItemView.EditTrigger.NoEditTriggers)
        self.table.setWordWrap(False)
        self.table.setHorizontalScrollBarPolicy(Qt.ScrollBarPolicy.ScrollBarAlwaysOff)
        self.table.verticalHeader().setDefaultSectionSize(self.fontMetrics().height() + 8)
        # By what rule each figure was judged and how noise is judged: long, so in a box of its own that scrolls,
        # never squeezing the table (each row's rule is also its tooltip).
        self.notes = QTextBrowser()
        self.notes.setObjectName("comparisonNotes")
        self.notes.setMaximumHeight(self.fontMetrics().height() * 6)
        layout = QVBoxLayout(self)
        layout.setContentsMargins(0, 0, 0, 0)
        layout.addWidget(self.heading)
        layout.addWidget(self.table, 1)
        layout.addWidget(self.notes)

    def show_comparison(self, c: Comparison) -> None:
        self.comparison = c
        a, b = c.before, c.after
        lines = [f"<b>Run {a.run_id}</b> ({escape(a.started_at)}) before, <b>run {b.run_id}</b> "
                 f"({escape(b.started_at)}) after: <b>{escape(c.summary)}</b>."]
        if c.same_test:
            lines.append("Same test, drive and cartridge in both runs.")
        else:
            lines.append("<b>What differs besides the figures:</b>")
            lines += [f"• {escape(d.what)}: {escape(d.before)} / {escape(d.after)}: {escape(d.words)}"
                      for d in c.differences]
        self.heading.setText("<br>".join(lines))
        self.table.setHorizontalHeaderLabels(["Figure", f"Run {a.run_id}", f"Run {b.run_id}", "Change", "Judgement"])
        self.table.setRowCount(len(c.rows))
        for n, row in enumerate(c.rows):
            for col, text in enumerate((row.figure, row.before, row.after, row.change or "—", row.judgement)):
                item = QTableWidgetItem(text)
                item.setToolTip(text if col in (1, 2) else row.basis or text)
                if col == 4:
                    item.setForeground(TONE_COLOURS.get(row.tone, TONE_COLOURS["none"]))
                self.table.setItem(n, col, item)
        header = self.table.horizontalHeader()
        for col, mode in enumerate((QHeaderView.ResizeMode.ResizeToContents, QHeaderView.ResizeMode.Stretch,
                                    QHeaderView.ResizeMode.Stretch, QHeaderView.ResizeMode.ResizeToContents,
                                    QHeaderView.ResizeMode.ResizeToContents)):
            header.setSectionResizeMode(col, mode)
        said = [f"{r.figure}: {r.basis}" for r in c.rows if r.basis and r.judgement != "same"]
        self.notes.setHtml("<br>".join(escape(x) for x in (*said, *c.notes))
                           + "<br><i>How noise is judged:</i> " + " ".join(escape(x) for x in c.noise))

    def judgements(self) -> dict[str, str]:
        """Figure -> judgement, as the table shows them (for the tests)."""
        out = {}
        for r in range(self.table.rowCount()):
            figure, judgement = self.table.item(r, 0), self.table.item(r, 4)
            if figure is not None and judgement is not None:
                out[figure.text()] = judgement.text()
        return out


class ComparePicker(QDialog):
    """The other run to compare a run with: runs of the same kind first, on the same device first, newest first."""

    def __init__(self, run: Run, runs: list[Run], parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle(f"Compare run {run.id} with…")
        self.list = QListWidget()
        self.list.setObjectName("compareCandidates")
        others = sorted((r for r in runs if r.id != run.id and not r.damaged),
                        key=lambda r: (r.kind != run.kind, r.device != run.device, -r.id))
        for other in others:
            item = QListWidgetItem(f"Run {other.id} — {other.kind} on {other.device or 'no device'}, "
                                   f"{other.status}, {other.started_at.replace('T', ' ')[:16]}")
            item.setData(Qt.ItemDataRole.UserRole, other.id)
            self.list.addItem(item)
        if self.list.count():
            self.list.setCurrentRow(0)
        self.list.itemDoubleClicked.connect(lambda _item: self.accept())
        hint = QLabel(f"Run {run.id} is compared with the run chosen here; the older of the two is <i>before</i>.")
        hint.setWordWrap(True)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Ok | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        layout = QVBoxLayout(self)
        layout.addWidget(hint)
        layout.addWidget(self.list, 1)
        layout.addWidget(buttons)
        self.resize(560, 360)

    def chosen(self) -> int | None:
        item = self.list.currentItem()
        return None if item is None else int(item.data(Qt.ItemDataRole.UserRole))


__all__ = ["ComparePicker", "ComparisonView"]
