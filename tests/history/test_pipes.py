"""A reader that stops early (``tapediag export 1 --csv | head``) is a normal end for a command-line tool:
exit 0 and nothing on stderr, for ``history``, ``show`` and ``export`` alike (issue 31), whether the
reader leaves while the command still writes or before it has written anything."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.events import Sample
from app.history import History
from tests.helpers.kinds import tape_perf

EXE = str(Path(sys.executable).with_name("tapediag"))


@pytest.fixture
def big_run(isolated_data_dir: Path) -> int:
    """A run with 40,000 samples: its CSV (~2 MB) and JSON are many times a pipe's buffer."""
    with History.open() as hist:
        run_id = hist.start_run("tape-perf", "virtual:lto9", {"size": 1 << 30})
        hist.add_samples(run_id, [Sample(t=i * 1e-4, nbytes=262144, latency=1e-4, phase="write") for i in range(40_000)])
        hist.finish_run(run_id, "complete", tape_perf(rates={"write": 100.0}))
    return run_id


@pytest.mark.parametrize("command", [["history"], ["show", "{id}"], ["export", "{id}", "--csv"],
                                     ["export", "{id}", "--json"]], ids=["history", "show", "csv", "json"])
@pytest.mark.parametrize("lines", [1, 0], ids=["after-one-line", "before-any"])
def test_a_reader_that_leaves_is_a_normal_end(big_run: int, command: list[str], lines: int) -> None:
    argv = [EXE, *(part.format(id=big_run) for part in command)]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ))
    assert proc.stdout is not None and proc.stderr is not None
    for _ in range(lines):
        assert proc.stdout.readline()
    proc.stdout.close()  # `| head -1`, `| true`: the reader is gone
    err = proc.stderr.read().decode()
    assert proc.wait(timeout=120) == 0, err
    assert err == ""
