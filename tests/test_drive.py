"""TapeDrive over a scripted target and the fault-injecting transport.

The scripted target (``RecordingTransport``) answers with exact bytes; the drive's
job under test is SCSI semantics: status -> exception tree, tape outcomes from
sense, counts from the INFO field, mode page round trips.
"""
from __future__ import annotations

import pytest

from app.drive import (
    CompressionChange,
    ReadOutcome,
    TapeDrive,
    Unsupported,
    generation_from_product,
    is_not_supported,
    supported,
)
from native.scsi import cdb as C
from native.scsi.sense import build_fixed, build_descriptor
from native.errors import (
    BlankCheck,
    CheckCondition,
    CommandTimeout,
    ConnectionLost,
    HardwareError,
    IllegalRequest,
    InvalidParameter,
    MediumError,
    NotReady,
    ScsiStatusError,
    UnitAttention,
)
from native.transport import BUSY, CHECK_CONDITION, CommandResult, Transport
from tests.helpers import faults
from tests.helpers.faults import FaultyTransport, RecordingTransport, reply

INVALID_OPCODE = build_fixed(0x5, 0x20, 0x00)


def inquiry_bytes(vendor: str = "HPE", product: str = "Ultrium 9-SCSI", rev: str = "Q3A1") -> bytes:
    data = bytearray(96)
    data[0], data[1], data[2], data[3], data[4] = 0x01, 0x80, 0x06, 0x02, 91
    data[8:16] = vendor.encode().ljust(8)
    data[16:32] = product.encode().ljust(16)
    data[32:36] = rev.encode().ljust(4)
    return bytes(data)


def mode6(density: int = 0x60, block: int = 0, wp: bool = False, pages: bytes = b"") -> bytes:
    bd = bytes([density, 0, 0, 0, 0]) + block.to_bytes(3, "big")
    body = bytes([0, (0x80 if wp else 0) | 0x10, 8]) + bd + pages
    return bytes([len(body)]) + body


def rejecting(cdb: bytes, out: bytes | None, alloc: int):
    return reply(CHECK_CONDITION, INVALID_OPCODE)


def drive_with(**responses) -> tuple[TapeDrive, RecordingTransport]:
    t = RecordingTransport(responses={int(k[2:], 16) if isinstance(k, str) else k: v for k, v in responses.items()})
    return TapeDrive(t), t


# -- the exception tree ----------------------------------------------------------

FAULT_CASES = [
    (faults.medium_error_read, MediumError, ["MEDIUM ERROR", "Unrecovered read error", "11/00"]),
    (faults.medium_error_write, MediumError, ["MEDIUM ERROR", "Write error", "0C/00"]),
    (faults.hardware_error, HardwareError, ["HARDWARE ERROR", "Internal target failure", "44/00"]),
    (faults.power_on_reset, UnitAttention, ["UNIT ATTENTION", "Power on, reset, or bus device reset occurred"]),
    (faults.medium_changed, UnitAttention, ["UNIT ATTENTION", "Not ready to ready change, medium may have changed"]),
    (faults.becoming_ready, NotReady, ["NOT READY", "Logical unit is in process of becoming ready"]),
    (faults.no_medium, NotReady, ["NOT READY", "Medium not present"]),
]


@pytest.mark.parametrize("make_fault, exc_type, words", FAULT_CASES, ids=[c[0].__name__ for c in FAULT_CASES])
def test_every_check_condition_fault_is_one_decoded_line(make_fault, exc_type, words) -> None:
    faulty = FaultyTransport(RecordingTransport()).inject(make_fault(), opcode=C.READ_6)
    drive = TapeDrive(faulty)
    with pytest.raises(exc_type) as info:
        drive.read(65536)
    text = str(info.value)
    assert "\n" not in text and text.startswith("READ(6): ")
    for word in words:
        assert word in text
    assert info.value.sense.key == exc_type.sense_key
    assert faulty.fired == [(1, make_fault().name)]


