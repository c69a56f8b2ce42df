"""Stream loops of the network test, in C where it is built (``native._netio``).

Each call streams over one non-blocking TCP socket for a slice of time with the GIL
released, so several stream threads fill a fast link in parallel while the Python side
records a sample and checks for cancellation between slices. Where the C module is
missing (a source checkout without a compiler) the same loops run in Python: correct,
only slower on fast links, and ``NATIVE`` says which one ran so results can report it.

What a sending stream carries is a disk test file's content (``app.disk.content``): the
file's ``native.diskio.window`` repeated, the first 8 bytes of every ``STAMP_BLOCK``
stamped with the stream's key. Every 4 KiB of a run is unique, so a deduplicating WAN
optimiser cannot flatter the link, and the pattern's compression ratio holds, so a
compressing link gets what the tape and disk tests get.

``tcp_info`` reads the kernel's own round-trip time and retransmission counters of a
connection (Linux ``TCP_INFO``); other systems do not report them here (None).
"""
from __future__ import annotations

import errno as errno_mod
import os
import select
import socket
import struct
import sys
import time
from dataclasses import dataclass
from typing import Any, Union

from native import diskio

Buffer = Union[bytearray, memoryview]

_c: Any = None
try:
    from native import _netio

    _c = _netio
    NATIVE = True
except ImportError:  # not built
    NATIVE = False

#: The stream's content repeats the window every WINDOW_BYTES; the stamp rule is diskio's.
WINDOW_BYTES = diskio.WINDOW
STAMP_BLOCK = diskio.STAMP_BLOCK
_GOLDEN = 0x9E3779B97F4A7C15
_MASK64 = (1 << 64) - 1
IS_WINDOWS = sys.platform == "win32"


def window(pool: diskio.Pool, offset: int, key: int, chunk: int) -> bytearray:
    """The window an endless stream is sent from in sends of ``chunk`` bytes."""
    return diskio.window(pool, offset, key, 1 << 62, chunk)


def send_for(sock: socket.socket, win: bytearray, pos: int, key: int, chunk: int, until_ns: int) -> tuple[int, int, int]:
    """Send stream bytes ``pos, pos+1, ...`` until ``time.perf_counter_ns()`` reaches ``until_ns``:
    (bytes sent, error code or 0, end time in ns). The socket must be non-blocking."""
    if NATIVE:
        return _c.send_for(sock.fileno(), win, pos, _signed(key), chunk, WINDOW_BYTES, STAMP_BLOCK, until_ns)
    return _py_send_for(sock, win, pos, key & _MASK64, chunk, until_ns)


def recv_for(sock: socket.socket, buf: Buffer, until_ns: int, max_bytes: int = -1) -> tuple[int, int, bool, int]:
    """Receive (and drop) until ``until_ns``, ``max_bytes`` (negative: no limit), the peer's end
    or an error: (bytes received, error code or 0, end of stream, time of the last byte in ns or 0)."""
    if NATIVE:
        got, err, eof, last = _c.recv_for(sock.fileno(), buf, until_ns, max_bytes)
        return got, err, bool(eof), last
    return _py_recv_for(sock, buf, until_ns, max_bytes)


def error_text(code: int) -> str:
    """A socket error code as words: errno on POSIX, a Winsock code on Windows."""
    if IS_WINDOWS:
        table = getattr(socket, "errorTab", {})
        return str(table.get(code, f"Winsock error {code}"))
    return os.strerror(code)


def _signed(key: int) -> int:
    key &= _MASK64
    return key - (1 << 64) if key >= 1 << 63 else key


def _stamp(win: bytearray, at: int, pos: int, n: int, key: int) -> None:
    """The Python twin of the C loop's stamps: block starts of bytes [pos, pos+n), at window offset ``at``."""
    for q in range(pos - pos % STAMP_BLOCK, pos + n, STAMP_BLOCK):
        value = key ^ (((q // STAMP_BLOCK + 1) * _GOLDEN) & _MASK64)
        i = at - (pos - q)
        win[i:i + 8] = value.to_bytes(8, "little")


def _wait(sock: socket.socket, writable: bool, ns: int) -> None:
    seconds = max(ns, 1_000_000) / 1e9
    if writable:
        select.select([], [sock], [], seconds)
    else:
        select.select([sock], [], [], seconds)


def _py_send_for(sock: socket.socket, win: bytearray, pos: int, key: int, chunk: int, until_ns: int) -> tuple[int, int, int]:
    done = 0
    view = memoryview(win)
    while (now := time.perf_counter_ns()) < until_ns:
        p = pos + done
        at = p % WINDOW_BYTES
        if key:
            _stamp(win, at, p, chunk, key)
        try:
            done += sock.send(view[at:at + chunk])
        except (BlockingIOError, InterruptedError):
            _wait(sock, True, until_ns - now)
        except OSError as err:
            return done, err.errno or errno_mod.EIO, time.perf_counter_ns()
    return done, 0, time.perf_counter_ns()


def _py_recv_for(sock: socket.socket, buf: Buffer, until_ns: int, max_bytes: int) -> tuple[int, int, bool, int]:
    done, last = 0, 0
    view = memoryview(buf)
    while (now := time.perf_counter_ns()) < until_ns:
        want = len(view) if max_bytes < 0 else min(len(view), max_bytes - done)
        if want <= 0:
            break
        try:
            got = sock.recv_into(view[:want])
        except (BlockingIOError, InterruptedError):
            _wait(sock, False, until_ns - now)
            continue
        except OSError as err:
            return done, err.errno or errno_mod.EIO, False, last
        if got == 0:
            return done, 0, True, last
        done += got
        last = time.perf_counter_ns()
    return done, 0, False, last


@dataclass(frozen=True)
class TcpInfo:
    """What the kernel measured on one connection: smoothed and minimum round-trip time
    (microseconds) and the segments it sent again (the sender's counters)."""

    rtt_us: int
    min_rtt_us: int | None
    total_retrans: int


#: struct tcp_info (linux/tcp.h): tcpi_rtt at 68, tcpi_total_retrans at 100 (since 2.6), tcpi_min_rtt
#: at 148 (since 4.6); a shorter answer from an older kernel leaves min_rtt unknown.
_TCP_INFO_LEN = 152
_RTT, _TOTAL_RETRANS, _MIN_RTT = 68, 100, 148
TCP_INFO_NOTE = "not reported by this OS (Linux TCP_INFO only)"
#: This OS reports them (what a server tells its client in ``Accept``).
TCP_INFO_REPORTED = sys.platform.startswith("linux") and hasattr(socket, "TCP_INFO")


def tcp_info(sock: socket.socket) -> TcpInfo | None:
    """The connection's TCP_INFO figures, or None where the OS does not report them here."""
    if not TCP_INFO_REPORTED:
        return None
    try:
        raw = sock.getsockopt(socket.IPPROTO_TCP, socket.TCP_INFO, _TCP_INFO_LEN)
    except OSError:
        return None
    if len(raw) < _TOTAL_RETRANS + 4:
        return None
    (rtt,) = struct.unpack_from("=I", raw, _RTT)
    (retrans,) = struct.unpack_from("=I", raw, _TOTAL_RETRANS)
    min_rtt = struct.unpack_from("=I", raw, _MIN_RTT)[0] if len(raw) >= _MIN_RTT + 4 else None
    return TcpInfo(rtt, min_rtt, retrans)
