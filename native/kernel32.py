"""kernel32 through ctypes, its functions declared once for the Windows modules.

``native.winio`` (unbuffered file reads) and ``native.winstorage`` (the storage adapter's
transfer limit) call the same four functions; one declaration keeps their argument types
alike. Loaded on first use, so importing this module never fails off Windows. The
modules keep their own ``_kernel32`` seam, which their tests fill with a fake.
"""
from __future__ import annotations

import ctypes
from ctypes import wintypes
from typing import Any

_kernel32: Any = None


def _declare(k32: Any) -> Any:
    # Handles are pointers: c_void_p, not DWORD (which is 8 bytes off Windows, 4 on it).
    k32.CreateFileW.argtypes = [wintypes.LPCWSTR, wintypes.DWORD, wintypes.DWORD, ctypes.c_void_p,
                                wintypes.DWORD, wintypes.DWORD, ctypes.c_void_p]
    k32.CreateFileW.restype = ctypes.c_void_p
    k32.ReadFile.argtypes = [ctypes.c_void_p, ctypes.c_void_p, wintypes.DWORD, ctypes.POINTER(wintypes.DWORD),
                             ctypes.c_void_p]
    k32.ReadFile.restype = wintypes.BOOL
    k32.DeviceIoControl.argtypes = [ctypes.c_void_p, wintypes.DWORD, ctypes.c_void_p, wintypes.DWORD,
                                    ctypes.c_void_p, wintypes.DWORD, ctypes.POINTER(ctypes.c_uint32), ctypes.c_void_p]
    k32.DeviceIoControl.restype = wintypes.BOOL
    k32.CloseHandle.argtypes = [ctypes.c_void_p]
    k32.CloseHandle.restype = wintypes.BOOL
    return k32


def kernel32() -> Any:
    """The loaded kernel32 with CreateFileW, ReadFile, DeviceIoControl and CloseHandle declared."""
    global _kernel32
    if _kernel32 is None:
        _kernel32 = _declare(ctypes.WinDLL("kernel32", use_last_error=True))  # type: ignore[attr-defined]
    return _kernel32
