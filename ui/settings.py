"""Persistent GUI settings (last device, last parameters, window geometry).

Settings sit next to the rest of tapediag's state, in an INI file under
``app.paths.data_dir()``: every test already gets its own data directory
(``TAPEDIAG_DATA_DIR``), so tests never read or clobber a user's settings.
"""
from __future__ import annotations

import json
from typing import Any

from PySide6.QtCore import QSettings

from app.paths import data_dir


def settings() -> QSettings:
    return QSettings(str(data_dir() / "gui-settings.ini"), QSettings.Format.IniFormat)


def load_json(key: str, default: Any = None) -> Any:
    """Parameters are stored as JSON text: QSettings' INI typing is lossy for dicts."""
    raw = settings().value(key)
    if not raw:
        return default
    try:
        return json.loads(str(raw))
    except ValueError:
        return default


def save_json(key: str, value: Any) -> None:
    s = settings()
    s.setValue(key, json.dumps(value))
    s.sync()
