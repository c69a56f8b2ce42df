"""libiscsi loaded through ctypes: prototypes and the ``struct scsi_task`` layouts.

Kept apart from ``native.iscsi`` so the binding facts live in one small place:

* **Every function gets ``restype`` and ``argtypes``.** ctypes assumes ``int`` for a
  return value; a pointer-returning function (``iscsi_create_context``,
  ``scsi_create_task``, ``iscsi_scsi_command_sync``) would be truncated to 32 bits
  and crash on the first dereference.
* **``struct scsi_task`` changed layout without a soname bump.** libiscsi 1.20.0
  added ``info_valid`` and ``uint64_t information`` to the embedded
  ``struct scsi_sense`` (upstream commit 53c58f8, "lib: parse Information fixed
  sense field"), moving ``datain`` and everything after it by 8 bytes, while the
  library stayed ``libiscsi.so.7``. We read ``datain`` on CHECK CONDITION, so we
  must know which layout we have. 1.20.0 also added the exported symbols
  ``iscsi_force_reconnect`` and ``iscsi_scsi_is_task_in_outqueue``; their presence
  selects the 1.20+ layout, their absence the 1.19 one (Debian 12: 1.19.0).
  ``tests/transport/test_iscsi_layout.py`` checks the offsets against the
  installed headers with a C compiler.
* **The per-command path is C** (``native._iscsi_cmd.Runner``): through ctypes one
  command is five foreign calls plus a ctypes array per buffer, several times
  libiscsi's own cost. The runner gets the entry points' addresses and the task
  offsets from here, so this module stays the one place that loads the library and
  knows its layout.
"""
from __future__ import annotations

import ctypes
import sys
from dataclasses import dataclass
from functools import lru_cache

from native.errors import TransportUnavailable

INSTALL_HINT = "apt-get install libiscsi7"

#: Windows: tapediag ships no libiscsi there (the Windows bundle carries sg3_utils only), and
#: Windows has its own initiator, after which the target's drive is a local tape drive.
WINDOWS_MISSING = "tapediag has no iSCSI initiator of its own on Windows, so iscsi:// targets cannot be reached"
WINDOWS_HINT = ("connect the target with the Microsoft iSCSI Initiator (iscsicpl.exe); its tape drive "
                "then appears as \\\\.\\TapeN like any other drive")

#: Tried in order; the soname first so a dev package is not needed.
LIBRARY_NAMES = ("libiscsi.so.7", "libiscsi.so", "libiscsi.dylib")

# enum scsi_status, libiscsi's own values beyond SAM.
STATUS_CANCELLED = 0x0F000000
STATUS_ERROR = 0x0F000001
STATUS_TIMEOUT = 0x0F000002

XFER_NONE, XFER_READ, XFER_WRITE = 0, 1, 2

#: Seconds a target gets to answer ABORT TASK for a command the caller gave up (a cancel while it is
#: outstanding) before its session is dropped: a live target answers a task-management request at
#: once (tgt: within the command it is running), and a frozen one never does, so a short wait is
#: what keeps a cancel on a frozen target to a few seconds.
ABORT_WAIT = 2.0

#: ``Runner`` state byte: how a command the caller gave up ended (``native/src/_iscsi_cmd.c``).
STATE_OK, STATE_ABORTED, STATE_DROPPED = 0, 1, 2
RESIDUAL_NONE, RESIDUAL_UNDERFLOW, RESIDUAL_OVERFLOW = 0, 1, 2
SESSION_NORMAL = 2
HEADER_DIGEST_NONE = 0


class ScsiData(ctypes.Structure):
    _fields_ = [("size", ctypes.c_int), ("data", ctypes.POINTER(ctypes.c_ubyte))]


class ScsiIovector(ctypes.Structure):
    _fields_ = [
        ("iov", ctypes.c_void_p),
        ("niov", ctypes.c_int),
        ("nalloc", ctypes.c_int),
        ("offset", ctypes.c_size_t),
        ("consumed", ctypes.c_int),
    ]


class ScsiSense119(ctypes.Structure):
    """``struct scsi_sense`` up to 1.19: 16 bytes."""

    _fields_ = [
        ("error_type", ctypes.c_ubyte),
        ("key", ctypes.c_int),
        ("ascq", ctypes.c_int),
        # sense_specific, ill_param_in_cdb, bit_pointer_valid: 3 bits of an unsigned
        # int, but GCC packs bit_pointer into the same unit's next byte; a ctypes
        # bitfield would not, so the bits are declared as the one byte they use.
        ("flags", ctypes.c_ubyte),
        ("bit_pointer", ctypes.c_ubyte),
        ("field_pointer", ctypes.c_uint16),
    ]


