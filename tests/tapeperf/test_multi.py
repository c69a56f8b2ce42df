"""`tapediag tape-perf` on several drives at once: virtual drives, tgtd LUNs behind one target, bad input.

Real drives throughout (the virtual LTO-9 without its pacing, or paced behind a slow link where drives
must stream at the same time; tgtd on 127.0.0.1); the one test with
hand-made figures is the verdict's arithmetic, which needs a shared path this machine does not have.
"""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.cli import EXIT_FAILED, EXIT_OK, EXIT_REFUSED, EXIT_USAGE, main
from app.drive import TapeDrive
from app.events import Event, Sample, SampleBatch
from app.history import History
from app.runs.stored import VERSION_KEY, load
from app.runs.typed import from_dict
from app.tapeperf import TapePerfParams
from app.identity import IDENTITIES
from app.execute import open_drives
from app.tapeperf.multi import MultiDriveTest, MultiParams
from app.tapeperf.multiresult import DriveRun, MultiTapePerfResult, aggregate
from app.tapeperf.multiresult import headline as multi_headline
from app.tapeperf.results import STEADY_SECONDS, PhaseResult, TapePerfResult
from tests.helpers.tgt import TgtTarget, show_blocks
from tests.tapeperf.conftest import POOL, blank_at_bot, paced


def virtual(tmp_path: Path, name: str) -> str:
    return f"virtual:lto9?realtime=0&cartridge={tmp_path / name}.cart"


def blank(device: str) -> bool:
    with TapeDrive.open(device) as drive:
        return blank_at_bot(drive)


def test_two_virtual_drives_from_the_cli_round_trip_through_the_history(tmp_path: Path, capsys) -> None:
    devices = [paced(tmp_path, "a"), paced(tmp_path, "b")]
    code = main(["tape-perf", *devices, "--size", "48M", "--alone", "16M", "--direction", "write,read", "--verify",
                 "--json"])
    out = capsys.readouterr()
    assert code == EXIT_OK, out.err
    printed = json.loads(out.out)
    assert printed["devices"] == devices and printed["status"] == "complete"
    assert [p["phase"] for p in printed["phases"]] == ["write", "read"]
    for d in printed["drives"]:
        assert [p["bytes"] for p in d["alone"]["phases"]] == [16 << 20, 16 << 20]
        assert [p["bytes"] for p in d["together"]["phases"]] == [48 << 20, 48 << 20]
        assert d["together"]["phases"][1]["verified_blocks"] == 48 * 4 and d["together"]["phases"][1]["verify_errors"] == 0
    for ph in printed["phases"]:  # both drives streamed at once, and their sum alone is known
        assert all(ph[k] is not None and ph[k] > 0 for k in ("mb_s", "seconds", "sum_alone_mb_s", "ratio")), ph
    labels = [c["label"] for c in printed["curves"]]
    assert labels == ["drive 1", "drive 2", "all 2 drives together"]
    assert all(len(c["t"]) == len(c["mb_s"]) > 0 for c in printed["curves"])

    with History.open() as hist:
        run = hist.get_run(printed["run_id"])
    assert run.kind == "tape-perf-multi" and run.status == "complete" and run.device == ", ".join(devices)
    assert {s.stream for s in run.samples} == {0, 1}
    assert {s.phase for s in run.samples} == {"write", "read", "write alone", "read alone"}
    typed = from_dict(MultiTapePerfResult, run.results)
    again = typed.to_dict()
    for stored, back in ((d, e) for d, e in zip(run.results["drives"], again["drives"])):
        for stage in ("alone", "together"):  # the samples stay in the history's table, not in the result
            assert back[stage].pop("sample_count") == 0 and stored[stage].pop("sample_count") > 0
    # typed and back: the same (the devices' identities are stored beside the result, by the recorder: app.identity)
    assert again == {k: v for k, v in run.results.items() if k not in (IDENTITIES, VERSION_KEY)}
    assert [i["device"] for i in run.results[IDENTITIES]] == devices
    assert isinstance(typed.drives[0].together, TapePerfResult) and typed.drives[1].alone is not None
    loaded = load(run)  # as every reader reads it: typed, through the one loader
    assert loaded.headline().startswith("2 drives: write together")
    text = loaded.text()
    assert text is not None and "drive 2: " in text and "write together at" in text
    assert [f.topic for f in loaded.findings()] == ["Drives together (write)", "Drives together (read)"]
    series = loaded.series()
    assert series is not None and len(series) == 3


