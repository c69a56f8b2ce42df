"""The backup process, seen from /proc: who holds the drive open, who feeds it, what it reads.

Everything here reads /proc and stats the files a process has open; nothing is sent to a
process. Another user's /proc/PID/fd, /io and /fdinfo are readable only by root (ptrace
access): ``Scan.unseen`` counts the processes that could not be looked at, so the result can
say "run as root, or give --pid" instead of "no one holds the drive".

* ``holders(rdevs)``: the processes that hold any of the device numbers open (the st nodes
  of the drive; its sg node separately, since commands sent there are not in the kernel's tape
  statistics);
* ``feeders(pid)``: the processes writing into the pipes the holder reads (``tar | dd
  of=/dev/nst0``: dd holds the drive, tar reads the disks), followed a few pipes up;
* ``devices_of(pid)``: the block devices behind the process's open files and working
  directory (a file's st_dev, a device node's st_rdev);
* ``ProcCounters``: the process's I/O counters and CPU time, sampled with the drive.
"""
from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

#: How many pipes up ``feeders`` follows (tar | gzip | mbuffer | dd: three).
PIPE_DEPTH = 3
_O_ACCMODE = 0o3
_CLOCK_TICKS = os.sysconf("SC_CLK_TCK") if hasattr(os, "sysconf") else 100


@dataclass
class Scan:
    """Processes found, and how many could not be looked at (another user's, without root)."""

    pids: list[int] = field(default_factory=list)
    unseen: int = 0


def _pids(proc: Path) -> list[int]:
    try:
        return sorted(int(p.name) for p in proc.iterdir() if p.name.isdigit())
    except OSError:
        return []


def _fds(proc: Path, pid: int) -> list[Path] | None:
    """The process's fd links, None when they may not be read (another user's process)."""
    try:
        return list((proc / str(pid) / "fd").iterdir())
    except PermissionError:
        return None
    except OSError:
        return []


def holders(rdevs: frozenset[int], proc: Path = Path("/proc")) -> Scan:
    """Processes holding a character device with one of ``rdevs`` open."""
    found = Scan()
    me = os.getpid()
    for pid in _pids(proc):
        if pid == me:
            continue
        fds = _fds(proc, pid)
        if fds is None:
            found.unseen += 1
            continue
        for fd in fds:
            try:
                st = os.stat(fd)
            except OSError:
                continue
            if stat.S_ISCHR(st.st_mode) and st.st_rdev in rdevs:
                found.pids.append(pid)
                break
    return found


def _flags(proc: Path, pid: int, fd: str) -> int:
    """The open flags of one of the process's descriptors (/proc/PID/fdinfo), 0 (read-only) when unknown."""
    try:
        for line in (proc / str(pid) / "fdinfo" / fd).read_text().splitlines():
            if line.startswith("flags:"):
                return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    return 0


def _pipe_ends(proc: Path, pid: int) -> list[tuple[str, bool]]:
    """(pipe id, open for writing) of each pipe the process holds."""
    out = []
    for fd in _fds(proc, pid) or []:
        try:
            target = os.readlink(fd)
        except OSError:
            continue
        if target.startswith("pipe:"):
            out.append((target, _flags(proc, pid, fd.name) & _O_ACCMODE != os.O_RDONLY))
    return out


def _ancestors(pid: int, proc: Path) -> set[int]:
    """The process's parent, its parent's parent, ... (a shell that started a pipeline holds its pipes but
    writes nothing into them)."""
    out: set[int] = set()
    while pid > 1 and pid not in out:
        try:
            parent = int((proc / str(pid) / "stat").read_text().rsplit(")", 1)[1].split()[1])
        except (OSError, IndexError, ValueError):
            break
        out.add(parent)
        pid = parent
    return out


