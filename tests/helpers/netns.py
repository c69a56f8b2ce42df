"""A private network namespace with a shaped loopback: a path that is the bottleneck, made real.

``shaped_namespace(rate_mbit=100, delay_ms=5)`` makes a namespace of its own
(``ip netns add tapediag-PID-XXXXXX``), brings its loopback up and shapes it with the
kernel's own traffic control, so both ends of a test run inside it and nothing else on
the machine is shaped. Only loopback addresses exist in there. The namespace and every
process started through it are removed afterwards, also when the test fails; a
namespace left by a killed run (its PID gone) is removed by the next one.

Shaping: ``netem rate R delay D`` where the kernel has netem; both the data and the
ACKs leave through the namespace's ``lo``, so the round trip is 2 x D (and under load
more: netem queues up to 1000 of lo's 64 KiB packets). A kernel without netem (this
development VM's) gets ``tbf rate R`` instead, without the delay, and
``Shaping.delay_ms`` says 0: the rate, which is what makes the path the bottleneck, is
the same either way. ``tests/nettest/test_shaped_guest.py`` runs the netem case on
Debian's kernel under qemu.

Two ways in: ``popen``/``run`` start a program inside (``ip netns exec``), ``call`` runs
a Python function in a thread that has entered the namespace (``setns``), so an engine
can run in the test's own process and hand back its typed result.
"""
from __future__ import annotations

import ctypes
import os
import re
import secrets
import shutil
import subprocess
import threading
from contextlib import contextmanager
from dataclasses import dataclass, field
from typing import Any, Callable, Iterator, TypeVar

T = TypeVar("T")
PREFIX = "tapediag-"
CLONE_NEWNET = 0x40000000
#: Queue the tbf fallback allows (and the largest burst: lo's 64 KiB packets must fit).
TBF_BURST = "256kb"
TBF_LATENCY = "50ms"


@dataclass(frozen=True)
class Shaping:
    """What the namespace's loopback was given: rate, one-way delay per packet, the qdisc used."""

    rate_mbit: float
    delay_ms: float
    qdisc: str

    @property
    def rate_mb_s(self) -> float:
        return self.rate_mbit / 8


@dataclass
class Namespace:
    name: str
    shaping: Shaping | None = None
    _procs: list[subprocess.Popen] = field(default_factory=list)

    def argv(self, cmd: list[str]) -> list[str]:
        return ["ip", "netns", "exec", self.name, *cmd]

    def popen(self, cmd: list[str], **kwargs: Any) -> subprocess.Popen:
        """Start ``cmd`` inside the namespace; it is killed (by its PID) when the namespace goes."""
        proc = subprocess.Popen(self.argv(cmd), **kwargs)
        self._procs.append(proc)
        return proc

    def run(self, cmd: list[str], **kwargs: Any) -> subprocess.CompletedProcess:
        return subprocess.run(self.argv(cmd), **kwargs)

    def call(self, fn: Callable[[], T]) -> T:
        """``fn()`` in a thread of this process that entered the namespace (sockets it makes live there)."""
        box: dict[str, Any] = {}

        def body() -> None:
            try:
                _setns(self.name)
                box["value"] = fn()
            except BaseException as err:  # handed back to the caller's thread
                box["error"] = err

        t = threading.Thread(target=body, name=f"in-{self.name}")
        t.start()
        t.join()
        if "error" in box:
            raise box["error"]
        return box["value"]

    def _stop_processes(self) -> None:
        for proc in self._procs:
            if proc.poll() is None:
                proc.kill()
            try:
                proc.wait(timeout=10)
            except subprocess.TimeoutExpired:
                pass


def _setns(name: str) -> None:
    libc = ctypes.CDLL(None, use_errno=True)
    fd = os.open(f"/run/netns/{name}", os.O_RDONLY)
    try:
        if libc.setns(fd, CLONE_NEWNET) != 0:
            err = ctypes.get_errno()
            raise OSError(err, f"setns into {name}: {os.strerror(err)}")
    finally:
        os.close(fd)


def _ip(*args: str) -> subprocess.CompletedProcess:
    return subprocess.run(["ip", *args], capture_output=True, text=True)


def unavailable_reason() -> str | None:
    """Why a namespace cannot be made here (None: it can)."""
    if shutil.which("ip") is None or shutil.which("tc") is None:
        return "ip and tc (iproute2) are not installed"
    if os.geteuid() != 0:
        return "network namespaces need root (ip netns add)"
    name = f"{PREFIX}{os.getpid()}-probe"
    got = _ip("netns", "add", name)
    if got.returncode != 0:
        return f"ip netns add failed: {got.stderr.strip()}"
    _ip("netns", "delete", name)
    return None


def remove_stale() -> None:
    """Delete namespaces this helper made in runs whose process is gone (a killed test run)."""
    listing = _ip("netns", "list").stdout
    for name in re.findall(rf"^({re.escape(PREFIX)}(\d+)-\S+)", listing, flags=re.M):
        full, pid = name
        if not os.path.exists(f"/proc/{pid}"):
            _ip("netns", "delete", full)


def _shape(name: str, rate_mbit: float, delay_ms: float) -> Shaping:
    netem = subprocess.run(["tc", "-n", name, "qdisc", "add", "dev", "lo", "root", "netem", "rate", f"{rate_mbit}mbit",
                            "delay", f"{delay_ms}ms"], capture_output=True, text=True)
    if netem.returncode == 0:
        return Shaping(rate_mbit, delay_ms, "netem")
    tbf = subprocess.run(["tc", "-n", name, "qdisc", "add", "dev", "lo", "root", "tbf", "rate", f"{rate_mbit}mbit",
                          "burst", TBF_BURST, "latency", TBF_LATENCY], capture_output=True, text=True)
    if tbf.returncode != 0:
        raise RuntimeError(f"cannot shape {name}'s loopback: netem: {netem.stderr.strip()}; tbf: {tbf.stderr.strip()}")
    return Shaping(rate_mbit, 0.0, "tbf")


@contextmanager
def shaped_namespace(rate_mbit: float | None = 100.0, delay_ms: float = 5.0) -> Iterator[Namespace]:
    """A fresh namespace, its loopback up and (with ``rate_mbit``) shaped; always deleted afterwards."""
    remove_stale()
    name = f"{PREFIX}{os.getpid()}-{secrets.token_hex(3)}"
    got = _ip("netns", "add", name)
    if got.returncode != 0:
        raise RuntimeError(f"ip netns add {name}: {got.stderr.strip()}")
    ns = Namespace(name)
    try:
        up = _ip("-n", name, "link", "set", "lo", "up")
        if up.returncode != 0:
            raise RuntimeError(f"cannot bring {name}'s loopback up: {up.stderr.strip()}")
        if rate_mbit is not None:
            ns.shaping = _shape(name, rate_mbit, delay_ms)
        yield ns
    finally:
        ns._stop_processes()
        _ip("netns", "delete", name)
