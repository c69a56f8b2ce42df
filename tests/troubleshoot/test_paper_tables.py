"""The bottleneck analysis against the white paper's own Tables 1-10.

Each case types in the figures of one table (HP Data Protector 6.0 performance white
paper, "Evaluating Data Protector performance") and checks the component the paper
names as the bottleneck, row by row where the paper marks rows.
"""
from __future__ import annotations

import pytest

from app.troubleshoot import DriveContext, Figure, Measurements, TroubleshootInput, Workload, diagnose

F = Figure
ULTRIUM_960 = DriveContext(generation=3)  # the paper's drive: HP Ultrium 960 (LTO-3)


def _ids(dx) -> set[str]:
    return {r.id for r in dx.recommendations}


def _yes_rows(table) -> list[str]:
    return [r.test for r in table.rows if r.bottleneck]


def test_table1_local_backup_typical_files_tape_is_the_bottleneck() -> None:
    for tape, single, parallel, dp in ((154, 105, 262, 152), (159, 131, 266, 156)):  # Windows, HP-UX
        dx = diagnose(TroubleshootInput(
            Measurements(tape_write=F(tape), disk_read_single=F(single), disk_read_parallel=F(parallel)),
            Workload(backup_mb_s=dp, streams=5), ULTRIUM_960))
        table = dx.table("backup")
        assert table.bottleneck == "tape"
        assert _yes_rows(table) == ["Tape write"]
        assert [r.bottleneck_text for r in table.rows] == ["Yes (Tape)", "No", "No", "No"]
        assert "tape-is-the-backup-bottleneck" in _ids(dx)
        assert "application-is-the-bottleneck" not in _ids(dx)
        # Already 5 streams: "back up with parallel streams" would contradict the input (issue 11.4).
        assert "single-stream-slower-than-tape" not in _ids(dx)
        # The paper's recommendation for one stream: it cannot fully use the drive -> multiplexing.
        one = diagnose(TroubleshootInput(
            Measurements(tape_write=F(tape), disk_read_single=F(single), disk_read_parallel=F(parallel)),
            Workload(backup_mb_s=single * 0.95, streams=1), ULTRIUM_960))
        assert "single-stream-slower-than-tape" in _ids(one)


@pytest.mark.parametrize(("tape", "single", "parallel", "dp"), [(154.00, 10.59, 29.02, 22.98), (158.54, 24.41, 53.08, 48.76)])
def test_table2_local_backup_small_files_file_system_is_the_bottleneck(tape, single, parallel, dp) -> None:
    dx = diagnose(TroubleshootInput(
        Measurements(tape_write=F(tape), disk_read_single=F(single), disk_read_parallel=F(parallel)),
        Workload(backup_mb_s=dp, streams=4, small_files=True, file_count=5_535_750), ULTRIUM_960))
    table = dx.table("backup")
    assert table.bottleneck == "disk"
    assert _yes_rows(table) == ["Disk read, single stream", "Disk read, parallel streams"]
    assert table.limit_mb_s == parallel
    assert "small-files-backup-file-system-bound" in _ids(dx)
    assert "tape-is-the-backup-bottleneck" not in _ids(dx)
    # Below the Ultrium 960's streaming floor (27 MB/s x 2:1 = 54) even multiplexed.
    assert dx.facts["streaming_floor_mb_s"] == 54
    assert "multiplexed-still-below-streaming-floor" in _ids(dx)


@pytest.mark.parametrize(("tape", "single", "parallel", "dp"), [(154.00, 105.25, 262.24, 108.29), (158.54, 130.58, 265.75, 111.84)])
def test_table3_network_backup_typical_files_network_is_the_bottleneck(tape, single, parallel, dp) -> None:
    dx = diagnose(TroubleshootInput(
        Measurements(tape_write=F(tape), disk_read_single=F(single), disk_read_parallel=F(parallel)),
        Workload(backup_mb_s=dp, streams=4, link="1GbE"), ULTRIUM_960))
    table = dx.table("backup")
    assert table.bottleneck == "network"
    assert _yes_rows(table) == ["Network (Gigabit Ethernet)"]
    assert "network-near-link-limit" in _ids(dx)
    rec = next(r for r in dx.recommendations if r.id == "network-near-link-limit")
    assert "117.5 MB/s" in rec.reason and f"{dp:.1f} MB/s" in rec.reason


def test_table4_network_backup_small_files_file_system_is_the_bottleneck() -> None:
    # The paper's text: "The file systems were the bottleneck for both operating systems"
    # (its table marks the DP rows "Network"; 22.25 MB/s is far below the 1 GbE limit).
    dx = diagnose(TroubleshootInput(
        Measurements(tape_write=F(154.00), disk_read_single=F(10.59), disk_read_parallel=F(29.02)),
        Workload(backup_mb_s=22.25, streams=4, link="1GbE", small_files=True), ULTRIUM_960))
    assert dx.table("backup").bottleneck == "disk"
    assert "network-near-link-limit" not in _ids(dx)
    assert "small-files-backup-file-system-bound" in _ids(dx)


