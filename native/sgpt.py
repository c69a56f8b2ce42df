"""OS pass-through transport: SG_IO on Linux, SPTI on Windows, via libsgutils2 (ctypes).

sg3_utils' ``sg_pt.h`` already hides the platform: one object per command slot
(construct → set cdb/sense/data → ``do_scsi_pt`` → result category → destruct) and
errors in layers (OS error, transport error, SCSI status, sense). We bind that API
rather than issue ioctls ourselves so Linux and Windows share one code path.

Device strings: ``/dev/sgN`` or ``/dev/nstN`` (the non-rewinding st node: SG_IO
works on st nodes, and closing it never rewinds the tape), ``\\\\.\\TapeN`` on
Windows (SPTI *direct*, ``scsi_pt_win32_direct(1)``, so large transfers are not
double-buffered by the OS).

Only what this machine could exercise is tested for real: the library loads and
every symbol resolves, a missing node is ``DeviceNotFound``, a node without a
driver is ``DeviceNotFound``, a non-SCSI node such as ``/dev/null`` is refused
clearly, permission denied as a non-root user, a missing library. The kernel here
has no SCSI devices, so no command has gone through SG_IO on this machine.
"""
from __future__ import annotations

import ctypes
import errno
import glob
import math
import os
import re
import stat
import sys
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import Iterator

from native.errors import (
    CommandTimeout,
    ConnectionLost,
    DeviceBusy,
    DeviceNotFound,
    DevicePermissionDenied,
    InvalidParameter,
    TransportError,
    TransportUnavailable,
)
from native.buffers import buffer_address
from native.transport import (
    DEFAULT_TIMEOUT, Buffer, CommandResult, TransferLimit, Transport, WritableBuffer, make_data_in, notice,
)

INSTALL_HINT = "apt-get install libsgutils2-1.46-2"
PERMISSION_HINT = "run as root or add yourself to the 'tape'/'disk' group"
SENSE_LEN = 252  # the SPC maximum; fixed-format tape sense is 18+ bytes

# sg_pt.h constants
DO_START_OK, DO_BAD_PARAMS, DO_TIMEOUT, DO_NOT_SUPPORTED = 0, 1, 2, 4
RESULT_GOOD, RESULT_STATUS, RESULT_SENSE, RESULT_TRANSPORT_ERR, RESULT_OS_ERR = 0, 1, 2, 3, 4

#: Linux SCSI host bytes (``include/scsi/scsi_status.h``) named in messages.
HOST_BYTE_NAMES = {
    0x01: "DID_NO_CONNECT", 0x02: "DID_BUS_BUSY", 0x03: "DID_TIME_OUT", 0x04: "DID_BAD_TARGET",
    0x05: "DID_ABORT", 0x06: "DID_PARITY", 0x07: "DID_ERROR", 0x08: "DID_RESET", 0x09: "DID_BAD_INTR",
    0x0A: "DID_PASSTHROUGH", 0x0B: "DID_SOFT_ERROR", 0x0C: "DID_IMM_RETRY", 0x0D: "DID_REQUEUE",
    0x0E: "DID_TRANSPORT_DISRUPTED", 0x0F: "DID_TRANSPORT_FAILFAST", 0x10: "DID_TARGET_FAILURE",
    0x11: "DID_NEXUS_FAILURE", 0x12: "DID_ALLOC_FAILURE", 0x13: "DID_MEDIUM_ERROR", 0x14: "DID_TRANSPORT_MARGINAL",
}
#: Linux driver statuses (low nibble; sg3_utils' ``linux_driver_bytes``) named in messages.
DRIVER_BYTE_NAMES = {
    0x00: "DRIVER_OK", 0x01: "DRIVER_BUSY", 0x02: "DRIVER_SOFT", 0x03: "DRIVER_MEDIA", 0x04: "DRIVER_ERROR",
    0x05: "DRIVER_INVALID", 0x06: "DRIVER_TIMEOUT", 0x07: "DRIVER_HARD", 0x08: "DRIVER_SENSE",
}
#: Host bytes that mean the path to the drive is gone, whatever the node says, and what each means.
HOST_BYTES_LOST = {
    0x01: "the kernel has no connection to the drive",  # DID_NO_CONNECT
    0x04: "the drive no longer answers at its address",  # DID_BAD_TARGET
    0x0E: "the link to the drive broke during the command",  # DID_TRANSPORT_DISRUPTED
    0x0F: "the link to the drive is down and the kernel stopped waiting for it",  # DID_TRANSPORT_FAILFAST
}
#: DID_ERROR is also a generic HBA failure; it means a lost drive only once the node left sysfs.
DID_ERROR = 0x07
#: Driver statuses for a command the driver gave up on: DRIVER_ERROR, DRIVER_TIMEOUT, DRIVER_HARD.
DRIVER_FAILURES = (0x04, 0x06, 0x07)
LOST_HINT = "check the cable, the drive's power and the iSCSI/FC session; the tape position is now unknown"


