"""The Linux kernel's own per-drive tape statistics, read from sysfs at no cost to the job.

``/sys/class/scsi_tape/<node>/stats/`` (the kernel's ``Documentation/scsi/st.rst``, "Sysfs and
Statistics for Tape Devices"; sysstat's ``tapestat`` reads the same files): every st node of one
drive (st0, nst0, st0l ...) shows the same counters. Reading them is a file read; the drive
sees nothing.

What the counters are, from the st driver (``drivers/scsi/st.c``): when st submits a command it
increments ``in_flight`` and notes the start time; when the command completes it adds the
elapsed time to ``write_ns`` (WRITE(6)) or ``read_ns`` (READ(6)) and, for every command, to
``io_ns``; it counts the command (``write_cnt``, ``read_cnt``, else ``other_cnt``) and its bytes
(``write_byte_cnt``/``read_byte_cnt``, less the residual when the command ended short, which
``resid_cnt`` counts), then decrements ``in_flight``. So:

* a command's time lands in ``io_ns`` all at once when it completes, never while it runs: a
  sample taken mid-command sees ``in_flight`` 1 and none of its time yet;
* ``io_ns`` is the time the drive had an st command outstanding: data it was accepting or
  sending, and also positioning (``other_cnt``: rewind, space, filemarks, the rewind on closing
  /dev/stN); ``io_ns - write_ns - read_ns`` is that other time;
* commands sent through the SCSI generic node (/dev/sgN) are not counted at all;
* the counters are 64-bit and restart at zero when the drive is attached again (a new st
  device): a counter that goes back is a restart, not negative work (``counter_delta``).

``TapeStats`` is one reading; ``StatsReader`` reads a node's directory and turns a permission
refusal into one line that says the fix.
"""
from __future__ import annotations

import errno
import os
from dataclasses import dataclass, fields
from pathlib import Path

from native.errors import DevicePermissionDenied, ParseError

#: The files read, in the kernel's names (all ten that st.rst lists).
COUNTERS = ("write_byte_cnt", "write_cnt", "write_ns", "read_byte_cnt", "read_cnt", "read_ns",
            "other_cnt", "resid_cnt", "io_ns", "in_flight")
_WRAP = 1 << 64
#: Passes over the files ``StatsReader`` makes for one reading at most, waiting for two that agree.
_PASSES = 6
#: A counter this close to the 64-bit limit that then reads small has wrapped, not restarted.
_NEAR_WRAP = 1 << 62


@dataclass(frozen=True)
class TapeStats:
    """One reading of a drive's counters; ``t`` is the monotonic time it was taken (seconds)."""

    t: float
    write_byte_cnt: int
    write_cnt: int
    write_ns: int
    read_byte_cnt: int
    read_cnt: int
    read_ns: int
    other_cnt: int
    resid_cnt: int
    io_ns: int
    in_flight: int

    @property
    def commands(self) -> int:
        return self.write_cnt + self.read_cnt + self.other_cnt


@dataclass(frozen=True)
class StatsDelta:
    """What changed between two readings. ``restarted``: some counter went back (the drive was
    attached again, or the st module reloaded): the deltas then count from zero."""

    seconds: float
    write_bytes: int
    write_cmds: int
    write_ns: int
    read_bytes: int
    read_cmds: int
    read_ns: int
    other_cmds: int
    resid: int
    io_ns: int
    restarted: bool

    @property
    def commands(self) -> int:
        return self.write_cmds + self.read_cmds + self.other_cmds


def counter_delta(old: int, new: int) -> tuple[int, bool]:
    """(growth, restarted) of a kernel counter between two readings.

    Growth is ``new - old``. A counter that goes back either wrapped past 2**64 (the old value was
    near the top, or the kernel printed the signed 64-bit value negative) and grew by the distance
    around, or restarted at zero (a re-attached drive) and counted ``new`` since.
    """
    if new >= old:
        return new - old, False
    if old >= _NEAR_WRAP or new < 0:
        return (new - old) % _WRAP, False
    return max(new, 0), True


