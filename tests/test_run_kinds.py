"""The run model (issue 12): a kind is defined once and history, show, the GUI and the PDF render it."""
from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass, replace
from pathlib import Path
from typing import ClassVar, Mapping

import pytest

from app import runs
from app.cli import build_parser, main
from app.history import History, record
from app.runs.fields import Field, from_values
from app.runs.stored import load
from tests.helpers.kinds import findings


# A throwaway kind, whole, as docs/architecture.md walks through adding one: parameters with their field table,
# a typed result, an engine, renderers that take the typed result, and one registration (``app.catalog`` lists the
# real kinds; the test registers this one in a fixture).
@dataclass(frozen=True)
class EchoParams:
    n: int = 3
    FIELDS: ClassVar[tuple[Field, ...]] = (Field("n", "&Echoes:", "how many echoes", default="3", metavar="N"),)

    @classmethod
    def from_values(cls, values: Mapping[str, object]) -> "EchoParams":
        return from_values(cls, cls.FIELDS, values)


@dataclass(frozen=True)
class EchoResult:
    n: int
    status: str = "complete"

    def to_dict(self) -> dict:
        return {"n": self.n, "status": self.status}


ECHO = runs.RunKind(
    "echo-test", "Echo test", runs.Target.DIRECTORY, EchoParams, EchoResult,
    lambda ctx: runs.Call(lambda: EchoResult(ctx.params.n)), headline=lambda r: f"echoed {r.n} times",
    text=lambda r: "\n".join(f"echo {i}" for i in range(r.n)), rows=lambda r: [("Echoes heard", f"{r.n} of {r.n}")],
    findings=lambda r: [runs.Finding("Echo", f"{r.n} echoes back", "good", "every call answered", "None")],
    exit_code=lambda r: 0 if r.n else 10, command=runs.Command("echo-test", "call into a directory and count the echoes"))


@pytest.fixture
def echo_kind():  # type: ignore[no-untyped-def]
    runs.register(ECHO)
    yield ECHO
    runs.unregister("echo-test")


