"""A Ctrl-C at any moment of a write test stops it, before the first WRITE writes nothing (issue 27).

Seen at ed91ad2: ``tape-perf virtual:lto9 --size 10s --direction write --force`` with SIGINT 0.3 s
after the start went on, wrote for 10 s and exited 0 (SIGINT was ignored until the command installed
its own handler, as a script's background job inherits it); a SIGINT during the pattern calibration
was seen only inside the first write burst, and the cancelled write then still wrote its closing
filemark onto a tape it had not written to.

The moments are the issue's (0.1, 0.3, 1 and 3 s after the start), on the virtual drive and on tgt,
on a quiet machine and with a Python busy loop on every core. What is asserted holds whatever the run
was doing at that moment: exit 130 within 5 s; a run that reports nothing written left the cartridge
as it was (the virtual cartridge's records; tgt's records, and no WRITE, WRITE FILEMARKS or ERASE in
tgtd's own command log); a run that wrote closes its file with a filemark after exactly what it
reports, and the cartridge reads back and verifies against the pattern.
"""
from __future__ import annotations

import contextlib
import json
import signal
import time
from pathlib import Path

import pytest

from tests.helpers.stopping import (WRITE6, WRITES, assert_stopped_by_interpreter, busy_cpus, enable_command_log,
                                    opcodes, signal_and_wait, start)
from tests.helpers.tgt import TgtFactory, tgt_available

pytestmark = pytest.mark.slow

MOMENTS = (0.1, 0.3, 1.0, 3.0)
LOADS = ("quiet", "busy")


def _written(out: str) -> int:
    """Bytes the run reports written (0 when it printed no result: stopped before it had one)."""
    if not out.strip():
        return 0
    result = json.loads(out)
    return sum(p["bytes"] for p in result.get("phases", ()) if p["phase"] == "write")


def _verify(device: str, data_dir: Path, written: int) -> None:
    """Read the tape back to the filemark and compare every block with the pattern (the writer's seed)."""
    proc = start(["tape-perf", device, "--direction", "read", "--verify", "--size", "64G", "--json"], data_dir)
    out, err = proc.communicate(timeout=300)
    assert proc.returncode == 0, err
    read = json.loads(out)["phases"][0]
    assert (read["bytes"], read["verify_errors"], read["end_reason"]) == (written, 0, "filemark"), read


def _blank_at_bot(device: str) -> bool:
    """The tape test's own pre-write probe: a READ at BOT meets end of data (no block, no filemark)."""
    from app.drive import TapeDrive
    from app.tapeperf.safety import probe

    with TapeDrive.open(device) as drive:
        state = probe(drive, at_bot=True)
    return not state.holds_data


def _stop_at(device: str, data_dir: Path, moment: float, load: str):  # type: ignore[no-untyped-def]
    with busy_cpus() if load == "busy" else contextlib.nullcontext():
        proc = start(["tape-perf", device, "--size", "10s", "--direction", "write", "--force", "--json"], data_dir)
        time.sleep(moment)  # the moment chosen; what follows must hold at any moment
        stopped = signal_and_wait(proc, signal.SIGINT)
    if not stopped.policy_was_installed and stopped.returncode != 130:
        assert_stopped_by_interpreter(stopped)  # before tapediag's first line: nothing of it ran
    else:
        assert stopped.returncode == 130, stopped
        assert "Traceback" not in stopped.err
    assert stopped.seconds < 5, stopped
    return stopped


@pytest.mark.parametrize("load", LOADS)
@pytest.mark.parametrize("moment", MOMENTS)
def test_a_sigint_at_any_moment_stops_a_virtual_write_test(tmp_path: Path, moment: float, load: str) -> None:
    device = f"virtual:lto5?cartridge={tmp_path / 'c.img'}"  # blank, created at the first load
    stopped = _stop_at(device, tmp_path / "data", moment, load)
    written = _written(stopped.out)
    if not written:
        assert _blank_at_bot(device), "nothing was reported written, yet the tape holds something at BOT"
        return
    _verify(device, tmp_path / "data", written)


@pytest.mark.tgt
@pytest.mark.skipif(not tgt_available(), reason="tgt (tgtd/tgtadm/tgtimg) is not installed")
@pytest.mark.parametrize("load", LOADS)
@pytest.mark.parametrize("moment", MOMENTS)
def test_a_sigint_at_any_moment_stops_a_write_test_on_tgt(tmp_path: Path, tgt_factory: TgtFactory, moment: float,
                                                          load: str) -> None:
    target = tgt_factory(size_mb=2048)
    enable_command_log(target)
    stopped = _stop_at(target.url, tmp_path / "data", moment, load)
    written = _written(stopped.out)
    sent = opcodes(target)
    records = target.data_blocks()
    if not written:
        assert not records, records
        assert not WRITES & set(sent), [hex(op) for op in sent]
        return
    first_write = next(i for i, op in enumerate(sent) if op in WRITES)
    assert sent[first_write] == WRITE6, [hex(op) for op in sent[:first_write + 1]]  # no filemark, no erase first
    assert sum(r.size for r in records if r.type == "DATA") == written
    assert records[-1].type == "FILEMARK"
    _verify(target.url, tmp_path / "data", written)
