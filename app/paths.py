"""Where tapediag keeps its files (defined in ``native.paths``, re-exported here), and
how it replaces a user's file (a report, an export) without ever leaving half of one.

``data_dir()`` creates the directory with mode 700 and says in one line when it is a
file or cannot be made; the history database inside it is created 600 by
``app.history.store``.
"""
from __future__ import annotations

import os
from pathlib import Path

from native.paths import data_dir

__all__ = ["create_beside", "data_dir"]


# O_NOFOLLOW and O_CLOEXEC are POSIX (Windows' os has neither: every report, export and
# ticket died there with AttributeError); O_BINARY is Windows' (no CRLF translation).
_NEW_BESIDE = (os.O_RDWR | os.O_CREAT | os.O_EXCL | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_CLOEXEC", 0)
               | getattr(os, "O_BINARY", 0))


def create_beside(path: Path) -> tuple[int, Path]:
    """A new hidden file next to ``path`` (same directory, so a rename over ``path`` is atomic),
    opened for reading and writing (to check what was written); returns ``(fd, its path)``.

    Mode 666 less the umask, like any file the user makes, without reading the umask
    (``os.umask`` sets it process-wide, a race for the GUI's other threads); ``O_EXCL``
    and ``O_NOFOLLOW`` so it can never be an existing file or a planted link.
    """
    for _ in range(100):
        # os.urandom, not secrets: the name needs no more, and secrets (hashlib, hmac, random) cost
        # every command that records a run 4 ms of start-up (issue 32.3)
        tmp = path.with_name(f".{path.name}.{os.urandom(4).hex()}.tmp")
        try:
            return os.open(tmp, _NEW_BESIDE, 0o666), tmp
        except FileExistsError:
            continue
    raise FileExistsError(f"no free temporary name beside {path}")