def test_busy_becomes_scsi_status_error() -> None:
    drive = TapeDrive(FaultyTransport(RecordingTransport()).inject(faults.busy()))
    with pytest.raises(ScsiStatusError) as info:
        drive.test_unit_ready()
    assert info.value.status == BUSY
    assert "BUSY" in str(info.value) and "TEST UNIT READY" in str(info.value)


@pytest.mark.parametrize("make_fault, exc_type", [(faults.timeout, CommandTimeout), (faults.connection_lost, ConnectionLost)])
def test_transport_faults_raise_on_the_matching_command(make_fault, exc_type) -> None:
    faulty = FaultyTransport(RecordingTransport()).inject(make_fault(), opcode=C.WRITE_6, after=1)
    drive = TapeDrive(faulty)
    drive.write(b"x" * 512)
    with pytest.raises(exc_type) as info:
        drive.write(b"x" * 512)
    assert "\n" not in str(info.value)
    drive.write(b"x" * 512)  # fired once only
    assert [n for n, _ in faulty.fired] == [2]


def test_fault_by_call_number_and_forever() -> None:
    faulty = FaultyTransport(RecordingTransport()).inject(faults.hardware_error(), call=3)
    drive = TapeDrive(faulty)
    drive.test_unit_ready()
    drive.rewind()
    with pytest.raises(HardwareError):
        drive.test_unit_ready()
    drive.test_unit_ready()
    forever = FaultyTransport(RecordingTransport()).inject(faults.busy(), opcode=C.REWIND, times=None)
    d2 = TapeDrive(forever)
    for _ in range(3):
        with pytest.raises(ScsiStatusError):
            d2.rewind()
    d2.test_unit_ready()


def test_check_condition_without_sense_is_still_one_line() -> None:
    drive, _ = drive_with(**{"0x00": lambda c, o, a: reply(CHECK_CONDITION, b"")})
    with pytest.raises(CheckCondition, match="TEST UNIT READY: CHECK CONDITION without sense data"):
        drive.test_unit_ready()
    drive2, _ = drive_with(**{"0x00": lambda c, o, a: reply(CHECK_CONDITION, b"\x05\x00\x00")})
    with pytest.raises(CheckCondition, match="undecodable sense"):
        drive2.test_unit_ready()


def test_recovered_error_counts_as_success() -> None:
    drive, _ = drive_with(**{"0x01": lambda c, o, a: reply(CHECK_CONDITION, build_fixed(0x1, 0x17, 0x01))})
    drive.rewind()
    assert drive.last_sense is not None and drive.last_sense.key == 1


# -- wait_ready -------------------------------------------------------------------

def test_wait_ready_polls_becoming_ready_then_passes() -> None:
    faulty = FaultyTransport(RecordingTransport()).inject(faults.becoming_ready(), opcode=C.TEST_UNIT_READY, times=4)
    sleeps: list[float] = []
    TapeDrive(faulty).wait_ready(60, poll=0.5, sleep=sleeps.append)
    assert len(faulty.calls) == 5 and sleeps == [0.5] * 4


def test_wait_ready_consumes_each_unit_attention_once() -> None:
    faulty = FaultyTransport(RecordingTransport())
    faulty.inject(faults.power_on_reset(), opcode=0x00).inject(faults.medium_changed(), opcode=0x00)
    sleeps: list[float] = []
    TapeDrive(faulty).wait_ready(60, sleep=sleeps.append)
    assert [name for _, name in faulty.fired] == ["UNIT ATTENTION power on/reset", "UNIT ATTENTION medium may have changed"]
    assert len(faulty.calls) == 3 and sleeps == []


