"""Ctrl-C during an iSCSI write closes the run as cancelled, with the filemark (issue 14.7).

Before that fix, libiscsi's synchronous loop saw poll() interrupted by SIGINT as a failed
session: exit 1, "Poll failed", no closing filemark, in about 1 trial in 5. Since issue 27 the
runner drives the socket itself and an interrupted poll() is only a look at the signal.

The signal is sent once the write has put bytes on the tape (the cartridge file has grown by a
different amount each trial), never after a fixed sleep: a sleep that was "start-up plus a bit"
on a quiet machine landed before the first WRITE on a busy one, where a cancelled run rightly
writes nothing, not even a filemark (issue 27). With a busy loop on every core too.
"""

from __future__ import annotations

import contextlib
import signal
from pathlib import Path

import pytest

from tests.helpers.stopping import busy_cpus, grown, history, start, wait_for
from tests.helpers.tgt import TgtTarget, tgt_available

pytestmark = pytest.mark.skipif(not tgt_available(), reason="tgt (tgtd/tgtadm/tgtimg) is not installed")

TRIALS = 3


@pytest.mark.parametrize("load", ["quiet", "busy"])
@pytest.mark.parametrize("trial", range(TRIALS))
def test_sigint_mid_write_exits_130_with_filemark(tmp_path: Path, trial: int, load: str) -> None:
    data = tmp_path / "data"
    with TgtTarget(tmp_path / "tgt", size_mb=4096) as target, \
            busy_cpus() if load == "busy" else contextlib.nullcontext():
        size = target.cartridge_path.stat().st_size
        proc = start(["tape-perf", target.url, "--direction", "write", "--size", "60s", "--mode", "variable",
                      "--block-size", "64K", "--force"], data)
        try:
            wait_for(grown(target.cartridge_path, size, (1 + 3 * trial) << 20), proc, "bytes on the tape")
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert proc.returncode == 130, (out, err)
        assert "Poll failed" not in err
        records = target.show_blocks()
        kinds = [record.type for record in records if record.type != "EOD"]
        assert kinds[-1] == "FILEMARK", kinds[-5:]
    assert [(run["kind"], run["status"]) for run in history(data)] == [("tape-perf", "cancelled")]
