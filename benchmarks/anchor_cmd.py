"""An anchor given as a command line: its placeholders, what it must print, how it is run (issue 32 §2).

A benchmark figure of tapediag against "a bare loop" is only as good as the loop, so the loop is not
fixed: ``bench_tape_vs_c.py --anchor 'COMMAND'`` (or ``NAME='COMMAND'``, to name it in the output) runs any
command as the anchor, with these placeholders filled in for each configuration (``{{`` and ``}}`` for
literal braces):

    {url}     the iSCSI URL of the tape LUN, iscsi://127.0.0.1:PORT/IQN/1
    {mode}    fixed | variable
    {block}   the block length in bytes (fixed mode); in variable mode the I/O size
    {io}      bytes per WRITE(6)/READ(6)
    {count}   commands per direction
    {bytes}   bytes per direction ({io} x {count})
    {op}      write+read: write from BOT, rewind, read it back (see below)
    {plain_loop}  the built benchmarks/plain_iscsi_loop.c (the independent anchor)
    {bare_loop}   the built benchmarks/iscsi_bare_loop.c (the project's own loop)

What the command prints decides how it is timed:

* lines ``op=write ... seconds=S`` and ``op=read ... seconds=S`` (``key=value`` words; ``seconds`` the
  data commands alone, as the command times them), optionally ``fm_seconds=F`` (the closing filemark:
  WRITE FILEMARKS after the writes, the READ that meets it after the reads), ``bytes=N`` (else
  {bytes}) and ``cpu_us_per_cmd=C``: these figures are used;
* nothing of that kind: the command is run once per direction, ``{op}`` = ``write`` then ``read``,
  and timed by the benchmark as a whole process, log-in and set-up included: a lower bound of the
  anchor's rate (the engine's side never counts its own), said beside every such figure.

Every run of every side starts after ``sync`` (``os.sync()``), in a fresh process.
"""
from __future__ import annotations

import functools
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent

#: The anchors run when none is given: the independent loop, then the project's own.
BUILT_IN = {
    "plain": "{plain_loop} --url {url} --mode {mode} --block {block} --io {io} --count {count} --op {op}",
    "project": "{bare_loop} {url} {mode} {block} {io} {count} {op} filemark",
}
PLACEHOLDERS = ("url", "mode", "block", "io", "count", "bytes", "op", "plain_loop", "bare_loop")


class AnchorError(RuntimeError):
    """An anchor that cannot be run as given (bad template, failed build, failed run): one line."""


@dataclass(frozen=True)
class Timing:
    """One direction of one run: bytes moved, seconds of the data commands, of the closing filemark."""

    nbytes: int
    seconds: float
    fm_seconds: float | None = None  # None: the side did not time a closing filemark
    cpu_us_per_cmd: float | None = None
    whole_process: bool = False  # timed by the benchmark as a whole process (login included)

    @property
    def mb_s(self) -> float:
        return self.nbytes / self.seconds / 1e6

    @property
    def with_fm_mb_s(self) -> float | None:
        return None if self.fm_seconds is None else self.nbytes / (self.seconds + self.fm_seconds) / 1e6


@dataclass(frozen=True)
class Shape:
    """What every side is asked to do in one configuration."""

    url: str
    fixed: bool
    block: int
    io: int
    count: int

    def values(self, op: str, build_loops: bool = True) -> dict[str, str]:
        loops = {name: str(build(source)) if build_loops else source
                 for name, source in (("plain_loop", "plain_iscsi_loop"), ("bare_loop", "iscsi_bare_loop"))}
        return {"url": self.url, "mode": "fixed" if self.fixed else "variable", "block": str(self.block),
                "io": str(self.io), "count": str(self.count), "bytes": str(self.io * self.count), "op": op, **loops}


@functools.lru_cache(maxsize=None)
def build(name: str) -> Path:
    """Build ``benchmarks/<name>.c`` once per process (gcc -O2, -liscsi) into a temporary directory."""
    gcc = shutil.which("gcc") or shutil.which("cc")
    if not gcc:
        raise AnchorError("no C compiler: apt-get install gcc")
    out = Path(tempfile.mkdtemp(prefix="tapediag-anchor-")) / name
    proc = subprocess.run([gcc, "-O2", "-o", str(out), str(HERE / f"{name}.c"), "-liscsi"], capture_output=True,
                          text=True)
    if proc.returncode != 0:
        raise AnchorError(f"building {name}.c failed (apt-get install libiscsi-dev?): {proc.stderr.strip()}")
    return out


