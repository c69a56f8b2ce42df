"""The virtual drive's REPORT SUPPORTED OPERATION CODES answer: its commands and their timeouts.

Why: the host asks every tape drive for its recommended command timeouts (``app.timeouts``);
the virtual drive must answer as a current LTO drive does, so that path is exercised without
hardware. The seconds below are plausible figures for a full-height LTO drive, chosen by
tapediag (nominal: a typical run; recommended: with margin for a full-length wind, a long erase,
retries), not any vendor's published table. Layout: ``native.scsi.opcodes`` (SPC-4).
"""
from __future__ import annotations

from typing import Iterable

from native.scsi.opcodes import CommandDescriptor, CommandTimeouts, SupportedCommands

MAINTENANCE_IN = 0xA3
SA_REPORT_SUPPORTED_OPCODES = 0x0C

#: CDB length by opcode group (SAM-5: group 0 six bytes, 1-2 ten, 4 sixteen, 5 twelve).
_CDB_LEN = {0: 6, 1: 10, 2: 10, 4: 16, 5: 12}

#: (nominal, recommended) seconds for the long commands; every other command is (1, 60).
_LONG: dict[int, tuple[int, int]] = {
    0x01: (120, 1200),  # REWIND: a full-length rewind is about two minutes
    0x11: (60, 2700), 0x91: (60, 2700),  # SPACE(6)/(16)
    0x2B: (60, 2700), 0x92: (60, 2700),  # LOCATE(10)/(16)
    0x1B: (30, 1200),  # LOAD UNLOAD (thread, calibrate, read the cartridge memory)
    0x19: (10, 108000),  # ERASE(6): one figure for both forms, so a long erase of a full-length tape fits
    0x10: (5, 1500),  # WRITE FILEMARKS: flushes the buffer to tape
    0x08: (5, 1500), 0x0A: (5, 1500),  # READ(6)/WRITE(6), error recovery and retries included
    0x1D: (60, 2400),  # SEND DIAGNOSTIC, default self-test
}


def supported_commands(opcodes: Iterable[int], *, timeouts: bool) -> SupportedCommands:
    """The all_commands list for the opcodes the drive handles; with the timeouts descriptors when
    the CDB set RCTD. MAINTENANCE IN is listed with the one service action implemented."""
    commands = []
    for op in sorted(opcodes):
        nominal, recommended = _LONG.get(op, (1, 60))
        commands.append(CommandDescriptor(
            opcode=op,
            service_action=SA_REPORT_SUPPORTED_OPCODES if op == MAINTENANCE_IN else None,
            cdb_length=_CDB_LEN.get(op >> 5, 6),
            timeouts=CommandTimeouts(nominal, recommended) if timeouts else None,
        ))
    return SupportedCommands(tuple(commands), needed=0)
