"""The kernel's tape statistics as the watch reads them: fake sysfs trees for what a test machine's
kernel will not do on request (counters that wrap or restart, a drive that vanishes, a refusal)."""
from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.watch.busy import BusyAccount, JobWindow, interval
from app.watch.node import SystemPaths, resolve
from app.watch.stats import COUNTERS, StatsReader, TapeStats, counter_delta, delta
from native.errors import DevicePermissionDenied, ParseError, WatchUnavailable
from tests.helpers.fakesys import SCSI, FakeKernel, build_tree
from tests.helpers.unprivileged import run_unprivileged

ROOT = Path(__file__).resolve().parents[1]


def _stats(t: float, **values: int) -> TapeStats:
    return TapeStats(t, **{n: values.get(n, 0) for n in COUNTERS})


@pytest.fixture
def tree(tmp_path: Path) -> tuple[SystemPaths, FakeKernel]:
    paths = build_tree(tmp_path)
    kernel = FakeKernel(paths)
    kernel.publish()
    return paths, kernel


def test_the_reader_reads_all_ten_counters(tree: tuple[SystemPaths, FakeKernel]) -> None:
    paths, kernel = tree
    kernel.base.update(write_byte_cnt=1 << 40, write_cnt=7, io_ns=123_456_789, in_flight=1, resid_cnt=2)
    kernel.publish()
    got = StatsReader(resolve("nst0", paths).stats_dir).read(5.0)
    assert got is not None and got.t == 5.0
    assert (got.write_byte_cnt, got.write_cnt, got.io_ns, got.in_flight, got.resid_cnt) == (1 << 40, 7, 123_456_789, 1, 2)


