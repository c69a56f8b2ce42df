"""Where tapediag keeps its files: history database, virtual cartridges, settings.

Defined in the lowest layer so the virtual drive can keep its cartridges there too;
``app.paths`` re-exports it. ``TAPEDIAG_DATA_DIR`` overrides the platform's user data
directory, so tests and concurrent runs never share state by accident.
"""
from __future__ import annotations

import os
from pathlib import Path

from native.errors import TapediagError


def data_dir() -> Path:
    """The user data directory, created on first use, private (mode 700: the history names
    hosts and targets); one clear error when it is a file or cannot be created."""
    override = os.environ.get("TAPEDIAG_DATA_DIR")
    if override:
        path = Path(override)
    else:
        from platformdirs import user_data_dir

        path = Path(user_data_dir("tapediag", appauthor=False))
    if path.exists() and not path.is_dir():
        raise TapediagError(f"the data directory {path} is not a directory",
                            hint="set TAPEDIAG_DATA_DIR to a directory")
    # 700: the history and the remembered iSCSI targets are the user's own business.
    try:
        path.mkdir(mode=0o700, parents=True, exist_ok=True)
    except OSError as err:
        raise TapediagError(f"cannot create the data directory {path}: {err.strerror or err}",
                            hint="set TAPEDIAG_DATA_DIR to a writable directory") from err
    return path