def test_wait_ready_gives_up_at_timeout_and_on_no_medium() -> None:
    now = [0.0]

    def sleep(s: float) -> None:
        now[0] += s

    faulty = FaultyTransport(RecordingTransport()).inject(faults.becoming_ready(), times=None)
    with pytest.raises(NotReady, match="becoming ready"):
        TapeDrive(faulty).wait_ready(10, poll=1, sleep=sleep, clock=lambda: now[0])
    assert now[0] == pytest.approx(10)
    no_tape = FaultyTransport(RecordingTransport()).inject(faults.no_medium(), times=None)
    with pytest.raises(NotReady, match="Medium not present"):
        TapeDrive(no_tape).wait_ready(10, sleep=sleep)
    assert len(no_tape.calls) == 1


# -- reads: outcomes from sense, counts from INFO ----------------------------------

def read_answer(sense: bytes, transferred_claim: int, data: bytes = b""):
    """A READ that returns CHECK CONDITION with a deliberately wrong transport count."""
    def respond(cdb, out, alloc):
        from native.transport import CommandResult
        return CommandResult(CHECK_CONDITION, sense, memoryview(data), transferred_claim)
    return respond


def test_read_good_variable_block() -> None:
    drive, t = drive_with(**{"0x08": bytes(range(256)) * 4})
    out = drive.read(1024)
    assert out == ReadOutcome(nbytes=1024, data=out.data) and bytes(out.data[:4]) == b"\x00\x01\x02\x03"
    assert t.calls[0][0] == bytes([0x08, 0x00, 0x00, 0x04, 0x00, 0x00])


def test_read_into_filemark_uses_info_not_residual() -> None:
    drive, _ = drive_with(**{"0x08": read_answer(build_fixed(0, 0, 1, info=65536, filemark=True), 65536)})
    out = drive.read(65536)
    assert (out.nbytes, out.filemark, out.eod, out.residual) == (0, True, False, 65536)


def test_tgt_style_end_of_data_is_an_outcome() -> None:
    # tgt: BLANK CHECK, EOM bit, ASC 00/00, INFO = requested.
    drive, _ = drive_with(**{"0x08": read_answer(build_fixed(0x8, 0, 0, info=4096, eom=True), 4096)})
    out = drive.read(4096)
    assert out.eod and out.nbytes == 0 and not out.filemark


def test_real_drive_end_of_data_fixed_mode_counts_blocks() -> None:
    # 8 blocks of 512 requested, 3 read before EOD: INFO = 5 (blocks).
    drive, t = drive_with(**{"0x08": read_answer(build_fixed(0x8, 0x00, 0x05, info=5), 0)})
    out = drive.read(bytearray(4096), block_size=512)
    assert out.eod and out.nbytes == 3 * 512 and out.residual == 5
    assert t.calls[0][0] == bytes([0x08, 0x01, 0x00, 0x00, 0x08, 0x00])


def test_short_block_ili_counts_from_info() -> None:
    # Requested 65536, block was 1000: INFO = 64536. The transport count lies.
    drive, _ = drive_with(**{"0x08": read_answer(build_fixed(0, 0, 0, info=64536, ili=True), 65536)})
    out = drive.read(65536)
    assert out.ili and out.nbytes == 1000 and not out.stopped


def test_long_block_ili_is_truncated_with_negative_residual() -> None:
    drive, _ = drive_with(**{"0x08": read_answer(build_fixed(0, 0, 0, info=-100, ili=True), 0)})
    out = drive.read(bytearray(512))
    assert out.ili and out.nbytes == 512 and out.residual == -100


def test_descriptor_sense_filemark_works_too() -> None:
    drive, _ = drive_with(**{"0x08": read_answer(build_descriptor(0, 0, 1, info=10, filemark=True), 0)})
    out = drive.read(bytearray(1024), block_size=64)
    assert out.filemark and out.nbytes == 6 * 64


def test_read_medium_error_raises() -> None:
    drive, _ = drive_with(**{"0x08": read_answer(build_fixed(0x3, 0x11, 0x00, info=1), 0)})
    with pytest.raises(MediumError, match="Unrecovered read error"):
        drive.read(512)


