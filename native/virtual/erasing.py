"""ERASE(6) on the virtual drive: a short erase, and a long erase that takes the time a real one takes.

As an LTO drive does it (SSC-5 ERASE; e.g. Seagate's Viper LTO SCSI manual: "If the Long bit is
clear, then an EOD is written at the current position ... If the Long bit is set, EOD is written at
the current position. Data Set Separators are then written from EOD to the end of the medium"):

* short (LONG=0): end of data at the current position, at once (a flush of the buffer first);
* long (LONG=1): end of data at the current position first, then the rest of the partition is
  overwritten at the drive's native rate, which takes (partition capacity - tape before the
  position) / native rate. With IMMED=0 the command returns when done. With IMMED=1 it returns at
  once and the drive is busy: every command but INQUIRY, REPORT LUNS and REPORT SUPPORTED OPERATION
  CODES gets NOT READY 04/07 (operation in progress) with the progress indication (sense bytes
  15-17, SKSV and progress/65536), REQUEST SENSE returns that sense as its data. Nothing stops it,
  as nothing in SSC stops an immediate erase (a reset might, on some drives; the virtual drive has
  none): the tape reads as blank from the erase's start on from the first moment.

``realtime=0`` (no sleeping): the erase's time passes with the host's status polls instead of the
wall clock, each poll counting as 1/``POLLS`` of the erase, so a functional test sees progress rise
and the erase end without waiting for it.
"""
from __future__ import annotations

from typing import Callable

from native.scsi import cdb as C
from native.transport import Buffer
from native.virtual.base import DriveBase
from native.virtual.pacer import Pacer
from native.virtual.sense import NOT_READY, Check, worm_overwrite, write_protected

#: Commands a drive busy with an immediate erase still answers (identity and its command list).
ANSWERED_WHILE_ERASING = frozenset({C.INQUIRY, C.REPORT_LUNS, C.MAINTENANCE_IN})
#: ``realtime=0``: status polls that make up a long erase.
POLLS = 16

Handler = Callable[[bytes, "Buffer | None", memoryview], int]


def _busy_sense(progress: float) -> bytes:
    """NOT READY, LOGICAL UNIT NOT READY, OPERATION IN PROGRESS (02/04/07) with the progress indication."""
    sense = bytearray(18)
    sense[0], sense[2], sense[7], sense[12], sense[13] = 0x70, NOT_READY, 10, 0x04, 0x07
    value = max(0, min(0xFFFF, int(progress * 65536)))
    sense[15], sense[16], sense[17] = 0x80, value >> 8, value & 0xFF  # SKSV, PROGRESS INDICATION
    return bytes(sense)


class EraseCommands(DriveBase):
    pacer: Pacer
    #: An immediate long erase under way: (start, end) on the model's clock; None when idle.
    _erasing: "tuple[float, float] | None" = None

    def _erase(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        if self.cart.meta.write_protect:
            raise write_protected()
        if self.cart.meta.worm and self.pos < self.cart.count:
            raise worm_overwrite()
        command = C.Erase6.parse(cdb)
        long, immed = command.long, command.immed
        self._reposition(self.pos)
        self.cart.truncate(self.pos)  # end of data here first, long or short
        if long:
            seconds = self._long_erase_seconds()
            if immed:
                self._erasing = (self._t_done, self._t_done + seconds)
            else:
                self._t_done += seconds
        return 0

    def _long_erase_seconds(self) -> float:
        """What is left of the partition after the position, at the drive's native rate."""
        rest = max(0, self.cart.meta.capacity - self.cart.tape_used(self.pos))
        return rest / self.spec.native_rate

    def _while_erasing(self, opcode: int, handler: "Handler | None") -> "Handler | None":
        """The handler for a command arriving while an immediate erase runs (``execute`` asks first)."""
        assert self._erasing is not None
        start, end = self._erasing
        if self._t >= end:
            self._erasing = None
            return handler
        if opcode in ANSWERED_WHILE_ERASING:
            return handler
        if not self.pacer.realtime:
            self._t_done = self._t + (end - start) / POLLS  # this poll stands for the host's wait
        sense = _busy_sense((self._t - start) / (end - start) if end > start else 1.0)
        if opcode == C.REQUEST_SENSE:
            return lambda cdb, out, buf: self._reply(sense, C.RequestSense.parse(cdb).allocation_length, buf)
        busy = Check(NOT_READY, 0x04, 0x07)
        busy.sense = sense
        raise busy