@pytest.mark.parametrize(("tape", "single", "parallel", "dp"), [(156.00, 133.98, 164.67, 145.07), (160.71, 166.28, 193.07, 153.30)])
def test_table5_local_restore_typical_files_tape_is_the_bottleneck(tape, single, parallel, dp) -> None:
    dx = diagnose(TroubleshootInput(
        Measurements(tape_read=F(tape), disk_write_single=F(single), disk_write_parallel=F(parallel)),
        Workload(restore_mb_s=dp, streams=4), ULTRIUM_960))
    table = dx.table("restore")
    assert dx.table("backup") is None
    assert table.bottleneck == "tape" and _yes_rows(table) == ["Tape read"]
    assert "tape-is-the-restore-bottleneck" in _ids(dx)


@pytest.mark.parametrize(("tape", "single", "dp", "link", "backup"), [
    (156.00, 19.94, 3.38, None, 22.98), (160.71, 51.41, 20.76, None, 48.76),  # Table 6 (backup: Table 2)
    (156.00, 19.94, 3.66, "1GbE", 22.25), (160.71, 51.41, 20.18, "1GbE", 48.89),  # Table 8 (backup: Table 4)
])
def test_tables6_and_8_restore_small_files_file_system_is_the_bottleneck(tape, single, dp, link, backup) -> None:
    dx = diagnose(TroubleshootInput(
        Measurements(tape_read=F(tape), disk_write_single=F(single)),
        Workload(backup_mb_s=backup, restore_mb_s=dp, streams=1, small_files=True, link=link), ULTRIUM_960))
    table = dx.table("restore")
    assert table.bottleneck == "disk"
    assert _yes_rows(table) == ["Disk write, single stream"]
    assert {"restore-slower-than-backup-small-files", "small-files-restore-file-system-bound"} <= _ids(dx)


def test_table6_without_small_files_blames_the_application() -> None:
    # Same figures, but typical files: every component is faster than 3.38 MB/s.
    dx = diagnose(TroubleshootInput(
        Measurements(tape_read=F(156.00), disk_write_single=F(19.94)),
        Workload(restore_mb_s=3.38, streams=1, small_files=False), ULTRIUM_960))
    table = dx.table("restore")
    assert table.bottleneck == "application"
    assert [r.bottleneck_text for r in table.rows][-1] == "Yes (Backup application)"
    assert "application-is-the-bottleneck" in _ids(dx)


@pytest.mark.parametrize(("tape", "single", "parallel", "dp"), [(156.00, 133.98, 164.67, 104.96), (160.71, 130.58, 265.75, 104.22)])
def test_table7_network_restore_typical_files_network_is_the_bottleneck(tape, single, parallel, dp) -> None:
    dx = diagnose(TroubleshootInput(
        Measurements(tape_read=F(tape), disk_write_single=F(single), disk_write_parallel=F(parallel)),
        Workload(restore_mb_s=dp, streams=4, link="1GbE"), ULTRIUM_960))
    assert dx.table("restore").bottleneck == "network"
    assert "network-near-link-limit" in _ids(dx)


def test_table9_exchange_backup_tape_is_the_bottleneck() -> None:
    # DP to the NULL device stands in for the source read (single 226.99, parallel 289.55).
    dx = diagnose(TroubleshootInput(
        Measurements(tape_write=F(154.00), disk_read_single=F(226.99), disk_read_parallel=F(289.55)),
        Workload(backup_mb_s=138.70, streams=2), ULTRIUM_960))
    assert dx.table("backup").bottleneck == "tape"
    assert dx.facts["best_app_share_pct"] == 90


def test_table10_exchange_restore_tape_is_the_bottleneck() -> None:
    dx = diagnose(TroubleshootInput(Measurements(tape_read=F(156.00)), Workload(restore_mb_s=109.61, streams=2),
                                    ULTRIUM_960))
    table = dx.table("restore")
    assert table.bottleneck == "tape" and round(table.share, 2) == 0.70


def test_unmeasured_components_are_never_cleared_of_blame() -> None:
    # Only the network is known on the backup side: the slow backup cannot be pinned on the application.
    dx = diagnose(TroubleshootInput(Measurements(), Workload(backup_mb_s=22.25, streams=1, link="1GbE"), ULTRIUM_960))
    table = dx.table("backup")
    assert table.bottleneck is None
    assert "measure the tape write and the disk read" in table.verdict
    assert "application-is-the-bottleneck" not in _ids(dx)
