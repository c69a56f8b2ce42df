"""A virtual cartridge in one file: the real block data, an index, and the MAM.

Layout::

    [0, 64 KiB)   header: magic, then JSON metadata (generation, capacity, flags, MAM
                  counters, where the saved index is, and whether it is valid)
    [64 KiB, ...) records: 16-byte record header + data, in tape order; at a clean
                  close the index (offsets, lengths, cumulative tape use, kinds)
                  follows EOD. All-zero blocks are stored as a header only, so a
                  "zeros" benchmark (80:1 on tape) does not write 80x the tape to disk.

Records describe themselves, so the index is only a cache: the first change after a
clean state marks the header dirty; if the process dies before the next clean close,
reopening scans the records. Writing in the middle of the data truncates everything
after it, as SSC says a write does.

Moving EOD back (a write or erase before EOD, a write over the saved index) does not cut
the file: the new records overwrite the old ones in place, and the file is cut only at the
next clean close. Cutting a 2 GiB file on tmpfs took 0.3 s inside the first WRITE of a
``--force`` run, and every later WRITE then had to allocate fresh pages for data the old
pages held a moment before (issue 32: the run's rate depended on what the previous run
left). So that a scan after an unclean stop cannot take the old records beyond EOD for
data, each move of EOD starts a new *epoch* (in the header, with the offset it starts at):
a record at or past that offset counts only if it carries the current epoch.
"""
from __future__ import annotations

import datetime
import errno
import json
import os
import stat
import struct
from array import array
from bisect import bisect_left, bisect_right
from dataclasses import asdict, dataclass, field
from pathlib import Path

from native.errors import DeviceBusy, DeviceError, InvalidParameter, TransportError
from native.virtual import fileio


MAGIC = b"TDCART01"
HEADER_SIZE = 64 << 10
DATA_START = HEADER_SIZE
_REC = struct.Struct("<IBxHII")  # magic, kind, epoch (low 16 bits; 0 before epochs existed), data length, tape bytes charged
REC_MAGIC = 0x52434454  # "TDCR"
KIND_BLOCK, KIND_FILEMARK, KIND_ZERO = 0, 1, 2
FILEMARK_TAPE_BYTES = 4096  # what a filemark costs on tape (a small fraction of a dataset)
_IOV_BLOCKS = 500  # blocks per pwritev/preadv: two iovecs each, below IOV_MAX (1024)
_ZEROS = bytes(1 << 20)
INDEX_BYTES = 25  # per record, in the index saved after EOD at a clean close


def file_bound(budget: int, records: int) -> int:
    """The most a cartridge file can be: the header, the records the drive's budget counts (``budget``,
    ``DriveBase._max_file``: data blocks with their 16-byte headers), a 16-byte header for each record it does
    not count (an all-zero block, a filemark) and, at a clean close, the index (``INDEX_BYTES`` a record)."""
    return HEADER_SIZE + budget + (_REC.size + INDEX_BYTES) * records


def is_zero(data: memoryview) -> bool:
    """True if every byte is 0; cheap for ordinary data (the first 64 bytes decide)."""
    n = len(data)
    if bytes(data[:64]) != _ZEROS[: min(n, 64)]:
        return False
    step = len(_ZEROS)
    return all(data[i : i + step].tobytes() == _ZEROS[: min(step, n - i)] for i in range(0, n, step))


def fill_zero(buf: memoryview) -> None:
    step = len(_ZEROS)
    for i in range(0, len(buf), step):
        part = buf[i : i + step]
        part[:] = _ZEROS[: len(part)]


def _kind_of(mode: int) -> str:
    """What a non-regular file is, in words for the one-line refusal."""
    kinds = ((stat.S_ISBLK, "a block device"), (stat.S_ISCHR, "a character device"), (stat.S_ISFIFO, "a FIFO"),
             (stat.S_ISSOCK, "a socket"), (stat.S_ISDIR, "a directory"), (stat.S_ISLNK, "a symbolic link"))
    return next((name for test, name in kinds if test(mode)), "not a regular file")