def test_read_into_caller_buffer_in_place() -> None:
    drive, _ = drive_with(**{"0x08": b"\xAB" * 64})
    buf = bytearray(64)
    out = drive.read(memoryview(buf))
    assert out.nbytes == 64 and buf == b"\xAB" * 64


class _SharedGoodRead(Transport):
    """Answers every READ into one view with one shared GOOD result, as IscsiTransport does;
    INQUIRY (the tape gate) as a tape drive would, anything else as not supported."""

    def __init__(self) -> None:
        self.shared: CommandResult | None = None
        self.next_sense = b""

    def execute(self, cdb, *, data_out=None, data_in=0, timeout=60.0):
        if cdb[0] == 0x12:  # INQUIRY: a tape drive
            data = bytes([0x01, 0x80, 0x05, 0x02, 31]) + bytes(3) + b"VENDOR  PRODUCT         0001"
            view = memoryview(bytearray(data_in)) if isinstance(data_in, int) else memoryview(data_in)
            n = min(len(data), view.nbytes)
            view[:n] = data[:n]
            return CommandResult(0, b"", view[:n], n)
        if cdb[0] != 0x08:  # anything else (the timeouts query): not supported
            return CommandResult(CHECK_CONDITION, INVALID_OPCODE, memoryview(b""), 0)
        if self.next_sense:
            sense, self.next_sense = self.next_sense, b""
            return CommandResult(CHECK_CONDITION, sense, memoryview(b""), 0)
        assert isinstance(data_in, memoryview)
        if self.shared is None or self.shared.data is not data_in:
            self.shared = CommandResult(0, b"", data_in, data_in.nbytes)
        return self.shared


def test_good_reads_into_one_view_share_one_outcome() -> None:
    # Issue 19: no outcome object per GOOD read in the hot loop, when the transport shares its result.
    drive = TapeDrive(_SharedGoodRead())
    view = memoryview(bytearray(512))
    first = drive.read(view)
    assert first == ReadOutcome(nbytes=512, data=view) and first.data is view
    assert drive.read(view) is first


def test_a_filemark_between_shared_good_reads_is_still_reported() -> None:
    t = _SharedGoodRead()
    drive = TapeDrive(t)
    view = memoryview(bytearray(512))
    good = drive.read(view)
    t.next_sense = build_fixed(0, 0, 1, info=512, filemark=True)
    mark = drive.read(view)
    assert mark.filemark and mark.nbytes == 0 and mark is not good
    assert drive.read(view) is good  # GOOD again: the shared outcome, nothing stale in it


def test_a_bytearray_read_into_is_not_kept_locked_by_the_drive() -> None:
    drive, _ = drive_with(**{"0x08": b"\xCD" * 64})
    buf = bytearray(64)
    out = drive.read(buf)
    assert out.nbytes == 64 and bytes(out.data) == b"\xCD" * 64
    del out
    buf.extend(b"more")  # BufferError if the drive still held a view of it


def test_read_fixed_buffer_not_multiple_is_rejected() -> None:
    drive, t = drive_with()
    with pytest.raises(InvalidParameter):
        drive.read(1000, block_size=512)
    assert t.calls == []


# -- writes --------------------------------------------------------------------------

def test_write_variable_and_fixed_cdbs() -> None:
    drive, t = drive_with()
    assert not drive.write(b"a" * 70000).eom_warning
    drive.write(b"b" * 4096, block_size=1024)
    assert t.calls[0][0] == bytes([0x0A, 0, 0x01, 0x11, 0x70, 0]) and t.calls[0][1] == b"a" * 70000
    assert t.calls[1][0] == bytes([0x0A, 1, 0, 0, 4, 0])
    with pytest.raises(InvalidParameter):
        drive.write(b"c" * 1000, block_size=512)


