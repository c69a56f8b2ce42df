"""What the tests of stopping a run share (issue 27): a tapediag process to signal, a busy machine,
tgtd's own command log, and the progress the tests trigger on.

Every trigger is progress (bytes in a cartridge file, a command in tgtd's log, a line of output),
never a fixed sleep; where a test signals "N seconds after the start", N is the moment chosen,
and what it asserts (exit 130, nothing written before the first WRITE, what was written verifies)
must hold whatever the run was doing then.
"""
from __future__ import annotations

import json
import os
import re
import signal
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Iterator
from contextlib import contextmanager

from tests.helpers.tgt import TgtTarget

TAPEDIAG = str(Path(sys.executable).with_name("tapediag"))
#: tgtd's debug log names every command it queues: "target_cmd_queue(LINE) 0xCMD OPCODE LUN".
_QUEUED = re.compile(r"target_cmd_queue\(\d+\) 0x[0-9a-f]+ ([0-9a-f]+) (\d+)")
WRITE6, WRITE_FILEMARKS6, ERASE6, MODE_SELECT6 = 0x0A, 0x10, 0x19, 0x15
WRITES = frozenset({WRITE6, WRITE_FILEMARKS6, ERASE6})


@contextmanager
def busy_cpus() -> Iterator[list[subprocess.Popen[bytes]]]:
    """A Python busy loop on every core for the duration (stopped by PID)."""
    burners = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(os.cpu_count() or 1)]
    try:
        yield burners
    finally:
        for proc in burners:
            proc.kill()
            proc.wait()


def start(args: list[str], data_dir: Path) -> subprocess.Popen[str]:
    """``tapediag ARGS`` in its own process, output captured."""
    env = dict(os.environ, TAPEDIAG_DATA_DIR=str(data_dir))
    return subprocess.Popen([TAPEDIAG, *args], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)


def history(data_dir: Path) -> list[dict]:
    """``tapediag history --json`` of that data directory, newest first."""
    proc = start(["history", "--json"], data_dir)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 0, err
    return json.loads(out)


def wait_for(condition: Callable[[], bool], proc: subprocess.Popen[str], what: str, timeout: float = 120.0) -> None:
    """Until ``condition()``; fails if the process ends first (with its output) or after ``timeout``."""
    deadline = time.monotonic() + timeout
    while not condition():
        if proc.poll() is not None:
            out, err = proc.communicate()
            raise AssertionError(f"tapediag ended (exit {proc.returncode}) before {what}:\n{out}\n{err}")
        if time.monotonic() > deadline:
            raise AssertionError(f"no {what} within {timeout} s")
        time.sleep(0.02)


def policy_installed(pid: int) -> bool:
    """Whether the process catches SIGTERM yet (/proc/PID/status SigCgt): tapediag's signal policy
    (``app.stop``) is in place; before it, only the interpreter's own start-up runs."""
    try:
        text = Path(f"/proc/{pid}/status").read_text()
    except OSError:
        return False
    found = re.search(r"^SigCgt:\s*([0-9a-f]+)", text, re.M)
    return bool(found and int(found.group(1), 16) >> (signal.SIGTERM - 1) & 1)


@dataclass
class Stopped:
    returncode: int
    out: str
    err: str
    seconds: float  # from the signal to the exit
    policy_was_installed: bool


def signal_and_wait(proc: subprocess.Popen[str], sig: int = signal.SIGINT, timeout: float = 120.0) -> Stopped:
    installed = policy_installed(proc.pid)
    sent = time.monotonic()
    proc.send_signal(sig)
    try:
        out, err = proc.communicate(timeout=timeout)
    finally:
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    return Stopped(proc.returncode, out, err, time.monotonic() - sent, installed)


def assert_stopped_by_interpreter(stopped: Stopped) -> None:
    """A signal before tapediag's code ran: the interpreter's own start-up ended by it (killed by the
    signal, or "Fatal Python error: init_import_site"), with no tapediag frame in its output."""
    assert stopped.returncode in (-signal.SIGINT, 1, 130), stopped
    frames = re.findall(r'File "([^"]+)"', stopped.err)
    assert not [f for f in frames if "/app/" in f or "/native/" in f], stopped.err


def enable_command_log(target: TgtTarget) -> None:
    """tgtd's debug log on: it names every command queued (``opcodes``)."""
    target._adm("--op", "update", "--mode", "sys", "--name", "debug", "--value", "on")


def opcodes(target: TgtTarget, lun: int = 1) -> list[int]:
    """Every command tgtd queued for ``lun``, in order (``enable_command_log`` first)."""
    return [int(op, 16) for op, unit in _QUEUED.findall(target._log()) if int(unit) == lun]


def frozen(target: TgtTarget) -> "Frozen":
    return Frozen(target)


class Frozen:
    """tgtd stopped (SIGSTOP) for the ``with`` block, continued after it: a target that stops answering."""

    def __init__(self, target: TgtTarget) -> None:
        self.target = target

    def __enter__(self) -> TgtTarget:
        os.kill(self.target.pid, signal.SIGSTOP)
        return self.target

    def __exit__(self, *exc: object) -> None:
        os.kill(self.target.pid, signal.SIGCONT)


def grown(path: Path, size: int, by: int) -> Callable[[], bool]:
    """A trigger: the file has grown ``by`` bytes past ``size`` (bytes on the tape)."""
    return lambda: path.stat().st_size >= size + by


@contextmanager
def kill_when(target: TgtTarget, trigger: Callable[[], bool], timeout: float = 60.0) -> Iterator[None]:
    """SIGKILL ``target`` from a thread as soon as ``trigger()`` (bytes on its tape), polled every 10 ms:
    a target that dies mid-write, whenever a loaded machine gets the write going (a fixed delay could
    fire before the first byte). Joined on leaving; it fires at ``timeout`` anyway so that nothing hangs."""
    import threading

    done = threading.Event()

    def watch() -> None:
        deadline = time.monotonic() + timeout
        while not done.is_set() and not trigger() and time.monotonic() < deadline:
            time.sleep(0.01)
        target.kill()

    killer = threading.Thread(target=watch, name="kill-when", daemon=True)
    killer.start()
    try:
        yield
    finally:
        done.set()
        killer.join()
