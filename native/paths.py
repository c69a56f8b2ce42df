"""Where tapediag keeps its files: history database, virtual cartridges, settings.

Defined in the lowest layer so the virtual drive can keep its cartridges there too;
``app.paths`` re-exports it. ``TAPEDIAG_DATA_DIR`` overrides the platform's user data
directory, so tests and concurrent runs never share state by accident.
"""
from __future__ import annotations

import os
from pathlib import Path


def data_dir() -> Path:
    """The user data directory, created on first use."""
    override = os.environ.get("TAPEDIAG_DATA_DIR")
    if override:
        path = Path(override)
    else:
        from platformdirs import user_data_dir

        path = Path(user_data_dir("tapediag", appauthor=False))
    # 700: the history and the remembered iSCSI targets are the user's own business.
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path
