"""Issue 31: a figure and its unit never break apart where a line wraps. A narrow GUI headline and a PDF verdict
box read "814.5 MB/" over "s" (a line may break after a slash) or "814.5" over "MB/s"; ``ui.format.unbroken``
joins them. Each text is laid out by Qt's own text engine (the one QLabel and the PDF's QTextDocument use) at
every width from very narrow to wide, and each figure with its unit must sit whole on one line."""
from __future__ import annotations

import re

import pytest
from PySide6.QtGui import QFont, QTextDocument

from tests.gui.conftest import as_read

pytestmark = pytest.mark.gui

HEADLINE = ("write 801.1 MB/s streaming (overall 801.1 MB/s), 100% of 800 MB/s possible for 2:1 data on LTO-9 · "
            "read 814.5 MB/s streaming (overall 814.9 MB/s), 2,062 files/s, 1.07 GB in 2.7 s")
#: Narrower than this, the widest figure ("2,062 files/s" in bold, or in a verdict box's cell) has no line of its own
#: to fit on, and Qt cuts it anywhere: no joining can help there.
NARROWEST = 200
FIGURE = re.compile(r"\d[\d,.]* (?:MB/s|files/s|GB|s)\b")


def _lines(html: str, width: float, font: QFont) -> list[str]:
    """The lines Qt lays ``html`` out in at ``width`` pixels, as read."""
    doc = QTextDocument()
    doc.setDefaultFont(font)
    doc.setHtml(html)
    doc.setTextWidth(width)
    doc.size()  # lays it out
    out, block = [], doc.begin()
    while block.isValid():
        layout = block.layout()
        for i in range(layout.lineCount()):
            line = layout.lineAt(i)
            out.append(as_read(block.text()[line.textStart():line.textStart() + line.textLength()]))
        block = block.next()
    return out


def _split_figures(html: str, font: QFont) -> set[str]:
    """Every figure that some width from narrow to wide cuts over two lines."""
    text = as_read(re.sub(r"<[^>]*>", "", re.sub(r"<style>.*</style>", "", html, flags=re.S)))
    split = set()
    for width in range(NARROWEST, 900, 3):
        lines = _lines(html, width, font)
        split |= {f for f in FIGURE.findall(text) if sum(line.count(f) for line in lines) < text.count(f)}
    return split


def test_a_narrow_gui_headline_keeps_each_rate_whole(qapp):
    from ui.widgets import headline

    label = headline(f"<b>{HEADLINE}</b>")
    font = label.font()
    assert _split_figures(f"<b>{HEADLINE}</b>", font)  # the words as they were: Qt cuts "MB/" from "s"
    assert not _split_figures(label.text(), font)
    assert as_read(label.text()) == f"<b>{HEADLINE}</b>"  # nothing but the joins added


def test_a_pdf_verdict_box_keeps_each_rate_whole(qapp):
    from app.report import Headline
    from ui.report_html import CSS, _headline

    box = _headline(Headline(2, "Tape read rate", HEADLINE, "good", "the drive streamed 814.5 MB/s", ""))
    html = f"<html><head><style>{CSS}</style></head><body>{box}</body></html>"
    font = QFont("DejaVu Sans", 9)
    assert _split_figures(as_read(html), font)  # without the joins, the box cuts them
    assert not _split_figures(html, font)
    assert "814.5 MB/s" in as_read(html)


def test_joining_twice_changes_nothing_and_leaves_paths_and_counts_alone():
    from ui.format import unbroken

    once = unbroken(HEADLINE)
    assert unbroken(once) == once
    assert unbroken("/tmp/data_set/files 3 streams, 5 minutes") == "/tmp/data_set/files 3 streams, 5 minutes"
