"""``virtual:null``: a drive that accepts every WRITE at once and stores nothing.

Its purpose is a benchmark of tapediag itself: with the drive out of the way, the
write loop (pattern generation, the drive object, sample batching) must still push
several GB/s with 1 MiB I/Os, or the tool would be the bottleneck of a fast drive.

It answers just enough of the command set for a test engine's pre-checks (INQUIRY,
TEST UNIT READY, READ BLOCK LIMITS, MODE SENSE/SELECT, REWIND, SPACE, LOCATE, WRITE
FILEMARKS, READ POSITION) and counts positions so READ POSITION is consistent.
Choice for reads: since nothing is stored, every READ answers BLANK CHECK / EOD at
once (08/00/05): a read-back phase ends immediately with zero bytes instead of
pretending to return data that was never kept. Everything else is ILLEGAL REQUEST
05/20/00, which the host treats as "not supported by this device".
"""
from __future__ import annotations

import struct

from native.errors import ConnectionLost
from native.scsi import cdb as C
from native.transport import CHECK_CONDITION, DEFAULT_TIMEOUT, GOOD, Buffer, CommandResult, Transport, WritableBuffer, make_data_in
from native.virtual.sense import BLANK_CHECK, Check, invalid_field, invalid_opcode

_INQUIRY = bytes([0x01, 0x80, 0x06, 0x12, 91, 0, 0, 0x02]) + b"TAPEDIAG" + b"NULL DEVICE     " + b"0001" + bytes(60)
_EMPTY = memoryview(b"")
_write_length, _write_fixed = C.Write6.reader("transfer_length"), C.Write6.reader("fixed")
#: Accepted and done at once: TEST UNIT READY, RESERVE, RELEASE, PREVENT ALLOW MEDIUM REMOVAL, ERASE.
_ACCEPTED = frozenset({C.TEST_UNIT_READY, C.RESERVE_6, C.RELEASE_6, C.PREVENT_ALLOW_MEDIUM_REMOVAL, C.ERASE_6})


def _end_of_data() -> Check:
    return Check(BLANK_CHECK, 0x00, 0x05)


