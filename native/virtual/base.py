"""State and helpers every command handler of the virtual drive shares.

``VirtualDrive`` (``drive.py``) is assembled from this base and two mixins, one per
family of commands (``positioning.py``, ``reports.py``), so that each file can be read
against its part of SSC / SPC on its own.
"""
from __future__ import annotations

from typing import Callable

from native.transport import Buffer
from native.virtual import health, pages
from native.virtual.cartridge import Cartridge
from native.virtual.lag import IdealTwin
from native.virtual.model import TapeModel
from native.virtual.options import VirtualOptions
from native.virtual.sense import DATA_PROTECT, Check, no_medium, worm_overwrite, write_protected
from native.virtual.specs import DENSITY, GenerationSpec


class DriveBase:
    """The drive state (set up by ``VirtualDrive.__init__``) and shared checks."""

    opts: VirtualOptions
    spec: GenerationSpec
    cart: Cartridge  # the current partition's records (``partitions.py``)
    parts: list[Cartridge]  # every partition, partition 0 the cartridge file itself
    partition: int  # the current partition
    model: TapeModel
    twin: IdealTwin | None  # the model on the host's gaps alone (the lag's reference); None when not paced
    mode: pages.ModeState
    loaded: bool
    pos: int  # logical object number: records (blocks and filemarks) before the head
    load: dict[str, int]  # host/tape bytes written/read since this cartridge was loaded
    tapealert: set[int]
    life: health.DriveLife  # the drive's own lifetime state (drive-wide log pages)
    _handlers: dict[int, Callable[[bytes, Buffer | None, memoryview], int]]  # opcode -> handler (what RSOC lists)
    serial: str
    naa: int
    empty: bool  # a library drive the robot put no cartridge in
    _t: float  # model time the current command arrived
    _t_done: float  # model time it completes
    _settle: bool  # the current command repositions: the pacer settles what the emulator owes
    _phase_start: bool  # no data moved since the last positioning: the next transfer starts a phase

    def _tell_library(self) -> None:
        """A library drive tells its library whether the tape is threaded (it may pull it only when not)."""
        if self.opts.library is not None and self.opts.library_drive is not None and not self.empty:
            from native.virtual.library import set_threaded

            set_threaded(self.opts.library, self.opts.library_drive, self.loaded)

    def _select_partition(self, number: int) -> None:
        """Make partition ``number`` current (``partitions.PartitionCommands``)."""
        raise NotImplementedError

    def _medium(self) -> None:
        if not self.loaded:
            raise no_medium()

    @staticmethod
    def _reply(data: bytes, alloc: int, buf: memoryview) -> int:
        n = min(len(data), alloc, len(buf))
        buf[:n] = data[:n]
        return n

    def _writable(self) -> None:
        self._medium()
        if self.cart.meta.write_protect:
            self.tapealert.add(9)  # TapeAlert 09h "Write protect": a write to a protected cartridge
            raise write_protected()
        if DENSITY[self.cart.meta.generation] not in self.spec.writable:
            raise Check(DATA_PROTECT, 0x30, 0x05)  # cannot write medium: incompatible format (read-only generation)
        if self.cart.meta.worm and self.pos < self.cart.count and not self.cart.all_filemarks_from(self.pos):
            raise worm_overwrite()

    def _reposition(self, pos: int) -> None:
        self._t_done = self.model.reposition(self._t)
        if self.twin is not None:
            self.twin.reposition()
        self._settle = True  # the next phase starts with nothing owed (Pacer.finish)
        self._phase_start = True
        self.pos = pos

    def _transfer(self, nbytes: int, tape: float, direction: str) -> None:
        """The drive's time for a READ or WRITE of ``nbytes`` (``tape`` of them on tape), on both models.

        The first transfer after a positioning settles what the emulator owes, as the positioning
        did: a delay in it (the cartridge file moved, the first pages touched) is not paid back
        inside the next commands, which tape-perf times from the end of that first I/O.
        """
        self._t_done = self.model.transfer(self._t_done, nbytes, tape, direction)
        if self.twin is not None:
            self.twin.transfer(nbytes, tape, direction)
        if self._phase_start:
            self._settle, self._phase_start = True, False

    def _flush(self) -> None:
        """The drive writes out its buffer (a filemark without IMMED), on both models."""
        self._t_done = self.model.flush(self._t_done)
        if self.twin is not None:
            self.twin.flush()

    @property
    def _early_warning(self) -> int:
        cap = self.cart.meta.capacity
        return self.opts.early_warning if self.opts.early_warning is not None else max(cap // 64, 1 << 20)

    @property
    def _max_file(self) -> int:
        """Disk budget of the cartridge file's records: its capacity, or less with ``maxfile=``.

        The file stores the host's data uncompressed, so without this bound 2:1 data would
        make an 8 GiB cartridge a 16 GiB file (issue 25 saw 14.9 GB on the way). With it the
        file never holds more than the capacity in records; all of it is at most
        ``cartridge.file_bound(capacity, records)``: 64 KiB + 41 bytes per record more."""
        capacity = self.cart.meta.capacity
        return min(self.opts.max_file, capacity) if self.opts.max_file is not None else capacity

    def _past_early_warning(self) -> bool:
        """Past the early-warning point of the tape, or of the file's disk budget."""
        file_budget = self._max_file
        file_zone = min(self._early_warning, max(file_budget // 64, 1 << 20))  # the tape's zone when it is the capacity
        return (self.cart.tape_used() > self.cart.meta.capacity - self._early_warning
                or self.cart.file_bytes > file_budget - file_zone)

    def _nop(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        return 0
