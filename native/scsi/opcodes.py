"""REPORT SUPPORTED OPERATION CODES parameter data: which commands a device supports, and how long each may take.

Why tapediag reads it: a drive that sets the RCTD-requested command timeouts descriptor says
how long it may need for each command (a full-length LTO rewind or an erase take minutes to
hours, and the figure grows with each generation's tape length). Using the drive's own
recommended timeout instead of a guess keeps a healthy drive from being aborted mid-command.

Layouts (SPC-4, REPORT SUPPORTED OPERATION CODES command, reporting options 000b):

* "All_commands parameter data": bytes 0-3 COMMAND DATA LENGTH (n-3), then the command
  descriptors. The length is not cut down to the allocation length, so a response longer
  than the buffer is recognisable (``SupportedCommands.needed``).
* "Command descriptor format": byte 0 OPERATION CODE, bytes 2-3 SERVICE ACTION, byte 5
  bit 1 CTDP (a command timeouts descriptor follows) and bit 0 SERVACTV (the service action
  field is valid), bytes 6-7 CDB LENGTH; with CTDP, bytes 8-19 the timeouts descriptor.
* "Command timeouts descriptor format": bytes 0-1 DESCRIPTOR LENGTH (0Ah), byte 3 command
  specific, bytes 4-7 NOMINAL COMMAND PROCESSING TIMEOUT and bytes 8-11 RECOMMENDED COMMAND
  TIMEOUT, both in seconds, 0 meaning "not specified".

``to_bytes`` builds the same layout: the virtual drive answers with it and the tests
round-trip it.
"""
from __future__ import annotations

from dataclasses import dataclass

from native.errors import ParseError
from native.scsi._bytes import need, uint

HEADER_LEN = 4
DESCRIPTOR_LEN = 8
TIMEOUTS_LEN = 12
TIMEOUTS_DESCRIPTOR_LENGTH = 0x0A  # the DESCRIPTOR LENGTH field: the 10 bytes after it

_CTDP = 0x02
_SERVACTV = 0x01


@dataclass(frozen=True)
class CommandTimeouts:
    """One command's timeouts descriptor; seconds, 0 = the device did not specify it."""

    nominal: int
    recommended: int
    command_specific: int = 0


@dataclass(frozen=True)
class CommandDescriptor:
    """One supported command. ``service_action`` is None when SERVACTV is 0 (the opcode has none)."""

    opcode: int
    service_action: int | None
    cdb_length: int
    timeouts: CommandTimeouts | None = None


@dataclass(frozen=True)
class SupportedCommands:
    """The all_commands list. ``needed`` is the byte count the device has (header included); more than
    was parsed means the allocation length cut the list short and the caller may ask again."""

    commands: tuple[CommandDescriptor, ...]
    needed: int

    @classmethod
    def parse(cls, data: bytes) -> "SupportedCommands":
        need(data, HEADER_LEN, "REPORT SUPPORTED OPERATION CODES")
        length = uint(data, 0, 4, "command data length")
        end = min(len(data), HEADER_LEN + length)
        commands = []
        offset = HEADER_LEN
        while offset + DESCRIPTOR_LEN <= end:
            flags = data[offset + 5]
            size = DESCRIPTOR_LEN + (TIMEOUTS_LEN if flags & _CTDP else 0)
            if offset + size > end:
                break  # cut short by the allocation length: keep the whole descriptors only
            timeouts = None
            if flags & _CTDP:
                t = offset + DESCRIPTOR_LEN
                if uint(data, t, 2, "timeouts descriptor length") != TIMEOUTS_DESCRIPTOR_LENGTH:
                    raise ParseError(f"REPORT SUPPORTED OPERATION CODES: command timeouts descriptor length "
                                     f"{uint(data, t, 2)} at byte {t}, expected {TIMEOUTS_DESCRIPTOR_LENGTH}")
                timeouts = CommandTimeouts(nominal=uint(data, t + 4, 4), recommended=uint(data, t + 8, 4),
                                           command_specific=data[t + 3])
            commands.append(CommandDescriptor(
                opcode=data[offset],
                service_action=uint(data, offset + 2, 2) if flags & _SERVACTV else None,
                cdb_length=uint(data, offset + 6, 2),
                timeouts=timeouts,
            ))
            offset += size
        return cls(tuple(commands), HEADER_LEN + length)

    def find(self, opcode: int, service_action: int | None = None) -> CommandDescriptor | None:
        """The descriptor for ``opcode`` (and service action, for opcodes that have them)."""
        for command in self.commands:
            if command.opcode == opcode and (service_action is None or command.service_action == service_action):
                return command
        return None

    def to_bytes(self) -> bytes:
        """The all_commands parameter data for these descriptors (the layout ``parse`` reads)."""
        body = b"".join(_descriptor(c) for c in self.commands)
        return len(body).to_bytes(4, "big") + body


def _descriptor(c: CommandDescriptor) -> bytes:
    flags = (_CTDP if c.timeouts is not None else 0) | (_SERVACTV if c.service_action is not None else 0)
    out = (bytes([c.opcode, 0]) + (c.service_action or 0).to_bytes(2, "big") + bytes([0, flags])
           + c.cdb_length.to_bytes(2, "big"))
    if c.timeouts is not None:
        t = c.timeouts
        out += (TIMEOUTS_DESCRIPTOR_LENGTH.to_bytes(2, "big") + bytes([0, t.command_specific])
                + t.nominal.to_bytes(4, "big") + t.recommended.to_bytes(4, "big"))
    return out
