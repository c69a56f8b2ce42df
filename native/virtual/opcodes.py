"""The virtual drive's REPORT SUPPORTED OPERATION CODES answer: its commands and their timeouts.

Why: the host asks every tape drive for its recommended command timeouts (``app.timeouts``);
the virtual drive must answer as a current LTO drive does, so that path is exercised without
hardware. The seconds below are plausible figures for a full-height LTO drive, chosen by
tapediag (nominal: a typical run; recommended: with margin for a full-length wind, a long erase,
retries), not any vendor's published table. Layout: ``native.scsi.opcodes`` (SPC-4).
"""
from __future__ import annotations

from typing import Iterable

from native.scsi import cdb as C
from native.scsi.opcodes import CommandDescriptor, CommandTimeouts, SupportedCommands

#: (nominal, recommended) seconds for the long commands; every other command is (1, 60).
_LONG: dict[int, tuple[int, int]] = {
    C.REWIND: (120, 1200),  # a full-length rewind is about two minutes
    C.SPACE_6: (60, 2700), C.SPACE_16: (60, 2700),
    C.LOCATE_10: (60, 2700), C.LOCATE_16: (60, 2700),
    C.LOAD_UNLOAD: (30, 1200),  # thread, calibrate, read the cartridge memory
    C.ERASE_6: (10, 108000),  # one figure for both forms, so a long erase of a full-length tape fits
    C.WRITE_FILEMARKS_6: (5, 1500),  # flushes the buffer to tape
    C.READ_6: (5, 1500), C.WRITE_6: (5, 1500),  # error recovery and retries included
    C.SEND_DIAGNOSTIC: (60, 2400),  # the default self-test
}


def supported_commands(opcodes: Iterable[int], *, timeouts: bool) -> SupportedCommands:
    """The all_commands list for the opcodes the drive handles; with the timeouts descriptors when
    the CDB set RCTD. MAINTENANCE IN is listed with the one service action implemented."""
    commands = []
    for op in sorted(opcodes):
        nominal, recommended = _LONG.get(op, (1, 60))
        commands.append(CommandDescriptor(
            opcode=op,
            service_action=C.SA_REPORT_SUPPORTED_OPCODES if op == C.MAINTENANCE_IN else None,
            cdb_length=C.cdb_length(op),
            timeouts=CommandTimeouts(nominal, recommended) if timeouts else None,
        ))
    return SupportedCommands(tuple(commands), needed=0)
