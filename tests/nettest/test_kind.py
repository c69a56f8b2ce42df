"""``tapediag net-test`` as a recorded run and ``tapediag net-serve`` as an unrecorded one, through the CLI,
against a real server process on 127.0.0.1: history, ``show``, ``--json`` and the PDF render the run, and
the token is never in any of them (nor in the history's file); bad input is one line and its exit code."""
from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.history import History
from app.nettest.kind import NET_TEST
from app.nettest.token import ENV
from app.runs.stored import load
from tests.helpers.nettest import ROOT, child_env, start_server

EXIT_FAILED, EXIT_USAGE = 1, 2


def _pdf_text(pdf: Path) -> str:
    out = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    return " ".join(out.split())


def _secret_forms(token: str) -> list[str]:
    """The token as printed and as sent on the wire (upper case, no dashes)."""
    return [token, token.replace("-", "")]


def test_a_recorded_run_renders_everywhere_and_never_holds_the_token(tmp_path, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    server = start_server()
    token_file = tmp_path / "token"
    token_file.write_text(server.token + "\n")
    monkeypatch.delenv(ENV, raising=False)
    code = main(["net-test", f"127.0.0.1:{server.port}", "--token-file", str(token_file), "--streams", "2",
                 "--time", "1s", "--direction", "both", "--pattern", "4.3:1"])
    printed = capsys.readouterr()
    assert code == 0, printed.err
    assert server.finish()[0] == 0
    assert "backup (client -> server): " in printed.out and "restore (server -> client): " in printed.out
    with History.open() as hist:
        (run,) = hist.list_runs()
        run_id = run.id
        assert run.kind == "net-test" and run.status == "complete" and run.device == f"127.0.0.1:{server.port}"
        assert run.params["streams"] == 2 and run.params["seconds"] == 1.0 and "token" not in run.params
        result = load(hist.get_run(run_id)).result
        db_path = Path(hist.path)
    assert [p.phase for p in result.phases] == ["backup", "restore"] and len(result.phases[0].streams) == 2
    assert result.pattern == "4.3:1" and result.phases[0].mb_s > 0 and result.phases[1].mb_s > 0

    assert main(["history"]) == 0
    listing = capsys.readouterr().out
    assert "net-test" in listing and "backup" in listing and "MB/s" in listing
    assert main(["show", str(run_id)]) == 0
    shown = capsys.readouterr().out
    assert "stream 2" in shown and "pattern 4.3:1" in shown and ("RTT" in shown or "not reported" in shown)
    assert main(["show", str(run_id), "--json"]) == 0
    as_json = capsys.readouterr().out
    assert json.loads(as_json)
    pdf = tmp_path / "net.pdf"
    assert main(["report", str(run_id), "-o", str(pdf)]) == 0
    capsys.readouterr()
    text = _pdf_text(pdf)
    assert "Network throughput" in text and "Network backup rate" in text and "stream 2" in text
    assert "4.3:1" in text and "Mbit/s" in text

    stored = b"".join(p.read_bytes() for p in db_path.parent.glob(db_path.name + "*"))
    for secret in _secret_forms(server.token):
        for where, what in (("net-test", printed.out + printed.err), ("history", listing), ("show", shown),
                            ("show --json", as_json), ("the PDF", text)):
            assert secret not in what, where
        assert secret.encode() not in stored, "the history's file"


def test_the_token_by_option_works_and_warns_by_env_silently(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    server = start_server()
    assert main(["net-test", f"127.0.0.1:{server.port}", "--token", server.token, "--time", "1",
                 "--direction", "backup", "--json"]) == 0
    got = capsys.readouterr()
    assert server.finish()[0] == 0
    assert "can be read by every user of this machine (ps)" in got.err and server.token not in got.out + got.err
    assert json.loads(got.out)["phases"][0]["phase"] == "backup"
    server = start_server()
    monkeypatch.setenv(ENV, server.token)
    assert main(["net-test", f"127.0.0.1:{server.port}", "--time", "1", "--direction", "restore"]) == 0
    got = capsys.readouterr()
    assert server.finish()[0] == 0
    assert "warning" not in got.err and server.token not in got.out + got.err


def test_the_help_says_which_way_of_giving_the_token_is_safer(capsys) -> None:  # type: ignore[no-untyped-def]
    with pytest.raises(SystemExit):
        main(["net-test", "--help"])
    words = " ".join(capsys.readouterr().out.split())
    assert "safest first: type it when asked" in words
    assert "--token TOKEN, least safe: every user of this machine can read it (ps)" in words


def test_a_refused_token_is_one_line_and_leaves_no_run(capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    server = start_server()
    monkeypatch.setenv(ENV, "AAAA-AAAA-AAAA-AAAA")
    assert main(["net-test", f"127.0.0.1:{server.port}", "--time", "1"]) == EXIT_FAILED
    err = capsys.readouterr().err.strip().splitlines()
    assert err == ["tapediag: error: the server refused the session: wrong token (1 of 3 allowed)"]
    with History.open() as hist:
        assert hist.list_runs() == []  # refused before anything was measured: no run
    server.proc.terminate()
    server.finish()


@pytest.mark.parametrize("argv, words", [
    (["net-test", "127.0.0.1:99999"], "tapediag: error: '99999' is not a TCP port (0 to 65535)"),
    (["net-test", "127.0.0.1:5210", "--time", "0"], "tapediag: error: seconds must be 1 to 600, not 0"),
    (["net-test", "127.0.0.1:5210", "--time", "soon"], "tapediag: error: seconds 'soon' is not a duration"),
    (["net-test", "127.0.0.1:5210", "--direction", "sideways"], "tapediag net-test: error: argument --direction"),
    (["net-test", "127.0.0.1:5210", "--pattern", "7:0"], "tapediag: error: "),
    (["net-test", "[::1:5210"], "tapediag: error: '[::1:5210' is not an address"),
    (["net-serve"], "tapediag net-serve: error: the following arguments are required: --listen"),
    (["net-serve", "--listen", "127.0.0.1"], "tapediag: error: '127.0.0.1' names no port"),
    (["net-serve", "--listen", "127.0.0.1:0", "--max-streams", "99"], "tapediag: error: max streams must be 1 to 16"),
])
def test_bad_input_is_one_line_and_exit_2(argv: list[str], words: str, capsys, monkeypatch) -> None:  # type: ignore[no-untyped-def]
    monkeypatch.setenv(ENV, "AAAA")
    try:
        code = main(argv)
    except SystemExit as end:  # argparse's own errors end there (one line, exit 2: app.cli._Parser.error)
        code = end.code
    assert code == EXIT_USAGE
    err = [ln for ln in capsys.readouterr().err.splitlines() if ln.strip()]
    assert len(err) == 1 and err[0].startswith(words), err
    with History.open() as hist:
        assert hist.list_runs() == []


def test_python_m_app_nettest_is_retired_in_one_line() -> None:
    got = subprocess.run([sys.executable, "-m", "app.nettest", "test", "127.0.0.1"], capture_output=True, text=True,
                         cwd=ROOT, env=child_env(), timeout=60)
    assert got.returncode == EXIT_USAGE
    assert got.stderr.strip().splitlines() == [
        "tapediag: error: 'python -m app.nettest' is retired: use 'tapediag net-serve --listen ADDR:PORT' and "
        "'tapediag net-test HOST:PORT'"]


def test_the_kind_is_the_catalogs_and_its_command_is_listed(capsys) -> None:  # type: ignore[no-untyped-def]
    from app.catalog import KINDS

    assert NET_TEST in KINDS
    with pytest.raises(SystemExit):
        main(["--help"])
    listing = capsys.readouterr().out
    assert "net-serve" in listing and "net-test" in listing
