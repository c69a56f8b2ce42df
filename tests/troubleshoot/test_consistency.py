"""Recommendations that never contradict the verdict (issue 11.4): each case the issue names."""
from __future__ import annotations

import itertools

import pytest

from app.troubleshoot import DriveContext, Figure, Measurements, TroubleshootInput, Workload, diagnose

F = Figure
ULTRIUM_960 = DriveContext(generation=3)
PARALLEL_ADVICE = ("single-stream-slower-than-tape", "single-stream-below-streaming-floor",
                   "multiplexed-still-below-streaming-floor")


def _ids(dx) -> set[str]:  # type: ignore[no-untyped-def]
    return {r.id for r in dx.recommendations}


def test_table3_network_limit_gets_no_multiplexing_advice() -> None:
    # Table 3: tape 154, disk 262/105, the backup over Gigabit Ethernet at 104 MB/s.
    dx = diagnose(TroubleshootInput(Measurements(tape_write=F(154), disk_read_single=F(105), disk_read_parallel=F(262)),
                                    Workload(backup_mb_s=104, link="1GbE"), ULTRIUM_960))
    assert dx.table("backup").bottleneck == "network"
    assert "network-near-link-limit" in _ids(dx)
    assert not _ids(dx) & set(PARALLEL_ADVICE)


def test_table6_small_file_restore_on_windows_is_advised_one_stream() -> None:
    inp = dict(measurements=Measurements(tape_read=F(156), disk_write_single=F(19.94)), drive=ULTRIUM_960)
    windows = diagnose(TroubleshootInput(workload=Workload(backup_mb_s=22.98, restore_mb_s=3.38, streams=1,
                                                           small_files=True, os="windows"), **inp))
    assert "small-files-restore-windows-single-stream" in _ids(windows)
    assert not _ids(windows) & {"small-files-restore-file-system-bound", "restore-slower-than-backup-small-files"}
    linux = diagnose(TroubleshootInput(workload=Workload(backup_mb_s=22.98, restore_mb_s=3.38, streams=1,
                                                         small_files=True, os="linux"), **inp))
    assert "small-files-restore-windows-single-stream" not in _ids(linux)
    assert "small-files-restore-file-system-bound" in _ids(linux)


def test_an_application_far_below_the_disk_is_never_said_to_run_close_to_it() -> None:
    # --tape-write 154 --disk-read 262 --disk-read-parallel 152 --backup 4 --disk-write-parallel 105
    dx = diagnose(TroubleshootInput(
        Measurements(tape_write=F(154), disk_read_single=F(262), disk_read_parallel=F(152), disk_write_parallel=F(105)),
        Workload(backup_mb_s=4), ULTRIUM_960))
    reasons = " ".join(r.reason for r in dx.recommendations)
    assert "close to" not in reasons
    assert not _ids(dx) & {"disk-limits-the-backup", "disk-limits-the-restore"}
    app = next(r for r in dx.recommendations if r.id == "application-is-the-bottleneck")
    assert "The tape and disk tests" in app.reason and "network" not in app.reason  # no network figure given


@pytest.mark.parametrize("streams", [2, 4, 8])
def test_several_streams_never_get_told_to_use_parallel_streams(streams: int) -> None:
    dx = diagnose(TroubleshootInput(Measurements(tape_write=F(154), disk_read_single=F(105), disk_read_parallel=F(262)),
                                    Workload(backup_mb_s=100, streams=streams), ULTRIUM_960))
    assert "single-stream-slower-than-tape" not in _ids(dx)


def test_a_restore_finding_cites_no_backup_table_and_an_unmeasured_disk_is_said_so() -> None:
    restore_only = diagnose(TroubleshootInput(Measurements(tape_read=F(156), disk_write_single=F(300)),
                                              Workload(restore_mb_s=150), ULTRIUM_960))
    assert "tape-is-the-restore-bottleneck" in _ids(restore_only)
    assert all("Table 1" not in r.source for r in restore_only.recommendations)
    no_disk = diagnose(TroubleshootInput(Measurements(tape_write=F(156)), Workload(backup_mb_s=150), ULTRIUM_960))
    assert "tape-slowest-disk-not-measured" in _ids(no_disk)
    assert all("Nothing upstream" not in r.advice for r in no_disk.recommendations)


def test_a_bottleneck_slower_than_what_the_application_achieved_is_not_named() -> None:
    dx = diagnose(TroubleshootInput(Measurements(tape_read=F(156), disk_write_single=F(30)),
                                    Workload(restore_mb_s=50), ULTRIUM_960))
    table = dx.table("restore")
    assert table.bottleneck is None and "repeat that test" in table.verdict
    assert "test-under-measured" in _ids(dx)


def test_over_a_grid_the_advice_never_contradicts_the_tables() -> None:
    rates = (20.0, 100.0, 300.0)
    for tape, disk, achieved, streams, link in itertools.product(rates, rates, (5.0, 90.0), (1, 4, None), (None, "1GbE")):
        dx = diagnose(TroubleshootInput(Measurements(tape_write=F(tape), disk_read_single=F(disk)),
                                        Workload(backup_mb_s=achieved, streams=streams, link=link), ULTRIUM_960))
        ids, table = _ids(dx), dx.table("backup")
        if streams and streams > 1 or table.bottleneck == "network":
            assert not ids & {"single-stream-slower-than-tape"}, (tape, disk, achieved, streams, link)
        if table.bottleneck != "tape":
            assert "tape-is-the-backup-bottleneck" not in ids
        if "disk-limits-the-backup" in ids:
            assert table.share is not None and table.share >= 0.65
        if table.bottleneck is not None and table.limit_mb_s is not None:
            assert achieved <= table.limit_mb_s * 1.10  # never a bottleneck slower than what was achieved


def test_a_named_network_bottleneck_always_gets_its_advice() -> None:
    # 95 of 117.5 MB/s (81 %): the table names the network; the advice must address it.
    dx = diagnose(TroubleshootInput(Measurements(tape_write=F(544), disk_read_parallel=F(1792)),
                                    Workload(backup_mb_s=95, streams=1, link="1GbE"), DriveContext(generation=9)))
    assert dx.table("backup").bottleneck == "network"
    assert "network-near-link-limit" in _ids(dx)


def test_every_named_bottleneck_has_advice_over_a_grid() -> None:
    rates = (20.0, 100.0, 300.0)
    for tape, disk, achieved, link in itertools.product(rates, rates, (15.0, 90.0, 250.0), (None, "1GbE")):
        dx = diagnose(TroubleshootInput(Measurements(tape_write=F(tape), disk_read_single=F(disk)),
                                        Workload(backup_mb_s=achieved, streams=1, link=link), ULTRIUM_960))
        if dx.table("backup").bottleneck is not None:
            assert dx.recommendations, (tape, disk, achieved, link, dx.table("backup").verdict)