@pytest.mark.parametrize("sense", [build_fixed(0, 0, 2, eom=True), build_fixed(0, 0, 0, eom=True), build_descriptor(0, 0, 2, eom=True)])
def test_early_warning_is_a_flag_not_an_exception(sense: bytes) -> None:
    drive, _ = drive_with(**{"0x0A": lambda c, o, a: reply(CHECK_CONDITION, sense)})
    assert drive.write(b"x" * 512).eom_warning
    drive2, _ = drive_with(**{"0x10": lambda c, o, a: reply(CHECK_CONDITION, sense)})
    assert drive2.write_filemarks(1).eom_warning


def test_volume_overflow_and_write_errors_raise() -> None:
    drive, _ = drive_with(**{"0x0A": lambda c, o, a: reply(CHECK_CONDITION, build_fixed(0xD, 0x00, 0x02, eom=True, info=512))})
    with pytest.raises(CheckCondition, match="VOLUME OVERFLOW"):
        drive.write(b"x" * 512)
    drive2, _ = drive_with(**{"0x0A": lambda c, o, a: reply(CHECK_CONDITION, build_fixed(0x7, 0x27, 0x00))})
    with pytest.raises(CheckCondition, match="DATA PROTECT: Write protected"):
        drive2.write(b"x" * 512)


# -- positioning ---------------------------------------------------------------------

def test_space_outcomes_and_cdb() -> None:
    drive, t = drive_with(**{"0x11": lambda c, o, a: reply(CHECK_CONDITION, build_fixed(0x8, 0, 5, info=3))})
    out = drive.space(10, C.SpaceCode.FILEMARKS)
    assert out.eod and out.residual == 3
    assert t.calls[0][0] == bytes([0x11, 0x01, 0, 0, 10, 0])
    drive2, t2 = drive_with(**{"0x11": lambda c, o, a: reply(CHECK_CONDITION, build_fixed(0, 0, 1, info=2, filemark=True))})
    assert drive2.space(-5).filemark
    assert t2.calls[0][0] == bytes([0x11, 0x00, 0xFF, 0xFF, 0xFB, 0])


def test_read_position_and_locate() -> None:
    pos = bytes([0x80, 0, 0, 0]) + (0).to_bytes(4, "big") + (0).to_bytes(4, "big") + bytes(8)
    drive, t = drive_with(**{"0x34": pos})
    p = drive.read_position()
    assert p.bop and p.first_block == 0
    drive.locate(1234)
    drive.locate(1 << 40)
    assert t.calls[1][0][0] == C.LOCATE_10 and t.calls[1][0][3:7] == (1234).to_bytes(4, "big")
    assert t.calls[2][0][0] == C.LOCATE_16 and t.calls[2][0][4:12] == (1 << 40).to_bytes(8, "big")


# -- "not supported by this device" -------------------------------------------------

def test_supported_wraps_invalid_opcode_as_unsupported() -> None:
    drive, _ = drive_with(**{"0x4D": rejecting, "0x8C": rejecting, "0x44": rejecting})
    for call in (lambda: drive.log_sense(0x2E), drive.read_attributes, drive.report_density_support):
        result = supported(call)
        assert isinstance(result, Unsupported) and not result and result.reason == "not supported by this device"


def test_supported_lets_real_errors_through() -> None:
    drive, _ = drive_with(**{"0x8C": lambda c, o, a: reply(CHECK_CONDITION, build_fixed(0x3, 0x11, 0))})
    with pytest.raises(MediumError):
        supported(drive.read_attributes)
    err = IllegalRequest("x", sense=None)
    assert is_not_supported(err)


# -- identity, mode pages ----------------------------------------------------------

def test_inquiry_serial_and_generation_from_product() -> None:
    serial = bytes([0x01, 0x80, 0x00, 0x0A]) + b"HU1234ABCD"
    drive, _ = drive_with(**{"0x12": lambda c, o, a: reply(data=serial if c[1] & 1 else inquiry_bytes()),
                             "0x1A": rejecting, "0x5A": rejecting})
    inq = drive.inquiry()
    assert (inq.vendor, inq.product, inq.revision, inq.is_tape) == ("HPE", "Ultrium 9-SCSI", "Q3A1", True)
    assert drive.serial_number() == "HU1234ABCD"
    assert drive.generation() == 9


