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
    assert ph.streaming_mb_per_s == pytest.approx(100 / 3.0)
    assert ph.latency_p50 == 0.010 and ph.latency_max == 2.5 and ph.latency_p99 == 0.010
    assert ph.time_to_first_byte == pytest.approx(0.03)
    # Whole seconds 0-1, 1-2, 2-3: 33, 33 and 33 or 34 I/Os (float edges), in MB.
    assert ph.per_second_min_mb_s in (33.0, 34.0) and ph.per_second_max_mb_s in (33.0, 34.0, 35.0)
    assert [(round(s.t, 2), s.latency) for s in ph.stalls] == [(1.5, 2.5)]


def test_jitter_is_not_a_stall() -> None:
    samples = [(0.001 * (i + 1), 65536, 0.0005) for i in range(200)]
    samples[10] = (samples[10][0], 65536, 0.05)  # 100x the median but only 50 ms: a scheduler hiccup
    ph = PhaseResult("write")
    summarize(ph, _log(samples), 0.0, 0.2)
    assert ph.stalls == [] and ph.per_second_min_mb_s is None  # not even one whole second


def test_percent_of_rated_uses_the_predicted_ratio_capped_at_the_compressed_rate() -> None:
    r = TapePerfResult(device="x", params={}, rated_native_mb_s=400, rated_compressed_mb_s=1000, predicted_ratio=2.0,
                       compression="on")
    assert r.percent_of_rated(PhaseResult("write", mb_s=400)) == pytest.approx(50.0)
    r.predicted_ratio = 4.3
    assert r.percent_of_rated(PhaseResult("write", mb_s=500)) == pytest.approx(50.0)  # capped at 1000
    r.compression = "off"
    assert r.percent_of_rated(PhaseResult("write", mb_s=400)) == pytest.approx(100.0)
    assert TapePerfResult(device="x", params={}).percent_of_rated(PhaseResult("write", mb_s=1)) is None


def test_to_dict_is_json_and_carries_headline_rates() -> None:
    r = TapePerfResult(device="virtual:lto9", params={"pattern": "2:1"})
    ph = PhaseResult("read", bytes=10, mb_s=123.0)
    r.phases.append(ph)
    d = json.loads(json.dumps(r.to_dict()))
    assert d["read_mb_s"] == 123.0 and d["phases"][0]["stall_count"] == 0 and d["sample_count"] == 0


def test_history_headline_shows_the_phase_rates_only() -> None:
    from app.history.summary import headline

    r = TapePerfResult(device="x", params={}, rated_native_mb_s=400, rated_compressed_mb_s=1000)
    r.phases = [PhaseResult("write", mb_s=100, streaming_mb_per_s=110, per_second_min_mb_s=50),
                PhaseResult("read", mb_s=200)]
    assert headline("tape-perf", "complete", r.to_dict()) == "write 100.0 MB/s, read 200.0 MB/s"
