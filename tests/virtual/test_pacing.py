"""Real time: the host's wall clock sees the model's rate (one short run)."""
from __future__ import annotations

import os
import time

import pytest

from native.virtual import open_virtual
from native.virtual.estimate import CompressionEstimator
from native.sldc import compressed_size


def test_paced_writes_hold_the_model_rate_within_ten_percent(tmp_path) -> None:
    # A 100 MB/s link and zeros: the interface is the limit; 1 s of writing.
    d = open_virtual(f"virtual:lto9?cartridge={tmp_path / 'p.cart'}&interface=100&buffer=8M&capacity=1G")
    try:
        block = bytes(1 << 20)
        cdb = bytes([0x0A, 0, 0x10, 0, 0, 0])
        start = time.monotonic()
        model_start = d.pacer.now()
        for _ in range(100):
            assert d.execute(cdb, data_out=block).good
        wall = time.monotonic() - start
        model = d.pacer._done - model_start
    finally:
        d.close()
    assert wall == pytest.approx(model, rel=0.10)  # the pacer keeps the wall clock on the model
    assert 100 * (1 << 20) / wall == pytest.approx(100e6, rel=0.10)  # ... and the host sees the link rate


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
