"""The network test's two ends for tests: a real server process, a real client process, or a
server in a thread of the test's own process. Only loopback addresses.

``start_server()`` runs ``tapediag net-serve --listen 127.0.0.1:0`` (``python -m app``; or
inside a ``tests.helpers.netns`` namespace) and reads the port and token it prints;
``wait_line`` follows its console, so a test moves on when the server *said* something,
never after a sleep. ``run_client`` runs the client process with the token in its
environment. ``served()`` is a ``NetServer`` in a thread, for tests that want events and
typed results.
"""
from __future__ import annotations

import os
import queue
import re
import subprocess
import sys
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Iterator

from app.events import CancelToken, Message
from app.nettest.params import ServeParams
from app.nettest.server import Listening, NetServer, ServeOutcome
from tests.helpers.netns import Namespace

ROOT = Path(__file__).resolve().parents[2]
LINE_TIMEOUT = 60.0


def child_env(extra: dict[str, str] | None = None) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "TAPEDIAG_NET_TOKEN"}
    env["PYTHONPATH"] = str(ROOT)
    return env | (extra or {})


class Lines:
    """A process's output stream read line by line in a thread, so a test can wait for what it says."""

    def __init__(self, stream: Any, what: str) -> None:
        self.what = what
        self.seen: list[str] = []
        self._queue: "queue.Queue[str | None]" = queue.Queue()
        threading.Thread(target=self._pump, args=(stream,), daemon=True).start()

    def _pump(self, stream: Any) -> None:
        for line in stream:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_line(self, pattern: str, timeout: float = LINE_TIMEOUT) -> str:
        """The first line (from now on) matching ``pattern``; AssertionError if the process ends or
        says nothing like it within ``timeout``."""
        rx = re.compile(pattern)
        while True:
            try:
                line = self._queue.get(timeout=timeout)
            except queue.Empty:
                raise AssertionError(f"{self.what} did not say /{pattern}/ in {timeout:g} s: {self.seen}") from None
            if line is None:
                self._queue.put(None)
                raise AssertionError(f"{self.what} ended without saying /{pattern}/: {self.seen}")
            self.seen.append(line)
            if rx.search(line):
                return line

    def rest(self, timeout: float = LINE_TIMEOUT) -> list[str]:
        """Every line until the stream ends (all lines seen, in order)."""
        while (line := self._queue.get(timeout=timeout)) is not None:
            self.seen.append(line)
        self._queue.put(None)
        return self.seen


@dataclass
class ServerProcess:
    proc: subprocess.Popen
    port: int = 0
    token: str = ""
    out: Lines = field(init=False)
    err: Lines = field(init=False)

    def __post_init__(self) -> None:
        self.out = Lines(self.proc.stdout, "the server")
        self.err = Lines(self.proc.stderr, "the server's stderr")

    def wait_line(self, pattern: str, timeout: float = LINE_TIMEOUT) -> str:
        return self.out.wait_line(pattern, timeout)

    def finish(self, timeout: float = LINE_TIMEOUT) -> tuple[int, str]:
        """Wait for the server to exit: (exit code, its stderr)."""
        rc = self.proc.wait(timeout=timeout)
        self.out.rest(timeout)
        return rc, "\n".join(self.err.rest(timeout))


def server_argv(*extra: str, bind: str = "127.0.0.1") -> list[str]:
    return [sys.executable, "-m", "app", "net-serve", "--listen", f"{bind}:0", *extra]


def start_server(*extra: str, ns: Namespace | None = None, cwd: Path | None = None,
                 env: dict[str, str] | None = None) -> ServerProcess:
    """A server process on 127.0.0.1, a free port; returns once it printed its port and token."""
    argv = server_argv(*extra)
    kwargs: dict[str, Any] = dict(stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, cwd=cwd or ROOT,
                                  env=child_env(env))
    proc = ns.popen(argv, **kwargs) if ns else subprocess.Popen(argv, **kwargs)
    server = ServerProcess(proc)
    server.port = int(re.search(r"port (\d+)", server.wait_line(r"listening on"))[1])  # type: ignore[index]
    server.token = re.search(r"token: (\S+)", server.wait_line(r"token:"))[1]  # type: ignore[index]
    return server


