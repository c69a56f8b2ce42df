"""The PDF of every run kind, made as a technician makes it (each ``tapediag`` command in its own process),
read back with pdftotext and rendered with pdftoppm (issue 31, "What must show"):

* no page holds only a fragment of a table: every page carries more than a few lines, and the last page's
  content is measured on its rendering (never a lone row);
* no label is clipped: every word's box (``pdftotext -bbox``) lies inside the page's body, header or footer,
  and none crosses a chart's edge (``ui.pdf.chart_places``);
* the runs page 1 names in its verdicts are the runs it lists;
* the sign-off block is on page 1 (when it has the room) or the last page, with the tool's version, and the
  machine's name only when asked;
* no command-line option, snake_case key or code path in what the customer reads (``tests/helpers/words.py``).

The pages are kept as PNGs in the test's directory (``TAPEDIAG_REPORT_PNG=DIR`` keeps them there instead,
for a person to look at).
"""
from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest

from app import __version__
from app.history import History
from app.report import build_report
from tests.helpers.nettest import start_server
from tests.helpers.words import unexpected
from ui.report_pages import LAST_ROWS

ROOT = Path(__file__).resolve().parents[2]
EXE = str(ROOT / ".venv" / "bin" / "tapediag")
MM = 72 / 25.4  # PDF points per millimetre
KINDS = ("drive-info", "tape-perf", "tape-perf-multi", "media-scan", "assessment", "library-test", "create-data",
         "read-data", "net-test", "troubleshoot", "erase")
PEOPLE = ["--customer", "ACME", "--site", "Hall 3", "--technician", "J. Doe", "--ticket", "4711"]

pytestmark = pytest.mark.skipif(not all(shutil.which(t) for t in ("pdftotext", "pdftoppm", "pdfinfo")),
                                reason="poppler-utils not installed")


def _tapediag(args: list[str], env: dict, ok: tuple[int, ...] = (0,)) -> str:
    out = subprocess.run([EXE, *args], env=env, capture_output=True, text=True, timeout=300)
    assert out.returncode in ok, (args, out.stdout, out.stderr)
    return out.stdout


def _runs_of_every_kind(base: Path, env: dict) -> dict[str, int]:
    cart = base / "c.cart"
    dev = f"virtual:lto9?cartridge={cart}"
    _tapediag(["info", dev, "--json"], env)
    _tapediag(["tape-perf", dev, "--size", "96M", "--direction", "write,read"], env)
    _tapediag(["scan", f"{dev}&realtime=0"], env)
    _tapediag(["erase", f"{dev}&realtime=0", "--short", "--force"], env)  # after the scan: the tape test's data erased
    _tapediag(["assess", f"virtual:lto9?realtime=0&cartridge={base / 'a.cart'}", "--size", "8M"], env,
              ok=(0, 10, 11, 12))
    _tapediag(["library-test", f"virtual:library?dir={base / 'lib'}&realtime=0", "--moves", "2"], env)
    tree = str(base / "tree")
    _tapediag(["create-data", tree, "--depth", "1", "--breadth", "2", "--files-per-dir", "8"], env)
    _tapediag(["read-data", tree], env)
    server = start_server()  # net-serve on 127.0.0.1, a free port; the token by the environment
    _tapediag(["net-test", f"127.0.0.1:{server.port}", "--time", "1", "--streams", "2"],
              {**env, "TAPEDIAG_NET_TOKEN": server.token})
    assert server.finish()[0] == 0
    _tapediag(["tape-perf", f"virtual:lto9?realtime=0&cartridge={base / 'm1.cart'}",
               f"virtual:lto8?realtime=0&cartridge={base / 'm2.cart'}", "--size", "16M", "--direction", "write,read"],
              env)
    with History.open(base / "data" / "history.sqlite") as hist:
        ids = {r.kind: r.id for r in reversed(hist.list_runs())}  # the first run of each kind
    _tapediag(["troubleshoot", "--tape-write-run", str(ids["tape-perf"]), "--tape-read-run", str(ids["tape-perf"]),
               "--disk-read-run", str(ids["read-data"]), "--disk-write-run", str(ids["create-data"]),
               "--network-run", str(ids["net-test"]),
               "--backup", "40", "--restore", "35", "--streams", "2", "--no-interactive"], env)
    with History.open(base / "data" / "history.sqlite") as hist:
        ids = {r.kind: r.id for r in reversed(hist.list_runs())}
    assert set(ids) == set(KINDS), ids
    return ids


