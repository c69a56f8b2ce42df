"""What reached tgtd, from tgtd's own log: the test's proof of what was sent on the wire.

With debugging on (``tgtadm --op update --mode sys --name debug --value on``), tgtd logs every
SCSI command it queues as ``target_cmd_queue(LINE) 0xCMD OPCODE LUN`` (tgt 1.0.85,
``usr/target.c``). ``CommandLog`` turns that log into (opcode, LUN) pairs; ``mark()`` and
``since(mark)`` bound what one step of a test sent.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

from tests.helpers.tgt import TgtTarget

_QUEUED = re.compile(r"target_cmd_queue\(\d+\) 0x[0-9a-f]+ ([0-9a-f]+) (\d+)")


@dataclass
class CommandLog:
    target: TgtTarget

    def __post_init__(self) -> None:
        self.target._adm("--op", "update", "--mode", "sys", "--name", "debug", "--value", "on")

    def _text(self) -> str:
        return self.target.log_path.read_text(errors="replace")

    def mark(self) -> int:
        """Where the log ends now."""
        return len(self._text())

    def since(self, mark: int = 0, lun: int | None = None) -> list[int]:
        """The opcodes tgtd queued after ``mark`` (for ``lun`` only, if given), in order."""
        return [int(op, 16) for op, n in _QUEUED.findall(self._text()[mark:]) if lun is None or int(n) == lun]


__all__ = ["CommandLog"]
