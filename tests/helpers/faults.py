"""A fault-injecting transport: wrap any ``Transport`` and script failures.

Usage::

    faulty = FaultyTransport(inner)
    faulty.inject(medium_error_read(), opcode=0x08)            # next READ(6) fails once
    faulty.inject(becoming_ready(), opcode=0x00, times=3)      # 3 TURs NOT READY, then pass
    faulty.inject(busy(), call=5)                              # the 5th command overall
    faulty.inject(connection_lost(), opcode=0x0A, after=10, times=None)  # every WRITE after 10
    drive = TapeDrive(faulty)

A rule matches a command by ``opcode`` (None = any) and/or ``call`` (1-based number
of the command among *all* commands seen). ``after`` skips that many matching
commands first; ``times`` is how often the rule fires (None = forever). Rules are
checked in the order added; the first that fires wins and the inner transport is
not called (a faulted command did not reach the drive). ``calls`` records every
CDB; ``fired`` records (call number, fault name).

Faults return exactly what a real transport would: CHECK CONDITION with fixed
format sense bytes, another status, or raise ``CommandTimeout`` / ``ConnectionLost``.
"""
from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

from native.scsi.sense import build_fixed
from native.errors import CommandTimeout, ConnectionLost
from native.transport import BUSY, CHECK_CONDITION, DEFAULT_TIMEOUT, GOOD, CommandResult, TransferLimit, Transport, make_data_in


@dataclass(frozen=True)
class Fault:
    """What to return instead of running the command.

    ``status`` with ``sense`` for SCSI-level faults; ``raises`` (an exception
    factory taking the device string) for transport-level ones.
    """

    name: str
    status: int = CHECK_CONDITION
    sense: bytes = b""
    raises: Callable[[str], Exception] | None = None


def check_condition(key: int, asc: int, ascq: int, name: str | None = None, **fields: object) -> Fault:
    """CHECK CONDITION with fixed-format sense (``fields``: info, filemark, eom, ili)."""
    return Fault(name or f"sense {key:X}/{asc:02X}/{ascq:02X}", CHECK_CONDITION, build_fixed(key, asc, ascq, **fields))  # type: ignore[arg-type]


def medium_error_read() -> Fault:
    return check_condition(0x3, 0x11, 0x00, "MEDIUM ERROR unrecovered read error")


def medium_error_write() -> Fault:
    return check_condition(0x3, 0x0C, 0x00, "MEDIUM ERROR write error")


def hardware_error() -> Fault:
    return check_condition(0x4, 0x44, 0x00, "HARDWARE ERROR internal target failure")


def power_on_reset() -> Fault:
    return check_condition(0x6, 0x29, 0x00, "UNIT ATTENTION power on/reset")


def medium_changed() -> Fault:
    return check_condition(0x6, 0x28, 0x00, "UNIT ATTENTION medium may have changed")


def becoming_ready() -> Fault:
    return check_condition(0x2, 0x04, 0x01, "NOT READY becoming ready")


def no_medium() -> Fault:
    return check_condition(0x2, 0x3A, 0x00, "NOT READY medium not present")


def busy() -> Fault:
    return Fault("BUSY", status=BUSY)


def timeout() -> Fault:
    return Fault("timeout", raises=lambda dev: CommandTimeout("the command timed out", device=dev))


def connection_lost() -> Fault:
    return Fault("connection lost", raises=lambda dev: ConnectionLost("the connection to the device was lost", device=dev))


@dataclass
class _Rule:
    fault: Fault
    opcode: int | None
    call: int | None
    after: int
    times: int | None
    seen: int = 0

    def fires(self, call_no: int, opcode: int) -> bool:
        if self.opcode is not None and opcode != self.opcode:
            return False
        if self.call is not None and call_no != self.call:
            return False
        self.seen += 1
        if self.seen <= self.after:
            return False
        if self.times is not None:
            if self.times <= 0:
                return False
            self.times -= 1
        return True


class FaultyTransport(Transport):
    """Wraps ``inner``; injects scripted faults, otherwise passes commands through."""

    def __init__(self, inner: Transport) -> None:
        self.inner = inner
        self.device = getattr(inner, "device", "") or "faulty"
        self.rules: list[_Rule] = []
        self.calls: list[bytes] = []
        self.fired: list[tuple[int, str]] = []

    def inject(self, fault: Fault, *, opcode: int | None = None, call: int | None = None, after: int = 0,
               times: int | None = 1) -> "FaultyTransport":
        self.rules.append(_Rule(fault, opcode, call, after, times))
        return self

    def execute(self, cdb, *, data_out=None, data_in=0, timeout=DEFAULT_TIMEOUT) -> CommandResult:  # type: ignore[no-untyped-def]
        cdb = bytes(cdb)
        self.calls.append(cdb)
        call_no = len(self.calls)
        for rule in self.rules:
            if rule.fires(call_no, cdb[0]):
                self.fired.append((call_no, rule.fault.name))
                if rule.fault.raises is not None:
                    raise rule.fault.raises(self.device)
                return CommandResult(rule.fault.status, rule.fault.sense, make_data_in(0), 0)
        return self.inner.execute(cdb, data_out=data_out, data_in=data_in, timeout=timeout)

    @property
    def scripted_peripheral_type(self) -> int | None:
        return getattr(self.inner, "scripted_peripheral_type", None)

    def transfer_limit(self) -> TransferLimit | None:
        return self.inner.transfer_limit()

    def close(self) -> None:
        self.inner.close()


Responder = Callable[[bytes, "bytes | None", int], CommandResult]


@dataclass
class RecordingTransport(Transport):
    """A tiny scripted target for unit tests: per-opcode responders, GOOD otherwise.

    ``responses[opcode]`` is either bytes (returned as data-in, truncated to the
    allocation) or a callable ``(cdb, data_out, alloc) -> CommandResult``. Every
    command is recorded in ``calls`` as (cdb, data_out).
    """

    responses: dict[int, "bytes | Responder"] = field(default_factory=dict)
    device: str = "recording"
    calls: list[tuple[bytes, bytes | None]] = field(default_factory=list)
    closed: bool = False
    # The peripheral type this script emulates, so TapeDrive's tape gate needs no INQUIRY
    # from scripts that do not answer one (and unit tests see exactly their own CDBs).
    # None: the gate sends INQUIRY, as it does for every real transport.
    scripted_peripheral_type: int | None = 1

    def execute(self, cdb, *, data_out=None, data_in=0, timeout=DEFAULT_TIMEOUT) -> CommandResult:  # type: ignore[no-untyped-def]
        cdb = bytes(cdb)
        out = bytes(data_out) if data_out is not None else None
        self.calls.append((cdb, out))
        buf = make_data_in(data_in)
        answer = self.responses.get(cdb[0])
        if answer is None:
            return CommandResult(GOOD, b"", buf[:0], 0)
        if callable(answer):
            result = answer(cdb, out, len(buf))
            n = min(len(result.data), len(buf))
            buf[:n] = result.data[:n]
            return CommandResult(result.status, result.sense, buf[:n], n)
        n = min(len(answer), len(buf))
        buf[:n] = answer[:n]
        return CommandResult(GOOD, b"", buf[:n], n)

    def close(self) -> None:
        self.closed = True


def reply(status: int = GOOD, sense: bytes = b"", data: bytes = b"") -> CommandResult:
    """A CommandResult for RecordingTransport responders."""
    return CommandResult(status, sense, memoryview(data), len(data))
