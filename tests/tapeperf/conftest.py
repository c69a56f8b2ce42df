"""Shared helpers of the tape performance tests."""
from __future__ import annotations

from pathlib import Path
from typing import Iterator

import pytest

from app.drive import TapeDrive
from app.events import Event
from app.tapeperf import TapePerfParams, TapePerfResult, TapePerfTest

#: Pools smaller than the 32 MiB default: the tests write tens of MiB at most.
POOL = 8 << 20


def paced(directory: Path, name: str) -> str:
    """A virtual LTO-9 in real time behind a 50 MB/s link, for the tests that need several drives' phases
    to overlap: each phase then lasts its model's time (48 MiB: 1 s). Unpaced (``realtime=0``), a phase is
    over in milliseconds, and on a loaded machine a drive whose thread starts late finds the other one
    done: no window in common, so rightly no aggregate rate ("the drives did not read at the same time")."""
    return f"virtual:lto9?interface=50&cartridge={directory / name}.cart"


def run_test(drive: TapeDrive, params: TapePerfParams, events: list[Event] | None = None, cancel=None) -> TapePerfResult:
    sink = events.append if events is not None else (lambda _e: None)
    return TapePerfTest(drive, params, pool_bytes=POOL).run(sink, cancel)


def blank_at_bot(drive: TapeDrive) -> bool:
    """True when a read at BOT finds end of data (the tape was never written)."""
    drive.rewind()
    drive.set_block_size(0)
    out = drive.read(bytearray(1 << 20))
    return out.eod and out.nbytes == 0


@pytest.fixture
def lto9() -> Iterator[TapeDrive]:
    """A fast (non-realtime) virtual LTO-9 with a fresh cartridge in the test's data dir."""
    with TapeDrive.open("virtual:lto9?realtime=0") as drive:
        yield drive