def test_the_report_credits_no_one_drive_with_a_run_on_two(tmp_path: Path, capsys) -> None:
    """An LTO-9 and an LTO-8 together: no device section may call the pair 'LTO-9' (the first
    generation found in the run), and the run's own rows name each drive."""
    from app.report import build_report

    devices = [virtual(tmp_path, "a"), f"virtual:lto8?realtime=0&cartridge={tmp_path / 'b'}.cart"]
    assert main(["tape-perf", *devices, "--size", "16M", "--alone", "0", "--json"]) == EXIT_OK
    run_id = json.loads(capsys.readouterr().out)["run_id"]
    with History.open() as hist:
        report = build_report(hist, [run_id])
    assert not any(f.label == "Generation" for d in report.devices for f in d.identity)
    rows = {f.label: f.value for f in report.runs[0].results}
    assert "LTO-9" in rows["Drive 1"] and "LTO-8" in rows["Drive 2"]


def test_four_virtual_drives_each_write_their_own_data(tmp_path: Path) -> None:
    devices = [paced(tmp_path, f"d{i}") for i in range(4)]
    test = TapePerfParams(direction="write+read", mode="variable", block_size=256 << 10, io_size=256 << 10,
                          size=24 << 20, verify=True, seed=7)
    events: list[Event] = []
    drives = open_drives(devices)
    try:
        result = MultiDriveTest(drives, MultiParams(tuple(devices), test, 8 << 20, None), pool_bytes=POOL).run(
            events.append)
    finally:
        for drive in drives:
            drive.close()
    assert result.status == "complete", result.error
    assert [d.device for d in result.drives] == devices
    for d in result.drives:
        write, read = d.together.phase("write"), d.together.phase("read")
        assert write is not None and read is not None and d.alone is not None
        assert write.bytes == read.bytes == 24 << 20 and read.verify_errors == 0 and read.verified_blocks == 96
        assert d.together.settings.startswith("drive settings")  # each engine put its drive back
    # Every drive's samples reached the sink tagged with its stream; the together phases overlapped.
    streams = {s.stream for e in events if isinstance(e, SampleBatch) for s in e.samples}
    assert streams == {0, 1, 2, 3}
    agg = result.phase("write")
    assert agg is not None and agg.mb_s is not None and agg.seconds > 0 and agg.sum_alone_mb_s is not None
    starts = [d.together.phase("write").time_to_first_byte for d in result.drives]  # type: ignore[union-attr]
    assert all(s is not None for s in starts)


def test_two_tgt_luns_behind_one_target(tmp_path: Path, capsys) -> None:
    with TgtTarget(tmp_path / "tgt", luns=2, size_mb=96, large_segments=True) as target:
        code = main(["tape-perf", *target.urls, "--mode", "variable", "--block-size", "256K", "--size", "32M",
                     "--alone", "8M", "--direction", "write,read", "--verify", "--json"])
        out = capsys.readouterr()
        assert code == EXIT_OK, out.err
        result = json.loads(out.out)
        assert result["status"] == "complete" and len(result["drives"]) == 2
        for cart in target.cartridges:  # the last run on each LUN: 32 MiB of 256 KiB blocks and its filemark
            records = [r for r in show_blocks(cart) if r.type not in ("BOT", "EOD")]
            assert sum(1 for r in records if r.size == 256 << 10) == 128
        for d in result["drives"]:
            assert d["together"]["phases"][1]["verify_errors"] == 0
            assert d["together"]["phases"][1]["verified_blocks"] == 128


# -- bad input: one line, the documented exit code, nothing written anywhere --------------------


def _one_line(capsys) -> str:
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1, err
    return err[0]


