"""Read-only sessions (issue 16): no command that writes or changes state ever reaches the drive."""
from __future__ import annotations

import hashlib
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main
from app.drive import STATE_CHANGING_OPCODES, ReadOnlyRefusal, TapeDrive, set_read_only_session, state_changing
from app.info import gather
from native.transport import DEFAULT_TIMEOUT, CommandResult, Transport
from native.virtual import open_virtual
from tests.helpers.faults import RecordingTransport

EXIT_REFUSED = 3


class Guard(Transport):
    """Passes commands to a virtual drive and fails the test on any state-changing CDB."""

    def __init__(self, inner: Transport) -> None:
        self.inner, self.device, self.opcodes = inner, inner.device, []  # type: list[int]

    def execute(self, cdb, *, data_out=None, data_in=0, timeout=DEFAULT_TIMEOUT) -> CommandResult:  # type: ignore[no-untyped-def]
        self.opcodes.append(cdb[0])
        assert state_changing(bytes(cdb)) is None, f"{state_changing(bytes(cdb))} reached the drive"
        return self.inner.execute(cdb, data_out=data_out, data_in=data_in, timeout=timeout)

    def close(self) -> None:
        self.inner.close()


@pytest.fixture(autouse=True)
def _session_reset():
    yield
    set_read_only_session(False)


def test_info_in_a_read_only_session_sends_only_queries(tmp_path: Path) -> None:
    guard = Guard(open_virtual(f"virtual:lto9?cartridge={tmp_path / 'c.img'}&tapealert=3"))
    with TapeDrive(guard, read_only=True) as drive:
        info = gather(drive)
    assert info.to_dict()["health"]["verdict"] != ""
    assert 0x12 in guard.opcodes and 0x4D in guard.opcodes  # INQUIRY and LOG SENSE were sent


@pytest.mark.parametrize("opcode", sorted(STATE_CHANGING_OPCODES))
def test_every_state_changing_command_is_refused_before_it_is_sent(opcode: int) -> None:
    transport = RecordingTransport()
    drive = TapeDrive(transport, read_only=True)
    with pytest.raises(ReadOnlyRefusal) as err:
        drive._execute(bytes([opcode]) + bytes(5 if opcode < 0x20 else 9))
    assert transport.calls == []
    assert STATE_CHANGING_OPCODES[opcode] in str(err.value)


def test_the_cached_write_is_refused_too() -> None:
    transport = RecordingTransport()
    drive = TapeDrive(transport, read_only=True)
    with pytest.raises(ReadOnlyRefusal):
        drive.write(bytes(4096))
    assert transport.calls == []


def _records(cart: Path) -> str:
    """The cartridge's recorded blocks and filemarks (after the 64 KiB header, whose load count
    the virtual drive bumps on every load, as a real cartridge's memory does)."""
    return hashlib.sha256(cart.read_bytes()[64 << 10:]).hexdigest()


def test_tape_perf_with_read_only_before_or_after_the_command_writes_nothing(tmp_path: Path, capsys) -> None:
    cart = tmp_path / "c.img"
    dev = f"virtual:lto9?cartridge={cart}"
    assert main(["tape-perf", dev, "--size", "4M", "--direction", "write"]) == 0  # a tape holding data
    before = _records(cart)
    for argv in (["--read-only", "tape-perf", dev, "--size", "4M", "--force"],
                 ["tape-perf", dev, "--size", "4M", "--force", "--read-only"]):
        capsys.readouterr()
        assert main(argv) == EXIT_REFUSED
        set_read_only_session(False)
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and "read-only session" in err[0], err
    assert _records(cart) == before
    assert main(["tape-perf", dev, "--size", "8M", "--force", "--direction", "write"]) == 0  # without it: allowed
    assert _records(cart) != before


def test_the_environment_variable_makes_the_session_read_only(tmp_path: Path) -> None:
    cart = tmp_path / "c.img"
    env = {**os.environ, "TAPEDIAG_READ_ONLY": "1", "TAPEDIAG_DATA_DIR": str(tmp_path / "data")}
    got = subprocess.run([str(Path(sys.executable).with_name("tapediag")), "tape-perf", f"virtual:lto9?cartridge={cart}",
                          "--size", "4M", "--force"], env=env, capture_output=True, text=True, timeout=120)
    assert got.returncode == EXIT_REFUSED, got.stderr
    assert "read-only session" in got.stderr and "Traceback" not in got.stderr


