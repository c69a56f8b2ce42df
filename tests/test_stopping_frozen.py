"""A target that stops answering mid-run: named while tapediag waits, and let go within seconds of a
cancel (issue 27).

Seen at ed91ad2: tgtd stopped (``kill -STOP``) during a write, then SIGINT, then SIGTERM: nothing was
said, and the run ended 900 s later (the WRITE's timeout), recorded "incomplete", because the signals
were held while a command waited. Here tgtd is stopped once bytes are on its tape (its cartridge file
has grown), never after a sleep.
"""
from __future__ import annotations

import json
import os
import signal
import subprocess
import threading
import time
from pathlib import Path

import pytest

from app.commandwatch import CommandWatch
from app.events import CancelToken, Message
from app.timeouts import NOTICE_DEFAULT
from native.errors import CommandAborted, ConnectionLost, SessionDropped
from native.iscsi import IscsiTransport
from tests.helpers.stopping import frozen, grown, history, start, wait_for
from tests.helpers.tgt import TgtFactory, TgtTarget
from tests.transport._cdb import write6

pytestmark = [pytest.mark.tgt, pytest.mark.slow]


def _writing(tgt_factory: TgtFactory, data_dir: Path) -> tuple[TgtTarget, subprocess.Popen[str]]:
    target = tgt_factory(size_mb=2048)
    size = target.cartridge_path.stat().st_size
    proc = start(["tape-perf", target.url, "--size", "60s", "--direction", "write", "--mode", "variable",
                  "--block-size", "64K", "--json"], data_dir)
    wait_for(grown(target.cartridge_path, size, 4 << 20), proc, "4 MB on the tape")
    return target, proc


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM], ids=["SIGINT", "SIGTERM"])
def test_a_cancel_with_the_target_frozen_ends_the_run_within_seconds(tmp_path: Path, tgt_factory: TgtFactory,
                                                                     sig: int) -> None:
    data = tmp_path / "data"
    target, proc = _writing(tgt_factory, data)
    with frozen(target):
        sent = time.monotonic()
        proc.send_signal(sig)
        out, err = proc.communicate(timeout=60)
        took = time.monotonic() - sent
    assert proc.returncode == 130, err
    assert took < 10, took
    said = [line for line in err.splitlines() if line.startswith(("warning:", "error:", "tapediag:"))]
    assert len(said) == 1 and "may still be executing WRITE(6)" in said[0], err  # one line: the drive's state
    result = json.loads(out)
    assert result["status"] == "cancelled"
    assert "could not be put back" in result["settings"]  # and the result says what was not restored
    runs = history(data)
    assert [(r["kind"], r["status"]) for r in runs] == [("tape-perf", "cancelled")]


def test_a_stuck_target_is_named_while_tapediag_waits_then_a_cancel_lets_it_go(tmp_path: Path,
                                                                               tgt_factory: TgtFactory) -> None:
    target, proc = _writing(tgt_factory, tmp_path / "data")
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(iter(proc.stderr.readline, "")), daemon=True)  # type: ignore[union-attr]
    reader.start()
    with frozen(target):
        frozen_at = time.monotonic()
        wait_for(lambda: any("not answered" in line for line in lines), proc, "the notice",
                 timeout=NOTICE_DEFAULT + 60)
        noticed = time.monotonic() - frozen_at
        proc.send_signal(signal.SIGINT)
        proc.wait(timeout=30)
    reader.join(timeout=10)
    notice = next(line for line in lines if "not answered" in line)
    assert "WRITE(6)" in notice and "Ctrl-C" in notice and "15 min" in notice, notice  # what, and what to do
    assert NOTICE_DEFAULT <= noticed < NOTICE_DEFAULT + 30, noticed  # after the WRITE's threshold, not its timeout
    assert proc.returncode == 130


# -- the transport itself, in this process: abort when the target answers, drop when it does not ---------


def _session(target: TgtTarget) -> IscsiTransport:
    transport = IscsiTransport(target.url)
    transport.execute(bytes(6))  # TEST UNIT READY: logged in, ready
    return transport


def test_a_command_given_up_on_a_frozen_target_drops_its_session(tgt_target: TgtTarget) -> None:
    transport = _session(tgt_target)
    cancel = CancelToken()
    notices: list[Message] = []
    transport.watch = CommandWatch(cancel, notices.append, notice_after=lambda _op: 0.5)
    with frozen(tgt_target):
        timer = threading.Timer(1.0, cancel.cancel)
        timer.start()
        began = time.monotonic()
        with pytest.raises(SessionDropped, match="may still be executing WRITE"):
            transport.execute(write6(65536), data_out=bytearray(65536))
        took = time.monotonic() - began
    assert 3.0 <= took < 8.0, took  # the cancel at 1 s, the grace (2 s), the abort's wait (2 s), slices
    assert [n.level for n in notices] == ["warning"] and "WRITE(6)" in notices[0].text
    with pytest.raises(ConnectionLost):  # nothing more goes out on it, at once
        transport.execute(bytes(6))
    transport.close()


def test_a_command_given_up_is_not_dropped_when_the_target_answers_again(tgt_target: TgtTarget) -> None:
    """The target answers again just after the command was given up: it then answers the ABORT TASK
    (CommandAborted) or, having the command's data already, ends the command first (its outcome
    stands). Either way the session is not dropped."""
    transport = _session(tgt_target)
    cancel = CancelToken()
    cancel.cancel()
    transport.watch = CommandWatch(cancel, grace=0.0)  # the cancel came before: given up at the first look
    with frozen(tgt_target):
        threading.Timer(0.5, os.kill, (tgt_target.pid, signal.SIGCONT)).start()
        began = time.monotonic()
        try:
            ended = transport.execute(write6(65536), data_out=bytearray(65536)).status
        except CommandAborted:
            ended = "aborted"
        took = time.monotonic() - began
    assert ended in (0, "aborted") and took < 5.0, (ended, took)  # a drop would raise SessionDropped
    transport.close()


def test_a_signal_outside_a_run_interrupts_a_command_on_a_frozen_target(tgt_target: TgtTarget) -> None:
    """No run, no watch (``info`` in the GUI's process, a library's READ ELEMENT STATUS): the signal's
    handler runs while the command waits and its exception ends the wait; the session is dropped."""
    from app import stop

    transport = _session(tgt_target)
    with stop.installed(), frozen(tgt_target):
        threading.Timer(0.5, os.kill, (os.getpid(), signal.SIGTERM)).start()
        began = time.monotonic()
        with pytest.raises(KeyboardInterrupt):
            transport.execute(write6(65536), data_out=bytearray(65536))
        took = time.monotonic() - began
    assert took < 6.0, took  # the signal at 0.5 s, then at most the abort's 2 s (and a busy host's delays)
    with pytest.raises(ConnectionLost):
        transport.execute(bytes(6))
    transport.close()