def _refuse(path: Path, kind: str) -> InvalidParameter:
    return InvalidParameter(f"cartridge={path} is {kind}, not a cartridge file; give a regular file or a new path")


def _open_regular(path: Path) -> int:
    """Open (or create) the cartridge file, refusing anything that is not a regular file.

    A block device, FIFO or /dev/null reports size 0 and would be taken for a blank
    cartridge and overwritten (issue 14.2). The check is made on the opened descriptor
    (``fstat``), so nothing can be swapped in between a check and the open. O_NONBLOCK:
    opening a FIFO must never wait for a writer; O_NOFOLLOW: a symbolic link is refused,
    not followed (a link could point the drive at a device or someone else's file; give
    the real path instead). Nothing is written before the check has passed.
    """
    flags = os.O_RDWR | os.O_CREAT | getattr(os, "O_BINARY", 0) | getattr(os, "O_NOFOLLOW", 0)
    flags |= getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_CLOEXEC", 0)
    try:
        fd = os.open(path, flags, 0o644)
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            raise _refuse(path, "a symbolic link") from None
        # a directory (Windows says EACCES for one); a FIFO with no reader (O_NONBLOCK)
        if exc.errno in (errno.EISDIR, errno.ENXIO) or (exc.errno == errno.EACCES and os.path.isdir(path)):
            try:
                mode = os.lstat(path).st_mode
            except OSError:
                mode = 0
            raise _refuse(path, _kind_of(mode) if mode else "not a regular file") from None
        raise TransportError(f"cannot open virtual cartridge {path}: {exc.strerror}") from None
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        raise _refuse(path, _kind_of(mode))
    if getattr(os, "O_NONBLOCK", 0):
        # A regular file: the flag changes nothing, but say what we mean. Only where the
        # open set O_NONBLOCK: Windows' os.set_blocking works on pipes only and fails on a
        # file with "[WinError 1] Invalid function" (every virtual drive command did).
        os.set_blocking(fd, True)
    return fd


@dataclass
class CartridgeMeta:
    """What survives a restart besides the data: identity, flags, lifetime counters."""

    generation: int
    capacity: int
    worm: bool = False
    write_protect: bool = False
    serial: str = ""
    barcode: str = ""
    manufactured: str = ""  # YYYYMMDD
    load_count: int = 0
    host_bytes_written: int = 0  # lifetime, before compression
    host_bytes_read: int = 0
    tape_bytes_written: int = 0  # lifetime, after compression
    tape_bytes_read: int = 0
    index_offset: int = 0
    index_count: int = 0
    clean: bool = True
    extra: dict = field(default_factory=dict)  # room for later fields without a format bump


