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