@dataclass(frozen=True)
class Pdf:
    kind: str
    run_id: int
    path: Path
    pages: list[str]  # pdftotext of each page
    pngs: list[Path]


@pytest.fixture(scope="module")
def pdfs(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Pdf]:
    base = tmp_path_factory.mktemp("every-kind")
    env = {**os.environ, "TAPEDIAG_DATA_DIR": str(base / "data"), "QT_QPA_PLATFORM": "offscreen"}
    ids = _runs_of_every_kind(base, env)
    shots = Path(os.environ.get("TAPEDIAG_REPORT_PNG") or base / "png")
    shots.mkdir(parents=True, exist_ok=True)
    out = {}
    for kind, run_id in ids.items():
        pdf = base / f"{kind}.pdf"
        _tapediag(["report", str(run_id), "-o", str(pdf), *PEOPLE], env)
        out[kind] = _read(kind, run_id, pdf, shots)
    both = base / "drive-and-tape.pdf"  # a drive's snapshot and a tape run, the machine named on request
    _tapediag(["report", str(ids["drive-info"]), str(ids["tape-perf"]), "-o", str(both), "--host-name", *PEOPLE], env)
    out["drive-and-tape"] = _read("drive-and-tape", ids["tape-perf"], both, shots)
    out["_env"] = env  # type: ignore[assignment]
    return out


def _read(kind: str, run_id: int, pdf: Path, shots: Path) -> Pdf:
    info = subprocess.run(["pdfinfo", str(pdf)], capture_output=True, text=True, check=True).stdout
    count = int(next(line.split()[1] for line in info.splitlines() if line.startswith("Pages:")))
    pages = [subprocess.run(["pdftotext", "-layout", "-f", str(n), "-l", str(n), str(pdf), "-"], capture_output=True,
                            text=True, check=True).stdout for n in range(1, count + 1)]
    subprocess.run(["pdftoppm", "-png", "-r", "60", str(pdf), str(shots / kind)], check=True)
    pngs = sorted(shots.glob(f"{kind}-*.png"))
    assert len(pngs) == count
    return Pdf(kind, run_id, pdf, pages, pngs)


def _reports(pdfs: dict) -> list[Pdf]:
    return [p for k, p in pdfs.items() if not k.startswith("_")]


def _body_ink_mm(pdf: Path, page: int, out: Path) -> float:
    """How far down the page's body its content reaches (mm from the body's top), from its rendering."""
    subprocess.run(["pdftoppm", "-gray", "-r", "50", "-f", str(page), "-l", str(page), "-singlefile", str(pdf),
                    str(out)], check=True)
    _magic, size, _maxval, data = out.with_suffix(".pgm").read_bytes().split(b"\n", 3)
    w, h = map(int, size.split())
    rows = np.frombuffer(data, dtype=np.uint8)[: w * h].reshape(h, w)
    per_mm = h / 297.0
    top, bottom = int(22 * per_mm), int((297 - 20) * per_mm)  # the body, between the running header and footer
    inked = np.nonzero((rows[top:bottom] < 160).any(axis=1))[0]
    return float(inked.max() + 1) / per_mm if inked.size else 0.0


def test_no_page_holds_only_a_fragment_of_a_table(pdfs: dict, tmp_path: Path) -> None:
    from ui.pdf import fragment_pages

    for kind, report in _models(pdfs).items():  # the layout's own account: no page with only a table's end
        assert fragment_pages(report) == [], kind
    for pdf in _reports(pdfs):
        for n, text in enumerate(pdf.pages, 1):
            body = [line for line in text.splitlines()[1:]  # the running header aside, and the footer
                    if line.strip(" \x0c") and not re.search(r"Page \d+ of \d+", line)]
            assert len(body) >= 1 + LAST_ROWS, (pdf.kind, n, text)  # a table's header and its last rows at least
        # The last page holds more than a row or two: a table's header and three rows reach 18 mm, one row 5 mm.
        reach = _body_ink_mm(pdf.path, len(pdf.pages), tmp_path / pdf.kind)
        assert reach >= 15, (pdf.kind, reach, pdf.pngs[-1])


