"""Erase (issue 30 §3): short and long, on the virtual drive and on tgt, within the safety rules, and cancelled."""
from __future__ import annotations

import hashlib
import subprocess
import sys
from pathlib import Path

import pytest

from app.drive import STATE_CHANGING_OPCODES, ReadOnlyRefusal, TapeDrive
from app.erase import Erase, EraseParams
from app.events import CancelToken, Message, Progress
from native.errors import InvalidParameter, NotReady, SafetyRefusal
from native.virtual import open_virtual
from tests.helpers.faults import RecordingTransport
from tests.helpers.ltfs import VOLUME_NAME, write_mkltfs_volume


def _virtual(tmp_path: Path, **options: str) -> str:
    extra = "".join(f"&{k}={v}" for k, v in options.items())
    return f"virtual:lto9?realtime=0&capacity=64M&cartridge={tmp_path / 'c.cart'}{extra}"


def _with_data(dev: str) -> None:
    with TapeDrive(open_virtual(dev)) as drive:
        for _ in range(4):
            drive.write(bytes(range(256)) * 256)
        drive.write_filemarks(1)


def _first_read(dev: str) -> str:
    with TapeDrive(open_virtual(dev)) as drive:
        drive.rewind()
        out = drive.read(bytearray(1 << 20))
        return "blank" if out.eod else "filemark" if out.filemark else f"{out.nbytes} bytes"


def _records(cart: Path) -> str:
    return hashlib.sha256(cart.read_bytes()[64 << 10:]).hexdigest()


def test_a_short_erase_of_a_blank_cartridge_needs_no_confirmation(tmp_path: Path) -> None:
    with TapeDrive(open_virtual(_virtual(tmp_path))) as drive:
        result = Erase(drive, EraseParams()).run()
    assert result.status == "complete" and result.method == ["ERASE(6) LONG=0 at BOT"]
    assert "end of data at BOT" in result.state_after


def test_a_cartridge_holding_data_is_erased_only_when_confirmed(tmp_path: Path) -> None:
    dev = _virtual(tmp_path)
    _with_data(dev)
    before = _records(tmp_path / "c.cart")
    with TapeDrive(open_virtual(dev)) as drive:
        with pytest.raises(SafetyRefusal) as refused:
            Erase(drive, EraseParams()).run()
    assert refused.value.overridable and "holds data: a block at BOT of 64 KiB" in str(refused.value)
    assert _records(tmp_path / "c.cart") == before
    with TapeDrive(open_virtual(dev)) as drive:
        assert Erase(drive, EraseParams(force=True)).run().status == "complete"
    assert _first_read(dev) == "blank"


@pytest.mark.parametrize("option", ["wp", "worm"])
def test_write_protected_or_worm_media_is_never_erased(tmp_path: Path, option: str) -> None:
    with TapeDrive(open_virtual(_virtual(tmp_path, **{option: "1"}))) as drive:
        with pytest.raises(SafetyRefusal) as refused:
            Erase(drive, EraseParams(long=True, force=True)).run()
    assert not refused.value.overridable


def test_a_read_only_session_refuses_before_anything_is_sent() -> None:
    transport = RecordingTransport()
    with pytest.raises(ReadOnlyRefusal):
        Erase(TapeDrive(transport, read_only=True), EraseParams(force=True)).run()
    assert transport.calls == []


def test_a_long_erase_reports_progress_and_an_estimate_and_ends_blank(tmp_path: Path) -> None:
    dev = _virtual(tmp_path)
    _with_data(dev)
    events: list[object] = []
    with TapeDrive(open_virtual(dev)) as drive:
        result = Erase(drive, EraseParams(long=True, force=True, poll_seconds=0)).run(events.append)
    progress = [e.done_bytes for e in events if isinstance(e, Progress)]
    assert result.status == "complete" and result.method == ["ERASE(6) LONG=1 IMMED=1 at BOT"]
    assert len(progress) >= 8 and progress == sorted(progress) and progress[-1] > 900  # per mille, rising
    # 64 MiB of cartridge (MAM 0001h) at LTO-9's 400 MB/s
    assert result.estimate_seconds == pytest.approx(64 * 2**20 / 400e6, rel=0.05)
    warning = next(e for e in events if isinstance(e, Message))
    assert "cannot be stopped" in warning.text and "0001h" in warning.text
    assert _first_read(dev) == "blank"