class NullTransport(Transport):
    """A bottomless drive; see the module docstring."""

    def __init__(self, device: str = "virtual:null") -> None:
        self.device = device
        self.pos = 0
        self.eod = 0
        self.block_length = 0
        self.bytes_written = 0
        self._closed = False

    def close(self) -> None:
        self._closed = True

    def execute(self, cdb: bytes, *, data_out: Buffer | None = None, data_in: int | WritableBuffer = 0,
                timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        if self._closed:
            raise ConnectionLost("the null device is closed", device=self.device)
        op = cdb[0]
        if op == C.WRITE_6:  # the hot path, nothing allocated
            self.pos += _write_length(cdb) if _write_fixed(cdb) else 1
            self.eod = self.pos
            self.bytes_written += len(data_out) if data_out is not None else 0
            return CommandResult(GOOD, b"", _EMPTY, 0)
        try:
            reply = self._answer(bytes(cdb), data_out)
        except Check as check:  # the same typed refusal the virtual drive's handlers raise
            return CommandResult(CHECK_CONDITION, check.sense, _EMPTY, 0)
        if not reply:
            return CommandResult(GOOD, b"", _EMPTY, 0)
        buf = make_data_in(data_in) if (not isinstance(data_in, int) or data_in) else _EMPTY
        data, alloc = reply
        n = min(len(data), alloc, len(buf))
        buf[:n] = data[:n]
        return CommandResult(GOOD, b"", buf[:n], n)

    def _answer(self, cdb: bytes, data_out: Buffer | None) -> tuple[bytes, int] | None:
        """None = GOOD without data; (data, allocation) = data-in; a refusal raises ``Check``."""
        op = cdb[0]
        if len(cdb) < C.cdb_length(op):
            raise invalid_opcode()
        if op in _ACCEPTED:
            return None
        if op in (C.REWIND, C.LOAD_UNLOAD):
            self.pos = 0
            return None
        if op == C.READ_6:  # nothing was kept
            raise _end_of_data()
        if op == C.WRITE_FILEMARKS_6:
            self.pos += C.WriteFilemarks6.parse(cdb).count
            self.eod = self.pos
            return None
        if op in (C.SPACE_6, C.SPACE_16):  # only to EOD is meaningful here
            if (C.Space6.parse(cdb) if op == C.SPACE_6 else C.Space16.parse(cdb)).code == C.SpaceCode.END_OF_DATA:
                self.pos = self.eod
                return None
            raise _end_of_data()
        if op in (C.LOCATE_10, C.LOCATE_16):
            self._locate(cdb)
            return None
        if op == C.INQUIRY:
            return self._inquiry(cdb)
        if op == C.READ_BLOCK_LIMITS:
            return bytes([0, 0xFF, 0xFF, 0xFF, 0, 1]), 6
        if op in (C.MODE_SENSE_6, C.MODE_SENSE_10):
            return self._mode_sense(cdb)
        if op in (C.MODE_SELECT_6, C.MODE_SELECT_10):
            self._mode_select(cdb, data_out)
            return None
        if op == C.READ_POSITION:
            return self._read_position(C.ReadPosition.parse(cdb).service_action)
        raise invalid_opcode()

    def _locate(self, cdb: bytes) -> None:
        target = (C.Locate10.parse(cdb).block_address if cdb[0] == C.LOCATE_10
                  else C.Locate16.parse(cdb).logical_identifier)
        self.pos = min(target, self.eod)
        if target > self.eod:
            raise _end_of_data()

    def _read_position(self, action: int) -> tuple[bytes, int]:
        bop = 0x80 if self.pos == 0 else 0
        if action in (C.PositionForm.SHORT, C.PositionForm.SHORT_VENDOR):
            return struct.pack(">BBxxII8x", bop, 0, self.pos & 0xFFFFFFFF, self.pos & 0xFFFFFFFF), 20
        if action == C.PositionForm.LONG:
            return struct.pack(">B3xIQQ8x", bop, 0, self.pos, 0), 32
        raise invalid_field()

    @staticmethod
    def _inquiry(cdb: bytes) -> tuple[bytes, int]:
        command = C.Inquiry.parse(cdb)
        alloc = command.allocation_length
        if command.evpd:
            if command.page_code == 0x00:
                return bytes([0x01, 0x00, 0x00, 2, 0x00, 0x80]), alloc
            if command.page_code == 0x80:
                return bytes([0x01, 0x80, 0x00, 10]) + b"NULL000001", alloc
            raise invalid_field()
        if command.page_code:
            raise invalid_field()
        return _INQUIRY, alloc

    def _mode_sense(self, cdb: bytes) -> tuple[bytes, int]:
        ten = cdb[0] == C.MODE_SENSE_10
        command = C.ModeSense10.parse(cdb) if ten else C.ModeSense6.parse(cdb)
        code = command.page_code
        if code not in (0x00, 0x0F, 0x10, 0x3F):
            raise invalid_field()
        alloc = command.allocation_length
        bd = b"" if command.dbd else bytes(5) + self.block_length.to_bytes(3, "big")
        page = bytes([0x0F, 0x0E, 0x80, 0x80, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0]) if code in (0x0F, 0x3F) else b""
        if ten:
            header = struct.pack(">HBBBBH", 6 + len(bd) + len(page), 0, 0x10, 0, 0, len(bd))
        else:
            header = bytes([3 + len(bd) + len(page), 0, 0x10, len(bd)])
        return header + bd + page, alloc

    def _mode_select(self, cdb: bytes, data_out: Buffer | None) -> None:
        data = bytes(data_out or b"")
        hlen = 8 if cdb[0] == C.MODE_SELECT_10 else 4
        bdlen = (struct.unpack_from(">H", data, 6)[0] if hlen == 8 else data[3]) if len(data) >= hlen else 0
        if bdlen >= 8 and len(data) >= hlen + 8:
            self.block_length = int.from_bytes(data[hlen + 5 : hlen + 8], "big")
        return None
