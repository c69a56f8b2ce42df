"""Result arithmetic on hand-made sample logs: rates, per-second bins, percentiles, stalls."""
from __future__ import annotations

import json

import pytest

from app.tapeperf.results import PhaseResult, SampleLog, TapePerfResult, summarize


def _log(samples: list[tuple[float, int, float]]) -> SampleLog:
    log = SampleLog("write")
    for t, n, lat in samples:
        log.t.append(t)
        log.nbytes.append(n)
        log.latency.append(lat)
    return log


def test_rates_percentiles_and_per_second_bins() -> None:
    # 100 I/Os of 1 MB, one every 0.03 s from t=0.03 (3 s), 10 ms each; one of 2.5 s at t=1.5.
    samples = [(0.03 * (i + 1), 1_000_000, 0.010) for i in range(100)]
    samples[49] = (samples[49][0], 1_000_000, 2.5)
    ph = PhaseResult("write", bytes=100_000_000, ios=100)
    summarize(ph, _log(samples), 0.0, 3.2)
    assert ph.mb_s == pytest.approx(100 / 3.2)
    assert ph.mib_s == pytest.approx(100_000_000 / 3.2 / 2**20)
    # Streaming: the 99 I/Os after the first, over the 2.97 s from the first's end to the last's.
    assert ph.streaming_mb_per_s == pytest.approx(99 / 2.97)
    assert ph.streaming_seconds == pytest.approx(2.97)
    assert ph.latency_p50 == 0.010 and ph.latency_max == 2.5 and ph.latency_p99 == 0.010
    assert ph.time_to_first_byte == pytest.approx(0.03)
    # Whole seconds of streaming after the first I/O: two, of 33 or 34 I/Os (float edges), in MB.
    assert ph.per_second_min_mb_s in (33.0, 34.0) and ph.per_second_max_mb_s in (33.0, 34.0, 35.0)
    assert [(round(s.t, 2), s.latency) for s in ph.stalls] == [(1.5, 2.5)]


def test_the_first_io_is_positioning_not_a_stall_and_not_in_the_streaming_rate() -> None:
    # A 1.6 s first WRITE (load, rewind, positioning), then 400 I/Os of 1 MB every 2.5 ms (400 MB/s).
    samples = [(1.6, 1_000_000, 1.6)] + [(1.6 + 0.0025 * (i + 1), 1_000_000, 0.0024) for i in range(400)]
    ph = PhaseResult("write", bytes=401_000_000, ios=401)
    summarize(ph, _log(samples), 0.0, samples[-1][0])
    assert ph.stalls == []
    assert ph.time_to_first_byte == pytest.approx(1.6)
    assert ph.streaming_mb_per_s == pytest.approx(400.0)
    assert ph.mb_s == pytest.approx(401 / 2.6)  # the overall rate keeps the positioning time
    assert ph.host_share == pytest.approx(0.04)


def test_a_write_streams_until_its_closing_filemark_has_flushed_the_buffer() -> None:
    # 200 writes of 1 MB into the drive's buffer at 1,000 MB/s, then a closing filemark that takes 0.3 s
    # to write the buffer to tape: the data is on tape after 0.5 s, so the drive streamed 400 MB/s.
    samples = [(0.001 * (i + 1), 1_000_000, 0.001) for i in range(200)]
    ph = PhaseResult("write", bytes=200_000_000, ios=200)
    summarize(ph, _log(samples), 0.0, 0.5, flush_seconds=0.3)
    assert ph.flush_seconds == pytest.approx(0.3)
    assert ph.streaming_seconds == pytest.approx(0.499)
    assert ph.streaming_mb_per_s == pytest.approx(199 / 0.499)
    assert ph.host_share == pytest.approx(0.0, abs=1e-9)  # the drive was busy all along, flush included


def test_per_second_figures_leave_out_the_seconds_of_the_closing_flush() -> None:
    # 2.5 s of writes at 100 MB/s, then a 2 s flush: two whole seconds of data, no empty "0.0 MB/s" second.
    samples = [(0.01 * (i + 1), 1_000_000, 0.009) for i in range(250)]
    ph = PhaseResult("write", bytes=250_000_000, ios=250)
    summarize(ph, _log(samples), 0.0, 4.5, flush_seconds=2.0)
    assert ph.per_second_min_mb_s is not None and ph.per_second_min_mb_s >= 99.0


def test_per_second_figures_need_two_whole_seconds_of_streaming() -> None:
    # A short run: 1.5 s of streaming after a slow first I/O gives no per-second figures at all.
    samples = [(1.0, 1_000_000, 1.0)] + [(1.0 + 0.01 * (i + 1), 1_000_000, 0.01) for i in range(150)]
    ph = PhaseResult("write")
    summarize(ph, _log(samples), 0.0, samples[-1][0])
    assert ph.per_second_min_mb_s is None and ph.per_second_max_mb_s is None


