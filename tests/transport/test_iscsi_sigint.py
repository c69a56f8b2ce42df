"""Ctrl-C during an iSCSI write closes the run as cancelled, with the filemark (issue 14.7).

Before the fix, libiscsi's synchronous loop saw poll() interrupted by SIGINT as a failed
session: exit 1, "Poll failed", no closing filemark, in about 1 trial in 5.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from tests.helpers.tgt import TgtTarget, tgt_available

pytestmark = pytest.mark.skipif(not tgt_available(), reason="tgt (tgtd/tgtadm/tgtimg) is not installed")

TRIALS = 6


def _data_blocks(target: TgtTarget) -> int:
    return sum(1 for record in target.show_blocks() if record.type == "DATA")


@pytest.mark.parametrize("trial", range(TRIALS))
def test_sigint_mid_write_exits_130_with_filemark(tmp_path: Path, trial: int) -> None:
    env = dict(os.environ, TAPEDIAG_DATA_DIR=str(tmp_path / "data"))
    with TgtTarget(tmp_path / "tgt", size_mb=4096) as target:
        proc = subprocess.Popen(
            [sys.executable, "-m", "app", "tape-perf", target.url, "--direction", "write", "--size", "60s",
             "--mode", "variable", "--block-size", "64K", "--force"],
            env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
        )
        try:
            time.sleep(1.5 + 0.1 * trial)  # start-up plus a varying time into the write
            assert proc.poll() is None, proc.communicate()
            proc.send_signal(signal.SIGINT)
            out, err = proc.communicate(timeout=60)
        finally:
            if proc.poll() is None:
                proc.kill()
                proc.wait()
        assert proc.returncode == 130, (out, err)
        assert b"Poll failed" not in err
        records = target.show_blocks()
        kinds = [record.type for record in records if record.type != "EOD"]
        assert kinds[-1] == "FILEMARK", kinds[-5:]
    history = subprocess.run([sys.executable, "-m", "app", "history"], env=env, capture_output=True, timeout=60)
    assert b"cancel" in history.stdout.lower(), history.stdout