class ScsiSense120(ctypes.Structure):
    """``struct scsi_sense`` from 1.20.0: adds info_valid and a 64-bit information."""

    _fields_ = [
        ("error_type", ctypes.c_ubyte),
        ("key", ctypes.c_int),
        ("ascq", ctypes.c_int),
        ("flags", ctypes.c_ubyte),  # ... plus info_valid (see ScsiSense119)
        ("bit_pointer", ctypes.c_ubyte),
        ("field_pointer", ctypes.c_uint16),
        ("information", ctypes.c_uint64),
    ]


def _task_struct(name: str, sense: type[ctypes.Structure]) -> type[ctypes.Structure]:
    return type(
        name,
        (ctypes.Structure,),
        {
            "_fields_": [
                ("status", ctypes.c_int),
                ("cdb_size", ctypes.c_int),
                ("xfer_dir", ctypes.c_int),
                ("expxferlen", ctypes.c_int),
                ("cdb", ctypes.c_ubyte * 16),
                ("residual_status", ctypes.c_int),
                ("residual", ctypes.c_size_t),
                ("sense", sense),
                ("datain", ScsiData),
                ("mem", ctypes.c_void_p),
                ("ptr", ctypes.c_void_p),
                ("itt", ctypes.c_uint32),
                ("cmdsn", ctypes.c_uint32),
                ("lun", ctypes.c_uint32),
                ("iovector_in", ScsiIovector),
                ("iovector_out", ScsiIovector),
            ]
        },
    )


ScsiTask119 = _task_struct("ScsiTask119", ScsiSense119)
ScsiTask120 = _task_struct("ScsiTask120", ScsiSense120)

_c = ctypes
_CTX = _c.c_void_p
_TASK = _c.c_void_p

# name: (restype, argtypes). Pointers are c_void_p so no value is ever truncated.
PROTOTYPES: dict[str, tuple[object, list[object]]] = {
    "iscsi_create_context": (_CTX, [_c.c_char_p]),
    "iscsi_destroy_context": (_c.c_int, [_CTX]),
    "iscsi_get_error": (_c.c_char_p, [_CTX]),
    "iscsi_set_targetname": (_c.c_int, [_CTX, _c.c_char_p]),
    "iscsi_set_session_type": (_c.c_int, [_CTX, _c.c_int]),
    "iscsi_set_header_digest": (_c.c_int, [_CTX, _c.c_int]),
    "iscsi_set_initiator_username_pwd": (_c.c_int, [_CTX, _c.c_char_p, _c.c_char_p]),
    "iscsi_set_noautoreconnect": (None, [_CTX, _c.c_int]),
    "iscsi_set_timeout": (_c.c_int, [_CTX, _c.c_int]),
    "iscsi_set_tcp_syncnt": (_c.c_int, [_CTX, _c.c_int]),
    "iscsi_full_connect_sync": (_c.c_int, [_CTX, _c.c_char_p, _c.c_int]),
    "iscsi_logout_sync": (_c.c_int, [_CTX]),
    "iscsi_is_logged_in": (_c.c_int, [_CTX]),
    "iscsi_get_fd": (_c.c_int, [_CTX]),
    "scsi_create_task": (_TASK, [_c.c_int, _c.c_char_p, _c.c_int, _c.c_int]),  # copies the CDB
    "scsi_free_scsi_task": (None, [_TASK]),
    "scsi_task_add_data_in_buffer": (_c.c_int, [_TASK, _c.c_int, _c.c_void_p]),
    "scsi_task_add_data_out_buffer": (_c.c_int, [_TASK, _c.c_int, _c.c_void_p]),
    "iscsi_scsi_command_sync": (_TASK, [_CTX, _c.c_int, _TASK, _c.c_void_p]),
}

#: Exported from 1.20.0 on (lib/libiscsi.syms.in); absent in 1.19.
SYMBOLS_1_20 = ("iscsi_force_reconnect", "iscsi_scsi_is_task_in_outqueue")