def argv_of(template: str, shape: Shape, op: str, build_loops: bool = True) -> list[str]:
    """The template's words with the placeholders filled in (``build_loops`` False: only checked)."""
    values = shape.values(op, build_loops)
    try:
        return [word.format_map(values) for word in shlex.split(template)]
    except KeyError as err:
        raise AnchorError(f"unknown placeholder {{{err.args[0]}}} in {template!r}: the placeholders are "
                          + ", ".join(f"{{{p}}}" for p in PLACEHOLDERS)) from None
    except ValueError as err:
        raise AnchorError(f"cannot read the anchor command {template!r}: {err}") from None


def parse_timings(text: str, default_bytes: int) -> dict[str, Timing]:
    """The ``op=... seconds=...`` lines of a side's output, by direction (empty when there are none)."""
    out: dict[str, Timing] = {}
    for line in text.splitlines():
        fields = dict(word.split("=", 1) for word in line.split() if "=" in word)
        if fields.get("op") not in ("write", "read") or "seconds" not in fields:
            continue
        try:
            out[fields["op"]] = Timing(
                int(fields.get("bytes", default_bytes)), float(fields["seconds"]),
                float(fields["fm_seconds"]) if "fm_seconds" in fields else None,
                float(fields["cpu_us_per_cmd"]) if "cpu_us_per_cmd" in fields else None)
        except ValueError:
            raise AnchorError(f"unreadable timing line: {line!r}") from None
    return out


def run_argv(argv: list[str], what: str, timeout: float = 1800) -> tuple[str, float]:
    """Run one side (after ``os.sync()`` by the caller): (stdout, wall seconds); AnchorError on failure."""
    t0 = time.perf_counter()
    try:
        proc = subprocess.run(argv, capture_output=True, text=True, timeout=timeout)
    except (OSError, subprocess.TimeoutExpired) as err:
        raise AnchorError(f"{what}: {err}") from None
    wall = time.perf_counter() - t0
    if proc.returncode != 0:
        tail = (proc.stderr.strip() or proc.stdout.strip()).splitlines()[-1:] or ["no output"]
        raise AnchorError(f"{what} exited {proc.returncode}: {tail[0]}")
    return proc.stdout, wall


@dataclass
class Anchor:
    """A named anchor command; ``whole_process`` is learnt from its first run's output."""

    name: str
    template: str
    whole_process: bool | None = None

    def run(self, shape: Shape, sync: bool = True) -> dict[str, Timing]:
        """Write then read ``shape`` from BOT: {"write": Timing, "read": Timing}."""
        nbytes = shape.io * shape.count
        if not self.whole_process:
            if sync:
                sync_now()
            out, _ = run_argv(argv_of(self.template, shape, "write+read"), f"anchor {self.name}")
            got = parse_timings(out, nbytes)
            if self.whole_process is None:
                self.whole_process = not got
            if got:
                if set(got) != {"write", "read"}:
                    raise AnchorError(f"anchor {self.name} timed only {', '.join(got)}: it must write, then read")
                return got
            if "{op}" not in self.template:
                raise AnchorError(f"anchor {self.name} prints no op=... seconds=... lines, so it is timed as a "
                                  "whole process once per direction, which needs {op} in its command")
        got = {}
        for op in ("write", "read"):
            if sync:
                sync_now()
            _, wall = run_argv(argv_of(self.template, shape, op), f"anchor {self.name} ({op})")
            got[op] = Timing(nbytes, wall, None, None, whole_process=True)
        return got


def sync_now() -> None:
    """Nothing of the previous run is left to write back during the next one (issue 32: ``sync``
    before every run; the write-back of one run's 256 MiB used to slow whichever side ran next)."""
    os.sync()


def parse_anchor(text: str) -> Anchor:
    """An anchor from the command line: ``NAME=COMMAND``, a bare ``COMMAND`` (named after its program), or a
    built-in anchor's name alone."""
    if text in BUILT_IN:
        return Anchor(text, BUILT_IN[text])
    named = re.match(r"([A-Za-z][\w.-]*)=(?!\S*=)(.*)$", text, re.S)
    name, template = (named.group(1), named.group(2)) if named else ("", text)
    if not template.strip():
        raise AnchorError(f"--anchor {text!r}: give a command, NAME=COMMAND, or one of {', '.join(BUILT_IN)}")
    argv_of(template, Shape("iscsi://127.0.0.1/iqn.x/1", False, 1, 1, 1), "write+read", build_loops=False)
    if not name:
        name = Path(shlex.split(template)[0]).name
    return Anchor(name, template)


if __name__ == "__main__":  # the placeholder list, for a reader writing an anchor
    print(__doc__.split("\n\n", 1)[1] if __doc__ else "", file=sys.stdout)