def run_server(*extra: str, timeout: float = 120.0) -> subprocess.CompletedProcess:
    """A server process to its end (for what makes it stop at once, like a port in use)."""
    argv = server_argv()
    if "--listen" in extra:  # the caller's address and port instead of a free one
        argv = argv[:-2]
    return subprocess.run([*argv, *extra], capture_output=True, text=True, cwd=ROOT, env=child_env(), timeout=timeout,
                          stdin=subprocess.DEVNULL)


def client_argv(port: int, *extra: str) -> list[str]:
    return [sys.executable, "-m", "app", "net-test", f"127.0.0.1:{port}", *extra]


def run_client(port: int, token: str | None, *extra: str, ns: Namespace | None = None,
               timeout: float = 120.0) -> subprocess.CompletedProcess:
    """The client process to the end: (exit code, stdout, stderr)."""
    env = child_env({"TAPEDIAG_NET_TOKEN": token} if token else None)
    argv = client_argv(port, *extra)
    kwargs: dict[str, Any] = dict(capture_output=True, text=True, env=env, timeout=timeout, cwd=ROOT,
                                  stdin=subprocess.DEVNULL)
    return ns.run(argv, **kwargs) if ns else subprocess.run(argv, **kwargs)


@dataclass
class ClientProcess:
    proc: subprocess.Popen
    err: Lines = field(init=False)

    def __post_init__(self) -> None:
        self.err = Lines(self.proc.stderr, "the client's stderr")

    def finish(self, timeout: float = LINE_TIMEOUT) -> tuple[int, str, list[str]]:
        """(exit code, stdout, stderr lines) once the client exits."""
        assert self.proc.stdout is not None
        out = self.proc.stdout.read()
        rc = self.proc.wait(timeout=timeout)
        return rc, out, self.err.rest(timeout)


def start_client(port: int, token: str, *extra: str) -> ClientProcess:
    """A client process running on its own (its progress lines on stderr say where it is)."""
    proc = subprocess.Popen(client_argv(port, *extra), stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            stdin=subprocess.DEVNULL, cwd=ROOT, env=child_env({"TAPEDIAG_NET_TOKEN": token}))
    return ClientProcess(proc)


@dataclass
class Served:
    """A ``NetServer`` running in a thread of this process."""

    port: int
    token: str
    cancel: CancelToken
    thread: threading.Thread
    notes: list[str]
    outcome: list[ServeOutcome]

    def result(self, timeout: float = LINE_TIMEOUT) -> ServeOutcome:
        self.thread.join(timeout)
        assert self.outcome, "the server thread has not ended"
        return self.outcome[0]


@contextmanager
def served(**params: Any) -> Iterator[Served]:
    """A server on 127.0.0.1 (a free port) in a thread; cancelled and joined afterwards."""
    listening: "queue.Queue[Listening]" = queue.Queue()
    notes: list[str] = []
    outcome: list[ServeOutcome] = []
    cancel = CancelToken()

    def sink(event: object) -> None:
        if isinstance(event, Listening):
            listening.put(event)
        elif isinstance(event, Message):
            notes.append(event.text)

    server = NetServer(ServeParams(**{"bind": "127.0.0.1", "port": 0, **params}), sink)
    thread = threading.Thread(target=lambda: outcome.append(server.serve(cancel)), name="net-serve", daemon=True)
    thread.start()
    ev = listening.get(timeout=LINE_TIMEOUT)
    try:
        yield Served(ev.port, ev.token, cancel, thread, notes, outcome)
    finally:
        cancel.cancel()
        thread.join(LINE_TIMEOUT)
