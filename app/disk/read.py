"""Read data: HPReadData's job, the disk-read half of the white paper.

Like a backup application's disk agent: first a tree walk (timed and reported on its
own — the white paper's "first tree walk", which is what makes millions of small
files slow), then whole-file sequential reads with a fixed buffer, the walk order
split into contiguous shares for 1 to 8 streams. Any tree will do: the test data, or
the customer's real file system; files that cannot be read are counted and listed,
and the run goes on.

The page cache must not flatter the figure: each file is evicted (posix_fadvise
DONTNEED) right before it is read, or read with O_DIRECT, and a sample of files is
checked with mincore() to warn when eviction cannot work (tmpfs, dirty pages). On
Windows both modes read unbuffered (FILE_FLAG_NO_BUFFERING, ``native.winio``), which
needs 4K-multiple buffers.
"""
from __future__ import annotations

import collections
import errno as errno_mod
import mmap
import os
import threading
import time
from dataclasses import asdict, dataclass, field
from pathlib import Path

import numpy as np

from app.disk.dirs import DirHandle
from app.disk import probe as raw_probe
from app.disk.manifest import MANIFEST_NAME
from app.disk.params import ReadDataParams
from app.disk.probe import RawProbe
from app.disk.results import LatencyStats, ReadDataResult, TreeWalk, Unreadable
from app.disk.runner import BATCH_SECONDS, Stream, StreamRunner
from app.events import CancelToken, EventSink, Message, PhaseFinished, PhaseStarted, Progress, discard
from native import diskio
from native.errors import DiskTestError, InvalidParameter
from native.units import block_text, plural, size_text

_MANIFEST = MANIFEST_NAME.encode()

LARGE_FILE = 4 << 20
SLICE = 8 << 20
MAX_BATCH_FILES = 512
#: Directories open at once per stream (8 streams x 64 stays far below the usual
#: 1024-descriptor limit).
MAX_BATCH_DIRS = 64
#: Per-file cost, in bytes, when shares are balanced: opening a file costs about as
#: much as reading this much, so a share of small files is not a share of bytes only.
FILE_COST = 64 << 10


@dataclass
class _Dir:
    path: bytes
    names: list[bytes] = field(default_factory=list)
    sizes: list[int] = field(default_factory=list)


#: Windows reparse tag of a junction (a directory mount point): Python 3.11's
#: ``is_symlink`` says False for it, yet walking into one can loop (the "Application
#: Data" junctions of a user profile) or leave the tree.
IO_REPARSE_TAG_MOUNT_POINT = 0xA0000003


def _is_link(entry: os.DirEntry) -> bool:
    """A symbolic link, or on Windows a junction: the walk counts it and skips it, as
    backup agents do unless told to follow links."""
    if entry.is_symlink():
        return True
    if os.name != "nt":
        return False  # no junctions; and no extra lstat per directory in the timed walk
    return getattr(entry.stat(follow_symlinks=False), "st_reparse_tag", 0) == IO_REPARSE_TAG_MOUNT_POINT