#: Data transfers up to this size go through every Linux HBA we know of; a refusal of a larger
#: one (EINVAL, or EIO with the device still present) is the transfer's size, not a dead device.
SAFE_TRANSFER = 1 << 20


def transfer_refused(device: str, err: int, nbytes: int, node_present: bool, limit: TransferLimit | None) -> Exception | None:
    """A large data transfer the OS or the HBA refused, as one line naming the size (exit 2),
    instead of "does not accept SCSI pass-through" or "the connection was lost". The advice is the
    path's limit only when that is below the refused size: a limit the kernel just broke is not advice."""
    if nbytes <= SAFE_TRANSFER or err not in (errno.EINVAL, errno.EIO, errno.ENOMEM, errno.EOVERFLOW):
        return None
    if err == errno.EIO and not node_present:
        return None
    from native.units import block_text  # here, not at import: see ``_opcode_name``

    if limit is not None and limit.max_bytes < nbytes:
        fits = f"at most {block_text(limit.max_bytes)} per transfer here ({limit.source})"
    else:
        fits = f"{block_text(SAFE_TRANSFER)} goes through every Linux HBA tapediag knows"
    return InvalidParameter(f"the OS or the HBA refused a {block_text(nbytes)} transfer to {device} "
                            f"({os.strerror(err)}): nothing was transferred",
                            hint=f"use a smaller --io-size / --block-size: {fits}")


@dataclass(frozen=True)
class LinuxStatus:
    """The host byte and driver status of a command that failed below SCSI (Linux).

    Read from ``get_scsi_pt_transport_err_str``, the one call of libsgutils2 that gives both in every
    version: ``get_scsi_pt_transport_err`` returns the host byte alone since 1.43 (``transport_status``
    of its sg v4 header, ``lib/sg_pt_linux.c``) and ``host << 8 | driver`` in 1.42 and earlier built
    without bsg, so its integer cannot be split. The string is ``Host_status=0xHH [...]`` (only when
    not zero) and ``Driver_status=0xHH [...]``, one per line, in 1.37 to 1.48.
    """

    host: int
    driver: int

    @classmethod
    def parse(cls, text: str) -> "LinuxStatus | None":
        """None when the text is not Linux's (Windows gives an error message there)."""
        driver = re.search(r"Driver_status=0x([0-9a-fA-F]+)", text)
        if driver is None:
            return None
        host = re.search(r"Host_status=0x([0-9a-fA-F]+)", text)
        return cls(int(host[1], 16) if host else 0, int(driver[1], 16))

    @property
    def host_name(self) -> str:
        return HOST_BYTE_NAMES.get(self.host, f"host status {self.host:#04x}")

    @property
    def driver_name(self) -> str:
        return DRIVER_BYTE_NAMES.get(self.driver & 0x0F, f"driver status {self.driver:#04x}")

    @property
    def gave_up(self) -> bool:
        """A failure a vanishing drive causes first (the kernel removes the node a moment later)."""
        return self.host == DID_ERROR or (self.driver & 0x0F) in DRIVER_FAILURES


