"""Cache honesty in read-data (issue 19, goal 4): the raw O_DIRECT probe of the same files,
the rule that compares it (and a device rate the user gives) with the run's figure, and
the one finding the CLI, the GUI and the PDF show. No timing is asserted: the rule is
tested with injected figures, the probe on real files for the figures it must carry."""
from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from app.cli import EXIT_USAGE, main
from app.disk import ReadDataParams, ReadDataTest
from app.disk import probe as raw_probe
from app.disk.cache import CACHE_FACTOR, cache_assisted, read_cache
from app.disk.kind import read_findings
from app.disk.probe import RawProbe
from app.disk.results import LatencyStats, ReadDataResult, StreamResult
from tests.helpers.kinds import findings
from native import diskio
from native.errors import InvalidParameter


def _run(mb_s: float, probe_mb_s: float | None = None, device: float | None = None, *, evict: bool = True,
         direct: bool = False) -> ReadDataResult:
    """A read-data result whose figures are these: a second of one stream, a second of the probe."""
    probe = RawProbe(files=4, bytes=int(probe_mb_s * 1e6), seconds=1.0) if probe_mb_s is not None else None
    return ReadDataResult("read-data", "/data", "complete", [StreamResult(1, 8, int(mb_s * 1e6), 1.0)],
                          LatencyStats(), {}, True, raw_probe=probe, device_mb_s=device, evict=evict, direct=direct)


@pytest.mark.parametrize("read, raw, assisted", [
    (1366.0, 400.0, True), (570.0, 420.0, True), (450.0, 400.0, False), (400.0, 400.0, False),
    (CACHE_FACTOR * 400.0, 400.0, False), (3000.0, 0.0, False),
])
def test_the_rule(read: float, raw: float, assisted: bool) -> None:
    assert cache_assisted(read, raw) is assisted


def test_a_read_far_above_the_probe_is_served_from_a_cache_and_shows_both_figures() -> None:
    f = read_cache(_run(1366.0, probe_mb_s=420.0))
    assert f is not None and f.tone == "warn" and f.topic == "Disk read cache"
    assert "Probably served from a cache" in f.words and "1,366 MB/s" in f.words and "420.0 MB/s" in f.words
    assert "O_DIRECT probe of 4 files" in f.detail and "hypervisor" in f.detail and f.action


def test_with_eviction_off_the_cache_named_is_this_machines_own() -> None:
    f = read_cache(_run(3000.0, probe_mb_s=400.0, evict=False, direct=False))
    assert f is not None and f.tone == "warn" and "page cache (eviction was off)" in f.detail


def test_the_device_rate_is_the_reference_when_the_probe_is_served_from_the_cache_too() -> None:
    """A hypervisor's cache of the disk image serves O_DIRECT as well (this VM): the probe is
    as fast as the run, and only the device's own rate shows the cache."""
    f = read_cache(_run(1600.0, probe_mb_s=2100.0, device=400.0))
    assert f is not None and f.tone == "warn"
    assert "400.0 MB/s raw" in f.words and "device's own rate" in f.detail and "2,100 MB/s" in f.detail


def test_a_read_at_the_raw_figure_says_so_and_names_what_the_probe_cannot_see() -> None:
    f = read_cache(_run(380.0, probe_mb_s=400.0))
    assert f is not None and f.tone == "good" and "No sign of a cache" in f.words
    assert "give the device's rate" in f.detail
    with_device = read_cache(_run(380.0, probe_mb_s=400.0, device=420.0))
    assert with_device is not None and "give the device's rate" not in with_device.detail


def test_no_reference_no_finding_and_the_kind_lists_it_after_the_rate() -> None:
    assert read_cache(_run(500.0)) is None
    assert read_cache(_run(0.0, probe_mb_s=420.0)) is None  # nothing read: nothing to compare
    topics = [f.topic for f in read_findings(_run(1366.0, probe_mb_s=420.0))]
    assert topics == ["Disk read rate", "Disk read cache"]