def test_a_command_completing_between_two_files_is_not_counted_half(tree: tuple[SystemPaths, FakeKernel],
                                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    """The files are read one after the other: a WRITE that completes after ``write_byte_cnt`` was read and before
    ``write_cnt`` is would be in the count and not in the bytes (a window's record size one record off: "256.3 KiB"
    for 256 KiB records, seen in the real-kernel test). The reader keeps a reading no completion fell into."""
    paths, kernel = tree
    record = 256 * 1024
    kernel.base.update(write_byte_cnt=100 * record, write_cnt=100)
    kernel.publish()
    reader = StatsReader(resolve("nst0", paths).stats_dir)
    real_pread = os.pread
    reads = {"n": 0}

    def pread(fd: int, length: int, offset: int) -> bytes:
        reads["n"] += 1
        if reads["n"] == 2:  # write_byte_cnt has just been read: the drive completes one more WRITE
            kernel.base.update(write_byte_cnt=101 * record, write_cnt=101)
            kernel.publish()
        return real_pread(fd, length, offset)

    monkeypatch.setattr(os, "pread", pread)
    got = reader.read(1.0)
    assert got is not None and reads["n"] > len(COUNTERS)  # it read again
    assert (got.write_byte_cnt, got.write_cnt) == (101 * record, 101)


def test_a_counter_that_grows_wraps_or_restarts() -> None:
    assert counter_delta(100, 250) == (150, False)
    # near the top of 64 bits and then small: it wrapped, and grew by the distance around
    assert counter_delta((1 << 64) - 10, 5) == (15, False)
    # printed signed (the kernel's atomic64 is signed): from the largest positive to negative
    assert counter_delta((1 << 63) - 1, -(1 << 63)) == (1, False)
    # an ordinary counter that goes back: the drive was attached again; it counted 40 since
    assert counter_delta(5000, 40) == (40, True)


def test_after_a_restart_every_counter_counts_from_zero() -> None:
    """One counter going back means a new st device: the ones that happen to be higher are from zero too."""
    before = _stats(0.0, write_byte_cnt=10_000_000, write_cnt=40, io_ns=9_000_000_000)
    after = _stats(1.0, write_byte_cnt=262_144, write_cnt=50, io_ns=4_000_000)  # write_cnt higher, but a new device
    d = delta(before, after)
    assert d.restarted and (d.write_bytes, d.write_cmds, d.io_ns) == (262_144, 50, 4_000_000)


def test_a_vanished_drive_reads_as_a_gap_not_an_error(tree: tuple[SystemPaths, FakeKernel]) -> None:
    paths, kernel = tree
    reader = StatsReader(resolve("nst0", paths).stats_dir)
    kernel.detach()
    assert reader.read(1.0) is None
    kernel.attach()
    assert reader.read(2.0) is not None


def test_a_counter_that_is_not_a_number_is_one_clear_error(tree: tuple[SystemPaths, FakeKernel]) -> None:
    paths, _ = tree
    stats_dir = resolve("nst0", paths).stats_dir
    (stats_dir / "io_ns").write_text("garbage\n")
    with pytest.raises(ParseError, match="io_ns holds 'garbage', not a number"):
        StatsReader(stats_dir).read(0.0)


def test_an_unreadable_counter_is_one_line_with_the_fix(tree: tuple[SystemPaths, FakeKernel]) -> None:
    """Mode 000 on the statistics, read by a process the file modes apply to (root's bypass dropped)."""
    paths, _ = tree
    stats_dir = resolve("nst0", paths).stats_dir
    (stats_dir / "write_cnt").chmod(0)
    code = ("from pathlib import Path; from app.watch.stats import StatsReader\n"
            f"StatsReader(Path({str(stats_dir)!r})).read(0.0)\n")
    if os.geteuid() == 0:
        proc = run_unprivileged([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    else:
        proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT)
    assert proc.returncode != 0
    assert "DevicePermissionDenied" in proc.stderr and "permission denied" in proc.stderr, proc.stderr
    assert "run watch as root, or make" in proc.stderr, proc.stderr
    if os.geteuid() != 0:  # in-process too, where the test itself is refused
        with pytest.raises(DevicePermissionDenied):
            StatsReader(stats_dir).read(0.0)


def test_the_drive_resolves_by_name_or_by_its_sg_node(tree: tuple[SystemPaths, FakeKernel]) -> None:
    paths, _ = tree
    for name in ("nst0", "st0", "/dev/nst0", "sg1"):
        node = resolve(name, paths)
        assert node.stats_dir.name == "stats" and node.scsi_address == "2:0:0:1", name
        assert node.sg == "/dev/sg1" and node.sg_rdev == os.makedev(21, 1)
        assert node.tape_rdevs == {os.makedev(9, 0), os.makedev(9, 128)}


@pytest.mark.parametrize("device, words", [
    ("iscsi://127.0.0.1/iqn.2026-11.org.tapediag:x/1", "libiscsi from user space"),
    ("virtual:lto9", "tapediag's virtual drive"),
    ("nst7", "is no st tape drive this kernel knows"),
])
def test_what_the_kernel_keeps_no_statistics_for_is_refused(tree: tuple[SystemPaths, FakeKernel], device: str,
                                                            words: str) -> None:
    paths, _ = tree
    with pytest.raises(WatchUnavailable, match=words):
        resolve(device, paths)


def test_a_kernel_without_tape_statistics_is_refused(tmp_path: Path) -> None:
    paths = build_tree(tmp_path, stats=False)
    with pytest.raises(WatchUnavailable, match="keeps no tape statistics .* Linux 4.2"):
        resolve("nst0", paths)
    with pytest.raises(WatchUnavailable, match="no /sys/class/scsi_tape"):
        resolve("nst0", SystemPaths(sys=tmp_path / "nothing"))


def test_a_command_spanning_several_samples_counts_as_busy_throughout() -> None:
    """io_ns grows only when a command completes: a 1 s command sampled every 0.2 s is busy in all five
    intervals, and the 0.8 s already counted is not counted again when it completes."""
    account, window = BusyAccount(), JobWindow()
    samples = [_stats(0.2 * i, in_flight=1) for i in range(5)] + [_stats(1.0, io_ns=1_000_000_000, other_cnt=1)]
    busy = []
    for a, b in zip(samples, samples[1:]):
        d = delta(a, b)
        iv = interval(b.t, d, account.attribute(d, a.in_flight, b.in_flight), b.in_flight)
        window.add(iv)
        busy.append(round(iv.busy_s, 6))
    assert busy == [0.2, 0.2, 0.2, 0.2, 0.2]
    assert window.close(account.leftover()).busy_s == pytest.approx(1.0)


def test_busy_time_beyond_an_interval_is_carried_not_lost() -> None:
    account = BusyAccount()
    d = delta(_stats(0.0), _stats(0.2, io_ns=300_000_000, write_cnt=1))
    assert account.attribute(d, 0, 0) == pytest.approx(0.2)
    d = delta(_stats(0.2, io_ns=300_000_000, write_cnt=1), _stats(0.4, io_ns=300_000_000, write_cnt=1))
    assert account.attribute(d, 0, 0) == pytest.approx(0.1)
    assert account.leftover() == pytest.approx(0.0)


def test_the_fake_tree_is_laid_out_as_the_kernel_lays_it_out(tree: tuple[SystemPaths, FakeKernel]) -> None:
    paths, _ = tree
    assert (paths.sys / "class" / "scsi_tape" / "nst0" / "device").resolve() == (paths.sys / SCSI).resolve()
