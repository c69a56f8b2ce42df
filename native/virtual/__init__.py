"""The virtual LTO drive (``virtual:lto5`` ... ``virtual:lto10``).

``open_virtual(device)`` parses the device string's options (``options.py``), opens
or creates the cartridge file (``cartridge.py``) and returns a ``Transport`` that
answers raw CDBs (``drive.py``) at the speed of the real drive (``model.py``,
``pacer.py``).
"""
from __future__ import annotations

from native.virtual.drive import VirtualDrive, open_virtual

__all__ = ["VirtualDrive", "open_virtual"]
