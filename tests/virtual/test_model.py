"""The timing model's steady-state host rates, on simulated time (no sleeping)."""
from __future__ import annotations

import pytest

from native.virtual.model import ModelParams, TapeModel
from native.virtual.specs import spec_for

MiB = 1 << 20


def run(ratio: float, direction: str, *, gen: int = 9, host_rate: float | None = None, total: int = 2 << 30,
        buffer: int = 64 * MiB, io: int = MiB, interface: float | None = None,
        think: bool = False) -> tuple[float, list[float], TapeModel]:
    """Host rate (bytes/s) and per-I/O latencies for ``total`` bytes of ``ratio``:1 data.

    ``host_rate`` paces the host: on a schedule it catches up with after a stall, or
    with ``think`` as a fixed time per I/O (a host that must produce each block first).
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
    rate, _, _ = run(80.0, "write")  # zeros
    assert rate == pytest.approx(1200e6, rel=0.01)
    rate, _, _ = run(2.0, "write", gen=5, buffer=16 * MiB, total=1 << 30)  # LTO-5: 2 x 140 < 600
    assert rate == pytest.approx(280e6, rel=0.03)
    rate, _, _ = run(2.0, "write", interface=500e6)  # a slow link caps 2:1 data
    assert rate == pytest.approx(500e6, rel=0.01)
    # ... and one too slow for the lowest step x 2 makes the tape shoe-shine.
    rate, _, model = run(2.0, "write", interface=300e6)
    assert rate < 0.6 * 300e6 and model.stats.backhitches > 0


def test_host_inside_the_speed_matching_range_never_stops_the_tape() -> None:
    rate, lat, model = run(1.0, "write", host_rate=250e6)
    assert rate == pytest.approx(250e6, rel=0.01)
    assert model.stats.stops == 0 and max(lat) < 0.01
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
    for _ in range(1024):
        t = model.transfer(t, MiB, MiB / 2, "write")
    pending = model.level
    done = model.flush(t)
    assert pending > 0.9 * 256 * MiB
    assert done - t == pytest.approx(pending / spec.speed_steps[-1], rel=0.01)
    assert model.stats.backhitches == 0