def _words(pdf: Path) -> list[tuple[int, float, float, float, float, float, float, str]]:
    """(page, page width, page height, xMin, yMin, xMax, yMax, word) of every word."""
    out = subprocess.run(["pdftotext", "-bbox", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    words, page, size = [], 0, (0.0, 0.0)
    for line in out.splitlines():
        m = re.search(r'<page width="([\d.]+)" height="([\d.]+)"', line)
        if m:
            page, size = page + 1, (float(m.group(1)), float(m.group(2)))
            continue
        m = re.search(r'<word xMin="([-\d.]+)" yMin="([-\d.]+)" xMax="([-\d.]+)" yMax="([-\d.]+)">(.*)</word>', line)
        if m:
            x0, y0, x1, y1 = map(float, m.groups()[:4])
            words.append((page, *size, x0, y0, x1, y1, m.group(5)))
    return words


def _models(pdfs: dict) -> dict:
    """The report model of each kind's PDF, as the report command built it."""
    env = pdfs["_env"]
    with History.open(Path(env["TAPEDIAG_DATA_DIR"]) / "history.sqlite") as hist:
        return {p.kind: build_report(hist, [p.run_id], customer="ACME", site="Hall 3", technician="J. Doe",
                                     ticket="4711") for p in _reports(pdfs) if p.kind in KINDS}


def test_no_label_is_clipped(pdfs: dict) -> None:
    reports = _models(pdfs)
    from ui.pdf import chart_places

    charted = 0
    for kind, report in reports.items():
        charts = chart_places(report)
        charted += len(charts)
        for page, w, h, x0, y0, x1, y1, word in _words(pdfs[kind].path):
            assert x0 >= 18 * MM - 1 and x1 <= w - 18 * MM + 1, (kind, page, word, x0, x1)  # inside the margins
            zones = ((22 * MM, h - 20 * MM), (10 * MM, 16 * MM), (h - 13 * MM, h - 7 * MM))  # body, header, footer
            assert any(top - 1 <= y0 and y1 <= bottom + 1 for top, bottom in zones), (kind, page, word, y0, y1)
            for index, (cx, cy, cw, ch) in charts:
                if index + 1 != page or x1 <= cx or x0 >= cx + cw or y1 <= cy or y0 >= cy + ch:
                    continue  # not on this chart
                inside = cx - 0.5 <= x0 and x1 <= cx + cw + 0.5 and cy - 0.5 <= y0 and y1 <= cy + ch + 0.5
                assert inside, (kind, page, word, (x0, y0, x1, y1), (cx, cy, cw, ch))  # a label across the edge
    assert charted >= len(KINDS) - 3  # the plots and bar charts were there to check (info, library: none)


def test_page_one_names_the_runs_it_lists(pdfs: dict) -> None:
    for pdf in _reports(pdfs):
        first = " ".join(pdf.pages[0].split())
        named = set(re.findall(r"RUN #(\d+)", first))
        listed = re.search(r"Runs in this report: (.*?)\. The pages after", first)
        assert listed, (pdf.kind, first)
        assert named and named <= set(re.findall(r"#(\d+)", listed.group(1))), (pdf.kind, named, listed.group(1))
        assert str(pdf.run_id) in re.findall(r"#(\d+)", listed.group(1))


def test_page_one_or_the_last_page_has_the_sign_off_and_the_machine_only_when_asked(pdfs: dict) -> None:
    host = socket.gethostname()
    for pdf in _reports(pdfs):
        first, last = (" ".join(pdf.pages[n].split()) for n in (0, -1))
        assert ("Sign-off" in first) != ("Sign-off" in last) or len(pdf.pages) == 1, pdf.kind  # on one of them
        last = first if "Sign-off" in first else last
        for needle in ("Sign-off", f"Made with tapediag {__version__}", "Technician", "Customer acknowledgement",
                       "Received this report for ACME, Hall 3, ticket 4711", "J. Doe", "Signature"):
            assert needle in last, (pdf.kind, needle)
        everything = " ".join(" ".join(p.split()) for p in pdf.pages)
        asked = pdf.kind == "drive-and-tape"
        assert (f"the tests ran on {host}" in everything) == asked, pdf.kind


def test_no_option_no_raw_key_no_code_path_in_any_report(pdfs: dict) -> None:
    found = {pdf.kind: unexpected(" ".join(pdf.pages)) for pdf in _reports(pdfs)}
    assert not any(found.values()), found
