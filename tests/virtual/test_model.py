"""The timing model's steady-state host rates, on simulated time (no sleeping)."""
from __future__ import annotations

import pytest

from native.virtual.model import ModelParams, TapeModel
from native.virtual.specs import spec_for

MiB = 1 << 20


def run(ratio: float, direction: str, *, gen: int = 9, host_rate: float | None = None, total: int = 2 << 30,
        buffer: int = 64 * MiB, io: int = MiB, interface: float | None = None,
        think: bool = False, flush: bool = True) -> tuple[float, list[float], TapeModel]:
    """Host rate (bytes/s) and per-I/O latencies for ``total`` bytes of ``ratio``:1 data.

    ``host_rate`` paces the host: on a schedule it catches up with after a stall, or
    with ``think`` as a fixed time per I/O (a host that must produce each block first).
    A write ends with a flush (``flush``): data counts once it is on tape, as tape-perf counts it.
    """
    spec = spec_for(gen)
    model = TapeModel(ModelParams(spec.speed_steps, buffer, interface or spec.interface_rate, backhitch=2.0))
    t, lat = 0.0, []
    for i in range(total // io):
        if host_rate is None:
            arrive = t
        else:
            arrive = t + io / host_rate if think else max(t, i * io / host_rate)
        done = model.transfer(arrive, io, io / ratio, direction)
        lat.append(done - arrive)
        t = done
    if direction == "write" and flush:
        t = model.flush(t)
    return total / t, lat, model


@pytest.mark.parametrize("direction", ["write", "read"])
def test_random_data_runs_at_native_speed(direction: str) -> None:
    rate, _, model = run(1.0, direction)
    assert rate == pytest.approx(spec_for(9).speed_steps[-1], rel=0.03)  # 408 MB/s top step ~ 400 native
    assert model.stats.backhitches == 0


@pytest.mark.parametrize("direction", ["write", "read"])
def test_two_to_one_data_doubles_the_host_rate(direction: str) -> None:
    # 8 GiB: the first buffer-full goes at the link rate while the tape is already
    # running (as on a real drive); over a long run that transient fades below 2 %.
    rate, _, _ = run(2.0, direction, total=8 << 30)
    assert rate == pytest.approx(2 * 408e6, rel=0.03)


def test_compressible_data_is_capped_by_the_interface() -> None:
    rate, _, _ = run(80.0, "write", flush=False)  # zeros: the host streams at the link rate
    assert rate == pytest.approx(1200e6, rel=0.01)
    # and the tape, which never had to move for this trickle, writes the buffer out without a back-hitch
    rate, _, model = run(80.0, "write")
    assert rate == pytest.approx(1200e6, rel=0.05) and model.stats.backhitches == 0
    rate, _, _ = run(2.0, "write", gen=5, buffer=16 * MiB, total=1 << 30)  # LTO-5: 2 x 140 < 600
    assert rate == pytest.approx(280e6, rel=0.03)
    rate, _, _ = run(2.0, "write", interface=500e6, flush=False)  # a slow link caps 2:1 data
    assert rate == pytest.approx(500e6, rel=0.01)
    # ... and one too slow for the lowest step x 2 makes the tape shoe-shine.
    rate, _, model = run(2.0, "write", interface=300e6)
    assert rate < 0.6 * 300e6 and model.stats.backhitches > 0


def test_host_inside_the_speed_matching_range_never_stops_the_tape() -> None:
    rate, lat, model = run(1.0, "write", host_rate=250e6)
    assert rate == pytest.approx(250e6, rel=0.01)
    assert model.stats.stops == 1 and max(lat) < 0.01  # the one stop: at the end of the closing flush
    # The tape settled on the steps around 250 MB/s, not the top speed.
    busiest = max(model.stats.speeds, key=model.stats.speeds.get)
    assert 230e6 <= busiest <= 270e6


@pytest.mark.parametrize("direction", ["write", "read"])
def test_host_below_the_floor_shoe_shines(direction: str) -> None:
    # LTO-9 floor is 177 MB/s; a 120 MB/s host cannot keep the tape streaming.
    rate, lat, model = run(1.0, direction, host_rate=120e6, total=1 << 30, think=True)
    stalls = [x for x in lat if x > 1.0]
    assert model.stats.backhitches >= 3 and len(stalls) >= 3
    assert all(x == pytest.approx(2.0, abs=0.1) for x in stalls)  # one back-hitch each
    assert rate < 0.7 * 120e6  # the stalls cost the host throughput


def test_filemark_flush_waits_for_the_buffer() -> None:
    spec = spec_for(9)
    model = TapeModel(ModelParams(spec.speed_steps, 64 * MiB, spec.interface_rate))
    t = 0.0
    for _ in range(32):
        t = model.transfer(t, MiB, MiB, "write")
    assert model.level > 0
    done = model.flush(t)
    assert model.level == 0 and done > t
    assert model.stats.host_bytes == 32 * MiB


def test_bad_parameters_are_refused() -> None:
    with pytest.raises(ValueError):
        ModelParams((2.0, 1.0), 1.0, 1.0)
    with pytest.raises(ValueError):
        ModelParams((1.0,), 1.0, 1.0, restart=0.0)


def test_a_flush_writes_the_buffer_out_at_the_matched_speed() -> None:
    """A filemark after a fast host: the drive keeps its top step while the buffer
    empties, it does not step down as the buffer drains."""
    spec = spec_for(9)
    model = TapeModel(ModelParams(spec.speed_steps, 256 * MiB, spec.interface_rate, backhitch=2.0))
    t = 0.0
    for _ in range(3072):  # the tape runs at its top step from the start: 1.5 GiB to fill 256 MiB
        t = model.transfer(t, MiB, MiB / 2, "write")
    pending = model.level
    done = model.flush(t)
    assert pending > 0.9 * 256 * MiB
    assert done - t == pytest.approx(pending / spec.speed_steps[-1], rel=0.01)
    assert model.stats.backhitches == 0


@pytest.mark.parametrize("ratio,expected", [(80.0, 1200e6), (4.3, 1200e6), (2.0, 2 * 408e6), (1.0, 408e6)])
def test_a_4_gb_write_from_bot_reaches_the_rated_figure(ratio: float, expected: float) -> None:
    """Issue 19.2: with the real 1 GiB buffer, a host at the link rate gets the top step from its first
    commands (speed matching on the host's rate), so 4 GB, closing flush included, come within 5 % of
    native x ratio capped by the link, for zeros, 4.3:1, 2:1 and random alike."""
    rate, _, model = run(ratio, "write", total=4_000 * MiB, buffer=spec_for(9).buffer_size, io=4 * MiB)
    assert rate == pytest.approx(expected, rel=0.05)
    assert model.stats.backhitches == 0


def test_speed_matching_follows_the_host_not_the_buffer_level() -> None:
    # A 300 MB/s host with the real 1 GiB buffer: the tape takes the steps around 300 MB/s at once
    # and the buffer hovers near its low-water mark instead of filling through the bands.
    rate, lat, model = run(1.0, "write", host_rate=300e6, buffer=spec_for(9).buffer_size, flush=False)
    assert rate == pytest.approx(300e6, rel=0.01)
    assert set(model.stats.speeds) <= {282e6, 303e6} and model.stats.stops == 0
    assert model.level < spec_for(9).buffer_size / 16


@pytest.mark.parametrize("direction", ["write", "read"])
def test_speed_matching_follows_the_host_up_and_down(direction: str) -> None:
    # Issue 32.1: a host whose rate changes mid-run (a slower, then a faster source) moves the tape's
    # step with it, up as well as down, without a back-hitch: the tape never stays on a low step. Matched,
    # it runs at one of the two steps around the host's rate (the faster once the buffer holds its cushion).
    spec = spec_for(9)
    model = TapeModel(ModelParams(spec.speed_steps, spec.buffer_size, spec.interface_rate))
    t = 0.0
    for rate in (250e6, 350e6, 200e6, 400e6, 300e6):
        start = t
        for k in range(3000):  # long enough for a read's first read-ahead to fill the 1 GiB buffer
            t = model.transfer(max(t, start + k * MiB / rate), MiB, MiB, direction)
        assert 3000 * MiB / (t - start) == pytest.approx(rate, rel=0.01)  # the drive kept up with the host
        below = max(s for s in spec.speed_steps if s <= rate)
        above = min(s for s in spec.speed_steps if s >= rate)
        assert model.speed in (below, above), (rate, model.speed)
    assert model.stats.backhitches == 0


def test_a_host_back_to_full_speed_gets_the_top_step_again() -> None:
    # The emulator (or the host) late for a while: the tape steps down to it; once the host runs at
    # the link's rate again, the tape is back at its top step within the buffer's cushion.
    spec = spec_for(9)
    model = TapeModel(ModelParams(spec.speed_steps, spec.buffer_size, spec.interface_rate))
    t = 0.0
    for _ in range(512):  # 2 ms per MiB: a host at 524 MB/s of 2:1 data, 262 MB/s on tape
        t = model.transfer(t + 0.002, MiB, MiB / 2, "write")
    assert model.speed < spec.speed_steps[-1]
    for _ in range(256):  # the host at the link's rate again
        t = model.transfer(t, MiB, MiB / 2, "write")
    assert model.speed == spec.speed_steps[-1]