def test_one_device_twice(tmp_path: Path, capsys) -> None:
    dev = virtual(tmp_path, "a")
    assert main(["tape-perf", dev, virtual(tmp_path, "b"), dev, "--size", "8M"]) == EXIT_USAGE
    assert "is named twice" in _one_line(capsys)
    assert not (tmp_path / "a.cart").exists()  # refused before any device was opened
    with History.open() as hist:
        assert hist.list_runs() == []


def test_one_drive_under_two_names(tmp_path: Path, capsys) -> None:
    with TgtTarget(tmp_path / "tgt", size_mb=32) as target:
        other = target.url.replace("127.0.0.1", "localhost")  # the same LUN by another name: same serial
        assert main(["tape-perf", target.url, other, "--size", "8M", "--direction", "write"]) == EXIT_USAGE
        line = _one_line(capsys)
        assert "are the same drive (serial" in line and "nothing was written" in line
        assert target.data_blocks() == []


def test_one_virtual_cartridge_under_two_names(tmp_path: Path, capsys) -> None:
    cart = tmp_path / "a.cart"
    one, other = f"virtual:lto9?realtime=0&cartridge={cart}", f"virtual:lto9?cartridge={cart}&realtime=0"
    assert main(["tape-perf", one, other, "--size", "8M", "--direction", "write"]) == EXIT_FAILED
    assert "is in use by another program" in _one_line(capsys)  # the second drive cannot open it
    assert blank(one)


def test_a_non_tape_among_them(tmp_path: Path, capsys) -> None:
    tape = virtual(tmp_path, "a")
    with TgtTarget(tmp_path / "disk", device_type="disk", size_mb=8) as disk:
        before = disk.cartridge_path.read_bytes()
        assert main(["tape-perf", tape, disk.url, "--size", "8M", "--direction", "write"]) == EXIT_USAGE
        line = _one_line(capsys)
        assert "not a tape drive" in line and "nothing was written to any of the 2 drives" in line
        assert disk.cartridge_path.read_bytes() == before
    assert blank(tape)


def test_one_cartridge_with_data_refuses_every_drive(tmp_path: Path, capsys) -> None:
    a, b, c = (virtual(tmp_path, n) for n in "abc")
    assert main(["tape-perf", b, "--size", "4M", "--direction", "write"]) == EXIT_OK  # b now holds data
    capsys.readouterr()
    assert main(["tape-perf", a, b, c, "--size", "8M", "--direction", "write,read"]) == EXIT_REFUSED
    line = _one_line(capsys)
    assert line.startswith("refused: ") or "refused" in line
    assert b in line and "holds data" in line and "nothing was written to any of the 3 drives" in line
    assert blank(a) and blank(c)
    with History.open() as hist:
        refused = hist.list_runs(kind="tape-perf-multi")
    assert len(refused) == 1 and refused[0].status == "refused"


def test_alone_is_for_several_devices(tmp_path: Path, capsys) -> None:
    assert main(["tape-perf", virtual(tmp_path, "a"), "--alone", "8M", "--size", "8M"]) == EXIT_USAGE
    assert "--alone is for several devices" in _one_line(capsys)
    assert not (tmp_path / "a.cart").exists()


# -- the verdict's arithmetic ----------------------------------------------------------------------


def _run(device: str, rate_mb_s: float, start: float, seconds: float) -> TapePerfResult:
    """A drive's write phase streaming 1 MB I/Os at ``rate_mb_s`` from ``start`` for ``seconds``."""
    n = int(rate_mb_s * seconds)
    step = seconds / n
    result = TapePerfResult(device=device, params={})
    result.samples = [Sample(start + (k + 1) * step, 1_000_000, step, "write") for k in range(n)]
    ph = PhaseResult("write", bytes=n * 1_000_000, ios=n, streaming_mb_per_s=rate_mb_s, streaming_seconds=seconds)
    result.phases.append(ph)
    return result


