"""The run model (issue 12): a kind is defined once and history, show, the GUI and the PDF render it."""
from __future__ import annotations

import re
import subprocess
from pathlib import Path

import pytest

from app import runs
from app.cli import main
from app.history import History, record


@pytest.fixture
def echo_kind():  # type: ignore[no-untyped-def]
    kind = runs.register(runs.RunKind(
        "echo-test", "Echo test", headline=lambda res: f"echoed {res['n']} times",
        text=lambda res: "\n".join(f"echo {i}" for i in range(res["n"]))))
    yield kind
    runs.unregister("echo-test")


def test_a_kind_added_through_the_registry_only_shows_everywhere(echo_kind, tmp_path: Path,  # type: ignore[no-untyped-def]
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    with record("echo-test", "virtual:lto9", {"n": 3}) as rec:
        rec.results = {"n": 3}
    assert main(["history"]) == 0
    assert "echoed 3 times" in capsys.readouterr().out
    assert main(["show", str(rec.run_id)]) == 0
    out = capsys.readouterr().out
    assert "Echo test on virtual:lto9" in out and "echo 0\necho 1\necho 2" in out

    from ui.engines import run_headline  # the GUI's history list

    with History.open() as hist:
        assert run_headline(hist.get_run(rec.run_id, samples=False)) == "echoed 3 times"

    pdf = tmp_path / "echo.pdf"
    assert main(["report", str(rec.run_id), "-o", str(pdf)]) == 0
    text = subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "echoed 3 times" in " ".join(text.split())


def test_show_prints_each_kind_as_it_was_printed_with_no_raw_floats(tmp_path: Path,
                                                                    capsys: pytest.CaptureFixture[str]) -> None:
    cart = tmp_path / "c.img"
    dev = f"virtual:lto9?realtime=0&cartridge={cart}"
    assert main(["info", dev]) == 0
    assert main(["tape-perf", dev, "--size", "8M", "--direction", "write,read", "--verify", "--force"]) == 0
    assert main(["scan", dev]) == 0
    assert main(["create-data", str(tmp_path / "d"), "--depth", "1", "--breadth", "2", "--files-per-dir", "3"]) == 0
    assert main(["read-data", str(tmp_path / "d")]) == 0
    printed = capsys.readouterr().out
    with History.open() as hist:
        ids = {r.kind: r.id for r in hist.list_runs()}
    for kind in ("drive-info", "tape-perf", "media-scan", "create-data", "read-data"):
        assert main(["show", str(ids[kind])]) == 0
        out = capsys.readouterr().out
        body = out.split("\n\n", 1)[1]
        assert runs.title(kind) in out.splitlines()[0]
        assert not re.search(r"\d\.\d{6,}", body), body  # no 0.0027577349999319267
        assert body.splitlines()[1].strip() in printed or kind in ("drive-info",)  # the same lines as the run


@pytest.mark.parametrize(("limited_by", "pct", "share", "tone", "action"), [
    ("drive", 97.0, 0.05, "good", "None: the drive streams"),
    ("drive", 60.0, 0.05, "warn", "The drive itself is slow"),
    ("host", 40.0, 0.35, "warn", "Feed the drive faster (35% of the time"),
    ("emulator", 45.0, 0.05, "none", "Repeat on a less loaded machine"),
    ("not steady", 102.0, 0.0, "none", "Repeat with a larger size"),
])
def test_a_tape_rate_verdict_says_what_to_do_by_what_limited_it(limited_by: str, pct: float, share: float,
                                                                 tone: str, action: str) -> None:
    phase = {"phase": "write", "streaming_mb_per_s": 287.456, "mb_s": 280.0, "percent_of_possible": pct,
             "host_share": share, "limited_by": limited_by, "limited_why": "why it was so"}
    (finding,) = runs.findings("tape-perf", {"phases": [phase], "possible_label": "300 MB/s possible for 1:1 data on LTO-8"})
    assert finding.topic == "Tape write rate" and finding.tone == tone and finding.action.startswith(action)
    assert finding.words == f"287.5 MB/s streaming: {pct:.0f}% of the 300 MB/s possible for 1:1 data on LTO-8"


def test_every_built_in_kind_with_verdicts_uses_the_known_tones() -> None:
    samples = {"drive-info": {"health": {"verdict": "Failing", "reasons": ["TapeAlert 05h Read"]}},
               "assessment": {"verdict": "FAIL", "steps": [{"name": "self-test", "outcome": "fail", "reason": "x"}],
                              "next_action": "Open a support case"},
               "media-scan": {"verdict": "retire", "reasons": ["12 repositions"]},
               "read-data": {"mb_s": 1898.988, "files_s": 239.9, "total_files": 56, "total_bytes": 443327194},
               "library-test": {"verdict": "FAIL", "reason": "move 3: HARDWARE ERROR (04/15/01)"}}
    for kind, res in samples.items():
        (finding,) = runs.findings(kind, res)
        assert finding.tone in runs.TONES, kind
    assert runs.findings("drive-info", samples["drive-info"])[0].tone == "bad"
    assert runs.findings("read-data", samples["read-data"])[0].words == "1,899 MB/s, 240 files/s"
    assert runs.findings("library-test", samples["library-test"])[0].tone == "bad"
