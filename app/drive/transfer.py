"""A tape drive's data path: READ(6), WRITE(6), their bursts, WRITE FILEMARKS.

The hot path of every tape test (issue 19: 256 KiB reads ran at 0.82 of a bare C loop): each CDB is
built, checked and passed through both gates once per (size, block size) and then reused; a GOOD
command is one transport call and one shared outcome. The tape conditions SSC reports through CHECK
CONDITION but which are *outcomes* of a read or write (filemark, end of data, short block, early
warning) are returned as flags, never raised, and byte counts come from the sense INFO field, not from
the transport residual (tgt gets the residual wrong on these errors).
"""
from __future__ import annotations

import time
from array import array
from typing import TYPE_CHECKING, Callable

from app.drive.gate import TapeGate
from app.drive.outcomes import WRITTEN, O, Burst, ReadOutcome, WriteOutcome
from native.errors import DeviceError, InvalidParameter
from native.scsi import cdb as C
from native.scsi.sensekeys import BLANK_CHECK, NO_SENSE, RECOVERED_ERROR
from native.transport import CHECK_CONDITION, CONDITION_MET, GOOD, CommandResult, Fill, Repeated, Transport, \
    WritableBuffer
from native.units import block_text

if TYPE_CHECKING:  # decoded by ``app.device`` with the first CHECK CONDITION, not at import (issue 32 §3)
    from native.scsi.sense import Sense


