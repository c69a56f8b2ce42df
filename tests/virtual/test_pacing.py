"""Real time: the host's wall clock sees the model's rate (one short run)."""
from __future__ import annotations

import os
import time

import pytest

from native.virtual import open_virtual
from native.virtual.estimate import CompressionEstimator
from native.sldc import compressed_size


def _paced_run(path) -> tuple[float, float]:
    """(wall, model) seconds summed over 50 x 1 MiB writes of zeros on a 100 MB/s link."""
    d = open_virtual(f"virtual:lto9?cartridge={path}&interface=100&buffer=8M&capacity=1G")
    try:
        block = bytes(1 << 20)
        cdb = bytes([0x0A, 0, 0x10, 0, 0, 0])
        wall = model = 0.0
        for _ in range(50):
            start = time.monotonic()
            assert d.execute(cdb, data_out=block).good
            wall += time.monotonic() - start
            model += d._t_done - d._t  # what the model charged this command
    finally:
        d.close()
    return wall, model


def test_paced_writes_hold_the_model_rate_within_ten_percent(tmp_path) -> None:
    # The model charges the link time; the host's clock must see the same total. A
    # loaded machine can only make sleeps overshoot (never return early), so each
    # attempt must not be faster than the model, and one of up to three (0.5 s each)
    # must land within 10 %.
    results = []
    for attempt in range(3):
        wall, model = _paced_run(tmp_path / f"p{attempt}.cart")
        assert model == pytest.approx(50 * (1 << 20) / 100e6, rel=0.01)
        assert wall >= 0.9 * model
        results.append(wall / model)
        if abs(wall / model - 1) <= 0.10:
            break
    assert min(abs(r - 1) for r in results) <= 0.10, results


def _segments(n: int, distance: int) -> bytes:
    """Literal runs of 8 random bytes, each followed by a 40-byte copy from ``distance`` back."""
    b = bytearray(os.urandom(distance))
    while len(b) < n:
        b += os.urandom(8)
        start = len(b) - distance
        b += b[start : start + 40]
    return bytes(b[:n])


@pytest.mark.parametrize("history,distance", [(1024, 512), (16384, 1024), (16384, 12000)])
def test_sampled_estimate_tracks_the_exact_sldc_size(history: int, distance: int) -> None:
    data = _segments(1 << 20, distance)
    exact = compressed_size(data, history)
    est = CompressionEstimator(history).compressed(memoryview(data))
    assert est == pytest.approx(exact, rel=0.03)
    for sample in (os.urandom(1 << 20), bytes(1 << 20)):
        exact = compressed_size(sample, history)
        assert CompressionEstimator(history).compressed(memoryview(sample)) == pytest.approx(exact, rel=0.03)


def test_estimate_follows_a_change_of_data_at_once() -> None:
    est = CompressionEstimator(16384)
    text = (b"the quick brown fox jumps over the lazy dog " * 30000)[: 1 << 20]
    assert est.compressed(memoryview(text)) < (1 << 20) // 4
    noise = os.urandom(1 << 20)
    assert est.compressed(memoryview(noise)) == pytest.approx(compressed_size(noise, 16384), rel=0.02)


class FakeClock:
    """A wall clock the test advances; sleeping advances it (plus a fixed overshoot)."""

    def __init__(self, overshoot: float = 0.0) -> None:
        self.t, self.overshoot, self.sleeps = 0.0, overshoot, 0

    def __call__(self) -> float:
        return self.t

    def sleep(self, seconds: float) -> None:
        self.t += seconds + self.overshoot
        self.sleeps += 1


@pytest.mark.parametrize("overshoot", [0.0, 0.0005])
def test_host_time_and_drive_time_add_up_without_sleeping_per_command(overshoot: float) -> None:
    from native.virtual.pacer import Pacer

    clock = FakeClock(overshoot)
    pacer = Pacer(slack=0.004, clock=clock, sleep=clock.sleep)
    for _ in range(1000):
        clock.t += 0.003  # the host works 3 ms between commands
        pacer.finish(pacer.now() + 0.001)  # each command takes the drive 1 ms
    assert clock.t == pytest.approx(1000 * 0.004, rel=0.01)  # 3 + 1 ms per cycle, not max(3, 1)
    assert clock.sleeps <= 1000 * 0.001 / 0.004 + 1  # a sleep per ~slack of debt, not per command


