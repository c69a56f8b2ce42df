"""Create test data: HPCreateData's job, the disk-write half of the white paper.

Each stream builds its own tree ``sNN/dNN/dNN/...`` (like one HPCreateData instance
each), pre-order: a directory's files, then its subdirectories. Files are created in
batches by ``native.diskio`` with O_CREAT|O_EXCL|O_NOFOLLOW relative to directory
descriptors that were themselves opened with O_NOFOLLOW, so nothing outside the
target is ever written and no symbolic link is ever followed.

The default fsync policy is ``end``: when a stream has written its last file it
flushes its data to the disk (fsync of each file for a small run, one syncfs for a big
tree) inside its own timed span. Without that, a run of a few GB only measures how
fast the page cache fills; per-file fsync (``file``) is the pessimistic case of an
application that makes every file durable before writing the next, and ``none`` is
offered for comparison, with a warning in the result.
"""
from __future__ import annotations

import collections
import datetime
import errno as errno_mod
import os
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Callable, Generator

import numpy as np
import numpy.random  # noqa: F401 -- numpy loads it lazily: ~25 ms of imports inside the first stream's timed span

from app.disk import content as content_mod
from app.disk.dirs import DirHandle
from app.disk.params import CreateDataParams
from app.disk.manifest import MANIFEST_NAME, DirEntry, Manifest, RunRecord
from app.disk.results import CreateDataResult, LatencyStats
from app.disk.runner import BATCH_SECONDS, Stream, StreamRunner
from app.disk.sizes import draw_sizes
from app.events import CancelToken, EventSink, Message, PhaseFinished, PhaseStarted, discard
from native import diskio
from native.errors import DiskTestError, InvalidParameter, NoSpace, TargetNotEmpty
from native.units import size_text

#: Files above this are written slice by slice from Python (the GIL is no issue at that
#: size), so that samples and cancellation stay live inside a 64 MiB file.
LARGE_FILE = 4 << 20
SLICE = 8 << 20
MAX_BATCH_FILES = 512
MAX_BATCH_BYTES = 32 << 20
#: Directories a batch may span (each holds a descriptor while it waits).
MAX_BATCH_DIRS = 64
#: With fsync "end", a stream that made at most this many files fsyncs each of them;
#: a bigger tree is flushed with one syncfs (thousands of fsyncs would each commit the
#: journal). Both leave the stream's data on disk before its clock stops; syncfs may
#: also wait for other programs' dirty data, which can only make the figure lower.
END_FSYNC_MAX_FILES = 64


@dataclass
class _Cursor:
    """A directory with files drawn but not all handed to a batch yet.

    ``spec`` holds the native writer's rows for its files (size, pool offset, key,
    directory fd, file index), so a batch is a few array slices, not per-file work.
    """

    entry: DirEntry
    dh: DirHandle
    spec: np.ndarray
    next: int = 0
    large: np.ndarray | None = None  # indices of the files written slice by slice

    @property
    def sizes(self) -> np.ndarray:
        return self.spec[:, 0]

    @property
    def left(self) -> int:
        return len(self.spec) - self.next

    def next_large(self) -> int:
        """Index of the next file written slice by slice (or the end)."""
        if self.large is None or not self.large.size:
            return len(self.spec)
        i = int(np.searchsorted(self.large, self.next))
        return int(self.large[i]) if i < self.large.size else len(self.spec)


class _Draws:
    """The native writer's rows for a stream's files, drawn a few thousand at a time.

    Drawing per directory (16 files) cost ~100 us of numpy calls each, with the GIL
    held, i.e. more than the files' own syscalls on a fast disk; one draw per chunk
    keeps the data set a function of the seed alone.
    """

    CHUNK = 4096

    def __init__(self, rng: np.random.Generator, p: CreateDataParams, content: content_mod.Content) -> None:
        self.rng, self.p, self.content = rng, p, content
        self.rows = np.zeros((0, 5), np.int64)
        self.pos = 0

    def take(self, n: int, dirfd: int) -> np.ndarray:
        """Rows (size, offset, key, dirfd, index) for the ``n`` files of one directory."""
        if self.pos + n > len(self.rows):
            k = max(n, self.CHUNK)
            rows = np.empty((k, 5), np.int64)
            rows[:, 0] = draw_sizes(self.rng, self.p.distribution, self.p.min_size, self.p.max_size, k)
            rows[:, 1], rows[:, 2] = self.content.draw(self.rng, k)
            self.rows = np.concatenate((self.rows[self.pos:], rows))
            self.pos = 0
        spec = self.rows[self.pos:self.pos + n]
        self.pos += n
        spec[:, 3] = dirfd
        spec[:, 4] = _INDEX[:n] if n <= len(_INDEX) else np.arange(n)
        return spec