class Cartridge:
    """The records of one cartridge plus its metadata; positions are record indices.

    A position ``p`` means "before record p" (SSC's logical object number): records
    are blocks and filemarks alike; ``count`` is the EOD position.
    """

    def __init__(self, path: Path, fd: int, meta: CartridgeMeta) -> None:
        self.path = path
        self._fd = fd
        self.meta = meta
        self._offsets = array("q")  # file offset of each record header
        self._lengths = array("q")  # data length; -1 for a filemark
        self._tape = array("q")  # cumulative tape bytes after each record
        self._kinds = array("b")  # KIND_* of each record
        self._filemarks = array("q")  # positions of filemarks, ascending
        self.data_end = DATA_START
        # Bytes past EOD may be old records (see the module docstring): the file's real end, and
        # the epoch a record at or past ``_epoch_start`` must carry to count.
        self._file_end = DATA_START
        self._epoch = int(meta.extra.get("epoch", 0))
        self._epoch_start = int(meta.extra.get("epoch_start", DATA_START))

    # ---------------------------------------------------------------- open/create
    @classmethod
    def open(cls, path: Path, *, generation: int, capacity: int, worm: bool, serial: str, barcode: str) -> "Cartridge":
        """Open ``path``, creating a blank cartridge there when it does not exist."""
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as exc:
            raise TransportError(f"cannot create the folder of virtual cartridge {path}: {exc.strerror}") from None
        fd = _open_regular(path)
        # Like a real drive, a cartridge is in one drive at a time: two processes
        # appending to one file would corrupt it.
        if not fileio.lock_exclusive(fd):
            os.close(fd)
            raise DeviceBusy(f"virtual cartridge {path} is in use by another program",
                                 hint="close the other tapediag window or command using it")
        size = os.fstat(fd).st_size
        if size == 0:
            meta = CartridgeMeta(
                generation=generation,
                capacity=capacity,
                worm=worm,
                serial=serial,
                barcode=barcode,
                manufactured=datetime.date.today().strftime("%Y%m%d"),
            )
            cart = cls(path, fd, meta)
            cart._write_header()
            os.fsync(fd)
            return cart
        head = fileio.pread(fd, HEADER_SIZE, 0)
        if not head.startswith(MAGIC):
            os.close(fd)
            raise InvalidParameter(f"{path} is not a tapediag virtual cartridge")
        (length,) = struct.unpack_from("<I", head, len(MAGIC))
        try:
            raw = json.loads(head[len(MAGIC) + 4 : len(MAGIC) + 4 + length])
            meta = CartridgeMeta(**raw)
        except (ValueError, TypeError):
            os.close(fd)
            raise InvalidParameter(f"{path}: the cartridge header is damaged") from None
        cart = cls(path, fd, meta)
        cart._file_end = size
        if meta.clean and meta.index_offset >= DATA_START:
            cart._load_index()
        else:
            cart._scan()
        return cart

    def _load_index(self) -> None:
        n = self.meta.index_count
        raw = fileio.pread(self._fd, 25 * n, self.meta.index_offset)
        if len(raw) != 25 * n:
            self._scan()
            return
        self._offsets.frombytes(raw[: 8 * n])
        self._lengths.frombytes(raw[8 * n : 16 * n])
        self._tape.frombytes(raw[16 * n : 24 * n])
        self._kinds.frombytes(raw[24 * n :])
        self.data_end = self.meta.index_offset
        self._filemarks = array("q", (i for i, ln in enumerate(self._lengths) if ln < 0))

    def _scan(self) -> None:
        """Rebuild the index from the self-describing records (after an unclean stop)."""
        offset, end, tape = DATA_START, os.fstat(self._fd).st_size, 0
        epoch = self._epoch & 0xFFFF
        while offset + _REC.size <= end:
            magic, kind, rec_epoch, length, charged = _REC.unpack(fileio.pread(self._fd, _REC.size, offset))
            payload = length if kind == KIND_BLOCK else 0
            if magic != REC_MAGIC or kind not in (KIND_BLOCK, KIND_FILEMARK, KIND_ZERO) or offset + _REC.size + payload > end:
                break
            if offset >= self._epoch_start and rec_epoch != epoch:
                break  # an old record past where EOD was last moved back: not data any more
            tape += charged
            if kind == KIND_FILEMARK:
                self._filemarks.append(len(self._offsets))
            self._offsets.append(offset)
            self._lengths.append(-1 if kind == KIND_FILEMARK else length)
            self._tape.append(tape)
            self._kinds.append(kind)
            offset += _REC.size + payload
        self.data_end = offset
        self.meta.clean = False  # the saved index (if any) is stale; rewrite at close

    # ---------------------------------------------------------------- persistence
    def _write_header(self) -> None:
        if self._epoch:
            self.meta.extra.update(epoch=self._epoch, epoch_start=self._epoch_start)
        body = json.dumps(asdict(self.meta), separators=(",", ":")).encode()
        if len(body) + len(MAGIC) + 4 > HEADER_SIZE:
            raise DeviceError("virtual cartridge metadata too large")
        fileio.pwrite(self._fd, MAGIC + struct.pack("<I", len(body)) + body, 0)

    def _dirty(self) -> None:
        if self.meta.clean:
            self.meta.clean = False
            if self._file_end > self.data_end:  # the saved index follows EOD: stale from now on
                self._new_epoch()
            self._write_header()

    def _new_epoch(self) -> None:
        """EOD moved back to ``data_end``: what lies past it stops counting (see the module docstring).

        The caller writes the header. Once every 65,536 epochs (the records keep 16 bits) the file is
        really cut, so that an old record can never carry the current epoch's bits.
        """
        self._epoch += 1
        self._epoch_start = self.data_end
        if not self._epoch & 0xFFFF:
            os.ftruncate(self._fd, self.data_end)
            self._file_end = self.data_end

    def save_meta(self) -> None:
        """Write the metadata now (counters), keeping the clean/dirty state."""
        self._write_header()

    def flush(self) -> None:
        """Save the index after EOD, then the header pointing at it; fsync. Cheap if clean."""
        if not self.meta.clean:
            n = len(self._offsets)
            blob = self._offsets.tobytes() + self._lengths.tobytes() + self._tape.tobytes() + self._kinds.tobytes()
            fileio.pwrite(self._fd, blob, self.data_end)
            os.ftruncate(self._fd, self.data_end + len(blob))  # old records past EOD go now, outside any timed run
            self._file_end = self.data_end + len(blob)
            os.fsync(self._fd)
            self.meta.index_offset, self.meta.index_count, self.meta.clean = self.data_end, n, True
        self._write_header()
        os.fsync(self._fd)

    def close(self) -> None:
        if self._fd >= 0:
            try:
                self.flush()
            finally:
                os.close(self._fd)
                self._fd = -1

    # ---------------------------------------------------------------- queries
    @property
    def count(self) -> int:
        """Number of records (blocks + filemarks); also the EOD position."""
        return len(self._offsets)

    @property
    def file_bytes(self) -> int:
        """Bytes of records in the file (what the cartridge costs on disk)."""
        return self.data_end - DATA_START

    def is_filemark(self, pos: int) -> bool:
        return self._lengths[pos] < 0

    def length(self, pos: int) -> int:
        return self._lengths[pos]

    def tape_used(self, pos: int | None = None) -> int:
        """Tape bytes used before position ``pos`` (default: up to EOD)."""
        pos = self.count if pos is None else pos
        return self._tape[pos - 1] if pos > 0 else 0

    def charged(self, pos: int) -> int:
        return self._tape[pos] - (self._tape[pos - 1] if pos > 0 else 0)

    def filemarks_before(self, pos: int) -> int:
        """Filemarks strictly before position ``pos`` (SSC's logical file identifier)."""
        return bisect_left(self._filemarks, pos)

    def next_filemark(self, pos: int) -> int | None:
        """Position of the first filemark at or after ``pos``."""
        i = bisect_left(self._filemarks, pos)
        return self._filemarks[i] if i < len(self._filemarks) else None

    def prev_filemark(self, pos: int) -> int | None:
        """Position of the last filemark strictly before ``pos``."""
        i = bisect_right(self._filemarks, pos - 1)
        return self._filemarks[i - 1] if i > 0 else None

    def filemark_position(self, number: int) -> int | None:
        """Position of filemark number ``number`` (0-based), None if there are fewer."""
        return self._filemarks[number] if 0 <= number < len(self._filemarks) else None

    def all_filemarks_from(self, pos: int) -> bool:
        """True if everything from ``pos`` to EOD is filemarks (WORM may overwrite those)."""
        return len(self._filemarks) - bisect_left(self._filemarks, pos) == self.count - pos

    def read_into(self, pos: int, buf: memoryview) -> int:
        """Copy up to len(buf) bytes of block ``pos`` into ``buf``; returns bytes copied."""
        want = min(len(buf), self._lengths[pos])
        if want <= 0:
            return 0
        if self._kinds[pos] == KIND_ZERO:
            fill_zero(buf[:want])
            return want
        return fileio.preadv(self._fd, [buf[:want]], self._offsets[pos] + _REC.size)

    # ---------------------------------------------------------------- changes
    def truncate(self, pos: int) -> None:
        """Make ``pos`` the new EOD (a write or erase there drops everything after it)."""
        if pos >= self.count:
            return
        self._dirty()
        self.data_end = self._offsets[pos]
        del self._offsets[pos:], self._lengths[pos:], self._tape[pos:], self._kinds[pos:]
        del self._filemarks[bisect_left(self._filemarks, pos) :]
        self._new_epoch()  # the old records stay in the file, to be overwritten in place
        self._write_header()

    def append_block(self, data: memoryview, charged: int, *, zero: bool = False) -> None:
        """Append one block at EOD; ``charged`` is what it costs on tape (compressed).

        ``zero``: the caller found the block all zeros; only its header is stored.
        """
        self._dirty()
        n = len(data)
        kind = KIND_ZERO if zero else KIND_BLOCK
        iov = [_REC.pack(REC_MAGIC, kind, self._epoch & 0xFFFF, n, charged)] + ([] if zero else [data])
        written = fileio.pwritev(self._fd, iov, self.data_end)
        if written != _REC.size + (0 if zero else n):
            raise OSError(28, "short write to the virtual cartridge")
        self._tape.append(self.tape_used() + charged)
        self._offsets.append(self.data_end)
        self._lengths.append(n)
        self._kinds.append(kind)
        self.data_end += written
        self._file_end = max(self._file_end, self.data_end)

    def append_blocks(self, data: memoryview, size: int, charged: int, *, zero: bool = False) -> None:
        """Append ``len(data) // size`` equal blocks (fixed mode) with one write per 500 blocks."""
        count = len(data) // size
        if count == 1:
            self.append_block(data, charged, zero=zero)
            return
        self._dirty()
        kind = KIND_ZERO if zero else KIND_BLOCK
        step, start, tape0 = _REC.size + (0 if zero else size), self.data_end, self.tape_used()
        header = _REC.pack(REC_MAGIC, kind, self._epoch & 0xFFFF, size, charged)
        for first in range(0, count, _IOV_BLOCKS):
            last = min(count, first + _IOV_BLOCKS)
            iov: list[bytes | memoryview] = []
            for i in range(first, last):
                iov += (header,) if zero else (header, data[i * size : (i + 1) * size])
            want = (last - first) * step
            if fileio.pwritev(self._fd, iov, start + first * step) != want:
                raise OSError(28, "short write to the virtual cartridge")
        self._offsets.extend(range(start, start + count * step, step))
        self._lengths.extend([size] * count)
        self._kinds.extend([kind] * count)
        self._tape.extend(range(tape0 + charged, tape0 + charged * count + 1, charged))
        self.data_end = start + count * step
        self._file_end = max(self._file_end, self.data_end)

    def run_of_blocks(self, pos: int, size: int, limit: int) -> int:
        """How many records from ``pos`` (at most ``limit``) are blocks of exactly ``size``,
        all stored the same way (data or all-zero) as the first."""
        n = 0
        kind = self._kinds[pos] if pos < self.count else KIND_FILEMARK
        for length, k in zip(self._lengths[pos : pos + limit], self._kinds[pos : pos + limit]):
            if length != size or k != kind:
                break
            n += 1
        return n

    def read_blocks(self, pos: int, count: int, size: int, buf: memoryview) -> int:
        """Read ``count`` consecutive ``size``-byte blocks into ``buf`` (see ``run_of_blocks``)."""
        if self._kinds[pos] == KIND_ZERO:
            fill_zero(buf[: count * size])
            return count * size
        scratch = bytearray(_REC.size)
        done = 0
        for first in range(0, count, _IOV_BLOCKS):
            last = min(count, first + _IOV_BLOCKS)
            iov: list[memoryview | bytearray] = []
            for i in range(first, last):
                iov.append(buf[i * size : (i + 1) * size])
                if i != last - 1:
                    iov.append(scratch)
            got = fileio.preadv(self._fd, iov, self._offsets[pos + first] + _REC.size)
            done += got - (last - first - 1) * _REC.size
        return done

    def append_filemark(self) -> None:
        self._dirty()
        fileio.pwrite(self._fd, _REC.pack(REC_MAGIC, KIND_FILEMARK, self._epoch & 0xFFFF, 0, FILEMARK_TAPE_BYTES), self.data_end)
        self._tape.append(self.tape_used() + FILEMARK_TAPE_BYTES)
        self._filemarks.append(self.count)
        self._offsets.append(self.data_end)
        self._lengths.append(-1)
        self._kinds.append(KIND_FILEMARK)
        self.data_end += _REC.size
        self._file_end = max(self._file_end, self.data_end)