def transport_failure(device: str, status: LinuxStatus, node_present: bool) -> Exception:
    """The exception for a pass-through transport error: one line, in words.

    A drive that vanished (cable pulled, iSCSI/FC session gone, target dead) shows up as a host byte,
    not an errno; mapping those to ConnectionLost lets the engines stop sending and give the "tape
    position is unknown" advice instead of a libsgutils2 dump. Once the node has left sysfs, any
    failure below SCSI is the drive going away.
    """
    why = HOST_BYTES_LOST.get(status.host)
    if why is None and not node_present:
        why = "the kernel removed the device"
    if why is not None:
        return ConnectionLost(f"the connection to the drive at {device} was lost: {why} ({status.host_name})",
                              device=device, hint=LOST_HINT)
    return TransportError(f"the command to {device} failed below SCSI ({status.host_name}, "
                          f"{status.driver_name})", device=device)


#: Linux capability bit of CAP_SYS_RAWIO (``include/uapi/linux/capability.h``).
CAP_SYS_RAWIO = 17


def has_cap_sys_rawio(status_path: str = "/proc/self/status") -> bool:
    """Whether this process holds CAP_SYS_RAWIO (root normally does).

    The kernel's st driver passes SG_IO through only with that capability
    (``scsi_cmd_allowed``), while the sg node lets any user who may open it send
    commands: a technician in the 'tape' group reaches the drive through ``/dev/sgN``.
    Without a readable status (not Linux) the answer is True: nothing to work around.
    """
    try:
        for line in Path(status_path).read_text().splitlines():
            if line.startswith("CapEff:"):
                return bool(int(line.split()[1], 16) >> CAP_SYS_RAWIO & 1)
    except (OSError, ValueError, IndexError):
        pass
    return True


def sg_node_beside(st_device: str, sysfs_root: str = "/sys", dev_root: str = "/dev") -> str | None:
    """The ``/dev/sgN`` of the same SCSI device as an st node (``/dev/nst0`` -> ``/dev/sg1``), if any."""
    name = os.path.basename(st_device)
    try:
        generics = sorted(os.listdir(os.path.join(sysfs_root, "class", "scsi_tape", name, "device", "scsi_generic")))
    except OSError:
        return None
    return os.path.join(dev_root, generics[0]) if generics else None


#: Character-device drivers (``/proc/devices`` names) that accept SG_IO.
SCSI_CHAR_DRIVERS = {"sg", "st", "bsg"}

_c = ctypes
_OBJ = _c.c_void_p
PROTOTYPES: dict[str, tuple[object, list[object]]] = {
    "scsi_pt_version": (_c.c_char_p, []),
    "scsi_pt_open_device": (_c.c_int, [_c.c_char_p, _c.c_bool, _c.c_int]),
    "scsi_pt_open_flags": (_c.c_int, [_c.c_char_p, _c.c_int, _c.c_int]),
    "scsi_pt_close_device": (_c.c_int, [_c.c_int]),
    "construct_scsi_pt_obj_with_fd": (_OBJ, [_c.c_int, _c.c_int]),
    "destruct_scsi_pt_obj": (None, [_OBJ]),
    "partial_clear_scsi_pt_obj": (None, [_OBJ]),
    "set_scsi_pt_cdb": (None, [_OBJ, _c.c_void_p, _c.c_int]),
    "set_scsi_pt_sense": (None, [_OBJ, _c.c_void_p, _c.c_int]),
    "set_scsi_pt_data_in": (None, [_OBJ, _c.c_void_p, _c.c_int]),
    "set_scsi_pt_data_out": (None, [_OBJ, _c.c_void_p, _c.c_int]),
    "do_scsi_pt": (_c.c_int, [_OBJ, _c.c_int, _c.c_int, _c.c_int]),
    "get_scsi_pt_result_category": (_c.c_int, [_OBJ]),
    "get_scsi_pt_status_response": (_c.c_int, [_OBJ]),
    "get_scsi_pt_sense_len": (_c.c_int, [_OBJ]),
    "get_scsi_pt_resid": (_c.c_int, [_OBJ]),
    "get_scsi_pt_os_err": (_c.c_int, [_OBJ]),
    "get_scsi_pt_transport_err": (_c.c_int, [_OBJ]),
    "get_scsi_pt_transport_err_str": (_c.c_char_p, [_OBJ, _c.c_int, _c.c_char_p]),
}
WINDOWS_PROTOTYPES: dict[str, tuple[object, list[object]]] = {
    "scsi_pt_win32_direct": (None, [_c.c_int]),
}


