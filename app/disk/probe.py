"""The raw-read probe: a sample of the same files read again with O_DIRECT after the run.

Why: eviction (posix_fadvise DONTNEED) empties this machine's page cache, but a cache
below it — a SAN controller's, a hypervisor's cache of the virtual disk — still serves
data read a moment ago, and the figure then says more about that cache than about the
disk. The probe is a second, independent measurement of the same data without this
machine's cache, with the same number of streams and the same read size; the rule that
compares the two (and a rated figure the user gives for the device) is
``app.disk.cache.read_cache``. A probe O_DIRECT cannot bypass (a hypervisor caching
the disk image underneath) comes back as fast as the run: the device's own rate is then
the reference that shows it.
"""
from __future__ import annotations

import errno as errno_mod
import math
import mmap
import os
import threading
import time
from dataclasses import asdict, dataclass
from typing import Sequence

from app.events import CancelToken
from native import diskio

#: Files smaller than this are left out: for them the per-file cost, not the device's
#: transfer rate, sets the pace, in the run and in the probe alike.
MIN_FILE = 1 << 20
#: How much the probe reads at most (spread over the tree), and for how long.
BUDGET_BYTES = 256 << 20
BUDGET_SECONDS = 5.0


@dataclass
class RawProbe:
    """What the probe read; ``mb_s`` is its volume over its slowest stream's time, as the run's."""

    method: str = "O_DIRECT"
    files: int = 0
    bytes: int = 0
    seconds: float = 0.0
    streams: int = 1

    @property
    def mb_s(self) -> float:
        return self.bytes / self.seconds / 1e6 if self.seconds > 0 else 0.0

    def to_dict(self) -> dict:
        return {**asdict(self), "mb_s": round(self.mb_s, 3)}


def pick(files: Sequence[tuple[str, int]], budget: int = BUDGET_BYTES) -> list[str]:
    """Files of at least ``MIN_FILE``, evenly spaced over the walk order, about ``budget`` bytes of them."""
    big = [path for path, size in files if size >= MIN_FILE]
    if not big:
        return []
    mean = sum(size for _, size in files if size >= MIN_FILE) / len(big)
    count = max(1, min(len(big), math.ceil(budget / mean)))
    return [big[i] for i in sorted({round(i * (len(big) - 1) / max(count - 1, 1)) for i in range(count)})]


def probe(paths: Sequence[str], streams: int, buffer_size: int, *, budget: int = BUDGET_BYTES,
          seconds: float = BUDGET_SECONDS, cancel: CancelToken | None = None) -> RawProbe | None:
    """Read ``paths`` with O_DIRECT on ``streams`` threads (round robin), ``budget`` bytes or
    ``seconds`` at most. None where direct reads are not possible (no native module, a file
    system refusing O_DIRECT): no raw figure, rather than a buffered one posing as raw. ``cancel``
    stops it between files (what was read by then is the figure)."""
    if not paths or not diskio.NATIVE:
        return None
    size = max(4096, buffer_size // 4096 * 4096)  # O_DIRECT wants aligned lengths
    nstreams = max(1, min(streams, len(paths)))
    shares = [list(paths[i::nstreams]) for i in range(nstreams)]
    per_stream = budget // nstreams
    done = [0] * nstreams
    times = [0.0] * nstreams
    counted = [0] * nstreams
    refused: list[int] = []
    deadline = time.monotonic() + seconds

    def stream(k: int) -> None:
        buf = mmap.mmap(-1, size)
        start = time.perf_counter()
        try:
            for path in shares[k]:
                if done[k] >= per_stream or time.monotonic() > deadline or (cancel and cancel.cancelled):
                    break
                try:
                    fd = diskio.open_read(path, diskio.FLAG_DIRECT)
                except OSError as err:
                    if err.errno == errno_mod.EINVAL:
                        refused.append(k)
                        return
                    continue  # unreadable now: the run has listed it already
                try:
                    while done[k] < per_stream:
                        got, failure, eof = diskio.read_fd(fd, buf, size)
                        done[k] += got
                        if failure == errno_mod.EINVAL:
                            refused.append(k)
                            return
                        if failure or eof:
                            break
                finally:
                    os.close(fd)
                counted[k] += 1
        finally:
            times[k] = time.perf_counter() - start
            buf.close()

    threads = [threading.Thread(target=stream, args=(k,), name=f"raw-probe-{k}") for k in range(nstreams)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if refused or not sum(done):
        return None
    return RawProbe(files=sum(counted), bytes=sum(done), seconds=max(times), streams=nstreams)