def test_cancel_stops_waiting_and_says_what_the_tape_is_left_as(tmp_path: Path) -> None:
    dev = _virtual(tmp_path)
    _with_data(dev)
    cancel = CancelToken()

    def sink(event: object) -> None:
        if isinstance(event, Progress) and event.done_bytes >= 100:  # a tenth done: stop
            cancel.cancel()

    with TapeDrive(open_virtual(dev)) as drive:
        result = Erase(drive, EraseParams(long=True, force=True, poll_seconds=0)).run(sink, cancel)
        assert result.status == "cancelled" and result.progress is not None and result.progress < 1.0
        assert "the drive goes on erasing" in result.state_after and "reads as blank" in result.state_after
        with pytest.raises(NotReady) as busy:  # the drive is still erasing, as a real one would be
            drive.test_unit_ready()
        assert busy.value.sense is not None and (busy.value.sense.asc, busy.value.sense.ascq) == (0x04, 0x07)
        drive.wait_ready(timeout=60, poll=0)  # the erase runs to its end
        drive.rewind()
        assert drive.read(bytearray(4096)).eod


def test_an_ltfs_cartridge_is_erased_only_when_confirmed_and_then_no_longer_named(tmp_path: Path) -> None:
    from app import ltfs

    dev = _virtual(tmp_path)
    with TapeDrive(open_virtual(dev)) as drive:
        write_mkltfs_volume(drive, first_mb=16)
        with pytest.raises(SafetyRefusal) as refused:
            Erase(drive, EraseParams()).run()
        assert f"LTFS volume '{VOLUME_NAME}'" in str(refused.value)
        result = Erase(drive, EraseParams(force=True)).run()
        assert result.partitions == 2 and len(result.method) == 2
        assert ltfs.from_cartridge_memory(drive) is None and ltfs.recognise(drive, labels=True) is None


def test_data_in_another_partition_needs_the_confirmation_too(tmp_path: Path) -> None:
    from tests.helpers.ltfs import partition

    dev = _virtual(tmp_path)
    with TapeDrive(open_virtual(dev)) as drive:
        partition(drive, first_mb=16)
        drive.locate(0, partition=1)
        drive.write(bytes(4096))
        with pytest.raises(SafetyRefusal) as refused:
            Erase(drive, EraseParams()).run()
        assert "a block at the start of partition 1 of 4 KiB" in str(refused.value)
        drive.locate(0, partition=1)
        assert drive.read(bytearray(8192)).nbytes == 4096


def _erase_cli(url: str, *args: str) -> subprocess.CompletedProcess[str]:
    """``tapediag erase`` in a process of its own, as a technician runs it (``--read-only`` stays in that process)."""
    return subprocess.run([sys.executable, "-m", "app", "erase", url, *args], capture_output=True, text=True,
                          timeout=300)


def _runs() -> list[tuple[str, str]]:
    from app.history import History

    with History.open() as hist:
        return [(r.kind, r.status) for r in hist.list_runs()]


@pytest.mark.tgt
def test_erase_on_tgt(tmp_path: Path, tgt_target) -> None:  # type: ignore[no-untyped-def]
    """tgt 1.0.85 does not implement ERASE (05/20/00): the short erase ends the data with a filemark at BOT, the
    long erase is refused with nothing written; data needs --force; a read-only session sends nothing that
    writes (tgtd's own log of the commands it queued). Each ``tapediag erase`` is one run in the history."""
    from app.cli import main
    from tests.helpers.wire import CommandLog

    assert main(["tape-perf", tgt_target.url, "--size", "1M", "--direction", "write"]) == 0
    data = tgt_target.data_blocks()
    log = CommandLog(tgt_target)
    mark = log.mark()
    refused = [_erase_cli(tgt_target.url, "--short"), _erase_cli(tgt_target.url, "--long", "--force", "--read-only")]
    assert [r.returncode for r in refused] == [3, 3], [r.stderr for r in refused]
    assert "holds data" in refused[0].stderr and "read-only session" in refused[1].stderr
    assert not set(log.since(mark)) & set(STATE_CHANGING_OPCODES)
    assert tgt_target.data_blocks() == data
    long = _erase_cli(tgt_target.url, "--long", "--force")
    assert long.returncode == 2 and "does not implement" in long.stderr and "nothing was written" in long.stderr
    assert tgt_target.data_blocks() == data
    short = _erase_cli(tgt_target.url, "--short", "--force")
    assert short.returncode == 0, short.stderr
    assert "WRITE FILEMARKS(6) at BOT (the drive does not implement ERASE)" in short.stdout
    assert [r.type for r in tgt_target.show_blocks()] == ["BOT", "FILEMARK", "EOD"]
    # The long erase refused as bad input left no run (a typo is not a run); the others are one run each.
    assert _runs() == [("erase", "complete"), ("erase", "refused"), ("erase", "refused"), ("tape-perf", "complete")]