class ReadDataTest:
    """``ReadDataTest(params).run(sink, cancel) -> ReadDataResult``."""

    def __init__(self, params: ReadDataParams) -> None:
        params.validate()
        self.params = params
        self.unreadable: list[Unreadable] = []
        self.unreadable_count = 0
        self._lock = threading.Lock()  # streams report unreadable files concurrently

    def run(self, sink: EventSink = discard, cancel: CancelToken | None = None) -> ReadDataResult:
        p = self.params
        cancel = cancel or CancelToken()
        target = Path(p.target).absolute()
        if not target.is_dir():
            raise InvalidParameter(f"{target} is not a directory")
        self.unreadable, self.unreadable_count = [], 0
        sink(PhaseStarted("tree-walk"))
        dirs, walk = self._walk(os.fsencode(target), sink, cancel)
        sink(PhaseFinished("tree-walk", {**asdict(walk), "files_s": walk.files_s}))
        warnings: list[str] = []
        streams: list[Stream] = []
        status = "cancelled" if cancel.cancelled else "complete"
        if walk.files == 0 and not cancel.cancelled:
            raise InvalidParameter(f"{os.fsdecode(target)} holds no regular files to read: nothing was measured",
                                   hint="give the directory whose files the backup reads")
        if not cancel.cancelled and walk.files:
            status, streams = self._read_all(dirs, walk, warnings, sink, cancel)
        probe, probe_note = None, ""
        if p.raw_probe and status == "complete" and walk.files:
            probe, probe_note = self._raw_probe(dirs, sink, cancel)
        if not diskio.NATIVE:
            warnings.append("native I/O module not available: small-file rates with several streams are understated")
        lat = np.concatenate([s.all_latencies() for s in streams]) if streams else np.zeros(0, dtype=np.int64)
        result = ReadDataResult(
            kind="read-data", target=str(target), status=status, streams=[s.result() for s in streams],
            latency=LatencyStats.from_ns(lat), params=p.to_dict(), native=diskio.NATIVE, warnings=warnings,
            tree_walk=walk, unreadable=self.unreadable, unreadable_count=self.unreadable_count,
            buffer_size=p.buffer_size, direct=p.direct, evict=p.evict,
            raw_probe=probe, raw_probe_note=probe_note, device_mb_s=p.device_mb_s,
        )
        if self.unreadable_count:
            sink(Message("warning", f"{self.unreadable_count} files or directories could not be read"))
        sink(PhaseFinished("read-data", {"mb_s": result.mb_s, "files_s": result.files_s, "status": status}))
        return result

    def _read_all(self, dirs: list[_Dir], walk: TreeWalk, warnings: list[str], sink: EventSink,
                  cancel: CancelToken) -> tuple[str, list[Stream]]:
        """The read phase over the walked tree: its streams, and whether it completed or was cancelled.
        The warnings about the cache are said first (and kept in ``warnings``)."""
        p = self.params
        if p.unbuffered:
            self._probe_direct(dirs)
        if p.unbuffered and diskio.IS_WINDOWS:
            sink(Message("info", "reading unbuffered (FILE_FLAG_NO_BUFFERING): the file cache is bypassed"))
        warnings += self._cache_warnings(dirs, walk)
        for w in warnings:
            sink(Message("warning", w))
        shares = _split(dirs, p.streams)
        sink(PhaseStarted("read-data", walk.bytes))
        runner = StreamRunner("read-data", p.streams, sink, cancel, walk.bytes)
        streams = runner.run(lambda s: self._stream(s, dirs, shares[s.index - 1]))
        if runner.errors:
            raise runner.errors[0]
        return ("cancelled" if runner.cancelled else "complete"), streams

    # -- tree walk ------------------------------------------------------------------

    def _walk(self, top: bytes, sink: EventSink, cancel: CancelToken) -> tuple[list[_Dir], TreeWalk]:
        walk = TreeWalk()
        dirs: list[_Dir] = []
        t0 = time.perf_counter()
        last = t0
        stack = [top]
        while stack and not cancel.cancelled:
            path = stack.pop()
            d = _Dir(path)
            try:
                with os.scandir(path) as it:
                    subdirs = []
                    for entry in it:
                        if path == top and entry.name == _MANIFEST:
                            continue  # create-data's own bookkeeping, not data a backup measures
                        try:
                            if _is_link(entry):
                                walk.skipped_symlinks += 1
                            elif entry.is_dir(follow_symlinks=False):
                                subdirs.append(entry.path)
                            elif entry.is_file(follow_symlinks=False):
                                size = entry.stat(follow_symlinks=False).st_size
                                d.names.append(entry.name)
                                d.sizes.append(size)
                            else:
                                walk.skipped_other += 1
                        except OSError as err:
                            self._unreadable(entry.path, err.errno)
            except OSError as err:
                self._unreadable(path, err.errno)
                continue
            walk.dirs += 1
            walk.files += len(d.names)
            walk.bytes += sum(d.sizes)
            if d.names:
                dirs.append(d)
            stack.extend(sorted(subdirs, reverse=True))  # pre-order, names ascending
            now = time.perf_counter()
            if now - last >= 0.1:
                sink(Progress("tree-walk", walk.bytes, None, now - t0, 0.0, None))
                last = now
        walk.seconds = time.perf_counter() - t0
        walk.dirs = max(walk.dirs - 1, 0)  # the top itself is not counted
        return dirs, walk

    def _unreadable(self, path: bytes | str, err: int | None) -> None:
        with self._lock:
            self.unreadable_count += 1
            if len(self.unreadable) < self.params.max_listed_unreadable:
                text = (diskio.NOT_REGULAR_TEXT if err == diskio.ERR_NOT_REGULAR
                        else os.strerror(err) if err else "unreadable")
                self.unreadable.append(Unreadable(os.fsdecode(path), text))

    def _raw_probe(self, dirs: list[_Dir], sink: EventSink, cancel: CancelToken) -> tuple[RawProbe | None, str]:
        """The same files again with O_DIRECT (``app.disk.probe``): (figure, or why there is none)."""
        files = [(os.fsdecode(os.path.join(d.path, name)), size) for d in dirs for name, size in zip(d.names, d.sizes)]
        paths = raw_probe.pick(files)
        if not paths:
            return None, f"no file of {block_text(raw_probe.MIN_FILE)} or more to probe"
        sink(Message("info", f"reading {plural(len(paths), 'file')} again with O_DIRECT: the raw figure beside the "
                             "run's"))
        result = raw_probe.probe(paths, self.params.streams, self.params.buffer_size, cancel=cancel)
        return result, "" if result else "direct reads are not possible here"

    # -- checks before reading ----------------------------------------------------------

    def _probe_direct(self, dirs: list[_Dir]) -> None:
        """Refuse early where the file system cannot read direct/unbuffered (EINVAL).

        Linux refuses O_DIRECT when opening; Windows accepts NO_BUFFERING at open and
        refuses a read whose alignment does not fit the sector size, so there the
        first block is read too."""
        d = dirs[0]
        path = os.fsdecode(os.path.join(d.path, d.names[0]))
        err = 0
        try:
            fd = diskio.open_read(path, diskio.FLAG_DIRECT)
            try:
                if diskio.IS_WINDOWS:
                    with mmap.mmap(-1, 4096) as probe:
                        err = diskio.read_fd(fd, probe, 4096)[1]
            finally:
                os.close(fd)
        except OSError as exc:
            err = exc.errno or 0
        if err == errno_mod.EINVAL:
            if diskio.IS_WINDOWS:
                raise DiskTestError(f"the file system at {os.fsdecode(d.path)} does not support unbuffered reads "
                                    "with 4K alignment", hint="run with --no-evict and without --direct") from None
            raise DiskTestError(f"the file system at {os.fsdecode(d.path)} does not support direct I/O",
                                hint="run without --direct") from None

    def _cache_warnings(self, dirs: list[_Dir], walk: TreeWalk) -> list[str]:
        p = self.params
        if p.direct:
            return []
        if diskio.IS_WINDOWS:  # reads are unbuffered unless eviction is off
            return [] if p.evict else ["eviction is off and reads go through the Windows file cache: data read or "
                                       f"written recently may be served from memory (data set "
                                       f"{size_text(walk.bytes)})"]
        if not diskio.NATIVE:
            return ["the page cache cannot be bypassed on this platform: re-reading recently written data may "
                    "be served from memory"]
        # up to 16 directories spread over the walk, the largest file of each: a sample
        # that costs the same for a thousand files or for millions
        picks = sorted({int(i) for i in np.linspace(0, len(dirs) - 1, min(16, len(dirs)))})
        sample = []
        for i in picks:
            d = dirs[i]
            k = int(np.argmax(d.sizes))
            if d.sizes[k] >= 4096:
                sample.append(os.fsdecode(os.path.join(d.path, d.names[k])))
        if not sample:
            return []
        fractions = []
        for path in sample:
            if p.evict:
                try:
                    os.close(diskio.open_read(path, diskio.FLAG_EVICT))
                except OSError:
                    continue
            frac = diskio.resident_fraction(path)
            if frac is not None:
                fractions.append(frac)
        if not fractions:
            return []
        resident = float(np.mean(fractions))
        if p.evict and resident > 0.5:
            return [f"{resident:.0%} of sampled file data stayed in memory after eviction (tmpfs, or data not yet "
                    "written back): the result may be served from memory, not from the disk"]
        if not p.evict and resident > 0.2:
            return [f"{resident:.0%} of sampled file data is in the page cache and eviction is off: "
                    f"the result may be flattered (data set {size_text(walk.bytes)})"]
        return []

    # -- one stream -------------------------------------------------------------------

    def _stream(self, stream: Stream, dirs: list[_Dir], share: list[tuple[int, int, int]]) -> None:
        """Read this stream's share: small files in native batches that may span several
        directories (one interpreter visit per batch, not per directory), large files
        slice by slice."""
        p = self.params
        buf = mmap.mmap(-1, p.buffer_size)  # page-aligned, as O_DIRECT needs
        flags = (diskio.FLAG_EVICT if p.evict else 0) | (diskio.FLAG_DIRECT if p.direct else 0)
        todo = collections.deque(share)
        batch = 8
        try:
            while todo and not stream.halted:
                di, a, b = todo[0]
                d = dirs[di]
                if d.sizes[a] > LARGE_FILE:
                    todo.popleft()
                    if a + 1 < b:
                        todo.appendleft((di, a + 1, b))
                    self._one_large(stream, d, a, buf, flags)
                    continue
                batch = self._batch(stream, dirs, todo, batch, buf, flags)
        finally:
            buf.close()

    def _batch(self, stream: Stream, dirs: list[_Dir], todo: collections.deque, size: int, buf: mmap.mmap,
               flags: int) -> int:
        """Read up to ``size`` small files from the head of ``todo``; returns the next batch size."""
        handles: list[DirHandle] = []
        fds: list[int] = []
        paths: list[str] = []
        names: list[bytes] = []
        origin: list[tuple[_Dir, int]] = []
        try:
            while todo and len(names) < size and len(handles) < MAX_BATCH_DIRS:
                di, a, b = todo[0]
                d = dirs[di]
                if d.sizes[a] > LARGE_FILE:
                    break
                try:
                    dh = DirHandle.open(os.fsdecode(d.path))
                except OSError as err:
                    todo.popleft()
                    for name in d.names[a:b]:
                        self._unreadable(os.path.join(d.path, name), err.errno)
                    stream.errors += b - a
                    continue
                handles.append(dh)
                k = a
                while k < b and len(names) < size and d.sizes[k] <= LARGE_FILE:
                    names.append(d.names[k])
                    fds.append(dh.fd)
                    paths.append(dh.path)
                    origin.append((d, k))
                    k += 1
                todo.popleft()
                if k < b:
                    todo.appendleft((di, k, b))
            if not names:
                return size
            raw = diskio.read_files(fds, paths, names, buf, flags)
        finally:
            for dh in handles:
                dh.close()
        rec = np.frombuffer(raw, dtype=np.int64).reshape(-1, 4)
        stream.add_batch(rec)
        for k in np.nonzero(rec[:, 0])[0]:
            d, i = origin[int(k)]
            self._unreadable(os.path.join(d.path, d.names[i]), int(rec[k, 0]))
        per_file = max(float(rec[:, 3].mean()) / 1e9, 1e-7)
        return max(1, min(MAX_BATCH_FILES, int(BATCH_SECONDS / per_file)))

    def _one_large(self, stream: Stream, d: _Dir, i: int, buf: mmap.mmap, flags: int) -> None:
        try:
            dh = DirHandle.open(os.fsdecode(d.path))
        except OSError as err:
            stream.errors += 1
            self._unreadable(os.path.join(d.path, d.names[i]), err.errno)
            return
        try:
            self._large(stream, dh, d, i, buf, flags)
        finally:
            dh.close()

    def _large(self, stream: Stream, dh: DirHandle, d: _Dir, i: int, buf: mmap.mmap, flags: int) -> None:
        start = time.perf_counter_ns()
        name = d.names[i]
        try:
            fd = dh.open_read(os.fsdecode(name), flags)
        except OSError as err:
            stream.errors += 1
            self._unreadable(os.path.join(d.path, name), err.errno)
            return
        try:
            while not stream.halted:
                s0 = time.perf_counter_ns()
                got, failure, eof = diskio.read_fd(fd, buf, SLICE)
                now = time.perf_counter_ns()
                if got:
                    stream.add_bytes(got, now, now - s0)
                if failure:
                    stream.errors += 1
                    self._unreadable(os.path.join(d.path, name), failure)
                    return
                if eof:
                    stream.add_file(time.perf_counter_ns() - start)
                    return
        finally:
            os.close(fd)


def _split(dirs: list[_Dir], nstreams: int) -> list[list[tuple[int, int, int]]]:
    """Contiguous shares of the walk order, balanced by bytes plus a per-file cost.

    Contiguous, like several disk agents each given a part of the tree, rather than a
    shared queue: each stream reads its own region, and an unlucky share shows up in
    the slowest-stream figure instead of being smoothed away.
    """
    costs = [sum(d.sizes) + FILE_COST * len(d.names) for d in dirs]
    total = sum(costs)
    shares: list[list[tuple[int, int, int]]] = [[] for _ in range(nstreams)]
    acc = 0
    for di, d in enumerate(dirs):
        start = 0
        for k, size in enumerate(d.sizes):
            cost = size + FILE_COST
            stream_of = min(int(acc * nstreams / total), nstreams - 1) if total else 0
            acc += cost
            nxt = min(int(acc * nstreams / total), nstreams - 1) if total else 0
            if nxt != stream_of and k + 1 < len(d.sizes):
                shares[stream_of].append((di, start, k + 1))
                start = k + 1
            elif k + 1 == len(d.sizes):
                shares[stream_of].append((di, start, k + 1))
    return shares