def test_emulator_delays_are_paid_back_not_charged_to_the_host() -> None:
    from native.virtual.pacer import Pacer

    clock = FakeClock()
    pacer = Pacer(slack=0.004, max_lag=0.25, clock=clock, sleep=clock.sleep)
    arrivals = []
    for i in range(100):
        clock.t += 0.001  # host gap
        arrivals.append(pacer.now())
        if i == 10:
            clock.t += 0.05  # the emulator stalls 50 ms inside this command
        pacer.finish(arrivals[-1] + 0.005)
    gaps = [b - a - 0.005 for a, b in zip(arrivals, arrivals[1:])]
    assert max(gaps) == pytest.approx(0.001)  # the model saw only the host's gaps
    assert clock.t == pytest.approx(100 * 0.006, abs=0.005)  # and the wall caught up with it


def test_the_pacer_counts_the_time_the_emulator_could_not_pay_back() -> None:
    # Commands the model charges 10 ms each, while this "machine" needs 30 ms per command: after
    # the 0.25 s the pacer may pay back, every command adds its 20 ms to ``lost``.
    from native.virtual.pacer import Pacer

    wall = [0.0]
    pacer = Pacer(clock=lambda: wall[0], sleep=lambda s: wall.__setitem__(0, wall[0] + s))
    for _ in range(100):
        start = pacer.now()
        wall[0] += 0.030
        pacer.finish(start + 0.010)
    assert pacer.lost == pytest.approx(100 * 0.020 - pacer.max_lag, abs=0.021)
    on_time = Pacer(clock=lambda: wall[0], sleep=lambda s: wall.__setitem__(0, wall[0] + s))
    for _ in range(100):
        start = on_time.now()
        wall[0] += 0.005
        on_time.finish(start + 0.010)
    assert on_time.lost == 0.0


def test_the_emulators_work_inside_a_command_is_hidden_under_the_drive_time() -> None:
    # A deadline clock: 0.6 ms of the emulator's own work per command (estimate, cartridge write)
    # inside a command the drive takes 1 ms for costs no wall time; the pacer sleeps the rest.
    from native.virtual.pacer import Pacer

    clock = FakeClock()
    pacer = Pacer(slack=0.004, clock=clock, sleep=clock.sleep)
    for _ in range(1000):
        start = pacer.now()
        clock.t += 0.0006  # the emulator's work for this command
        pacer.finish(start + 0.001)
    assert clock.t == pytest.approx(1.0, rel=0.005)  # 1 ms per command, not 1.6
    assert pacer.slept == pytest.approx(0.4, rel=0.02) and pacer.lost == 0.0


def _paced_model_write(work: float, ratio: float, count: int) -> tuple[float, float, float]:
    """(wall, model, lost) seconds of ``count`` 1 MiB LTO-9 writes of ``ratio``:1 data and the closing
    flush, the emulator spending ``work`` seconds in each WRITE, on a fake clock."""
    from native.virtual.model import ModelParams, TapeModel
    from native.virtual.pacer import Pacer
    from native.virtual.specs import spec_for

    spec, mib = spec_for(9), 1 << 20
    model = TapeModel(ModelParams(spec.speed_steps, spec.buffer_size, spec.interface_rate))
    clock = FakeClock(overshoot=0.0002)
    pacer = Pacer(clock=clock, sleep=clock.sleep)
    first = None
    for _ in range(count):
        t = pacer.now()
        clock.t += work
        done = model.transfer(t, mib, mib / ratio, "write")
        pacer.finish(done)
        first = (clock.t, done) if first is None else first
    t = pacer.now()
    pacer.finish(model.flush(t))
    assert first is not None
    return clock.t - first[0], model.t - first[1], pacer.lost


