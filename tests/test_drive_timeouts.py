"""Command timeouts (issue 13): the drive's recommended ones where it reports them, the defaults otherwise.

The drive is asked once (REPORT SUPPORTED OPERATION CODES, RCTD=1) right after INQUIRY has
shown a tape; every long command then uses the drive's recommendation, never below the
default. A drive that does not support the query, or reports no timeout values, gets the
defaults labelled with its generation. Nothing of this reaches a non-tape or changes state.
"""
from __future__ import annotations

import pytest

from app.drive import STATE_CHANGING_OPCODES, NotATapeDrive, TapeDrive
from app.timeouts import ERASE_LONG_TIMEOUT, IO_TIMEOUT, MOTION_TIMEOUT, SELF_TEST_TIMEOUT, resolve
from native.scsi import cdb as C
from native.scsi.opcodes import CommandDescriptor, CommandTimeouts, SupportedCommands
from native.scsi.sense import build_fixed
from native.transport import CHECK_CONDITION, DEFAULT_TIMEOUT, CommandResult, Transport
from tests.helpers.faults import RecordingTransport, reply
from tests.scsi import samples

RSOC = C.MAINTENANCE_IN


class TimeoutRecorder(Transport):
    """Passes commands to ``inner`` and records (opcode, timeout) of each."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.device = inner.device
        self.sent: list[tuple[int, float]] = []

    def execute(self, cdb, *, data_out=None, data_in=0, timeout=DEFAULT_TIMEOUT) -> CommandResult:  # type: ignore[no-untyped-def]
        self.sent.append((cdb[0], timeout))
        return self.inner.execute(cdb, data_out=data_out, data_in=data_in, timeout=timeout)

    def timeout_of(self, opcode: int) -> float:
        return [t for op, t in self.sent if op == opcode][-1]

    def close(self) -> None:
        self.inner.close()


def scripted(product: str = "Ultrium 8-SCSI", rsoc=None, device_type: int = 1) -> RecordingTransport:  # type: ignore[no-untyped-def]
    """A drive that answers INQUIRY (so the tape gate asks, as for a real one) and RSOC as given."""
    responses = {C.INQUIRY: samples.inquiry(product=product, device_type=device_type)}
    if rsoc is not None:
        responses[RSOC] = rsoc
    return RecordingTransport(device="scripted:tape", scripted_peripheral_type=None, responses=responses)


def illegal_opcode(cdb: bytes, out: bytes | None, alloc: int) -> CommandResult:
    return reply(CHECK_CONDITION, build_fixed(0x5, 0x20, 0x00))


def test_virtual_drive_reports_its_timeouts_and_the_long_commands_use_them() -> None:
    rec = TimeoutRecorder(TapeDrive.open("virtual:lto9?realtime=0").transport)
    with TapeDrive(rec) as drive:
        drive.rewind()  # the first long command: INQUIRY, the query, then REWIND with the learned timeout
        assert [op for op, _ in rec.sent] == [C.INQUIRY, RSOC, C.REWIND]
        timeouts = drive.command_timeouts()
        assert timeouts.reported and timeouts.source == "reported by the drive"
        drive.write(b"x" * 65536)
        drive.write_filemarks(1)
        drive.rewind()
        drive.read(65536)
        drive.self_test()
        drive.erase(long=True)
    by_op = {e.opcode: e for e in timeouts.commands}
    # the drive recommends more than the defaults for READ/WRITE, SEND DIAGNOSTIC and ERASE: used
    assert rec.timeout_of(C.WRITE_6) == by_op[C.WRITE_6].recommended and by_op[C.WRITE_6].recommended > IO_TIMEOUT
    assert rec.timeout_of(C.READ_6) == by_op[C.READ_6].recommended
    assert rec.timeout_of(C.SEND_DIAGNOSTIC) == by_op[C.SEND_DIAGNOSTIC].recommended > SELF_TEST_TIMEOUT
    assert rec.timeout_of(C.ERASE_6) == by_op[C.ERASE_6].recommended > ERASE_LONG_TIMEOUT
    # and less than the default for REWIND / WRITE FILEMARKS: the default is the floor
    assert by_op[C.REWIND].recommended is not None and by_op[C.REWIND].recommended < MOTION_TIMEOUT
    assert rec.timeout_of(C.REWIND) == MOTION_TIMEOUT == rec.timeout_of(C.WRITE_FILEMARKS_6)
    assert [op for op, _ in rec.sent].count(RSOC) == 1  # learned once per drive object


def test_the_first_read_already_uses_the_learned_timeout() -> None:
    rec = TimeoutRecorder(TapeDrive.open("virtual:lto9?realtime=0").transport)
    with TapeDrive(rec) as drive:
        drive.read(65536)
        assert [op for op, _ in rec.sent] == [C.INQUIRY, RSOC, C.READ_6]
        assert rec.timeout_of(C.READ_6) == drive.command_timeouts().seconds(C.READ_6) > IO_TIMEOUT


def test_a_drive_without_the_query_gets_its_generations_defaults() -> None:
    transport = scripted("Ultrium 8-SCSI", rsoc=illegal_opcode)
    drive = TapeDrive(transport)
    drive.rewind()
    timeouts = drive.command_timeouts()
    assert not timeouts.reported
    assert timeouts.source == "LTO-8 defaults (the drive does not support REPORT SUPPORTED OPERATION CODES)"
    assert all(e.seconds == e.default and e.recommended is None for e in timeouts.commands)
    assert transport.calls[-1][0][0] == C.REWIND and drive.last_sense is None  # the refusal is not the caller's sense
    erase_long = resolve(None, 8).seconds(C.ERASE_6, ERASE_LONG_TIMEOUT)
    assert erase_long == ERASE_LONG_TIMEOUT


def test_a_list_without_timeout_values_means_defaults() -> None:
    zeros = SupportedCommands((CommandDescriptor(C.REWIND, None, 6, CommandTimeouts(0, 0)),), 0).to_bytes()
    bare = SupportedCommands((CommandDescriptor(C.REWIND, None, 6, None),), 0).to_bytes()
    for answer, why in ((zeros, "every timeout as 0"), (bare, "without timeouts")):
        drive = TapeDrive(scripted("ULT3580-TD9", rsoc=answer))
        timeouts = drive.command_timeouts()
        assert not timeouts.reported and timeouts.source.startswith("LTO-9 defaults (") and why in timeouts.source


def test_an_undecodable_answer_means_defaults_not_a_crash() -> None:
    drive = TapeDrive(scripted("some tape", rsoc=b"\x00\x00"))
    timeouts = drive.command_timeouts()
    assert not timeouts.reported and timeouts.source.startswith("tapediag's defaults (")
    assert "could not be decoded" in timeouts.source


def test_a_unit_attention_on_the_query_is_consumed_and_the_query_repeated() -> None:
    answers = [reply(CHECK_CONDITION, build_fixed(0x6, 0x29, 0x00)),
               reply(data=SupportedCommands((CommandDescriptor(C.READ_6, None, 6, CommandTimeouts(5, 4000)),), 0).to_bytes())]
    drive = TapeDrive(scripted(rsoc=lambda cdb, out, alloc: answers.pop(0)))
    assert drive.command_timeouts().seconds(C.READ_6) == 4000
    assert drive.last_sense is None


def test_the_query_is_sent_in_a_read_only_session_and_never_to_a_non_tape() -> None:
    assert RSOC not in STATE_CHANGING_OPCODES
    tape = scripted(rsoc=illegal_opcode)
    TapeDrive(tape, read_only=True).command_timeouts()
    assert [c[0][0] for c in tape.calls] == [C.INQUIRY, RSOC]
    disk = scripted(product="disk0", rsoc=illegal_opcode, device_type=0)
    with pytest.raises(NotATapeDrive):
        TapeDrive(disk).command_timeouts()
    assert [c[0][0] for c in disk.calls] == [C.INQUIRY]


def test_a_scripted_unit_test_transport_is_not_asked() -> None:
    transport = RecordingTransport()
    drive = TapeDrive(transport)
    drive.rewind()
    assert [c[0][0] for c in transport.calls] == [C.REWIND]
    assert drive.command_timeouts().source == "tapediag's defaults (not asked)"