def delta(old: TapeStats, new: TapeStats) -> StatsDelta:
    """The counters' growth from ``old`` to ``new`` (``in_flight`` is a level, not a counter)."""
    grown: dict[str, int] = {}
    restarted = False
    for name in COUNTERS[:-1]:
        value, went_back = counter_delta(getattr(old, name), getattr(new, name))
        grown[name] = value
        restarted = restarted or went_back
    if restarted:  # after a restart every counter counts from zero, the ones that had not gone back too
        grown = {name: max(getattr(new, name), 0) for name in COUNTERS[:-1]}
    return StatsDelta(
        seconds=new.t - old.t, write_bytes=grown["write_byte_cnt"], write_cmds=grown["write_cnt"],
        write_ns=grown["write_ns"], read_bytes=grown["read_byte_cnt"], read_cmds=grown["read_cnt"],
        read_ns=grown["read_ns"], other_cmds=grown["other_cnt"], resid=grown["resid_cnt"], io_ns=grown["io_ns"],
        restarted=restarted)


def _number(path: Path, text: str) -> int:
    try:
        return int(text.strip())
    except ValueError:
        raise ParseError(f"{path} holds '{text.strip()[:40]}', not a number") from None


class StatsReader:
    """Reads one drive's statistics directory.

    ``read(t)`` returns a ``TapeStats``, or None while the directory is gone (the drive detached:
    the watch records a gap and reads again). The ten files are opened once and read again from
    offset 0 at each sample (sysfs regenerates an attribute on every read from its start): one
    system call per counter, and one stat of the directory's ``io_ns`` to notice a drive attached
    again (new files), a few times a second. A permission refusal raises
    ``DevicePermissionDenied`` with the fix; these files are world-readable on a stock kernel, so
    a refusal means the system restricts sysfs.
    """

    def __init__(self, directory: Path) -> None:
        self.directory = directory
        self._fds: dict[str, int] = {}
        self._ino: int | None = None

    def exists(self) -> bool:
        return (self.directory / "io_ns").exists()

    def _open(self) -> None:
        for name in COUNTERS:
            path = self.directory / name
            try:
                self._fds[name] = os.open(path, os.O_RDONLY | getattr(os, "O_CLOEXEC", 0))
            except PermissionError:
                self.close()
                raise DevicePermissionDenied(
                    f"cannot read the kernel's tape statistics {path}: permission denied", device=str(self.directory),
                    hint=f"this system restricts sysfs: run watch as root, or make {self.directory} readable") from None
            except OSError:
                self.close()
                raise

    def read(self, t: float) -> TapeStats | None:
        try:
            # A drive attached again is a new device with new sysfs files: read those, not the old ones.
            ino = os.stat(self.directory / "io_ns").st_ino
            if ino != self._ino:
                self.close()
            if not self._fds:
                self._open()
                self._ino = ino
            values = self._consistent_pass()
        except OSError as err:
            self.close()
            if err.errno in (errno.ENOENT, errno.ENODEV, errno.ENXIO):
                return None
            raise
        return TapeStats(t=t, **values)

    def _pass(self) -> dict[str, int]:
        return {name: _number(self.directory / name, os.pread(fd, 64, 0).decode(errors="replace"))
                for name, fd in self._fds.items()}

    def _consistent_pass(self) -> dict[str, int]:
        """The ten files, read until two passes in a row agree: a reading no command completed during.

        The files are read one after the other, and a command that completes between two of them is in one
        counter and not yet in the other: its bytes without its count, or the reverse. Over a window that is
        a whole record too many or too few in bytes per command, and the watch said "256.3 KiB records" of a
        dd job writing 256 KiB ones (seen in the real-kernel test, a drive answering every few milliseconds).
        Two passes that agree on every counter had no completion between the first file read and the last (the
        st driver counts a command's time, count and bytes together as it completes). A drive completing
        commands faster than ten file reads take is read up to ``_PASSES`` times, then the last pass is kept."""
        values = self._pass()
        for _ in range(_PASSES - 1):
            again = self._pass()
            if all(again[name] == values[name] for name in COUNTERS[:-1]):  # in_flight is a level: not compared
                return again
            values = again
        return values

    def close(self) -> None:
        for fd in self._fds.values():
            try:
                os.close(fd)
            except OSError:
                pass
        self._fds = {}

    def __del__(self) -> None:
        self.close()


def zero(t: float) -> TapeStats:
    """A reading of all zeros at ``t`` (the baseline after a drive came back with fresh counters)."""
    return TapeStats(t, **{f.name: 0 for f in fields(TapeStats) if f.name != "t"})