def feeders(pid: int, proc: Path = Path("/proc")) -> list[int]:
    """The processes writing into the pipes ``pid`` reads, and theirs, ``PIPE_DEPTH`` pipes up (never the
    holder's ancestors, nor tapediag itself)."""
    found: list[int] = []
    skip = _ancestors(pid, proc) | {pid, os.getpid()}
    wanted = {p for p, writing in _pipe_ends(proc, pid) if not writing}
    for _ in range(PIPE_DEPTH):
        if not wanted:
            break
        writers = [other for other in _pids(proc) if other not in skip and other not in found
                   and any(p in wanted and writing for p, writing in _pipe_ends(proc, other))]
        found.extend(writers)
        wanted = {p for w in writers for p, writing in _pipe_ends(proc, w) if not writing}
    return found


def _block_number(path: Path) -> tuple[int, bool] | None:
    """(device number, is a device node) behind a file (its file system's) or a block device node; None for
    anything else (pipes, sockets, terminals)."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    if stat.S_ISBLK(st.st_mode):
        return st.st_rdev, True
    if stat.S_ISREG(st.st_mode) or stat.S_ISDIR(st.st_mode):
        return st.st_dev, False
    return None


def devices_of(pid: int, proc: Path = Path("/proc")) -> dict[int, str]:
    """Device numbers behind the process's open files and working directory, each with how: "device" (a
    block device node it has open), "file" (an open file's file system), "cwd". 0-major numbers included:
    the caller names them 'no block device'."""
    numbers: dict[int, str] = {}
    for path in _fds(proc, pid) or []:
        found = _block_number(path)
        if found is None:
            continue
        if found[1]:
            numbers.setdefault(found[0], "device")
        elif _flags(proc, pid, path.name) & _O_ACCMODE != os.O_WRONLY:  # a log it only writes is no source
            numbers.setdefault(found[0], "file")
    cwd = _block_number(proc / str(pid) / "cwd")
    if cwd is not None:
        numbers.setdefault(cwd[0], "cwd")
    return numbers


def block_name(number: int, sys_root: Path = Path("/sys")) -> str | None:
    """The kernel's name of a block device number ("sdb", "dm-0"), None when it is none (tmpfs, NFS ...)."""
    if os.major(number) == 0:
        return None
    link = sys_root / "dev" / "block" / f"{os.major(number)}:{os.minor(number)}"
    try:
        return link.resolve(strict=True).name
    except OSError:
        return None


@dataclass(frozen=True)
class ProcCounters:
    """One reading of a process: its I/O counters (/proc/PID/io) and CPU time in seconds (/proc/PID/stat)."""

    t: float
    rchar: int | None  # bytes it read by any means (pipes, cache, disk)
    read_bytes: int | None  # bytes its reads fetched from a block device
    wchar: int | None
    cpu_s: float | None


def process_name(pid: int, proc: Path = Path("/proc")) -> tuple[str, str]:
    """(comm, command line) of a process; ('', '') when it is gone."""
    base = proc / str(pid)
    try:
        comm = (base / "comm").read_text().strip()
    except OSError:
        return "", ""
    try:
        cmdline = (base / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip()
    except OSError:
        cmdline = ""
    return comm, cmdline


def read_counters(pid: int, t: float, proc: Path = Path("/proc")) -> ProcCounters | None:
    """The process's counters now; None when it has ended."""
    base = proc / str(pid)
    try:
        fields = (base / "stat").read_text().rsplit(")", 1)[1].split()
    except (OSError, IndexError):
        return None
    cpu = (int(fields[11]) + int(fields[12])) / _CLOCK_TICKS  # utime, stime: fields 14 and 15 of stat
    io: dict[str, int] = {}
    try:
        for line in (base / "io").read_text().splitlines():
            key, _, value = line.partition(":")
            io[key.strip()] = int(value)
    except (OSError, ValueError):
        pass  # another user's process without root: CPU only
    return ProcCounters(t, io.get("rchar"), io.get("read_bytes"), io.get("wchar"), cpu)