_INDEX = np.arange(4096, dtype=np.int64)


class _StreamStopped(Exception):
    """A file-system error that ends the run cleanly (ENOSPC, EACCES...)."""

    def __init__(self, message: str, no_space: bool) -> None:
        super().__init__(message)
        self.no_space = no_space


def _stop_for(err: int, where: str, done: int) -> _StreamStopped:
    if err in (errno_mod.ENOSPC, errno_mod.EDQUOT):
        return _StreamStopped(f"the disk filled up at {where} after {done} files: stopped", True)
    if err in (errno_mod.EACCES, errno_mod.EPERM, errno_mod.EROFS):
        return _StreamStopped(f"permission denied at {where} after {done} files: stopped", False)
    return _StreamStopped(f"{os.strerror(err)} at {where} after {done} files: stopped", False)


class CreateDataTest:
    """``CreateDataTest(params).run(sink, cancel) -> CreateDataResult`` (CLI, GUI and tests)."""

    def __init__(self, params: CreateDataParams) -> None:
        params.validate()
        self.params = params

    def run(self, sink: EventSink = discard, cancel: CancelToken | None = None) -> CreateDataResult:
        p = self.params
        cancel = cancel or CancelToken()
        target = Path(p.target).absolute()
        exists = self._check_target(target)
        self._check_space(target if exists else _existing_parent(target))
        sink(Message("info", f"building the {p.pattern} data pattern"))
        content = content_mod.load(p.pattern, p.seed)
        try:
            manifest, record, run_root = self._prepare(target, exists)
        except OSError as err:
            raise DiskTestError(f"cannot write to {target}: {err.strerror or err}: nothing written",
                                hint="check the directory's permissions and that the file system is writable") from None
        prefix = f"{run_root}/" if run_root else ""
        base = DirHandle.open(target / run_root if run_root else target)
        try:
            sink(PhaseStarted("create", p.total_size if p.total_size is not None else None))
            runner = StreamRunner("create", p.streams, sink, cancel, p.total_size,
                                  tick=lambda: manifest.try_save(sync=False))
            runner.run(lambda s: self._stream(s, base, prefix, content, record))
        finally:
            base.close()
        stops = [e for e in runner.errors if isinstance(e, _StreamStopped)]
        others = [e for e in runner.errors if not isinstance(e, _StreamStopped)]
        record.state = "stopped" if runner.errors else "cancelled" if runner.cancelled else "complete"
        save_error = manifest.try_save()
        if others:
            raise others[0]
        result = self._result(target, runner, stops, save_error, content, manifest, record, run_root)
        for w in result.warnings:
            sink(Message("warning", w))
        if stops:
            sink(Message("error", str(stops[0])))
        sink(PhaseFinished("create", {"mb_s": result.mb_s, "files_s": result.files_s, "status": result.status}))
        return result

    def _check_target(self, target: Path) -> bool:
        """Refuse a target that is a link, not a directory, or (without --allow-non-empty) not empty, before
        anything is made: the manifest and the tree go exactly where the user said. Whether it exists."""
        if target.is_symlink():
            raise InvalidParameter(f"{target} is a symbolic link (to {os.readlink(target)}): nothing was created",
                                   hint="give the real directory")
        exists = target.exists()
        if exists and not target.is_dir():
            raise InvalidParameter(f"{target} is not a directory")
        if exists and not self.params.allow_non_empty and not _is_empty(target):
            raise TargetNotEmpty(
                f"{target} is not empty: create-data only writes into an empty directory",
                hint="choose an empty directory, or allow a non-empty directory (the data then goes into a new subdirectory)",
            )
        return exists

    def _result(self, target: Path, runner: StreamRunner, stops: list[_StreamStopped], save_error: str | None,
                content: content_mod.Content, manifest: Manifest, record: RunRecord, run_root: str) -> CreateDataResult:
        """The run's result, with the warnings that qualify its figures."""
        p = self.params
        status = "stopped" if stops else "cancelled" if runner.cancelled else "complete"
        warnings = [save_error] if save_error else []
        if p.fsync == "none":
            warnings.append("fsync none: part of the data may still sit in the page cache, so the rate can be "
                            "higher than the disk sustains")
        if not diskio.NATIVE:
            warnings.append("native I/O module not available: small-file rates with several streams are understated")
        lat = np.concatenate([s.all_latencies() for s in runner.streams]) if runner.streams else np.zeros(0)
        return CreateDataResult(
            kind="create-data", target=str(target), status=status, streams=[s.result() for s in runner.streams],
            latency=LatencyStats.from_ns(lat), params=p.to_dict(), native=diskio.NATIVE,
            error=str(stops[0]) if stops else None, warnings=warnings, dirs_created=len(record.dirs),
            pattern=content.name, predicted_ratio=content.predicted_ratio, fsync=p.fsync,
            manifest=str(manifest.path), run_root=run_root,
            flush_seconds=max((s.flush_ns for s in runner.streams), default=0) / 1e9,
        )

    def _prepare(self, target: Path, exists: bool) -> tuple[Manifest, RunRecord, str]:
        """Create the target if needed, choose the run root, write the manifest first."""
        p = self.params
        created_target = False
        if not exists:
            target.mkdir(parents=True)
            created_target = True
        manifest = Manifest.load_or_new(target, created_target)
        run_root = ""
        if p.allow_non_empty and not _is_empty(target, ignore=MANIFEST_NAME):
            run_root = _new_run_dir(target)
        stamp = datetime.datetime.now(datetime.timezone.utc)
        prefix = f"{run_root}/" if run_root else ""
        record = RunRecord(stamp.strftime("%Y%m%dT%H%M%S%fZ"), stamp.isoformat(timespec="seconds"), "running", run_root,
                           bool(run_root), [f"{prefix}s{i:02d}" for i in range(1, p.streams + 1)], p.to_dict())
        manifest.runs.append(record)
        try:
            manifest.save()
        except OSError:
            if run_root:
                os.rmdir(target / run_root)
            if created_target:
                os.rmdir(target)
            raise
        return manifest, record, run_root

    # -- one stream ---------------------------------------------------------------

    def _stream(self, stream: Stream, base: DirHandle, prefix: str, content: content_mod.Content,
                record: RunRecord) -> None:
        """One stream's tree. Sizes, pool offsets and keys are drawn in chunks (the
        tree depends on the seed only); files go to the native writer in batches of a
        few milliseconds that may span several directories, in order within each."""
        p = self.params
        files_todo, bytes_todo = p.share(stream.index)  # not yet handed to a batch
        rng = np.random.default_rng([p.seed, stream.index])
        name = f"s{stream.index:02d}"
        try:
            root = base.mkdir(name)
        except OSError as err:
            raise _stop_for(err.errno or errno_mod.EIO, prefix + name, 0) from None
        flags = diskio.FLAG_FSYNC if p.fsync == "file" else 0

        def nothing_left() -> bool:
            return files_todo <= 0 or (bytes_todo is not None and bytes_todo <= 0) or stream.halted

        walker = self._dirs(root, prefix + name, 1, record, nothing_left)
        draws = _Draws(rng, p, content)
        pending: collections.deque[_Cursor] = collections.deque()
        queued = 0  # files in ``pending`` not handed to a batch yet
        batch = 8
        try:
            while not stream.halted:
                while queued < batch and len(pending) < MAX_BATCH_DIRS and not nothing_left():
                    found = next(walker, None)
                    if found is None:
                        break
                    entry, dh = found
                    n = min(p.files_per_dir, files_todo)
                    dup = dh.dup()
                    spec = draws.take(n, dup.fd)
                    if bytes_todo is not None:
                        n = min(n, int(np.searchsorted(np.cumsum(spec[:, 0]), bytes_todo)) + 1)
                        bytes_todo -= int(spec[:n, 0].sum())
                        spec = spec[:n]
                    files_todo -= n
                    queued += n
                    large = np.flatnonzero(spec[:, 0] > LARGE_FILE) if p.max_size > LARGE_FILE else None
                    pending.append(_Cursor(entry, dup, spec, large=large))
                if not pending:
                    break
                head = pending[0]
                if head.spec[head.next, 0] > LARGE_FILE:
                    i = head.next
                    size, off, key = (int(v) for v in head.spec[i, :3])
                    if not self._large(stream, head.dh, head.entry.path, i, size, off, key, content, flags):
                        break  # halted mid-file: the partial file is gone again
                    head.entry.files = head.next = i + 1
                    queued -= 1
                else:
                    before = sum(c.next for c in pending)
                    batch = self._batch(stream, pending, batch, content, flags)
                    queued -= sum(c.next for c in pending) - before
                while pending and pending[0].left == 0:
                    pending.popleft().dh.close()
        except OSError as err:
            raise _stop_for(err.errno or errno_mod.EIO, str(err.filename or prefix + name), stream.files) from None
        finally:
            walker.close()
            for cur in pending:
                cur.dh.close()
        try:
            if p.fsync == "end" and not stream.halted:
                t0 = _now()
                self._flush(stream, root, record, prefix + name)
                stream.flush_ns = _now() - t0
        finally:
            root.close()

    def _batch(self, stream: Stream, pending: "collections.deque[_Cursor]", size: int,
               content: content_mod.Content, flags: int) -> int:
        """Hand up to ``size`` small files, in order, to the native writer; the next size.

        Works on ranges per directory with numpy, never per file in Python: at tens of
        thousands of files a second the interpreter would otherwise be the bottleneck.
        """
        rows: list[np.ndarray] = []
        paths: list[str] = []
        spans: list[tuple[_Cursor, int, int]] = []
        count = 0
        budget = MAX_BATCH_BYTES
        max_size = self.params.max_size
        for cur in pending:
            start = cur.next
            end = min(len(cur.spec), start + size - count, cur.next_large())
            if end > start:
                if (end - start) * max_size > budget:  # only then can the byte budget cut it short
                    cum = np.cumsum(cur.spec[start:end, 0])
                    end = start + max(1, int(np.searchsorted(cum, budget, side="right")))
                    budget -= int(cum[end - start - 1])
                else:
                    budget -= (end - start) * max_size  # an upper bound: a batch stays within the budget
                k = end - start
                rows.append(cur.spec[start:end])
                if not diskio.HAVE_DIRFD:
                    paths += [cur.dh.path] * k
                spans.append((cur, start, end))
                cur.next = end
                count += k
            if cur.left or count >= size or budget <= 0:  # files are made in order: stop here
                break
        specs = rows[0] if len(rows) == 1 else np.concatenate(rows)
        raw = diskio.create_files(specs.tobytes(), paths, content.pool, self.params.write_size, flags)
        rec = np.frombuffer(raw, dtype=np.int64).reshape(-1, 4)
        stream.add_batch(rec)
        ok = int((rec[:, 0] == 0).sum())
        done = 0
        for cur, start, end in spans:
            made = min(end - start, ok - done)
            if made > 0:
                cur.entry.files = start + made
            if made < end - start:
                raise _stop_for(int(rec[ok, 0]), f"{cur.entry.path}/f{start + made:06d}.dat", stream.files)
            done += made
        per_file = max(float(rec[:, 3].mean()) / 1e9, 1e-7)
        return max(1, min(MAX_BATCH_FILES, int(BATCH_SECONDS / per_file)))

    def _flush(self, stream: Stream, root: DirHandle, record: RunRecord, root_rel: str) -> None:
        """fsync "end": this stream's files reach the disk inside its timed span."""
        if stream.files > END_FSYNC_MAX_FILES:
            diskio.sync_filesystem(root.fd)
            return
        strip = len(root_rel) + 1
        for entry in [e for e in record.dirs if e.path.startswith(root_rel + "/")]:
            for i in range(entry.files):
                fd = root.open_existing(f"{entry.path[strip:]}/f{i:06d}.dat")
                try:
                    os.fsync(fd)
                finally:
                    os.close(fd)

    def _dirs(self, parent: DirHandle, parent_rel: str, level: int, record: RunRecord,
              stop: Callable[[], bool]) -> Generator[tuple[DirEntry, DirHandle], None, None]:
        """Pre-order walk that creates directories as it goes; yields (manifest entry, handle).

        Each directory enters the manifest the moment it exists, and none is made once
        ``stop()`` is true, so cleanup always knows every directory the run created.
        """
        for i in range(self.params.breadth):
            if stop():
                return
            name = f"d{i:02d}"
            rel = f"{parent_rel}/{name}"
            try:
                child = parent.mkdir(name)
            except OSError as err:  # name the directory as the user sees it
                raise OSError(err.errno, err.strerror, rel) from None
            entry = DirEntry(rel, 0)
            record.dirs.append(entry)
            try:
                yield entry, child
                if level < self.params.depth:
                    yield from self._dirs(child, rel, level + 1, record, stop)
            finally:
                child.close()

    def _large(self, stream: Stream, dh: DirHandle, rel: str, index: int, size: int, off: int, key: int,
               content: content_mod.Content, flags: int) -> bool:
        """One big file in slices, each sampled; a file cut short (stop, error) is removed.
        True if the file was completed."""
        name = f"f{index:06d}.dat"
        start = _now()
        try:
            fd = dh.create(name)
        except OSError as err:
            raise _stop_for(err.errno or errno_mod.EIO, f"{rel}/{name}", stream.files) from None
        written, failure = 0, 0
        try:
            window = diskio.window(content.pool, off, key, size, self.params.write_size)
            while written < size and not stream.halted:
                s0 = _now()
                w, failure = diskio.write_fd(fd, window, written, min(SLICE, size - written), key, self.params.write_size)
                written += w
                stream.add_bytes(w, _now(), _now() - s0)
                if failure:
                    break
            if not failure and written == size and flags & diskio.FLAG_FSYNC:
                try:
                    os.fsync(fd)
                except OSError as exc:
                    failure = exc.errno or errno_mod.EIO
        finally:
            os.close(fd)
        if failure or written < size:
            dh.unlink(name)
            stream.bytes -= written
            if failure:
                raise _stop_for(failure, f"{rel}/{name}", stream.files)
            return False
        stream.add_file(_now() - start)
        return True

    def _check_space(self, where: Path) -> None:
        p = self.params
        try:
            st = os.statvfs(where)
        except (OSError, AttributeError):
            return  # Windows: no statvfs; ENOSPC mid-run still stops cleanly
        files = p.expected_files()
        dirs = p.streams * (p.dirs_per_stream + 1)
        block = st.f_frsize or st.f_bsize or 4096
        need = p.expected_bytes() + files * block // 2 + dirs * block
        free = st.f_bavail * st.f_frsize
        if need > free:
            raise NoSpace(f"{where} has {size_text(free)} free, the run needs about {size_text(need)}: nothing written",
                          hint="choose another target, lower --total-size/--files, or free some space")
        if st.f_files and files + dirs > st.f_favail:
            raise NoSpace(f"{where} has {st.f_favail} free inodes, the run needs about {files + dirs}: nothing written")


def _now() -> int:
    return time.perf_counter_ns()


def _is_empty(path: Path, ignore: str = "") -> bool:
    try:
        with os.scandir(path) as it:
            return not any(e.name != ignore for e in it)
    except OSError as err:
        raise DiskTestError(f"cannot list {path}: {err.strerror or err}") from None


def _existing_parent(path: Path) -> Path:
    while not path.exists() and path != path.parent:
        path = path.parent
    return path


def _new_run_dir(target: Path) -> str:
    stamp = datetime.datetime.now(datetime.timezone.utc).strftime("%y%m%d%H%M%S")
    for n in range(100):
        name = f"td{stamp}" + (f"{n:02d}" if n else "")
        try:
            os.mkdir(target / name, 0o755)
            return name
        except FileExistsError:
            continue
    raise DiskTestError(f"could not make a new run directory in {target}")


__all__ = ["CreateDataTest"]
