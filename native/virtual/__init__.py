"""The virtual LTO drive (``virtual:lto5`` ... ``virtual:lto10``).

``open_virtual(device)`` parses the device string's options (``options.py``), opens
or creates the cartridge file (``cartridge.py``) and returns a ``Transport`` that
answers raw CDBs (``drive.py``) at the speed of the real drive (``model.py``,
``pacer.py``).

The drive is imported on first use (PEP 562): ``tapediag devices`` reads only the options
table (``native.virtual.options``), and importing it used to load the whole emulator
through this package (half of that command's start-up, issue 32.3).
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from native.virtual.drive import VirtualDrive, open_virtual

__all__ = ["VirtualDrive", "open_virtual"]


def __getattr__(name: str) -> Any:
    if name in __all__:
        from native.virtual import drive

        return getattr(drive, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