@pytest.mark.parametrize("work", [0.0003, 0.0010])
def test_a_write_reaches_the_tape_rate_while_the_emulator_is_slower_than_the_link(work: float) -> None:
    # 2:1 data on LTO-9: the tape takes 1.28 ms per MiB (2 x 408 MB/s), the link 0.87 ms. An emulator
    # needing 1.0 ms per WRITE cannot keep up with the link while the buffer fills, but the tape keeps
    # moving meanwhile: the run still comes out at the tape's rate, wall clock and model alike.
    wall, model, lost = _paced_model_write(work, 2.0, 3000)
    rate = 2999 * (1 << 20) / wall
    assert rate == pytest.approx(2 * 408e6, rel=0.03)
    assert wall == pytest.approx(model, rel=0.01)
    # Only the slower emulator fell behind the link beyond what it could pay back: that time is counted.
    assert (lost > 0) == (work > 1 / 1200)


def test_a_reposition_settles_what_the_emulator_owes() -> None:
    # A 100 ms stall in the write is paid back by later commands; a rewind right after it ends the
    # phase: the debt goes to ``lost`` instead of lifting the next phase's rate above the model.
    from native.virtual.pacer import Pacer

    clock = FakeClock()
    pacer = Pacer(clock=clock, sleep=clock.sleep)
    start = pacer.now()
    clock.t += 0.1  # the stall
    pacer.finish(start + 0.001)
    assert pacer.lost == 0.0  # within what may be paid back
    start = pacer.now()
    pacer.finish(start + 0.001, settle=True)  # the rewind
    assert pacer.lost == pytest.approx(0.098)  # the rewind's own 1 ms was paid out of it
    wall0 = clock.t
    for _ in range(100):  # the read: 1 ms a command, none of the debt paid back in it
        start = pacer.now()
        pacer.finish(start + 0.001)
    assert clock.t - wall0 == pytest.approx(0.1, abs=0.0045)


def test_the_drive_counts_its_cartridge_file_io_for_the_storage_verdict(tmp_path) -> None:
    d = open_virtual(f"virtual:lto9?cartridge={tmp_path / 's.cart'}&capacity=1G&buffer=64M")
    try:
        cdb = bytes([0x0A, 0, 0x10, 0, 0, 0])
        for _ in range(3):
            assert d.execute(cdb, data_out=os.urandom(1 << 20)).good
        assert d.execute(cdb, data_out=bytes(1 << 20)).good  # all-zero blocks cost the file nothing
        stored, seconds = d.emulator_storage or (0, 0.0)
        assert stored == 3 << 20 and seconds > 0
        d.execute(bytes([0x01, 0, 0, 0, 0, 0]))
        buf = bytearray(1 << 20)
        assert d.execute(bytes([0x08, 0, 0x10, 0, 0, 0]), data_in=buf).good
        assert (d.emulator_storage or (0, 0.0))[0] == 4 << 20
    finally:
        d.close()
    unpaced = open_virtual(f"virtual:lto9?cartridge={tmp_path / 'u.cart'}&realtime=0")
    assert unpaced.emulator_storage is None  # nothing to fall behind: no verdict to give
    unpaced.close()


def test_paying_back_a_delay_never_outruns_the_link() -> None:
    """A 0.2 s stall, then commands the model charges more than their link time (a tape streaming slower than
    the link) and commands it charges exactly their link time (read-ahead from the buffer): the pacer pays the
    stall back where the tape left room, and never lets the wall see data cross faster than the link (a scan
    zone read at 2,101 MB/s on a 1,200 MB/s LTO-9 link, issue 31)."""
    from native.virtual.pacer import Pacer

    clock = FakeClock()
    pacer = Pacer(slack=0.004, max_lag=0.25, clock=clock, sleep=clock.sleep)
    link, size = 1200e6, 1 << 18  # bytes/s, a 256 KiB READ
    on_link = size / link
    windows = []
    for i in range(400):
        began = clock.t
        arrival = pacer.now()
        if i == 10:
            clock.t += 0.2  # the emulator stalls inside this command
        pacer.through_link(began, size, link)
        pacer.finish(arrival + (on_link * 3 if i < 100 else on_link))
        windows.append((began, clock.t))
    for first in range(0, 400 - 160, 20):  # every window of 160 commands (42 MB, 35 ms on the link)
        start, end = windows[first][0], windows[first + 159][1]
        assert 160 * size / (end - start) <= link * 1.3, (first, 160 * size / (end - start) / 1e6)
    assert pacer.lost == pytest.approx(0.0, abs=1e-9)  # the stall was paid back where the model had room