def library_candidates() -> Iterator[str]:
    """Library names/paths to try, most specific first, produced as they are tried: the directory
    scans run only when the usual names do not load (``find_library``'s answer is ``load``'s last
    resort: it spawns ldconfig and a compiler)."""
    if sys.platform == "win32":
        dirs = [os.path.dirname(sys.executable), getattr(sys, "_MEIPASS", ""), *os.environ.get("PATH", "").split(os.pathsep)]
        for directory in filter(None, dirs):
            for pattern in ("libsgutils2*.dll", "cygsgutils2*.dll"):
                yield from sorted(glob.glob(os.path.join(directory, pattern)), reverse=True)
        return
    yield from ("libsgutils2-1.46.so.2", "libsgutils2.so.2")
    for pattern in ("/usr/lib*/libsgutils2-*.so.*", "/usr/lib/*-linux-gnu/libsgutils2-*.so.*", "/usr/local/lib/libsgutils2*.so*"):
        yield from sorted(glob.glob(pattern), reverse=True)


def _candidates_then_the_system() -> Iterator[str]:
    """``library_candidates``, then ``find_library``'s answer: asked only when none of them loaded."""
    tried = []
    for name in library_candidates():
        tried.append(name)
        yield name
    if sys.platform == "win32":
        return
    from ctypes.util import find_library  # imports subprocess, runs ldconfig and a compiler: last resort only

    found = find_library("sgutils2")
    if found and found not in tried:
        yield found


@dataclass(frozen=True)
class SgUtils:
    """libsgutils2 as loaded: the library, where it was found and its version."""

    lib: ctypes.CDLL
    path: str
    version: str


@lru_cache(maxsize=None)
def load() -> SgUtils:
    """The process-wide libsgutils2 binding (``TransportUnavailable`` when missing)."""
    for name in _candidates_then_the_system():
        try:
            lib = ctypes.CDLL(name)
        except OSError:
            continue
        protos = dict(PROTOTYPES)
        if sys.platform == "win32":
            protos.update(WINDOWS_PROTOTYPES)
        for func_name, (restype, argtypes) in protos.items():
            try:
                func = getattr(lib, func_name)
            except AttributeError:
                raise TransportUnavailable(f"{name} lacks {func_name}: too old", hint=INSTALL_HINT) from None
            func.restype = restype
            func.argtypes = argtypes
        version = (lib.scsi_pt_version() or b"?").decode(errors="replace")
        return SgUtils(lib, name, version)
    raise TransportUnavailable(
        "libsgutils2 (sg3_utils) is not installed, so local tape drives cannot be reached",
        hint=INSTALL_HINT if sys.platform != "win32" else "put libsgutils2*.dll next to tapediag",
    )


def _char_driver_names() -> dict[int, str]:
    names: dict[int, str] = {}
    try:
        text = Path("/proc/devices").read_text()
    except OSError:
        return names
    section = ""
    for line in text.splitlines():
        if line.endswith("devices:"):
            section = line
            continue
        parts = line.split()
        if section.startswith("Character") and len(parts) == 2 and parts[0].isdigit():
            names[int(parts[0])] = parts[1]
    return names


def _char_driver_of(path: str) -> str | None:
    """The character-device driver (``/proc/devices`` name) behind a path, without opening it."""
    try:
        st = os.stat(path)
    except OSError:
        return None
    return _char_driver_names().get(os.major(st.st_rdev)) if stat.S_ISCHR(st.st_mode) else None


def _sg_node_hint(sg: str | None) -> str:
    """What to do when st refuses a user without CAP_SYS_RAWIO: the sg node, or access to it (the
    transport already tried it: ``_open_sg_beside``)."""
    if sg is None:
        return "use the drive's /dev/sgN node (load the sg module: modprobe sg)"
    if os.access(sg, os.R_OK | os.W_OK):
        return f"use {sg}, the same drive's sg node"
    try:
        import grp

        group = f" (group '{grp.getgrgid(os.stat(sg).st_gid).gr_name}')"
    except (ImportError, KeyError, OSError):
        group = ""
    return f"{sg}, the same drive's sg node, would serve it, but this user may not open it: give the user access to {sg}{group}"


