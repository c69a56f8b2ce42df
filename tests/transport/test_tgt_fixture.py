"""The tgtd fixture itself: it starts a real daemon, serves a tape LUN, and cleans up."""
from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from tests.helpers.tgt import TgtTarget, TapeRecord, show_blocks

pytestmark = pytest.mark.tgt


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return Path(f"/proc/{pid}").exists() and "zombie" not in Path(f"/proc/{pid}/status").read_text().lower()


def test_target_serves_a_tape_lun(tgt_target: TgtTarget) -> None:
    assert tgt_target.url.startswith("iscsi://127.0.0.1:")
    assert tgt_target.url.endswith("/1")
    # libiscsi's own command-line tool sees the LUN as a sequential-access device.
    out = subprocess.run(["iscsi-inq", tgt_target.url], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert "IET" in out.stdout and "VIRTUAL-TAPE" in out.stdout


def test_blank_cartridge_shows_bot_and_eod(tgt_target: TgtTarget) -> None:
    assert tgt_target.show_blocks() == [TapeRecord("BOT", 0), TapeRecord("EOD", 0)]
    kind, size = tgt_target.show_blocks()[0]
    assert (kind, size) == ("BOT", 0)


def test_two_targets_do_not_collide(tgt_factory) -> None:
    first, second = tgt_factory(), tgt_factory(large_segments=True)
    assert first.port != second.port
    assert first.control != second.control
    assert first.pid != second.pid


def test_stop_reaps_the_daemon(tmp_path: Path) -> None:
    target = TgtTarget(tmp_path, size_mb=8).start()
    pid = target.pid
    assert _pid_alive(pid)
    target.stop()
    assert not _pid_alive(pid)
    target.stop()  # idempotent


def test_swap_cartridge(tgt_target: TgtTarget, tgt_cartridge_factory) -> None:
    other = tgt_cartridge_factory("second.img", size_mb=8, barcode="TDG777L6")
    tgt_target.swap_cartridge(other)
    assert tgt_target.cartridge_path == other.resolve()
    out = subprocess.run(["iscsi-inq", tgt_target.url], capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, out.stderr
    assert show_blocks(other)[0].type == "BOT"