class DataPath(TapeGate):
    """READ, WRITE and WRITE FILEMARKS of a ``TapeDrive``."""

    def __init__(self, transport: Transport, *, device: str | None = None, read_only: bool | None = None) -> None:
        super().__init__(transport, device=device, read_only=read_only)
        self._write_cdbs: dict[tuple[int, int | None], bytes] = {}
        self._read_cdbs: dict[tuple[int, int | None], tuple[bytes, int, int]] = {}
        self._good_read: tuple[CommandResult | None, ReadOutcome | None] = (None, None)  # see ``read``

    def write(self, buf: bytes | bytearray | memoryview, *, block_size: int | None = None, timeout: float | None = None) -> WriteOutcome:
        """WRITE(6): one variable block of ``len(buf)`` bytes, or fixed blocks.

        With ``block_size`` the drive must already be in fixed mode of that size
        (``set_block_size``) and ``len(buf)`` must be a multiple of it.
        """
        size = len(buf) if not isinstance(buf, memoryview) else buf.nbytes
        cdb = self._write_cdbs.get((size, block_size)) or self._write_cdb(size, block_size)
        # The hot path of every write test: a GOOD WRITE is one call and a shared outcome.
        result = self.transport.execute(cdb, data_out=buf, timeout=self._seconds[C.WRITE_6] if timeout is None else timeout)
        if result.status == GOOD:
            return WRITTEN
        return self._write_outcome(cdb, result)

    def _write_outcome(self, cdb: bytes, result: CommandResult) -> WriteOutcome:
        """What a WRITE's result means: written, the early warning (with what was not taken), or an error."""
        if result.status == GOOD:
            return WRITTEN
        result, sense = self._not_good(cdb, result) if result.status != CONDITION_MET else (result, None)
        if sense is None:
            if result.status == CHECK_CONDITION:
                self._raise(cdb, sense)
            return WriteOutcome()
        if sense.key == RECOVERED_ERROR:
            return WriteOutcome()
        if sense.key == NO_SENSE and (sense.eom or (sense.asc, sense.ascq) == (0x00, 0x02)):
            return WriteOutcome(eom_warning=True, residual=sense.info if sense.valid else 0)
        self._raise(cdb, sense)

    def _write_cdb(self, size: int, block_size: int | None) -> bytes:
        """WRITE(6) for ``size`` bytes, remembered: a test sends the same CDB millions of times. The
        tape gate runs here, so it costs nothing per write after the first."""
        self.require_tape()
        self._require_writable_for(bytes([C.WRITE_6]))
        if block_size:
            if size % block_size:
                raise InvalidParameter(f"{block_text(size)} is not a multiple of the block size, {block_text(block_size)}")
            cdb = C.write6(size // block_size, fixed=True)
        else:
            cdb = C.write6(size)
        if len(self._write_cdbs) >= 8:
            self._write_cdbs.clear()
        self._write_cdbs[(size, block_size)] = cdb
        return cdb

    def write_burst(self, buf: bytearray, *, block_size: int | None = None, count: int, until: float,
                    starts: "array[float]", ends: "array[float]", fill: Fill, first: int = 0, step: int = 1,
                    spare: bytearray | None = None, clock: Callable[[], float] = time.perf_counter) -> Burst[WriteOutcome]:
        """Up to ``count`` WRITEs of ``buf``, each refilled first by ``fill(buf, first + i * step)``,
        until ``clock()`` reaches ``until`` or a WRITE is not clean (``Burst``; times per WRITE in
        ``starts``/``ends``). The same CDB, gate and timeout as ``write``: a write test's stream in
        one transport call (``Transport.repeat``; ``spare``: a second buffer, for a transport that
        fills one while the other is written)."""
        size = len(buf)
        cdb = self._write_cdbs.get((size, block_size)) or self._write_cdb(size, block_size)
        done = self.transport.repeat(cdb, data_out=buf, timeout=self._seconds[C.WRITE_6], count=count, until=until,
                                     starts=starts, ends=ends, fill=fill, first=first, step=step, spare=spare,
                                     clock=clock)
        return self._burst(done, lambda result: self._write_outcome(cdb, result))

    def read_burst(self, view: memoryview, *, block_size: int | None = None, count: int, until: float,
                   starts: "array[float]", ends: "array[float]",
                   clock: Callable[[], float] = time.perf_counter) -> Burst[ReadOutcome]:
        """Up to ``count`` READs into ``view`` (each overwriting the last) until ``clock()`` reaches
        ``until`` or a READ is not clean: a filemark, EOD or a short block ends the burst as its
        ``tail``, decoded as ``read`` decodes it. Only for a caller that needs no look at each
        block's data (a verifying read reads one at a time)."""
        size = view.nbytes
        shape = self._read_cdbs.get((size, block_size)) or self._read_shape(size, block_size)
        cdb = shape[0]
        done = self.transport.repeat(cdb, data_in=view, timeout=self._read_timeout(cdb), count=count, until=until,
                                     starts=starts, ends=ends, clock=clock)
        return self._burst(done, lambda result: self._read_outcome(result, view, view, size, shape))

    @staticmethod
    def _burst(done: Repeated, decode: Callable[[CommandResult], O]) -> Burst[O]:
        if done.error is not None:
            return Burst(done.clean, error=done.error)
        if done.tail is None:
            return Burst(done.clean)
        try:
            return Burst(done.clean, tail=decode(done.tail))
        except DeviceError as err:
            return Burst(done.clean, error=err)

    def read(self, buffer_or_length: int | WritableBuffer, *, block_size: int | None = None, timeout: float | None = None) -> ReadOutcome:
        """READ(6) into a buffer (filled in place) or a new one of the given length.

        The hot path of every read test, kept as lean as the write's (issue 19: 256 KiB reads
        ran at 0.82 of a bare C loop): the CDB is built, checked and passed through the tape
        gate once per (size, block size), a bytearray goes to the transport as it is (no
        view of our own), and a GOOD read is one call and one outcome built positionally.
        """
        buf = bytearray(buffer_or_length) if isinstance(buffer_or_length, int) else buffer_or_length
        view: memoryview | None = None
        if type(buf) is bytearray:
            size = len(buf)
        else:
            view = buf if type(buf) is memoryview else memoryview(buf)  # the caller's own view goes through as it is
            if view.format != "B" or view.ndim != 1:
                view = view.cast("B")
            size = view.nbytes
        shape = self._read_cdbs.get((size, block_size)) or self._read_shape(size, block_size)
        cdb = shape[0]
        if timeout is None:
            timeout = self._read_timeout(cdb)
        result = self.transport.execute(cdb, data_in=buf if view is None else view, timeout=timeout)
        good_result, good_outcome = self._good_read
        if result is good_result and good_outcome is not None:  # the transport's shared GOOD result again
            return good_outcome
        return self._read_outcome(result, buf, view, size, shape)

    def _read_outcome(self, result: CommandResult, buf: WritableBuffer, view: memoryview | None, size: int,
                      shape: tuple[bytes, int, int]) -> ReadOutcome:
        """What a READ's result means for a tape read (SSC): data, a filemark, EOD, EOM, a short block."""
        cdb, requested, unit = shape
        status = result.status
        if status == GOOD or status == CONDITION_MET:
            data = result.data
            if result.transferred == size and data.nbytes == size:
                outcome = ReadOutcome(size, False, False, False, False, 0, data)
                if data is view:
                    # Kept only for the caller's own view (the caller holds it anyway; a bytearray
                    # is never kept locked against resizing): a transport that answers every GOOD
                    # read into that view with one shared result (iSCSI's hot loop) gets one shared
                    # outcome back. Both are frozen and describe the same bytes.
                    self._good_read = (result, outcome)
                return outcome
            return ReadOutcome(nbytes=size, data=self._view(buf)[:size])
        result, sense = self._not_good(cdb, result)
        if sense is None:
            self._raise(cdb, sense)  # CHECK CONDITION without sense data
        condition = self._read_condition(sense, size, requested, unit, self._view(buf) if view is None else view)
        if condition is None:
            self._raise(cdb, sense)
        return condition

    @staticmethod
    def _read_condition(sense: Sense, size: int, requested: int, unit: int, view: memoryview) -> ReadOutcome | None:
        """A READ's CHECK CONDITION that is an outcome (SSC): RECOVERED ERROR (the data came), end of data,
        a filemark, the early warning, a short or a longer block; None for an error."""
        if sense.key == RECOVERED_ERROR:
            return ReadOutcome(nbytes=size, data=view[:size])
        info = sense.info if sense.valid else 0
        if sense.key == BLANK_CHECK:
            # End of data: 08/00/05 on a real drive, 08/00/00 with EOM on tgt.
            done = min(max(0, requested - info) * unit if sense.valid else 0, size)
            return ReadOutcome(nbytes=done, eod=True, eom=sense.eom, residual=info, data=view[:done])
        if sense.key != NO_SENSE or not (sense.filemark or sense.ili or sense.eom or sense.asc == 0x00):
            return None
        # A block longer than asked for (ILI, negative residual) was truncated to the buffer.
        done = size if sense.ili and info < 0 else min(size, max(0, requested - info) * unit)
        code = (sense.asc, sense.ascq)
        return ReadOutcome(nbytes=done, filemark=sense.filemark or code == (0x00, 0x01),
                           eom=sense.eom or code == (0x00, 0x02), eod=code == (0x00, 0x05),
                           ili=sense.ili, residual=info, data=view[:done])

    @staticmethod
    def _view(buf: WritableBuffer) -> memoryview:
        view = memoryview(buf)
        return view.cast("B") if view.format != "B" or view.ndim != 1 else view

    def _read_timeout(self, cdb: bytes) -> float:
        """READ(6)'s timeout: learned at the first command that passed the tape gate (``_read_shape``)."""
        return self._seconds[C.READ_6] if self._timeouts is not None else self._long(cdb)

    def _read_shape(self, size: int, block_size: int | None) -> tuple[bytes, int, int]:
        """READ(6) for a ``size``-byte buffer: (CDB, transfer length, bytes per unit), remembered.

        The tape gate runs here, as for the cached WRITE: a test sends the same READ millions of
        times, and a drive object's device type does not change. READ is not state-changing, so
        a read-only session needs no check.
        """
        if block_size:
            if size % block_size:
                raise InvalidParameter(f"a buffer of {block_text(size)} is not a multiple of the block size, {block_text(block_size)}")
            requested, unit = size // block_size, block_size
            cdb = C.read6(requested, fixed=True)
        else:
            requested, unit = size, 1
            cdb = C.read6(size)
        self._require_type_for(cdb)
        if len(self._read_cdbs) >= 8:
            self._read_cdbs.clear()
        shape = self._read_cdbs[(size, block_size)] = (cdb, requested, unit)
        return shape

    def write_filemarks(self, count: int = 1, *, immed: bool = False) -> WriteOutcome:
        cdb = C.write_filemarks(count, immed=immed)
        result, sense = self._execute(cdb, timeout=self._long(cdb))
        if sense is None and result.status != CHECK_CONDITION:
            return WriteOutcome()
        if sense is not None and sense.key == RECOVERED_ERROR:
            return WriteOutcome()
        if sense is not None and sense.key == NO_SENSE and (sense.eom or (sense.asc, sense.ascq) == (0x00, 0x02)):
            return WriteOutcome(eom_warning=True, residual=sense.info if sense.valid else 0)
        self._raise(cdb, sense)