@pytest.mark.parametrize("product, gen", [("Ultrium 6-SCSI", 6), ("ULT3580-TD8", 8), ("ULT3580-HH9", 9),
                                          ("ULTRIUM-HH7", 7), ("VIRTUAL-TAPE", None), ("LTO-5 drive", 5),
                                          # LTO-10: IBM's letter naming; HPE keeps the number
                                          ("ULT3580-TDA", 10), ("ULTRIUM-TDA", 10), ("ULTRIUM-HHA", 10),
                                          ("ULT3580-HHA", 10), ("Ultrium 10-SCSI", 10),
                                          ("ULT3580-TDB", None)])  # an unpublished letter is not guessed
def test_generation_from_product(product: str, gen: int | None) -> None:
    assert generation_from_product(product) == gen


def test_mode_sense_falls_back_from_10_to_6_and_remembers() -> None:
    drive, t = drive_with(**{"0x5A": rejecting, "0x1A": mode6(density=0x5E, block=0)})
    assert drive.generation() == 8
    assert drive.block_size() == 0
    opcodes = [c[0][0] for c in t.calls]
    assert opcodes == [0x5A, 0x1A, 0x1A]


def test_set_block_size_sends_mode_select6_with_zeroed_length() -> None:
    drive, t = drive_with(**{"0x5A": rejecting, "0x1A": mode6(density=0x60, block=0, wp=True)})
    drive.set_block_size(262144)
    cdb, data = t.calls[-1]
    assert cdb == bytes([0x15, 0x10, 0, 0, 12, 0])
    assert data == bytes([0, 0, 0x10, 8, 0x60, 0, 0, 0, 0]) + (262144).to_bytes(3, "big")


def test_is_write_protected() -> None:
    drive, _ = drive_with(**{"0x5A": rejecting, "0x1A": mode6(wp=True)})
    assert drive.is_write_protected()


def test_set_compression_refused_like_tgt() -> None:
    zeros_page = bytes([0x0F, 0x0E]) + bytes(14)
    drive, t = drive_with(**{"0x5A": rejecting, "0x1A": mode6(pages=zeros_page)})
    change = drive.set_compression(True)
    assert isinstance(change, CompressionChange) and not change and "not compression capable" in change.reason
    assert all(c[0][0] != 0x15 for c in t.calls)


def test_set_compression_applied_on_capable_drive() -> None:
    page = bytes([0x8F, 0x0E, 0x40, 0x80, 0, 0, 0, 1, 0, 0, 0, 1]) + bytes(4)
    drive, t = drive_with(**{"0x5A": rejecting, "0x1A": mode6(pages=page)})
    assert drive.set_compression(True)
    cdb, data = t.calls[-1]
    assert cdb[0] == 0x15 and data[0] == 0
    sent_page = data[12:]
    assert sent_page[0] == 0x0F  # PS cleared
    assert sent_page[2] & 0xC0 == 0xC0  # DCE set, DCC kept


def test_set_compression_refusal_by_mode_select_is_a_reason() -> None:
    page = bytes([0x0F, 0x0E, 0x40, 0x80]) + bytes(12)
    drive, _ = drive_with(**{"0x5A": rejecting, "0x1A": mode6(pages=page),
                             "0x15": lambda c, o, a: reply(CHECK_CONDITION, build_fixed(5, 0x26, 0))})
    change = drive.set_compression(False)
    assert not change and "Invalid field in parameter list" in change.reason


def test_context_manager_closes_transport() -> None:
    t = RecordingTransport(device="virtual:test")
    with TapeDrive(t) as drive:
        assert drive.device == "virtual:test"
    assert t.closed


def test_blank_check_on_other_commands_raises() -> None:
    drive, _ = drive_with(**{"0x01": lambda c, o, a: reply(CHECK_CONDITION, build_fixed(8, 0, 5))})
    with pytest.raises(BlankCheck):
        drive.rewind()