@dataclass(frozen=True)
class Libiscsi:
    """The loaded library and the task layout that matches it."""

    lib: ctypes.CDLL
    path: str
    task_struct: type[ctypes.Structure]
    layout: str  # "1.19" or "1.20+"
    runner: object  # native._iscsi_cmd.Runner bound to this library and layout


def _open(names: tuple[str, ...]) -> tuple[ctypes.CDLL, str]:
    """The first of ``names`` that loads; ``find_library`` only when none does: it runs ldconfig
    and a compiler in subprocesses (tens of ms on every ``tapediag devices``)."""
    for name in names:
        try:
            return ctypes.CDLL(name), name
        except OSError:
            continue
    from ctypes.util import find_library  # imports subprocess, runs ldconfig and a compiler: last resort only

    found = find_library("iscsi")
    if found and found not in names:
        try:
            return ctypes.CDLL(found), found
        except OSError:
            pass
    raise missing()


def missing() -> TransportUnavailable:
    """The one error (and advice) for "no libiscsi here", which ``devices``, the GUI's device
    pane and every iscsi:// command show: on Windows the way to an iSCSI tape is the system's
    own initiator, not a Debian package."""
    if sys.platform == "win32":
        return TransportUnavailable(WINDOWS_MISSING, hint=WINDOWS_HINT)
    return TransportUnavailable("libiscsi is not installed, so iSCSI targets cannot be reached", hint=INSTALL_HINT)


def install_hint() -> str:
    """What to do when the library found here will not do (too old, lacks a function)."""
    return WINDOWS_HINT if sys.platform == "win32" else INSTALL_HINT


def bind(lib: ctypes.CDLL, path: str) -> Libiscsi:
    """Declare every prototype and pick the task layout from the exported symbols."""
    for name, (restype, argtypes) in PROTOTYPES.items():
        try:
            func = getattr(lib, name)
        except AttributeError:
            raise TransportUnavailable(
                f"the installed libiscsi ({path}) lacks {name}", hint=install_hint()
            ) from None
        func.restype = restype
        func.argtypes = argtypes
    newer = any(hasattr(lib, symbol) for symbol in SYMBOLS_1_20)
    task = ScsiTask120 if newer else ScsiTask119
    return Libiscsi(lib, path, task, "1.20+" if newer else "1.19", make_runner(lib, task))


def make_runner(lib: ctypes.CDLL, task: type[ctypes.Structure]) -> object:
    """The C per-command runner, given this library's entry points and task layout."""
    try:
        from native import _iscsi_cmd
    except ImportError:
        raise TransportUnavailable(
            "the C helper native._iscsi_cmd is not built", hint="rebuild: pip install -e . (compiles native/src)"
        ) from None

    def address(name: str) -> int:
        try:
            return ctypes.cast(getattr(lib, name), ctypes.c_void_p).value or 0
        except AttributeError:  # an optional entry point this build lacks: that feature stays off
            return 0

    datain = task.datain.offset
    return _iscsi_cmd.Runner(
        create_task=address("scsi_create_task"),
        add_data_out=address("scsi_task_add_data_out_buffer"),
        add_data_in=address("scsi_task_add_data_in_buffer"),
        command_sync=address("iscsi_scsi_command_sync"),
        free_task=address("scsi_free_scsi_task"),
        off_status=task.status.offset,
        off_residual_status=task.residual_status.offset,
        off_residual=task.residual.offset,
        off_datain_size=datain + ScsiData.size.offset,
        off_datain_data=datain + ScsiData.data.offset,
        # The asynchronous entry points, for writes that refill their next buffer while one is in flight.
        command_async=address("iscsi_scsi_command_async"),
        get_fd=address("iscsi_get_fd"),
        which_events=address("iscsi_which_events"),
        service=address("iscsi_service"),
        out_queue_length=address("iscsi_out_queue_length"),
        # Giving up a command (a cancel while it is outstanding): ABORT TASK, then libiscsi forgets the task.
        abort_task=address("iscsi_task_mgmt_abort_task_async"),
        cancel_task=address("iscsi_scsi_cancel_task"),
        abort_wait=ABORT_WAIT,
    )


@lru_cache(maxsize=None)
def load(names: tuple[str, ...] | None = None) -> Libiscsi:
    """The process-wide libiscsi binding (``TransportUnavailable`` when missing)."""
    lib, path = _open(names or LIBRARY_NAMES)
    return bind(lib, path)