def test_jitter_is_not_a_stall() -> None:
    samples = [(0.001 * (i + 1), 65536, 0.0005) for i in range(200)]
    samples[10] = (samples[10][0], 65536, 0.05)  # 100x the median but only 50 ms: a scheduler hiccup
    ph = PhaseResult("write")
    summarize(ph, _log(samples), 0.0, 0.2)
    assert ph.stalls == [] and ph.per_second_min_mb_s is None  # not even one whole second


def test_percent_of_possible_is_native_times_the_ratio_capped_by_the_link() -> None:
    r = TapePerfResult(device="x", params={}, generation=9, predicted_ratio=2.0, compression="on")
    assert r.possible is not None and r.possible.mb_s == 800
    assert r.possible.label == "800 MB/s possible for 2:1 data on LTO-9"
    assert r.percent_of_possible(PhaseResult("write", mb_s=100, ios=5, streaming_mb_per_s=400)) == pytest.approx(50.0)
    # LTO-5 with 4.3:1 data: 140 x 4.3 = 602 MB/s, capped by its 6 Gb SAS link at 600, never the 280 marketing figure.
    r5 = TapePerfResult(device="x", params={}, generation=5, predicted_ratio=4.29, compression="on")
    assert r5.possible is not None and r5.possible.mb_s == 600 and "link" in r5.possible.label
    assert r5.percent_of_possible(PhaseResult("write", ios=5, streaming_mb_per_s=380)) == pytest.approx(63.3, abs=0.1)
    r.compression = "off"
    assert r.percent_of_possible(PhaseResult("write", ios=5, streaming_mb_per_s=400)) == pytest.approx(100.0)
    assert TapePerfResult(device="x", params={}).percent_of_possible(PhaseResult("write", mb_s=1, ios=1)) is None


def _phase(rate: float, seconds: float, host_share: float, nbytes: int = 8_000_000_000) -> PhaseResult:
    return PhaseResult("write", bytes=nbytes, ios=100, streaming_mb_per_s=rate, streaming_seconds=seconds,
                       host_share=host_share)


def test_who_limited_the_run() -> None:
    r = TapePerfResult(device="x", params={}, generation=9, predicted_ratio=2.0, compression="on")
    assert r.limiter(_phase(790, 30, 0.01)).who == "drive"  # at what the drive can do with this data
    host = r.limiter(_phase(300, 30, 0.45))
    assert host.who == "host" and "45%" in host.why
    assert r.limiter(_phase(300, 30, 0.05)).who == "drive"  # commands took the time
    assert r.limiter(_phase(300, 0.5, 0.45)).who == "not steady"  # half a second says nothing
    buffered = r.limiter(_phase(1100, 5, 0.0, nbytes=1_000_000_000))  # less than twice the 1 GiB buffer
    assert buffered.who == "not steady" and "buffer" in buffered.why
    r5 = TapePerfResult(device="x", params={}, generation=5, predicted_ratio=4.3, compression="on")
    assert r5.limiter(_phase(595, 30, 0.0)).who == "link"


def test_to_dict_is_json_and_carries_headline_rates() -> None:
    r = TapePerfResult(device="virtual:lto9", params={"pattern": "2:1"})
    ph = PhaseResult("read", bytes=10, ios=2, mb_s=123.0, streaming_mb_per_s=150.0)
    r.phases.append(ph)
    d = json.loads(json.dumps(r.to_dict()))
    assert d["read_mb_s"] == 150.0 and d["read_overall_mb_s"] == 123.0  # the streaming rate heads
    assert d["phases"][0]["stall_count"] == 0 and d["sample_count"] == 0


def test_history_headline_shows_the_phase_rates_only() -> None:
    from app.tapeperf.results import headline

    r = TapePerfResult(device="x", params={}, generation=9, predicted_ratio=2.0, compression="on")
    steady = dict(streaming_seconds=60.0, bytes=24_000_000_000)  # a minute of streaming: a verdict may be given
    r.phases = [PhaseResult("write", ios=9, mb_s=100, streaming_mb_per_s=400, per_second_min_mb_s=50, **steady),
                PhaseResult("read", ios=9, mb_s=200, streaming_mb_per_s=200, **steady)]
    assert headline(r) == (
        "write 400.0 MB/s streaming (overall 100.0 MB/s), 50% of 800 MB/s possible for 2:1 data on LTO-9; "
        "read 200.0 MB/s streaming (overall 200.0 MB/s), 25% of 800 MB/s possible for 2:1 data on LTO-9")


def test_a_virtual_drive_behind_its_model_is_named_as_the_limit_not_the_drive() -> None:
    r = TapePerfResult(device="virtual:lto9", params={}, generation=9, predicted_ratio=2.0, compression="on")
    behind = PhaseResult("write", bytes=4_000_000_000, ios=4000, streaming_mb_per_s=450.0, streaming_seconds=8.0,
                         host_share=0.05, emulator_lag_seconds=3.0)
    lim = r.limiter(behind)
    assert lim.who == "emulator" and "not the drive" in lim.why and "3.0 s" in lim.why
    in_step = PhaseResult("write", bytes=4_000_000_000, ios=4000, streaming_mb_per_s=450.0, streaming_seconds=8.0,
                          host_share=0.05, emulator_lag_seconds=0.1)
    assert r.limiter(in_step).who == "drive"


