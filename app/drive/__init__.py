"""``TapeDrive``: the one object every tape test and panel talks to a drive through.

It takes any ``native.transport.Transport`` (pass-through, iSCSI, the virtual drive,
a fault-injecting wrapper in tests) and adds SCSI semantics on top:

* every non-GOOD status becomes the same exception whatever the transport:
  CHECK CONDITION -> the ``CheckCondition`` subclass for the sense key, carrying the
  decoded ``Sense`` and a one-line message; BUSY & co -> ``ScsiStatusError``;
* the tape conditions SSC reports through CHECK CONDITION but which are *outcomes*
  of a read or write (filemark, end of data, short block, early warning) are
  returned as flags, never raised, and byte counts come from the sense INFO field,
  not from the transport residual (tgt gets the residual wrong on these errors);
* the long commands (REWIND, SPACE, LOCATE, LOAD/UNLOAD, ERASE, WRITE FILEMARKS, READ/WRITE,
  SEND DIAGNOSTIC) wait as long as the drive itself recommends (REPORT SUPPORTED OPERATION
  CODES, asked once), never less than tapediag's defaults (``app.timeouts``).
"""
from __future__ import annotations

from app.device import (  # noqa: F401 - the read-only policy, named from here by its older callers
    STATE_CHANGING_OPCODES, ReadOnlyRefusal, read_only_session, set_read_only_session, state_changing,
)
from app.drive.answers import NOT_SUPPORTED, Maybe, Supported, Unsupported, is_not_supported, supported
from app.drive.gate import PERIPHERAL_TAPE, NotATapeDrive, generation_from_product
from app.drive.modes import CompressionChange, ModePages
from app.drive.motion import TapeMotion
from app.drive.outcomes import Burst, ReadOutcome, SpaceOutcome, WriteOutcome
from app.drive.queries import Queries
from app.drive.transfer import DataPath
from native.errors import CheckCondition
from native.scsi.density import lto_generation


class TapeDrive(DataPath, TapeMotion, ModePages, Queries):
    """SCSI semantics over a transport, for a tape drive. Not thread-safe: one worker per drive.

    Assembled from what a drive does, one module each: the tape gate and the timeouts (``gate``,
    over ``app.device.ScsiDevice``), the data path (``transfer``), motion and readiness (``motion``),
    mode pages (``modes``) and the read-only queries (``queries``).
    """

    def generation(self) -> int | None:
        """LTO generation from the current density code, else from the product name."""
        try:
            density = self.mode_header().density_code
        except CheckCondition:
            density = None
        gen = lto_generation(density) if density else None
        if gen is not None:
            return gen
        inq = self._inquiry or self.inquiry()
        return generation_from_product(inq.product)


__all__ = ["Burst", "CompressionChange", "Maybe", "NOT_SUPPORTED", "NotATapeDrive", "PERIPHERAL_TAPE", "ReadOnlyRefusal",
           "ReadOutcome", "STATE_CHANGING_OPCODES", "SpaceOutcome", "Supported", "TapeDrive", "Unsupported",
           "WriteOutcome", "generation_from_product", "is_not_supported", "read_only_session",
           "set_read_only_session", "state_changing", "supported"]
