"""The virtual drive's lag behind its own model, as tape-perf reports it (issue 32.3), on a fake clock.

The drive is paced (``realtime`` on) but its pacer and the engine share a clock the test
advances: time passes only where the test says (the emulator's own work per WRITE, the
drive's time while the pacer sleeps), so the figures are exact and no test waits on the
wall clock.
"""
from __future__ import annotations

from typing import Any

import pytest

from app.drive import TapeDrive
from app.patterns import Pattern
from app.tapeperf import TapePerfParams, TapePerfTest
from native.virtual import open_virtual
from native.virtual.pacer import Pacer
from tests.tapeperf.conftest import POOL

MiB = 1 << 20


class FakeClock:
    def __init__(self) -> None:
        self.t = 1000.0

    def __call__(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += max(0.0, seconds)


def _run(tmp_path: Any, pattern: str, work: float, size: int = 2048 * MiB, fill_cost: float = 0.0,
         direction: str = "write") -> tuple[Any, Any]:
    """A write of ``size`` in 4 MiB I/Os with the emulator spending ``work`` fake seconds in each cartridge write
    and the host ``fill_cost`` in each fill of a buffer."""
    clock = FakeClock()
    vd = open_virtual(f"virtual:lto9?cartridge={tmp_path / 'lag.cart'}")
    vd.pacer = Pacer(clock=clock, sleep=clock.sleep)
    append, repeat = vd.cart.append_blocks, vd.repeat

    def slow_append(*args: Any, **kwargs: Any) -> None:
        clock.t += work
        append(*args, **kwargs)

    slowed: dict[Any, Any] = {}  # one wrapper per fill, as the engine passes one fill object per phase

    def slow_fill(fill: Any) -> Any:
        def filled(buf: Any, block: int) -> None:
            clock.t += fill_cost
            fill(buf, block)
        return slowed.setdefault(fill, filled)

    vd.cart.append_blocks = slow_append  # type: ignore[method-assign]
    vd.repeat = lambda *a, fill=None, **k: repeat(*a, fill=fill and slow_fill(fill), **k)  # type: ignore[method-assign]
    with TapeDrive(vd, device="virtual:lto9") as drive:
        params = TapePerfParams(direction=direction, pattern=Pattern.parse(pattern), size=size, io_size=4 * MiB,
                                force=True, verify=direction != "write")  # the same cartridge, run after run
        result = TapePerfTest(drive, params, clock=clock, pool_bytes=POOL).run()
    phase = result.phase("write")
    assert result.status == "complete" and phase is not None
    return result, phase


@pytest.mark.parametrize("work", [0.010, 0.006])
def test_a_virtual_drive_the_machine_made_late_names_this_machine_and_its_lag_adds_up(tmp_path: Any, work: float) -> None:
    # The link takes 3.5 ms per 4 MiB of zeros. An emulator needing 10 (or 6) ms per WRITE sets the pace;
    # the drive's model is not to blame, and the lag is the streaming window's own.
    result, ph = _run(tmp_path, "zeros", work)
    lim = result.limiter(ph)
    assert lim.who == "emulator" and "not the drive" in lim.why
    assert ph.streaming_mb_per_s == pytest.approx(4 * MiB / work / 1e6, rel=0.03)
    assert 0 < ph.emulator_lag_seconds <= ph.streaming_seconds
    # The window is the model's time plus the lag: without the lag, the rate of the same run on time.
    _, on_time = _run(tmp_path, "zeros", 0.001)
    model_seconds = ph.streaming_seconds - ph.emulator_lag_seconds
    assert ph.streaming_mb_per_s * ph.streaming_seconds / model_seconds == pytest.approx(on_time.streaming_mb_per_s,
                                                                                          rel=0.01)


def test_a_virtual_drive_on_time_reports_no_lag_and_its_model_rate(tmp_path: Any) -> None:
    # Zeros cross the 1,200 MB/s link, then the buffer's few MB (68:1) are flushed at the top step.
    result, ph = _run(tmp_path, "zeros", 0.001, size=4096 * MiB)
    assert ph.emulator_lag_seconds == pytest.approx(0.0, abs=0.005)
    streamed = ph.bytes - 4 * MiB  # the window starts after the first I/O
    assert ph.streaming_mb_per_s == pytest.approx(streamed / (streamed / 1200e6 + ph.flush_seconds) / 1e6, rel=0.01)
    assert result.limiter(ph).who == "link"


def test_the_host_fills_its_next_buffer_while_the_write_is_in_flight(tmp_path: Any) -> None:
    # Issue 32.2: filled between commands, the fill was serial with the link (zeros and 4.3:1 lost 5-10 %).
    # 1 ms of fill under a 3.5 ms WRITE costs nothing; the data written is still each block's own.
    _, on_time = _run(tmp_path, "zeros", 0.001)
    _, ph = _run(tmp_path, "zeros", 0.001, fill_cost=0.001)
    assert ph.streaming_mb_per_s == pytest.approx(on_time.streaming_mb_per_s, rel=0.002)
    assert ph.host_share == pytest.approx(0.0, abs=0.01) and ph.emulator_lag_seconds == pytest.approx(0.0, abs=0.005)
    result, _ = _run(tmp_path, "2:1", 0.0, size=64 * MiB, fill_cost=0.001, direction="write+read")
    read = result.phase("read")
    assert read is not None and (read.verified_blocks, read.verify_errors) == (256, 0)


def test_a_fill_longer_than_the_write_is_the_hosts_time_not_the_emulators(tmp_path: Any) -> None:
    # A 5 ms fill behind a 3.5 ms WRITE: the host sets the pace, 1.5 ms of every 5 ms is between commands.
    result, ph = _run(tmp_path, "zeros", 0.0, size=4096 * MiB, fill_cost=0.005)
    commands = ph.ios - 1  # the window starts after the first I/O and ends with the closing flush
    assert ph.streaming_seconds == pytest.approx(commands * 0.005 + ph.flush_seconds, rel=0.002)
    assert ph.emulator_lag_seconds == pytest.approx(0.0, abs=0.005)
    assert ph.host_share == pytest.approx(commands * 0.0015 / ph.streaming_seconds, rel=0.01)
    assert result.limiter(ph).who == "host"
