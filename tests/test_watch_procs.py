"""Who holds a device open, who feeds it through a pipe, and what they read: real processes on this
machine's /proc (a character device stands in for the tape node: the lookup is by device number)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.watch import procs


def _wait_for(predicate, what: str, timeout: float = 20.0) -> None:
    """Until the processes have set up their files (progress, not a fixed sleep); the timeout only guards a hang."""
    deadline = time.monotonic() + timeout
    while not predicate():
        if time.monotonic() > deadline:
            pytest.fail(f"gave up waiting for {what}")
        time.sleep(0.05)


@pytest.fixture
def pipeline(tmp_path: Path):
    """``cat SOURCE | python (holding /dev/zero open, reading its stdin)``: the consumer holds the 'drive'."""
    source = tmp_path / "source.bin"
    source.write_bytes(os.urandom(1 << 16))
    consumer = ("import sys, time\nz = open('/dev/zero', 'rb')\nsys.stdin.buffer.read(1)\n"
                "print('ready', flush=True)\ntime.sleep(60)\n")
    shell = subprocess.Popen(["sh", "-c", f"cat {source} - | {sys.executable} -c \"{consumer}\""],
                             stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
    assert shell.stdout is not None
    assert shell.stdout.readline().strip() == "ready"
    yield shell, source
    children = _children(shell.pid)
    shell.kill()
    for pid in children:  # the pipeline's own processes, by their ids
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    shell.wait()


def _children(pid: int) -> list[int]:
    out = subprocess.run(["pgrep", "-P", str(pid)], capture_output=True, text=True).stdout.split()
    return [int(p) for p in out]


def test_the_holder_its_feeder_and_the_feeders_file_are_found(pipeline) -> None:
    shell, source = pipeline
    _wait_for(lambda: len(_children(shell.pid)) == 2, "both processes of the pipeline")
    zero = os.stat("/dev/zero").st_rdev
    found = procs.holders(frozenset({zero}))
    consumer = next(p for p in _children(shell.pid) if procs.process_name(p)[0].startswith("python"))
    cat = next(p for p in _children(shell.pid) if procs.process_name(p)[0] == "cat")
    assert consumer in found.pids and cat not in found.pids
    assert procs.feeders(consumer) == [cat]
    devices = procs.devices_of(cat)
    assert devices.get(os.stat(source).st_dev) == "file"
    counters = procs.read_counters(cat, 1.0)
    assert counters is not None and counters.cpu_s is not None and counters.rchar is not None
    assert counters.rchar >= 1 << 16


def test_an_ended_process_reads_as_none() -> None:
    child = subprocess.Popen(["true"])
    child.wait()
    assert procs.read_counters(child.pid, 0.0) is None and procs.process_name(child.pid) == ("", "")
