"""How long tapediag waits for each long tape command: the drive's own recommendation where it gives one.

Why: a timeout shorter than the drive needs aborts a healthy drive mid-command (the tape position
is then unknown), and how long a rewind, a locate or an erase may take grows with each generation's
tape length. SPC-4's REPORT SUPPORTED OPERATION CODES with RCTD=1 lets a drive state, per command,
a RECOMMENDED COMMAND TIMEOUT (``native.scsi.opcodes``); tapediag uses it for the long commands,
never below its own defaults (the floor): a drive that recommends less gets the default, since a
figure too short costs an aborted command and a figure too long costs nothing on a healthy drive.

The defaults are the same for every LTO generation (generous enough for the longest tape); a
drive that reports nothing gets them, labelled with the generation they were applied to.
"""
from __future__ import annotations

from dataclasses import dataclass

from native.scsi import cdb as C
from native.scsi.opcodes import SupportedCommands

# Motion commands can take long on a real drive (a full LTO-9 rewind is ~2 min, a
# long erase many hours); short timeouts there would abort healthy drives.
MOTION_TIMEOUT = 3 * 3600.0
ERASE_LONG_TIMEOUT = 24 * 3600.0
IO_TIMEOUT = 900.0
SELF_TEST_TIMEOUT = 1800.0  # SEND DIAGNOSTIC's default self-test: minutes on some drives

#: The long commands tapediag sends, each with its default (the floor). ERASE's default is a short
#: erase's; a long erase floors at ``ERASE_LONG_TIMEOUT`` (the drive reports one figure per opcode).
LONG_COMMANDS: dict[int, tuple[str, float]] = {op: (C.opcode_name(op), default) for op, default in (
    (C.REWIND, MOTION_TIMEOUT),
    (C.SPACE_6, MOTION_TIMEOUT),
    (C.LOCATE_10, MOTION_TIMEOUT),
    (C.LOCATE_16, MOTION_TIMEOUT),
    (C.LOAD_UNLOAD, MOTION_TIMEOUT),
    (C.ERASE_6, MOTION_TIMEOUT),
    (C.WRITE_FILEMARKS_6, MOTION_TIMEOUT),
    (C.READ_6, IO_TIMEOUT),
    (C.WRITE_6, IO_TIMEOUT),
    (C.SEND_DIAGNOSTIC, SELF_TEST_TIMEOUT),
)}

REPORTED = "reported by the drive"

# -- when a command has taken too long to be normal ---------------------------------------------
# A drive that stops answering (a hung drive, a frozen iSCSI target, a pulled cable) holds a command
# until its timeout: 15 minutes for a WRITE, hours for a rewind. Long before that the technician is
# told the drive is not answering and what they can do (``app.commandwatch``), while tapediag waits on.
# The figure must be far past what a healthy drive takes, or the notice would cry wolf, and far below
# the timeout, or it would come too late to matter.

#: Queries, mode pages, READ and WRITE: a drive answers within a second, and within a few seconds when
#: it repositions (a back-hitch is 2-3 s on LTO) or retries a block; 20 s is several back-hitches,
#: 1/45 of the 900 s I/O timeout.
NOTICE_DEFAULT = 20.0
#: Commands whose normal time is long: a full-length wind (rewind, locate, space to EOD, unload) of an
#: LTO-9 tape takes about two minutes, so twice that; a buffer flush (WRITE FILEMARKS) writes up to a
#: gigabyte; a self-test runs for minutes; a library's robot crosses frames (MOVE MEDIUM), and a full
#: barcode scan (INITIALIZE ELEMENT STATUS) takes many minutes on a big library.
NOTICE_LONG: dict[int, float] = {
    C.REWIND: 240.0, C.SPACE_6: 240.0, C.SPACE_16: 240.0, C.LOCATE_10: 240.0, C.LOCATE_16: 240.0,
    C.LOAD_UNLOAD: 240.0, C.ERASE_6: 240.0,
    C.WRITE_FILEMARKS_6: 60.0,
    C.SEND_DIAGNOSTIC: 600.0,
    C.MOVE_MEDIUM: 120.0,
    C.INITIALIZE_ELEMENT_STATUS: 1800.0, C.INITIALIZE_ELEMENT_STATUS_WITH_RANGE: 1800.0,
}
#: Where the drive states a command's NOMINAL processing time (REPORT SUPPORTED OPERATION CODES, SPC-4:
#: how long an application should wait before asking how the command is getting on), the notice waits
#: this many times that, if it is longer than the figure above.
NOTICE_NOMINAL_FACTOR = 3


def notice_after(opcode: int, nominal: int | None = None) -> float:
    """Seconds an outstanding command may take before the user is told the drive is not answering."""
    floor = NOTICE_LONG.get(opcode, NOTICE_DEFAULT)
    return max(floor, NOTICE_NOMINAL_FACTOR * float(nominal)) if nominal else floor


def nominal_times(report: SupportedCommands | None) -> dict[int, int]:
    """The drive's nominal processing time per opcode, where it states one (0 means "not specified")."""
    if report is None:
        return {}
    return {c.opcode: c.timeouts.nominal for c in report.commands if c.timeouts is not None and c.timeouts.nominal}


@dataclass(frozen=True)
class CommandTimeoutEntry:
    """One long command: the seconds tapediag waits, its default, and the drive's recommendation
    (None when the drive did not report one, or reported 0 = "not specified")."""

    command: str
    opcode: int
    seconds: float
    default: float
    recommended: int | None


@dataclass(frozen=True)
class Timeouts:
    """The long commands' timeouts for one drive. ``reported``: at least one came from the drive;
    ``source`` says so in words ("reported by the drive", "LTO-9 defaults (...)")."""

    reported: bool
    source: str
    commands: tuple[CommandTimeoutEntry, ...]

    def seconds(self, opcode: int, floor: float | None = None) -> float:
        """The timeout for ``opcode``: the drive's recommendation, never below ``floor`` (default: the command's default)."""
        for entry in self.commands:
            if entry.opcode == opcode:
                return max(entry.seconds, floor or 0.0)
        return floor if floor is not None else LONG_COMMANDS[opcode][1]

    def by_opcode(self) -> dict[int, float]:
        return {entry.opcode: entry.seconds for entry in self.commands}



def defaults_label(generation: int | None) -> str:
    return f"LTO-{generation} defaults" if generation else "tapediag's defaults"


def resolve(report: SupportedCommands | None, generation: int | None, why_not: str = "") -> Timeouts:
    """The timeouts for a drive that answered ``report`` (None: it could not, ``why_not`` says why)."""
    entries = []
    for opcode, (name, default) in LONG_COMMANDS.items():
        found = report.find(opcode) if report is not None else None
        recommended = found.timeouts.recommended if found is not None and found.timeouts is not None else 0
        entries.append(CommandTimeoutEntry(name, opcode, max(default, float(recommended)), default, recommended or None))
    reported = any(entry.recommended is not None for entry in entries)
    if reported:
        source = REPORTED
    else:
        if report is not None:
            why_not = ("the drive lists its commands without timeouts" if not any(c.timeouts for c in report.commands)
                       else "the drive reports every timeout as 0, not specified")
        source = defaults_label(generation) + (f" ({why_not})" if why_not else "")
    return Timeouts(reported, source, tuple(entries))