def test_a_kind_added_in_a_test_is_in_the_cli_history_show_the_gui_and_the_pdf(  # type: ignore[no-untyped-def]
        echo_kind, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 26 §6: a kind costs its own definition and one registration; every front end finds it."""
    assert "echo-test" in build_parser(["--help"]).format_help()  # tapediag --help lists it
    with pytest.raises(SystemExit):
        main(["echo-test", "--help"])
    assert "--n N" in capsys.readouterr().out  # its options, from its field table
    assert main(["echo-test", str(tmp_path), "--n", "4"]) == 0  # running it records a run
    out = capsys.readouterr().out
    assert "echo 0\necho 1\necho 2\necho 3" in out
    run_id = int(out.rsplit("Recorded as run ", 1)[1].split()[0])
    assert main(["echo-test", str(tmp_path), "--n", "0"]) == 10  # the exit status the kind documents
    capsys.readouterr()

    assert main(["history"]) == 0
    assert "echoed 4 times" in capsys.readouterr().out
    assert main(["show", str(run_id)]) == 0
    out = capsys.readouterr().out
    assert f"Echo test on {tmp_path}" in out and "parameters: Echoes 4" in out and "echo 3" in out

    from ui.engines import run_headline  # the GUI's history list

    with History.open() as hist:
        run = hist.get_run(run_id, samples=False)
        assert (run.kind, run.params, run.results) == ("echo-test", {"n": 4}, {"n": 4, "status": "complete",
                                                                               "result_version": 1})
        assert run_headline(run) == "echoed 4 times"

    pdf = tmp_path / "echo.pdf"
    assert main(["report", str(run_id), "-o", str(pdf)]) == 0
    text = " ".join(subprocess.run(["pdftotext", "-layout", str(pdf), "-"], capture_output=True, text=True,
                                   check=True).stdout.split())
    assert "4 echoes back" in text and "Echoes heard 4 of 4" in text and "Echoes: 4" in text  # findings, rows, params


def test_a_renderer_with_a_bug_fails_it_is_never_an_empty_line(echo_kind,  # type: ignore[no-untyped-def]
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    """Issue 26 §1: the registry's accessors used to swallow KeyError/TypeError/ValueError/AttributeError, so a
    renderer with a bug printed '' and no test failed. Now the bug reaches whoever asked."""
    def broken(result: EchoResult) -> str:
        return result.echoes  # type: ignore[attr-defined]  # no such attribute: the bug

    runs.unregister("echo-test")
    runs.register(replace(ECHO, headline=broken))
    with record("echo-test", "/srv", {"n": 2}) as rec:
        rec.results = {"n": 2}
    with History.open() as hist:
        run = hist.get_run(rec.run_id, samples=False)
    with pytest.raises(AttributeError, match="echoes"):
        load(run).headline()
    with pytest.raises(AttributeError, match="echoes"):
        main(["history"])


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
    stored = {"device": "virtual:lto8", "params": {}, "phases": [phase],
              "possible_label": "300 MB/s possible for 1:1 data on LTO-8"}
    (finding,) = findings("tape-perf", stored)  # a stored run's own verdict, read through the one loader
    assert finding.topic == "Tape write rate" and finding.tone == tone and finding.action.startswith(action)
    assert finding.words == f"287.5 MB/s streaming: {pct:.0f}% of the 300 MB/s possible for 1:1 data on LTO-8"


def test_every_built_in_kind_with_verdicts_uses_the_known_tones(tmp_path: Path) -> None:
    from app.assess.engine import AssessResult, Step
    from app.assess.rules import Outcome, Verdict
    from app.disk.results import LatencyStats, ReadDataResult, StreamResult
    from app.drive import TapeDrive
    from app.info import Health, Verdict as Health_
    from app.info import gather
    from app.libtest.results import LibraryTestResult, Verdict as Robot
    from app.scan.results import CartridgeVerdict, ScanResult

    with TapeDrive.open(f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}") as drive:
        info = replace(gather(drive), health=Health(Health_.FAILING, ("TapeAlert 05h Read",)))
    samples = {"drive-info": info,
               "assessment": AssessResult("d", {}, steps=[Step("self-test", Outcome.FAIL, "x")], verdict=Verdict.FAIL,
                                          next_action="Open a support case"),
               "media-scan": ScanResult("d", {}, verdict=CartridgeVerdict.RETIRE, reasons=["12 repositions"]),
               "read-data": ReadDataResult("read-data", "/d", "complete", [StreamResult(1, 56, 443327194,
                                                                                         443327194 / 1898.988e6)],
                                           LatencyStats(), {}, True),
               "library-test": LibraryTestResult("d", {}, verdict=Robot.FAIL, reason="move 3: HARDWARE ERROR (04/15/01)")}
    worded = {}
    for name, result in samples.items():
        kind = runs.get(name)
        assert kind is not None and kind.findings is not None
        worded[name] = kind.findings(result)
        assert worded[name][0].tone in runs.TONES, name
    assert worded["drive-info"][0].tone == "bad"
    assert worded["read-data"][0].words == "1,899 MB/s, 240 files/s"
    assert worded["library-test"][0].tone == "bad"


ROOT = Path(__file__).resolve().parent.parent
#: Where stored results are read and worded: the run model, the report, the history's list, the GUI's result pages
#: and each kind's package (its kind and its text). The loader itself (``stored.py``, ``typed.py``) is the exception.
RENDERERS = sorted({*ROOT.glob("app/runs/*.py"), ROOT / "app/report/build.py", ROOT / "app/report/devices.py",
                    ROOT / "app/history/summary.py", ROOT / "ui/summaries.py", ROOT / "app/info_kind.py",
                    *ROOT.glob("ui/panels/*.py"), *ROOT.glob("app/*/kind.py"),
                    *(p.parent / "text.py" for p in ROOT.glob("app/*/kind.py") if (p.parent / "text.py").exists())}
                   - {ROOT / "app/runs/stored.py", ROOT / "app/runs/typed.py"})


def _string_key_reads(path: Path) -> list[str]:
    """``x.get("key")`` calls: a stored result dug by key (a table looked up by a variable is not one)."""
    import ast

    tree = ast.parse(path.read_text(), filename=str(path))
    return [f"{path.relative_to(ROOT)}:{node.lineno}: {ast.unparse(node)}" for node in ast.walk(tree)
            if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
            and node.args and isinstance(node.args[0], ast.Constant) and isinstance(node.args[0].value, str)
            and not _unknown_kind_fallback(path, node)]


def _unknown_kind_fallback(path: Path, node: object) -> bool:
    """Not a stored result: the history list's measured rates of a kind this version does not know (a row a newer
    tapediag wrote: no typed result exists for it, so its dictionary is walked, ``app.history.summary.mb_s_figures``),
    and a disk panel's own saved form settings."""
    import ast

    return path.name == "summary.py" or (path.name == "diskpanels.py" and ast.unparse(node) == "values.get('directory')")


def test_no_stored_result_is_read_by_key_outside_the_one_loader() -> None:
    """Issue 26 §1: about 260 ``.get("…")`` on stored results in the renderers; they take the typed result now."""
    assert len(RENDERERS) > 20
    assert [hit for path in RENDERERS for hit in _string_key_reads(path)] == []
