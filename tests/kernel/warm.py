"""Inside the real-kernel guest: ``tapediag`` commands started from one warm interpreter (a fork server).

Under software emulation a fresh ``tapediag`` spends most of its life starting: measured in the guest on a quiet
machine, ``info /dev/nst0`` took 2.5 s as a process of its own and 0.1 s of work once its modules were loaded;
a 16 MiB write-and-verify 5.5 s against 2.3 s. So each scenario script starts this server once (``warm.sh``)
and sends it the tapediag commands whose tests ask what tapediag does with the kernel's nodes; the server forks
one child per command.

Each child is a process of its own: its own PID, signal policy (``app.stop``), read-only latch, history
connection and exit status, with stdout and stderr the files named in the request and the scenario's stdin. It
runs ``app.__main__.run()`` as the ``tapediag`` console script does. What it shares with the server is what the
server had imported: the modules earlier children of this server imported (each child lists its modules when it
ends, and the server imports the ones it lacks), so only a command's first run pays for its imports. That a
command imports what it needs by itself is not what these steps prove: every kind's command runs in a fresh
process on the host (``tests/report/test_every_kind.py``), and the scenario's own fresh ``tapediag`` processes
(the other user's, the faults', the environment's read-only session) remain.

Protocol (``warm.sh``'s ``warm`` and ``warm_bg``): a request is one write to the
REQUESTS fifo: ``-`` or a path prefix, the stdout file, the stderr file and the command's arguments, each followed
by ``\\x1f``. With ``-`` the reply is the child's exit status (128 + N for a child killed by signal N, as a shell
says it), one line on the REPLIES fifo. With a prefix the command runs in the background: the reply is its PID at
once (the scenario signals it, and looks at it, by that PID), and when it ends PREFIX.end gets the guest's uptime
and then PREFIX.rc its exit status, from a waiter forked for it. An empty request ends the server.
"""
from __future__ import annotations

import importlib
import os
import sys
import threading
from pathlib import Path
from typing import NoReturn

SEP = "\x1f"
#: The console script this server stands in for: its directory heads ``sys.path`` and it is ``sys.argv[0]``.
TAPEDIAG = Path(sys.executable).with_name("tapediag")


def _child(stdout: str, stderr: str, args: list[str], modules: Path) -> NoReturn:
    """Become ``tapediag ARGS > stdout 2> stderr``; list the modules it imported in ``modules`` as it ends."""
    for fd, path in ((1, stdout), (2, stderr)):
        opened = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
        os.dup2(opened, fd)
        os.close(opened)
    sys.argv = [str(TAPEDIAG), *args]
    from app.__main__ import run

    try:
        code = run()
    finally:
        modules.write_text("\n".join(sorted(sys.modules)))
    sys.exit(code)  # a normal interpreter exit: buffers flushed, atexit run, threads joined


def _learn(modules: Path) -> None:
    """Import what a child imported (a module that fails to import here is left to the children)."""
    names = modules.read_text().split() if modules.exists() else []
    modules.unlink(missing_ok=True)
    for name in names:
        if name not in sys.modules and name != "__main__":
            try:
                importlib.import_module(name)
            except Exception:  # noqa: BLE001  # only a head start: the child imports it itself, or fails as tapediag would
                continue
    if threading.active_count() != 1:  # a fork copies only the forking thread: never fork beside another
        raise RuntimeError(f"importing {names} started a thread in the warm server: {threading.enumerate()}")


def _status(pid: int) -> str:
    code = os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1])
    return str(code if code >= 0 else 128 - code)


def _reply(replies: str, text: str) -> None:
    with open(replies, "w", encoding="utf-8") as fifo:
        fifo.write(f"{text}\n")


def _start(stdout: str, stderr: str, args: list[str], modules: Path) -> int:
    """Fork the child that becomes the command; its PID."""
    pid = os.fork()
    if pid == 0:
        _child(stdout, stderr, args, modules)
    return pid


def _background(prefix: str, replies: str, command: tuple[str, str, list[str], Path]) -> NoReturn:
    """The waiter: start the command, say its PID, wait for it, leave PREFIX.end and then PREFIX.rc."""
    pid = _start(*command)
    _reply(replies, str(pid))
    status = _status(pid)
    Path(f"{prefix}.end").write_text(Path("/proc/uptime").read_text().split()[0] + "\n")
    Path(f"{prefix}.rc.tmp").write_text(f"{status}\n")
    os.rename(f"{prefix}.rc.tmp", f"{prefix}.rc")  # whole, for the scenario waiting on it
    os._exit(0)


def serve(requests: str, replies: str) -> None:
    modules = Path(f"/tmp/tapediag-warm.{os.getpid()}.modules")
    while True:
        with open(requests, encoding="utf-8") as fifo:
            request = fifo.read()
        if not request:
            return
        prefix, stdout, stderr, *args = request.split(SEP)[:-1]
        if prefix == "-":
            _reply(replies, _status(_start(stdout, stderr, args, modules)))
            _learn(modules)
        elif os.fork() == 0:
            _background(prefix, replies, (stdout, stderr, args, modules))
        while _reaped():  # the waiters that have ended
            continue


def _reaped() -> bool:
    try:
        return os.waitpid(-1, os.WNOHANG)[0] != 0
    except ChildProcessError:
        return False


def main() -> int:
    sys.path[0] = str(TAPEDIAG.parent)  # as the console script has it, not this file's directory
    import app.__main__  # noqa: F401  # what the console script imports before it reads its arguments

    serve(sys.argv[1], sys.argv[2])
    return 0


if __name__ == "__main__":
    sys.exit(main())
