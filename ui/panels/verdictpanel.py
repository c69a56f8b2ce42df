"""The shape shared by the two drive tests that end in a verdict (assessment, media scan).

Their results page is the run kind's own words (``app.runs``: the headline the history
and the PDF use, the labelled rows the report shows, the text the CLI prints), with the
verdict in colour, so the screen a technician copies into a ticket says exactly what
``tapediag assess``/``scan`` would have said. "Copy as text" puts the CLI's text on the
clipboard for that ticket.
"""
from __future__ import annotations

from html import escape
from typing import Any

from app.runs.kind import RunKind

from PySide6.QtGui import QGuiApplication
from PySide6.QtWidgets import QLabel, QPushButton, QVBoxLayout

from ui import drivetests
from ui.panels.testpanel import TestPanel
from ui.widgets import SEVERITY_COLOURS
from ui.worker import Job

#: A finding's tone (``app.runs.TONES``) as a colour: good green, watch orange, bad red, no verdict grey (never
#: green). The tone itself is the run kind's (its ``findings``), the one the PDF prints: one place.
TONE_SEVERITY = {"good": "healthy", "warn": "warning", "bad": "failing", "none": "not assessed"}
#: A step's outcome as the run kind's rows start it ("PASS: drive self-test").
OUTCOME_SEVERITY = {"PASS": "healthy", "WARN": "warning", "FAIL": "failing", "NOT ASSESSED": "not assessed",
                    "NOT RUN": "not assessed", "HOST": "information"}


def verdict_severity(kind: RunKind[Any, Any], result: Any) -> str:
    """The severity name of a run's verdict: the tone of its kind's first finding (grey when it has none)."""
    return TONE_SEVERITY.get(drivetests.tone(kind, result), "not assessed")


def verdict_colour(kind: RunKind[Any, Any], result: Any) -> str:
    """The colour name of a run's verdict, from the tone the report gives it."""
    return SEVERITY_COLOURS[verdict_severity(kind, result)].name()


class VerdictPanel(TestPanel):
    """Subclasses set ``kind`` (their run kind: its words are the panel's) and ``verdict_title``."""

    kind: RunKind[Any, Any]
    verdict_title = ""  # put before the run kind's headline ("Drive assessment: PASS"); "" when it names itself
    choose_hint = ""  # what the choose page says under the drive's name

    def build_choose(self, layout: QVBoxLayout) -> None:
        self.device_label = QLabel("Select a tape drive in the device list.")
        self.device_label.setWordWrap(True)
        layout.addWidget(self.device_label)

    def set_device(self, device: str | None) -> None:
        super().set_device(device)
        if device:
            self.device_label.setText(f"Drive: <b>{escape(device)}</b><br>{self.choose_hint}")

    def result_buttons(self) -> list[QPushButton]:
        self.copy_button = QPushButton("Cop&y as text")
        self.copy_button.setToolTip("The result as 'tapediag' prints it, for the support ticket")
        self.copy_button.clicked.connect(self.copy_text)
        return [self.copy_button]

    def copy_text(self) -> str:
        text = self.kind.text(self.result) if self.kind.text is not None and self.result is not None else ""
        if text:
            QGuiApplication.clipboard().setText(f"{text}\n(tapediag run {self.run_id})" if self.run_id else text)
        return text

    def result_headline(self, r: Any) -> str:
        if r is None:
            return ""
        words = self.kind.headline(r)
        words = f"{self.verdict_title}: {words}" if self.verdict_title else words[:1].upper() + words[1:]
        head = f"<span style='color:{verdict_colour(self.kind, r)}'><b>{escape(words)}</b></span>"
        return head + "".join(f"<br>{line}" for line in self.headline_details(r))

    def headline_details(self, r: Any) -> list[str]:
        """HTML lines under the verdict: why, and what to do next."""
        return []

    def result_sections(self, r: Any) -> list[tuple[str, Any, bool]]:
        rows = self.kind.rows(r) if self.kind.rows is not None and r is not None else []
        return [(label, value, True) for label, value in rows]

    def _show_results(self) -> None:
        super()._show_results()
        # Each step's row in its outcome's colour (the label starts with the outcome, as in the report).
        tree = self.result_tree
        for i in range(tree.topLevelItemCount()):
            item = tree.topLevelItem(i)
            if item is None:
                continue
            item.setToolTip(1, item.text(1))  # a long reason is elided in the column: whole on hover
            outcome = item.text(0).split(":")[0].strip()
            severity = OUTCOME_SEVERITY.get(outcome) or (verdict_severity(self.kind, self.result)
                                                         if item.text(0) in ("Verdict", "Cartridge verdict") else None)
            if severity:
                for column in (0, 1):
                    item.setForeground(column, SEVERITY_COLOURS[severity])
        self.copy_button.setEnabled(self.result is not None)

    def _plot_to_results_page(self) -> None:
        # A run that moved no data (a no-write assessment, a blank cartridge) has no curve to show.
        if self.runview.plot.sample_count:
            super()._plot_to_results_page()

    def start(self) -> Job | None:
        self.result_label.setText("")
        return super().start()