def test_a_virtual_drive_never_names_the_drive_when_its_model_alone_was_at_the_limit() -> None:
    # Issue 32.3: 740 MB/s of 800 possible with a 4 % lag: the model alone would have run at 770.8 MB/s
    # (96 %), so this machine, not the drive, made the run miss. A stored lag longer than the window
    # (the old figure once read "101 % of the streaming time") is capped at the window.
    r = TapePerfResult(device="virtual:lto9", params={}, generation=9, predicted_ratio=2.0, compression="on")
    short = PhaseResult("write", bytes=4_000_000_000, ios=4000, streaming_mb_per_s=740.0, streaming_seconds=5.4,
                        host_share=0.03, emulator_lag_seconds=0.216)
    lim = r.limiter(short)
    assert lim.who == "emulator" and "not the drive" in lim.why and "770.8 MB/s" in lim.why
    old = PhaseResult("write", bytes=4_000_000_000, ios=4000, streaming_mb_per_s=600.0, streaming_seconds=6.7,
                      host_share=0.42, emulator_lag_seconds=6.8)
    assert r.limiter(old).who == "emulator" and "6.7 s of the 6.7 s" in r.limiter(old).why
    hardware = PhaseResult("write", bytes=4_000_000_000, ios=4000, streaming_mb_per_s=450.0, streaming_seconds=8.0,
                           host_share=0.05)
    assert r.limiter(hardware).who == "drive"  # a real drive (no lag figure) is judged as before


def test_a_virtual_drive_behind_its_model_that_the_host_held_back_names_the_host() -> None:
    # Seen under stress-ng: tape-perf --host-rate 60MB on a virtual LTO-5 read "limited by: this machine"
    # for a 0.9 s lag in 12.5 s, though the model fed the host's own gaps alone ran at 50.7 MB/s of 140.
    r = TapePerfResult(device="virtual:lto5", params={}, generation=5, predicted_ratio=1.0, compression="on")
    held = PhaseResult("write", bytes=587_202_560, ios=560, streaming_mb_per_s=47.0, streaming_seconds=12.5,
                       host_share=0.85, emulator_lag_seconds=0.9)
    lim = r.limiter(held)
    assert lim.who == "host" and "85% of the streaming time passed between commands" in lim.why
    # The same lag with a host that kept up: the machine, never the drive.
    kept_up = PhaseResult("write", bytes=587_202_560, ios=560, streaming_mb_per_s=47.0, streaming_seconds=12.5,
                          host_share=0.05, emulator_lag_seconds=0.9)
    assert r.limiter(kept_up).who == "emulator"


def test_a_virtual_drive_behind_its_model_on_slow_storage_names_the_storage() -> None:
    # Issue 19.2: the cartridge file's I/O took most of the streaming time: the figure is the host's storage's.
    r = TapePerfResult(device="virtual:lto9", params={}, generation=9, predicted_ratio=2.0, compression="on")
    slow_disk = PhaseResult("write", bytes=4_000_000_000, ios=4000, streaming_mb_per_s=310.0, streaming_seconds=12.9,
                            host_share=0.05, emulator_lag_seconds=7.0, emulator_storage_mb_s=312.0,
                            emulator_storage_seconds=12.8)
    lim = r.limiter(slow_disk)
    assert lim.who == "emulator" and lim.why.startswith("the host's storage at 312.0 MB/s, not the drive")
    cpu_bound = PhaseResult("write", bytes=4_000_000_000, ios=4000, streaming_mb_per_s=450.0, streaming_seconds=8.0,
                            host_share=0.05, emulator_lag_seconds=3.0, emulator_storage_mb_s=2000.0,
                            emulator_storage_seconds=2.0)
    assert r.limiter(cpu_bound).why.startswith("this machine, not the drive")


def test_the_headline_says_when_the_machine_not_the_drive_was_the_limit() -> None:
    from app.tapeperf.results import phase_headline

    r = TapePerfResult(device="virtual:lto9", params={}, possible_label="800 MB/s possible for 2:1 data on LTO-9")

    def phase(limited_by: str) -> PhaseResult:  # a stored phase, with the verdict the run gave it
        return PhaseResult("write", streaming_mb_per_s=243.5, mb_s=243.6, percent_of_possible=30.0,
                           limited_by=limited_by, limited_why="why")

    assert phase_headline(r, phase("emulator")).endswith("— limited by this machine, not the drive")
    assert "limited by" not in phase_headline(r, phase("drive"))
    assert phase_headline(r, phase("not steady")).endswith("too short to judge the drive: run longer")