def test_scan_info_and_ticket_send_no_state_changing_command(tmp_path: Path, monkeypatch: pytest.MonkeyPatch,
                                                             capsys: pytest.CaptureFixture[str]) -> None:
    """The three commands that look at a customer's drive and cartridge, run as a technician runs them
    (no --read-only: they must need none), every transport they open wrapped in a guard."""
    import native
    from tests.test_scan import write_foreign

    cart = tmp_path / "customer.img"
    dev = f"virtual:lto9?realtime=0&cartridge={cart}&tapealert=3"
    writer = open_virtual(f"virtual:lto9?realtime=0&cartridge={cart}")
    try:
        write_foreign(writer)  # a cartridge another backup application wrote
    finally:
        writer.close()
    before = _records(cart)
    real_open = native.open_transport
    guards: list[Guard] = []
    violations: list[str] = []

    class Recording(Guard):
        def execute(self, cdb, *, data_out=None, data_in=0, timeout=DEFAULT_TIMEOUT) -> CommandResult:  # type: ignore[no-untyped-def]
            what = state_changing(bytes(cdb))  # an opcode of STATE_CHANGING_OPCODES, or a form that snapshots/clears
            if what is not None:
                violations.append(what)  # kept even if the command swallows the assert
            return super().execute(cdb, data_out=data_out, data_in=data_in, timeout=timeout)

    def guarded(device: str, **kwargs):  # type: ignore[no-untyped-def]
        guard = Recording(real_open(device, **kwargs))
        guards.append(guard)
        return guard

    monkeypatch.setattr(native, "open_transport", guarded)
    sent: dict[str, set[int]] = {}
    for argv in (["scan", dev], ["info", dev], ["ticket", dev, "-o", str(tmp_path / "ticket.zip")]):
        first = len(guards)
        code = main(argv)
        out = capsys.readouterr()
        assert code in (0, 10, 12), (argv, out.err)  # a verdict, not a failure or a refusal
        assert "Traceback" not in out.err
        sent[argv[0]] = {op for g in guards[first:] for op in g.opcodes}
    assert violations == []
    assert 0x08 in sent["scan"] and 0x4D in sent["info"] and 0x4D in sent["ticket"]  # READ; LOG SENSE
    assert (tmp_path / "ticket.zip").stat().st_size > 0
    assert _records(cart) == before


def _with_read_only(argv: list[str], where: int | None) -> list[str]:
    """``argv`` with --read-only inserted at ``where`` (None: at the end)."""
    return [*argv, "--read-only"] if where is None else [*argv[:where], "--read-only", *argv[where:]]


@pytest.mark.tgt
def test_read_only_in_every_position_of_every_command_sends_nothing_state_changing(
        tmp_path: Path, tgt_library_factory, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    """On the wire (issue 27 §3): tgtd's own log of the commands it queued, on a tape LUN and on a library's
    changer and drive LUNs, shows no command of ``STATE_CHANGING_OPCODES``, wherever --read-only stands
    (before the command, right after it, after its device or options, after library-run's --run words)."""
    from tests.helpers.tgt import TgtTarget
    from tests.helpers.wire import CommandLog

    lib = tgt_library_factory(drives=2, slots=4, ie=1, barcodes=("TGT001L6", "TGT002L6", "CLN001L1"), size_mb=16)
    for index in range(2):
        assert main(["devices", "--add-iscsi", lib.drive_url(index), "--no-probe"]) == 0
    with TgtTarget(tmp_path / "tape", size_mb=64) as tape:
        assert main(["tape-perf", tape.url, "--size", "4M", "--direction", "write"]) == 0  # a tape holding data
        logs = [CommandLog(tape), CommandLog(lib)]
        marks = [log.mark() for log in logs]
        run_on = ["--run", "tape-perf", "--size", "4M", "--io-size", "256K", "--block-size", "256K"]
        commands = [
            (["tape-perf", tape.url, "--size", "4M", "--force"], (0, 1, 2, None)),
            (["assess", tape.url, "--size", "4M", "--force"], (0, 1, 2, None)),
            (["scan", tape.url, "--limit", "1M"], (0, 1, None)),
            (["info", tape.url], (0, None)),
            (["ticket", tape.url, "-o", str(tmp_path / "t.zip")], (1, None)),
            (["library", lib.url, "--move", "slot:1", "drive:0"], (0, 1, 2, None)),
            (["library", lib.url, "--init"], (0, 2, None)),
            (["library-test", lib.url, "--moves", "2"], (0, 1, 2, None)),
            (["library-run", lib.url, "--barcode", "TGT001L6", *run_on], (0, 1, 2, 4, 6, None)),
            (["library-run", lib.url, "--barcode", "TGT001L6", "--run", "assess", "--size", "4M"], (6, None)),
        ]
        codes = []
        for argv, places in commands:
            for where in places:
                line = _with_read_only(argv, where)
                capsys.readouterr()
                try:
                    code = main(line)
                finally:
                    set_read_only_session(False)
                err = capsys.readouterr().err
                assert "Traceback" not in err and code in (0, 3, 10, 12), (line, code, err)
                codes.append(code)
                sent = {op for log, mark in zip(logs, marks) for op in log.since(mark)}
                assert not sent & set(STATE_CHANGING_OPCODES), \
                    (line, [STATE_CHANGING_OPCODES[op] for op in sent & set(STATE_CHANGING_OPCODES)])
        assert codes.count(3) >= 20  # the tests themselves were refused, not quietly skipped
        # Every library command was refused before the robot was asked anything but INQUIRY (and libiscsi's TUR).
        assert {op for op in logs[1].since(marks[1])} <= {0x00, 0x12}
        assert {0x12, 0x08} <= {op for op in logs[0].since(marks[0])}  # the tape was asked and read (the scan)
    for barcode in ("TGT001L6", "TGT002L6"):  # every cartridge is still in its slot's file, untouched
        assert lib.slot_file(barcode).exists()