def test_the_command_refuses_data_without_force_records_once_and_renders_everywhere(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """``tapediag erase`` is the run kind: refused on data (exit 3, nothing written, one ``refused`` run), then
    erased with --force (one ``complete`` run) whose words ``show``, ``history`` and the PDF print."""
    from app.cli import main

    dev = _virtual(tmp_path)
    _with_data(dev)
    before = _records(tmp_path / "c.cart")
    assert main(["erase", dev]) == 2  # which erase: never a default
    assert "--short" in capsys.readouterr().err and _runs() == []
    assert main(["erase", dev, "--short"]) == 3
    err = capsys.readouterr().err
    assert "refused: the cartridge holds data: a block at BOT of 64 KiB" in err and "--force" in err
    assert _records(tmp_path / "c.cart") == before and _runs() == [("erase", "refused")]
    assert main(["erase", dev, "--short", "--force"]) == 0
    out = capsys.readouterr().out
    assert "Short erase on" in out and "The tape now: end of data at BOT" in out and "barcode TD" in out
    assert _runs() == [("erase", "complete"), ("erase", "refused")] and _first_read(dev) == "blank"
    assert main(["show", "2"]) == 0
    shown = capsys.readouterr().out
    assert "parameters: Erase Short: end of data at the start of the tape" in shown and "Cartridge before:" in shown and "holds data (a block at BOT of 64 KiB)" in shown
    assert main(["history"]) == 0
    assert "short erase of TD" in capsys.readouterr().out
    pdf = tmp_path / "erase.pdf"
    assert main(["report", "2", "-o", str(pdf)]) == 0
    text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout.split())
    assert "Short erase" in text and "The tape now end of data at BOT" in text and "Erase: Short: end of data at the start of the tape" in text


def test_another_cartridge_than_the_one_confirmed_is_never_erased(tmp_path: Path,
                                                                  capsys: pytest.CaptureFixture[str]) -> None:
    from app.cli import main

    dev = _virtual(tmp_path)
    _with_data(dev)
    before = _records(tmp_path / "c.cart")
    assert main(["erase", dev, "--short", "--force", "--barcode", "OTHER1L9"]) == 3
    assert "not 'OTHER1L9', the one the erase was confirmed for" in capsys.readouterr().err
    assert _records(tmp_path / "c.cart") == before


def test_the_read_only_option_refuses_the_erase_with_nothing_written(tmp_path: Path) -> None:
    dev = _virtual(tmp_path)
    _with_data(dev)
    before = _records(tmp_path / "c.cart")
    got = _erase_cli(dev, "--long", "--force", "--read-only")
    assert got.returncode == 3 and "read-only session: a long erase was not started" in got.stderr, got.stderr
    assert _records(tmp_path / "c.cart") == before


@pytest.mark.parametrize("when", ["at the warning", "a tenth in"])
def test_ctrl_c_during_a_long_erase(tmp_path: Path, capsys: pytest.CaptureFixture[str],
                                    monkeypatch: pytest.MonkeyPatch, when: str) -> None:
    """The warning comes before anything is written, saying how long and that the erase cannot be stopped once
    started: Ctrl-C then (a real SIGINT, through the CLI's own signal policy) writes nothing. Ctrl-C a tenth in
    stops tapediag waiting, and the result says the drive erases on (exit 130, recorded as cancelled)."""
    import os
    import signal

    from app.cli import erase as cli_erase
    from app.cli import main

    dev = _virtual(tmp_path)
    _with_data(dev)
    before = _records(tmp_path / "c.cart")

    class CtrlC(cli_erase.ProgressLines):
        def __call__(self, event: object) -> None:
            super().__call__(event)  # type: ignore[arg-type]
            warned = when == "at the warning" and isinstance(event, Message)
            if warned or (isinstance(event, Progress) and event.done_bytes >= 100 and when == "a tenth in"):
                os.kill(os.getpid(), signal.SIGINT)

    monkeypatch.setattr(cli_erase, "ProgressLines", CtrlC)
    assert main(["erase", dev, "--long", "--force", "--poll", "0"]) == 130
    out, err = capsys.readouterr()
    warning = err.splitlines()[0]
    assert warning.startswith("tapediag: warning: a long erase takes about ") and "0001h" in warning
    assert "cannot be stopped: a cancel (Ctrl-C) then only stops tapediag waiting" in warning
    assert _runs() == [("erase", "cancelled")]
    if when == "at the warning":
        assert "nothing was written: the tape is as it was" in out and "erasing:" not in err
        assert _records(tmp_path / "c.cart") == before
    else:
        shown = [int(line.split()[1].rstrip("%,")) for line in err.splitlines() if line.startswith("erasing: ")]
        assert shown == sorted(shown) and shown[-1] >= 10  # progress as the drive reports it, up to the Ctrl-C
        assert "cancelled at" in out and "the drive goes on erasing to the end of the partition" in out


def test_the_params_refuse_a_nonsense_poll() -> None:
    with pytest.raises(InvalidParameter):
        EraseParams(poll_seconds=-1)