def test_device_rate_parameter() -> None:
    assert ReadDataParams.from_values({"target": "/x", "device_rate": "400MB"}).device_mb_s == 400.0
    assert ReadDataParams.from_values({"target": "/x", "device_rate": "1.2GB/s"}).device_mb_s == 1200.0
    assert ReadDataParams.from_values({"target": "/x"}).device_mb_s is None  # left out (a blank GUI field is left out)
    with pytest.raises(InvalidParameter, match="is empty"):  # given but blank: a mistake, not "the default"
        ReadDataParams.from_values({"target": "/x", "device_rate": ""})
    with pytest.raises(InvalidParameter):
        ReadDataParams.from_values({"target": "/x", "device_rate": "fast"})
    with pytest.raises(InvalidParameter):
        ReadDataParams.from_values({"target": "/x", "device_rate": "0"}).validate()


def test_pick_spreads_over_the_tree_and_leaves_small_files_out() -> None:
    files = [(f"f{i}", 64 << 20) for i in range(40)] + [("small", 4096)]
    picked = raw_probe.pick(files, budget=256 << 20)
    assert picked[0] == "f0" and picked[-1] == "f39" and len(picked) == 4 and "small" not in picked
    assert raw_probe.pick([("a", 1000), ("b", 5000)]) == []


def _tree(root: Path) -> int:
    """Real files: three of 2 MiB (probed), and small ones (read, never probed)."""
    (root / "d").mkdir(parents=True)
    for i in range(3):
        (root / "d" / f"big{i}.dat").write_bytes(os.urandom(2 << 20))
    for i in range(5):
        (root / f"small{i}.dat").write_bytes(os.urandom(3000))
    return 3 * (2 << 20) + 5 * 3000


def test_read_data_json_carries_the_probe_and_the_finding(disk_path: Path, capsys) -> None:
    if not diskio.NATIVE or not diskio.HAVE_O_DIRECT:
        pytest.skip("no native O_DIRECT reads on this platform")
    total = _tree(disk_path / "t")
    assert main(["read-data", str(disk_path / "t"), "--streams", "2", "--device-rate", "400MB", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["total_bytes"] == total and out["device_mb_s"] == 400.0
    probe = out["raw_probe"]
    assert probe is not None, out["raw_probe_note"]
    assert probe["method"] == "O_DIRECT" and probe["files"] == 3 and probe["bytes"] == 3 * (2 << 20)
    assert probe["streams"] == 2 and probe["mb_s"] > 0
    # the finding is computed from the stored result, the way show, the GUI and the PDF get it
    cache = findings("read-data", out)[-1]
    assert cache.topic == "Disk read cache" and cache.tone in ("good", "warn")
    assert cache.tone == ("warn" if cache_assisted(out["mb_s"], min(probe["mb_s"], 400.0)) else "good")
    assert main(["show", str(out["history_run_id"])]) == 0
    shown = capsys.readouterr().out
    assert "raw read (O_DIRECT" in shown and "cache: " in shown


def test_no_probe_when_asked_not_to_or_when_no_file_is_big_enough(disk_path: Path) -> None:
    _tree(disk_path / "t")
    skipped = ReadDataTest(ReadDataParams(str(disk_path / "t"), raw_probe=False)).run()
    assert skipped.raw_probe is None and skipped.raw_probe_note == ""
    for f in (disk_path / "t" / "d").iterdir():
        f.unlink()
    small = ReadDataTest(ReadDataParams(str(disk_path / "t"))).run()
    assert small.raw_probe is None and "no file of 1 MiB or more to probe" ==  small.raw_probe_note
    assert small.to_dict()["raw_probe"] is None


def test_bad_device_rate_is_one_line_and_the_usage_exit(tmp_path: Path, capsys) -> None:
    assert main(["read-data", str(tmp_path), "--device-rate", "fast"]) == EXIT_USAGE
    err = capsys.readouterr().err
    assert "device rate 'fast'" in err and "Traceback" not in err
