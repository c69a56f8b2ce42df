"""Issue 31: a short write plots the host's rate into the drive's buffer (1,190 MB/s on the virtual LTO-9: its link)
while its verdict says the drive's (801 MB/s, the closing flush counted). The PDF's chart shades the flush with its
words inside the chart, and the note under it names both figures, so no one reads the curve as the drive's rate.
A recorded run of known figures (``tests.helpers.kinds.short_write``: how fast the virtual drive is fed depends on
how busy this machine is), read through the history, the report model and Qt's PDF writer."""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from app.history import History
from app.report import build_report
from app.runs.stored import load
from app.tapeperf.buffered import buffered_writes
from tests.helpers.kinds import short_write
from tests.helpers.words import number_problems, unexpected

pytestmark = pytest.mark.skipif(not shutil.which("pdftotext"), reason="poppler-utils not installed")


def _words(pdf: Path, page: int) -> list[tuple[float, float, float, float, str]]:
    """(xMin, yMin, xMax, yMax, word) of every word on ``page`` (from 0), in PDF points (``pdftotext -bbox``)."""
    out = subprocess.run(["pdftotext", "-bbox", "-f", str(page + 1), "-l", str(page + 1), str(pdf), "-"],
                         capture_output=True, text=True, check=True).stdout
    found = re.findall(r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">(.*)</word>', out)
    return [(float(a), float(b), float(c), float(d), w) for a, b, c, d, w in found]


def test_a_short_writes_chart_shades_the_flush_and_names_both_figures(tmp_path: Path) -> None:
    with History.open() as hist:
        run = hist.get_run(short_write(hist))
        written = buffered_writes(load(hist.get_run(run.id)).result)
        report = build_report(hist, [run.id])
    assert [b.phase for b in written] == ["write"]
    b = written[0]
    assert b.into_buffer_mb_s == pytest.approx(1200.0) and b.onto_tape_mb_s == pytest.approx(199 * 12 / 2.89)
    plot = next(r.plot for r in report.runs if r.run_id == run.id)
    assert plot is not None and plot.notes == (b.note(),)
    [shaded] = plot.shaded
    last_write = next(s for s in plot.series if s.label == "write").points[-1][0]
    assert (shaded.start, shaded.label) == (last_write, "flush to tape")
    assert shaded.end == pytest.approx(last_write + b.flush_seconds)

    from ui.pdf import chart_places, render_pdf

    pdf = tmp_path / "report.pdf"
    render_pdf(report, pdf)
    text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    assert " ".join(b.note().split()) in text  # under the chart, whole
    assert not unexpected(b.note()) and not number_problems(b.note())
    [(page, (x, y, w, h))] = [c for c in chart_places(report)]
    flush = [wd for wd in _words(pdf, page) if wd[4] == "flush"]
    assert flush, "the shaded stretch's words are in the PDF"
    x0, y0, x1, y1, _ = flush[0]
    assert x <= x0 and x1 <= x + w and y <= y0 and y1 <= y + h  # inside the chart, not clipped
