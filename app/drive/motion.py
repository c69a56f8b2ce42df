"""A tape drive's motion and readiness: TEST UNIT READY and waiting for it, REWIND, SPACE, LOCATE,
READ POSITION, LOAD/UNLOAD, PREVENT/ALLOW MEDIUM REMOVAL, ERASE and the self-test (SEND DIAGNOSTIC).

The long ones wait as long as the drive recommends (``TapeGate._long``); SPACE's early stops (a
filemark, BOP, EOD) are an outcome with a residual, not an error."""
from __future__ import annotations

import time
from typing import TYPE_CHECKING, Callable

from app.drive.gate import TapeGate
from app.drive.outcomes import SpaceOutcome
from app.timeouts import ERASE_LONG_TIMEOUT
from native.errors import NotReady, UnitAttention
from native.scsi import cdb as C
from native.scsi.sensekeys import BLANK_CHECK, NO_SENSE, RECOVERED_ERROR
from native.transport import CHECK_CONDITION

if TYPE_CHECKING:  # loaded by the READ POSITION that reads them: ``info`` never asks where the tape is (issue 32 §3)
    from native.scsi.position import LongPosition, Position


class TapeMotion(TapeGate):
    """Readiness and the commands that move the tape or the cartridge."""

    # -- readiness ----------------------------------------------------------------

    def test_unit_ready(self) -> None:
        self._command(C.test_unit_ready(), timeout=60.0)

    def wait_ready(self, timeout: float = 300.0, *, poll: float = 1.0,
                   sleep: Callable[[float], None] | None = None, clock: Callable[[], float] = time.monotonic) -> None:
        """Wait until TEST UNIT READY succeeds.

        UNIT ATTENTION (after a load or reset) is consumed by the failing TUR itself,
        so it is simply retried; NOT READY "becoming ready" (04/01, 04/07...) is polled
        until ``timeout``. NOT READY for any other reason (no medium 3A/xx, manual
        intervention 04/03) cannot cure itself and is raised at once.
        """
        deadline = clock() + timeout
        attentions = 0
        while True:
            try:
                self.test_unit_ready()
                return
            except UnitAttention:
                attentions += 1
                if attentions > 16:  # a device that never stops reporting: give up
                    raise
                continue
            except NotReady as err:
                sense = err.sense
                transient = sense is not None and sense.asc == 0x04 and sense.ascq in (0x00, 0x01, 0x07, 0x0C, 0x13)
                if not transient or clock() >= deadline:
                    raise
                (sleep or self._pause)(poll)

    # -- positioning ----------------------------------------------------------------

    def rewind(self, *, immed: bool = False) -> None:
        cdb = C.rewind(immed=immed)
        self._command(cdb, timeout=self._long(cdb))

    def space(self, count: int, kind: C.SpaceCode | int = C.SpaceCode.BLOCKS) -> SpaceOutcome:
        """SPACE; hitting a filemark, BOP or EOD early is an outcome with a residual."""
        cdb = C.space(count, kind)
        result, sense = self._execute(cdb, timeout=self._long(cdb))
        if sense is None and result.status != CHECK_CONDITION:
            return SpaceOutcome()
        if sense is not None and sense.key in (NO_SENSE, BLANK_CHECK, RECOVERED_ERROR):
            aa = (sense.asc, sense.ascq)
            return SpaceOutcome(
                residual=sense.info if sense.valid else 0,
                filemark=sense.filemark or aa == (0x00, 0x01),
                eod=sense.key == BLANK_CHECK or aa == (0x00, 0x05),
                bop=aa == (0x00, 0x04),
                eom=sense.eom,
            )
        self._raise(cdb, sense)

    def read_position(self) -> Position:
        from native.scsi.position import Position

        return Position.parse(self._data_in(C.read_position(), 20))

    def read_position_long(self) -> LongPosition:
        from native.scsi.position import LongPosition

        return LongPosition.parse(self._data_in(C.read_position(C.PositionForm.LONG), 32))

    def locate(self, block: int, *, partition: int | None = None) -> None:
        cdb = C.locate10(block, partition=partition) if block <= 0xFFFFFFFF else C.locate16(block, partition=partition)
        self._command(cdb, timeout=self._long(cdb))

    def load(self, *, immed: bool = False) -> None:
        cdb = C.load_unload(load=True, immed=immed)
        self._command(cdb, timeout=self._long(cdb))

    def unload(self, *, immed: bool = False) -> None:
        cdb = C.load_unload(load=False, immed=immed)
        self._command(cdb, timeout=self._long(cdb))

    def prevent_medium_removal(self, prevent: bool) -> None:
        """PREVENT (True) or ALLOW (False) MEDIUM REMOVAL: a backup application prevents it while it holds
        the tape; a library then refuses to move the cartridge out (05/53/02)."""
        self._command(C.prevent_allow_medium_removal(prevent=prevent))

    def self_test(self, timeout: float | None = None) -> None:
        """The drive's default self-test (SEND DIAGNOSTIC, SELFTEST=1); raises with the drive's sense if it
        fails. The drive must be idle; it does not write to the tape. Minutes on some drives, hence the
        timeout: the drive's recommendation, at least ``app.timeouts.SELF_TEST_TIMEOUT``."""
        cdb = C.send_diagnostic_self_test()
        self._command(cdb, timeout=self._long(cdb) if timeout is None else timeout)

    def erase(self, *, long: bool = False, immed: bool = False) -> None:
        cdb = C.erase(long=long, immed=immed)
        self._command(cdb, timeout=self._long(cdb, ERASE_LONG_TIMEOUT if long else None))