def _open_error(device: str, err: int) -> Exception:
    reason = os.strerror(err)
    if err == errno.ENOENT:
        return DeviceNotFound(f"{device} does not exist", device=device,
                              hint="list drives with 'tapediag devices'")
    if err in (errno.EACCES, errno.EPERM):
        return DevicePermissionDenied(f"no permission to open {device}", device=device, hint=PERMISSION_HINT)
    if err in (errno.ENXIO, errno.ENODEV):
        return DeviceNotFound(f"no device is attached behind {device} ({reason})", device=device,
                              hint="the drive may be powered off, unplugged or its driver not loaded")
    if err == errno.EBUSY:
        return DeviceBusy(f"{device} is in use by another program ({reason})", device=device,
                          hint="wait until the backup job or tool using it has ended")
    return TransportError(f"cannot open {device}: {reason}", device=device)


def _opcode_name(cdb: bytes) -> str:
    # Imported for a message, not with this module: ``tapediag devices`` loads it to say whether
    # libsgutils2 is there, and the CDB layouts are most of a start-up's cost (issue 32 §3).
    from native.scsi.cdb import opcode_name

    return opcode_name(cdb[0]) if cdb else "a command"


class PassThroughTransport(Transport):
    """One open pass-through handle. Not thread-safe (one worker per drive)."""

    waits_in_os = True  # SG_IO / SPTI: one uninterruptible call per command (native.waiting watches it)

    def __init__(self, device: str) -> None:
        self.device = device
        self._sg = load()
        lib = self._sg.lib
        self._fd = -1
        self._obj: int | None = None
        self._sense = ctypes.create_string_buffer(SENSE_LEN)
        if sys.platform == "win32":
            lib.scsi_pt_win32_direct(1)
            fd = lib.scsi_pt_open_device(device.encode(), False, 0)
        else:
            fd = self._open_sg_beside(device)
            if fd < 0:
                fd = lib.scsi_pt_open_flags(device.encode(), os.O_RDWR | os.O_NONBLOCK, 0)
            if fd == -errno.EROFS:
                # st refuses O_RDWR on a write-protected cartridge; diagnostics must
                # still read it. (Root's SG_IO is not filtered on a read-only fd.)
                fd = lib.scsi_pt_open_flags(device.encode(), os.O_RDONLY | os.O_NONBLOCK, 0)
        if fd < 0:
            raise _open_error(device, -fd)
        self._fd = fd
        self._st_node = False
        try:
            if sys.platform.startswith("linux"):
                self._check_linux_node()
            obj = lib.construct_scsi_pt_obj_with_fd(fd, 0)
            if not obj:
                raise TransportError("libsgutils2 could not allocate a pass-through object", device=device)
            self._obj = obj
            os_err = lib.get_scsi_pt_os_err(obj)
            if os_err:
                raise TransportError(f"{device} refuses SCSI pass-through: {os.strerror(os_err)}", device=device)
        except BaseException:
            self.close()
            raise

    #: The node commands go through: ``device``, or the sg node beside it (see ``_open_sg_beside``).
    node: str = ""

    def _open_sg_beside(self, device: str) -> int:
        """For an st node when this process lacks CAP_SYS_RAWIO (a 'tape' group user): open the same
        drive's sg node instead, and say so once (``route``, ``notice``); the st driver would refuse
        every command. -1 when that does not apply or the sg node cannot be opened (the st node is
        then used, and its refusal names the sg node)."""
        self.node = device
        if not sys.platform.startswith("linux") or _char_driver_of(device) != "st" or has_cap_sys_rawio():
            return -1
        sg = sg_node_beside(device)
        if sg is None:
            return -1
        fd = int(self._sg.lib.scsi_pt_open_flags(sg.encode(), os.O_RDWR | os.O_NONBLOCK, 0))
        if fd < 0:
            return -1
        self.node = sg
        self.route = (f"{device} is served through {sg}, the same drive's sg node: the kernel's st driver "
                      f"passes SCSI commands only with CAP_SYS_RAWIO")
        notice(self.route)
        return fd

    def _check_linux_node(self) -> None:
        """Refuse a node that is not a SCSI generic/tape/bsg character device, by name."""
        st = os.fstat(self._fd)
        if not stat.S_ISCHR(st.st_mode):
            raise DeviceNotFound(f"{self.device} is not a device node, so it is not a SCSI drive", device=self.device)
        driver = _char_driver_names().get(os.major(st.st_rdev))
        self._st_node = driver == "st"
        if driver is not None and driver not in SCSI_CHAR_DRIVERS:
            raise DeviceNotFound(
                f"{self.device} is a '{driver}' device, not a SCSI tape or generic device",
                device=self.device, hint="use /dev/nstN or /dev/sgN (see 'tapediag devices')",
            )

    def execute(
        self,
        cdb: bytes,
        *,
        data_out: Buffer | None = None,
        data_in: int | WritableBuffer = 0,
        timeout: float = DEFAULT_TIMEOUT,
    ) -> CommandResult:
        if self._obj is None:
            raise ConnectionLost(f"{self.device} is closed", device=self.device)
        lib, obj = self._sg.lib, self._obj
        lib.partial_clear_scsi_pt_obj(obj)
        cdb_buf = ctypes.create_string_buffer(bytes(cdb), len(cdb))
        lib.set_scsi_pt_cdb(obj, cdb_buf, len(cdb))
        lib.set_scsi_pt_sense(obj, self._sense, SENSE_LEN)
        keep: object = None
        out_len = in_len = 0
        in_view = memoryview(b"")
        if data_out is not None and len(memoryview(data_out)):
            address, keep = buffer_address(data_out)
            out_len = memoryview(data_out).nbytes
            lib.set_scsi_pt_data_out(obj, address, out_len)
        elif not isinstance(data_in, int) or data_in:
            in_view = make_data_in(data_in)
            in_len = in_view.nbytes
            if in_len:
                keep = (ctypes.c_char * in_len).from_buffer(in_view)
                lib.set_scsi_pt_data_in(obj, ctypes.addressof(keep), in_len)
        seconds = 0 if timeout <= 0 else max(1, math.ceil(timeout))
        try:
            ret = lib.do_scsi_pt(obj, -1, seconds, 0)
        finally:
            del keep
        if ret < 0:
            raise self._os_error(-ret, cdb, out_len or in_len)
        if ret == DO_TIMEOUT:
            raise CommandTimeout(f"the command did not complete within {timeout:g} s", device=self.device,
                                 hint="the tape position is now unknown")
        if ret == DO_BAD_PARAMS:
            raise InvalidParameter(f"the pass-through layer rejected the command {bytes(cdb[:1]).hex()}")
        if ret != DO_START_OK:
            raise TransportError(f"pass-through is not supported for {self.device} (code {ret})", device=self.device)
        category = lib.get_scsi_pt_result_category(obj)
        if category == RESULT_OS_ERR:
            raise self._os_error(lib.get_scsi_pt_os_err(obj), cdb, out_len or in_len)
        if category == RESULT_TRANSPORT_ERR:
            raise self._transport_error()
        status = lib.get_scsi_pt_status_response(obj) & 0xFF
        sense = self._sense.raw[: max(0, lib.get_scsi_pt_sense_len(obj))]
        expected = out_len or in_len
        transferred = max(0, expected - max(0, lib.get_scsi_pt_resid(obj)))
        data = in_view[:transferred] if in_len else memoryview(b"")
        return CommandResult(status=status, sense=sense, data=data, transferred=transferred)

    def _transport_error(self) -> Exception:
        """The failure below SCSI of the last command, from libsgutils2's own account of it."""
        lib, obj = self._sg.lib, self._obj
        text_buf = ctypes.create_string_buffer(512)
        text = (lib.get_scsi_pt_transport_err_str(obj, len(text_buf), text_buf) or b"").decode(errors="replace")
        status = LinuxStatus.parse(text)
        if status is None:  # not Linux (Windows: an error code and its message)
            code = lib.get_scsi_pt_transport_err(obj)
            reason = " ".join(text.split()) or f"error {code}"
            return TransportError(f"the command to {self.device} failed below SCSI ({reason})", device=self.device)
        return transport_failure(self.device, status, self._node_present_after(status))

    def _node_present_after(self, status: LinuxStatus, grace: float = 2.0) -> bool:
        """Whether the node is still there after a failed command; for the failures a vanishing
        drive causes, give the kernel a moment to remove it (the command fails first)."""
        present = self._node_present()
        if present and status.gave_up:
            deadline = time.monotonic() + grace
            while present and time.monotonic() < deadline:
                time.sleep(0.1)
                present = self._node_present()
        return present

    def _node_present(self) -> bool:
        """Whether the open node's device is still in sysfs (False once the kernel removed it)."""
        try:
            rdev = os.fstat(self._fd).st_rdev
        except OSError:
            return False
        sys_dir = Path(f"/sys/dev/char/{os.major(rdev)}:{os.minor(rdev)}")
        if not sys_dir.exists():
            return not Path("/sys/dev/char").is_dir()  # no sysfs to ask (not Linux): assume present
        return (sys_dir / "device").exists()

    def _sys_device(self) -> Path | None:
        try:
            rdev = os.fstat(self._fd).st_rdev
        except OSError:
            return None
        return Path(f"/sys/dev/char/{os.major(rdev)}:{os.minor(rdev)}/device")

    def transfer_limit(self) -> TransferLimit | None:
        """The largest transfer this node takes: its queue's limits on Linux (``native.sglimit``, the
        rule), the storage adapter descriptor on Windows (``native.winstorage``, not run on Windows by
        this project's tests)."""
        if sys.platform == "win32":
            from native.winstorage import adapter_limits

            adapter = adapter_limits(self.device)
            return TransferLimit(adapter.limit, adapter.describe()) if adapter and adapter.limit else None
        sys_device = self._sys_device()
        if sys_device is None or not sys_device.exists():
            return None
        from native.sglimit import node_limit

        return node_limit(self._fd, sys_device, st_node=self._st_node, node=self.node)

    def _os_error(self, err: int, cdb: bytes = b"", nbytes: int = 0) -> Exception:
        if nbytes > SAFE_TRANSFER:
            limit = self.transfer_limit()
            refused = transfer_refused(self.device, err, nbytes, self._node_present(), limit)
            if refused is not None:
                return refused
        if err == errno.ETIMEDOUT:
            return CommandTimeout(f"the command to {self.device} timed out", device=self.device)
        if err in (errno.ENODEV, errno.ENXIO, errno.EIO):
            return ConnectionLost(f"the connection to the drive at {self.device} was lost ({os.strerror(err)})",
                                  device=self.device, hint=LOST_HINT)
        if err in (errno.ENOTTY, errno.EINVAL, errno.ENOSYS):
            return TransportError(f"{self.device} does not accept SCSI pass-through ({os.strerror(err)})",
                                  device=self.device)
        if err in (errno.EACCES, errno.EPERM):
            command = f"{_opcode_name(cdb)} " if cdb else ""
            if self._st_node and not has_cap_sys_rawio():
                return DevicePermissionDenied(
                    f"the kernel's st driver refused SCSI pass-through ({command}to {self.device}) without "
                    f"CAP_SYS_RAWIO", device=self.device, hint=_sg_node_hint(sg_node_beside(self.device)))
            return DevicePermissionDenied(f"the OS refused the command {command}to {self.device}", device=self.device,
                                          hint=PERMISSION_HINT)
        return TransportError(f"the command to {self.device} failed: {os.strerror(err)}", device=self.device)

    def close(self) -> None:
        if self._obj is not None:
            self._sg.lib.destruct_scsi_pt_obj(self._obj)
            self._obj = None
        if self._fd >= 0:
            self._sg.lib.scsi_pt_close_device(self._fd)
            self._fd = -1

    def __del__(self) -> None:
        try:
            self.close()
        except Exception:  # interpreter shutdown
            pass

    def __repr__(self) -> str:
        return f"PassThroughTransport({self.device!r}, sg_pt {self._sg.version})"