@pytest.mark.parametrize(("together", "verdict"), [(300.0, "scales"), (150.0, "shared path")])
def test_aggregate_against_the_sum_alone(together: float, verdict: str) -> None:
    drives = [DriveRun(f"d{i}", _run(f"d{i}", together, 20.0 + i * 0.5, 10.0), _run(f"d{i}", 300.0, i * 10.0, 5.0))
              for i in range(2)]
    agg = aggregate("write", drives)
    assert agg.seconds == pytest.approx(9.5, abs=0.01)  # only while both streamed
    assert agg.mb_s == pytest.approx(2 * together, rel=0.01) and agg.sum_alone_mb_s == pytest.approx(600.0)
    assert agg.verdict == verdict
    assert f"= {round(100 * together / 300)}% of the sum of the single-drive rates" in agg.why
    assert ("shared path (HBA/port/target) is the limit" in agg.why) == (verdict == "shared path")


def test_no_verdict_without_the_drives_alone() -> None:
    drives = [DriveRun(f"d{i}", _run(f"d{i}", 300.0, 0.0, 10.0)) for i in range(2)]
    agg = aggregate("write", drives)
    assert agg.mb_s == pytest.approx(600.0, rel=0.01) and agg.verdict == "not judged"
    assert "not measured alone" in agg.why


def test_drives_that_never_streamed_at_once_carry_no_aggregate_rate() -> None:
    """No window in which both streamed: no bytes-over-seconds exists, so no rate and no ratio (None, said
    why), rather than a figure made of two runs one after the other, which would read as "scales"."""
    drives = [DriveRun(f"d{i}", _run(f"d{i}", 300.0, 20.0 + i * 10.0, 5.0), _run(f"d{i}", 300.0, i * 10.0, 5.0))
              for i in range(2)]
    agg = aggregate("write", drives)
    assert agg.mb_s is None and agg.ratio is None and agg.seconds == 0.0 and agg.verdict == "not judged"
    assert agg.why == "the drives did not write at the same time"
    assert multi_headline(MultiTapePerfResult(["d0", "d1"], {}, phases=[agg])) == "2 drives: write not judged"


def test_drives_together_too_briefly_carry_their_rate_but_no_verdict() -> None:
    """A common window shorter than the steady minimum still measured bytes over seconds: the rate and the
    ratio are facts a technician may read (with the window's length beside them), the verdict is not."""
    drives = [DriveRun(f"d{i}", _run(f"d{i}", 300.0, 20.0 + i * 9.0, 10.0), _run(f"d{i}", 300.0, i * 10.0, 5.0))
              for i in range(2)]
    agg = aggregate("write", drives)
    assert agg.seconds == pytest.approx(1.0, abs=0.01) and agg.seconds < STEADY_SECONDS
    assert agg.mb_s == pytest.approx(600.0, rel=0.01) and agg.ratio == pytest.approx(1.0, rel=0.01)
    assert agg.verdict == "not judged" and "too short to judge" in agg.why


def test_a_saturated_host_is_named_beside_the_shared_path() -> None:
    drives = [DriveRun(f"d{i}", _run(f"d{i}", 150.0, 20.0, 10.0), _run(f"d{i}", 300.0, i * 10.0, 5.0))
              for i in range(2)]
    assert "the host itself may be" in aggregate("write", drives, host_busy=0.97).why
    assert "the host itself" not in aggregate("write", drives, host_busy=0.5).why


def test_a_drive_alone_for_less_than_twice_its_buffer_is_not_compared() -> None:
    drives = [DriveRun(f"d{i}", _run(f"d{i}", 300.0, 20.0, 10.0), _run(f"d{i}", 300.0, i * 10.0, 5.0))
              for i in range(2)]
    for d in drives:
        assert d.alone is not None
        d.alone.generation = 9  # LTO-9: a 1 GiB buffer; 1.5 GB alone may be the buffer filling
    agg = aggregate("write", drives)
    assert agg.verdict == "not judged" and "d0 alone: only 1.50 GB written" in agg.why and "buffer" in agg.why


def test_a_write_protected_cartridge_among_them(tmp_path: Path, capsys) -> None:
    a = virtual(tmp_path, "a")
    wp = f"virtual:lto9?realtime=0&wp=1&cartridge={tmp_path / 'wp.cart'}"
    assert main(["tape-perf", a, wp, "--size", "8M", "--force"]) == EXIT_REFUSED  # --force cannot lift it
    line = _one_line(capsys)
    assert "write-protected" in line and wp in line and "nothing was written to any of the 2 drives" in line
    assert blank(a)
