"""The virtual library's state file, ``library.json``: where every cartridge is, shared by every process.

A real library has one state for all its hosts; the virtual one used to keep a copy per opened
library, so two exercisers at once each believed the drives empty and both PASSed with two
cartridges in one drive. Now every command reads the file (``StateFile.read``), and every change
is a read-modify-write under an exclusive lock on ``.library.lock`` beside it
(``StateFile.changing``; ``native.lockfile``, released by the OS if the process dies), written to
a temporary file and renamed over the old one, so a reader never sees half a state.

The file is tapediag's only when it says so (``"format": FORMAT``), or has exactly the keys the
versions before the marker wrote; anything else in ``library.json`` (another program's file of
that name) is refused in one line and never overwritten. A file that is ours but damaged (a
hand edit gone wrong) is refused the same way, naming what is wrong. Nothing is written until
the first change (a MOVE MEDIUM, a drive's LOAD or UNLOAD), so reading a library, and any
read-only session, leaves its folder as it was.
"""
from __future__ import annotations

import contextlib
import json
import os
import tempfile
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Iterator

from native import lockfile
from native.errors import InvalidParameter, TransportError

FORMAT = "tapediag virtual library"
VERSION = 1
_LEGACY_KEYS = {"contents", "sources", "threaded"}  # what tapediag wrote before the format marker
LOCK_TIMEOUT = 60.0  # a move holds the lock for the robot's time (at most 2 s); a minute is a stuck process


@dataclass
class LibraryState:
    """Which barcode is in which element, where each came from, which drives have their tape threaded."""

    contents: dict[int, str | None]
    sources: dict[int, int] = field(default_factory=dict)
    threaded: set[int] = field(default_factory=set)

    def to_json(self) -> dict[str, Any]:
        return {"format": FORMAT, "version": VERSION,
                "contents": {str(k): v for k, v in sorted(self.contents.items())},
                "sources": {str(k): v for k, v in sorted(self.sources.items())},
                "threaded": sorted(self.threaded)}


class StateFile:
    """``library.json`` in ``folder``: read it, change it under the lock; see the module docstring."""

    def __init__(self, folder: Path) -> None:
        self.folder = folder
        self.path = folder / "library.json"

    def read(self) -> LibraryState | None:
        """The saved state, None when there is none yet; ``InvalidParameter`` for a file that is not ours
        or is damaged (one line that says which and what to do)."""
        try:
            text = self.path.read_text(encoding="utf-8")
        except FileNotFoundError:
            return None
        except UnicodeDecodeError:
            raise self._damaged("not UTF-8 text") from None
        except OSError as err:
            if self.path.is_dir():
                raise self._foreign("a directory") from None
            raise InvalidParameter(f"cannot read the virtual library's {self.path}: {err.strerror or err}") from None
        try:
            raw = json.loads(text)
        except ValueError as err:
            raise self._damaged(f"not valid JSON ({err})") from None
        if not isinstance(raw, dict) or not (raw.get("format") == FORMAT or (set(raw) <= _LEGACY_KEYS
                                                                             and "contents" in raw)):
            raise self._foreign("not a tapediag virtual library's file")
        return self._parse(raw)

    def _parse(self, raw: dict[str, Any]) -> LibraryState:
        contents, sources, threaded = raw.get("contents"), raw.get("sources", {}), raw.get("threaded", [])
        if not isinstance(contents, dict) or not all(_address(k) and (v is None or isinstance(v, str))
                                                     for k, v in contents.items()):
            raise self._damaged('"contents" must map element addresses to a barcode or null')
        if not isinstance(sources, dict) or not all(_address(k) and isinstance(v, int) for k, v in sources.items()):
            raise self._damaged('"sources" must map element addresses to element addresses')
        if not isinstance(threaded, list) or not all(isinstance(a, int) for a in threaded):
            raise self._damaged('"threaded" must be a list of drive element addresses')
        return LibraryState({int(k): v for k, v in contents.items()}, {int(k): v for k, v in sources.items()},
                            set(threaded))

    def _foreign(self, what: str) -> InvalidParameter:
        return InvalidParameter(f"{self.path} is {what}: tapediag neither uses nor overwrites it",
                                hint="give the virtual library a folder of its own with dir=")

    def _damaged(self, what: str) -> InvalidParameter:
        return InvalidParameter(f"the virtual library's {self.path} is damaged: {what}",
                                hint="correct it, or move it away to start the library afresh")

    def create(self, state: LibraryState) -> None:
        """Write ``state`` as the library's file when it has none (a trainer's library, to edit by hand)."""
        with self.changing(lambda: state) as current:
            if self.path.exists():
                return
            self._write(current)

    @contextlib.contextmanager
    def changing(self, fresh: Callable[[], LibraryState]) -> Iterator[LibraryState]:
        """The current state (``fresh()`` when there is none yet) to change in place, under the lock; written
        back when the ``with`` block ends without an exception and the state changed."""
        try:
            self.folder.mkdir(parents=True, exist_ok=True)
            fd = lockfile.open_lock_file(self.folder / ".library.lock", mode=0o644)
        except OSError as err:
            raise TransportError(f"cannot use the virtual library's folder {self.folder}: {err.strerror or err}") \
                from None
        try:
            if not lockfile.lock(fd, timeout=LOCK_TIMEOUT):
                raise TransportError(f"the virtual library in {self.folder} stayed locked by another program "
                                     f"for {LOCK_TIMEOUT:.0f} s")
            state = self.read() or fresh()
            before = state.to_json()
            yield state
            if state.to_json() != before:
                self._write(state)
        finally:
            os.close(fd)  # the lock goes with the descriptor

    def _write(self, state: LibraryState) -> None:
        fd, tmp = tempfile.mkstemp(dir=self.folder, prefix=".library.json.", suffix=".tmp")
        try:
            with os.fdopen(fd, "w", encoding="utf-8") as out:
                json.dump(state.to_json(), out)
            os.replace(tmp, self.path)
        except BaseException:
            with contextlib.suppress(OSError):
                os.unlink(tmp)
            raise


def _address(key: object) -> bool:
    return isinstance(key, str) and key.isdigit()


__all__ = ["FORMAT", "LibraryState", "StateFile"]
