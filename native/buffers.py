"""The address of a caller's buffer, for the C side of a transport, without copying it.

Shared by the iSCSI and the pass-through transports (it lived in ``native.iscsi``; the pass-through
imported the whole libiscsi module for it, which ``tapediag devices`` paid for at start-up).
"""
from __future__ import annotations

import ctypes

from native.errors import InvalidParameter
from native.transport import Buffer


def buffer_address(buffer: Buffer) -> tuple[int, object]:
    """Address of a buffer's bytes without copying, plus the object keeping it alive."""
    if isinstance(buffer, bytes):
        keep = ctypes.c_char_p(buffer)  # points into the bytes object itself
        return ctypes.cast(keep, ctypes.c_void_p).value or 0, keep
    view = memoryview(buffer)
    if not view.c_contiguous:
        raise InvalidParameter("data_out buffer must be contiguous")
    if view.readonly:
        import numpy  # a read-only export without a copy; numpy is a core dependency

        array = numpy.frombuffer(view.cast("B") if view.format != "B" else view, dtype=numpy.uint8)
        return int(array.ctypes.data), array
    shared = (ctypes.c_char * view.nbytes).from_buffer(view.cast("B") if view.format != "B" else view)
    return ctypes.addressof(shared), shared
