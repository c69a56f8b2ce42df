"""One test per device: an exclusive claim on a drive or library for the length of a test.

Two tests on one drive corrupt each other (two ``assess --force`` at once: the second read
back the first one's blocks and reported "FAIL, 241 blocks differ", blaming the drive).
Every command that tests a device or changes its state holds a claim on it while it runs:
``tape-perf`` (one drive or several), ``assess``, ``scan``, ``library-test``, ``library-run``,
``library --move``/``--init``, the unload before a move out of a drive, and the GUI's runs.
A second one is refused in one line that names the first (its command, device, PID and
since when), exit 3, before it sends anything but INQUIRY; the first is untouched.

``info`` and ``ticket`` take no claim: they send queries only (no motion, no write, no
setting), and a technician must be able to look at a drive while a test or a backup uses
it (the ticket is how a drive's state is captured mid-problem).

**The key is the device's identity, not its name.** ``/dev/sg1``, ``/dev/nst0`` and an
iSCSI URL can name one drive; they collide because the claim is keyed by what the device
says it is (``identify``): its logical unit's WWN (INQUIRY VPD 83h, NAA designator), else
its vendor, product and unit serial number (VPD 80h), else, for a device that reports
neither, its resolved path (Linux: the SCSI address sysfs gives both the sg and the st node
of one device; iSCSI: portal, target and LUN).

**The lock is the operating system's** (``native.lockfile``: ``flock``, or a byte-range lock
on Windows), on a file named after the key in a machine-wide directory (``lock_dir``:
``/run/lock/tapediag``, ``%ProgramData%\\tapediag\\locks``; ``TAPEDIAG_LOCK_DIR`` overrides it),
so it is released when the holder ends, however it ends. The file holds the holder's
words (command, device, PID, start), which the refused program prints.

**SCSI reservations are not used**, on purpose:

* RESERVE(6) through the OS pass-through (``/dev/sgN``, ``\\\\.\\TapeN``) belongs to the host's
  initiator port, which outlives tapediag: a killed run (SIGKILL, a crash) would leave the
  drive reserved against the backup application until a bus or LU reset;
* PERSISTENT RESERVE survives the session and the process by design (and a power cycle
  with APTPL): the same harm, for longer;
* over iSCSI the reservation would end with the session, but tgt's tape, the one real
  drive the tests can reach, refuses RESERVE(6) (05/20/00) and supports no persistent
  reservation, so the code could not be tested on a real part; an untested reservation
  is the kind that is left behind.

So a second *host* is not excluded by tapediag: a drive shared on a SAN stays the backup
application's business (the advice never tells anyone to force a drive another program holds).
"""
from __future__ import annotations

import contextlib
import datetime
import json
import os
import re
import sys
import threading
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator, Protocol, Sequence

from native import lockfile
from native.errors import InvalidParameter, SafetyRefusal, TapediagError
from native.iscsi_url import display_device
from native.scsi.cdb import inquiry
from native.scsi.inquiry import DeviceIdentification, Inquiry, UnitSerialNumber
from native.transport import Transport

LOCK_DIR_ENV = "TAPEDIAG_LOCK_DIR"
_PROGRAM = ["tapediag"]  # who holds a claim, as the refusal names it: the CLI, or the GUI (``set_program``)


class _Device(Protocol):
    """What a claim needs of a drive or changer object (``TapeDrive``, ``Changer``)."""

    transport: Transport

    @property
    def device(self) -> str: ...


class DeviceInUse(SafetyRefusal):
    """Another tapediag holds the device: refused before anything but INQUIRY was sent (exit 3)."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, reason="in use", overridable=False, hint=hint)


@dataclass(frozen=True)
class Identity:
    """What makes two device strings one device: ``key`` names the lock, ``label`` is said to the user."""

    key: str
    label: str  # "serial 10WT012345", "WWN 0x5000...", "path /dev/sg1"


@dataclass(frozen=True)
class Holder:
    """The holder's own words in the lock file."""

    program: str
    command: str
    device: str
    pid: int
    since: str  # ISO 8601, local time

    @classmethod
    def parse(cls, text: str) -> "Holder | None":
        try:
            raw = json.loads(text)
            return cls(str(raw["program"]), str(raw["command"]), str(raw["device"]), int(raw["pid"]),
                       str(raw["since"]))
        except (ValueError, KeyError, TypeError):
            return None

    def describe(self) -> str:
        """'tapediag assess on /dev/sg1 (PID 4242, since 14:02:11)'."""
        try:
            when = datetime.datetime.fromisoformat(self.since)
            shown = when.strftime("%H:%M:%S" if when.date() == datetime.date.today() else "%Y-%m-%d %H:%M:%S")
        except ValueError:
            shown = self.since
        return f"{self.program} {self.command} on {self.device} (PID {self.pid}, since {shown})"


def set_program(name: str) -> None:
    """How this process is named to a refused one: 'tapediag' (the CLI) or 'the tapediag GUI'."""
    _PROGRAM[0] = name


def lock_dir() -> Path:
    """The machine-wide directory of claims (one for every user and data directory, or two programs
    with different ``TAPEDIAG_DATA_DIR`` would both test one drive)."""
    override = os.environ.get(LOCK_DIR_ENV)
    if override:
        return Path(override)
    if sys.platform == "win32":  # pragma: no cover - Windows
        return Path(os.environ.get("ProgramData", r"C:\ProgramData")) / "tapediag" / "locks"
    for base in ("/run/lock", "/var/lock"):
        if os.path.isdir(base) and os.access(base, os.W_OK | os.X_OK):
            return Path(base) / "tapediag"
    import tempfile  # here: ``info`` on a virtual drive claims nothing (issue 32 §3)

    return Path(tempfile.gettempdir()) / "tapediag-locks"


def _ensure(directory: Path) -> None:
    """Create the directory open to every user, sticky (as /tmp): any user's tapediag claims there."""
    if directory.is_dir():
        return
    try:
        directory.mkdir(parents=True, exist_ok=True)
        os.chmod(directory, 0o1777)
    except OSError as err:
        if not directory.is_dir():
            raise TapediagError(f"cannot create the directory of device claims {directory}: {err.strerror or err}",
                                hint=f"set {LOCK_DIR_ENV} to a writable directory") from None


# -- identity -----------------------------------------------------------------------------------------------------


def _vpd(transport: Transport, page: int) -> bytes | None:
    """An INQUIRY VPD page, or None when the device does not give it (INQUIRY changes nothing anywhere)."""
    try:
        result = transport.execute(inquiry(255, evpd=True, page=page), data_in=255, timeout=10)
    except TapediagError:
        return None
    return bytes(result.data) if result.good and result.data else None


def identify(transport: Transport, device: str, *, sysfs_root: Path = Path("/sys")) -> Identity:
    """The device's identity: WWN, else vendor/product/serial, else its resolved path (module docstring)."""
    wwn = serial = None
    raw = _vpd(transport, 0x83)
    if raw is not None:
        with contextlib.suppress(TapediagError):
            wwn = DeviceIdentification.parse(raw).wwn
    raw = _vpd(transport, 0x80)
    if raw is not None:
        with contextlib.suppress(TapediagError):
            serial = UnitSerialNumber.parse(raw).serial.strip() or None
    shown = f"serial {serial}" if serial else (f"WWN {wwn}" if wwn else "")
    if wwn:
        return Identity(f"wwn:{wwn.lower()}", shown)
    if serial:
        return Identity(f"serial:{_vendor_product(transport)}:{serial}", shown)
    path = path_key(device, sysfs_root=sysfs_root)
    return Identity(path, f"path {display_device(device)}")


def _vendor_product(transport: Transport) -> str:
    try:
        result = transport.execute(inquiry(96), data_in=96, timeout=10)
        info = Inquiry.parse(bytes(result.data)) if result.good else None
    except TapediagError:
        info = None
    return f"{info.vendor}/{info.product}" if info is not None else "?"


_NODE = re.compile(r"^/dev/(sg|nst|st)(\d+)$")


def path_key(device: str, *, sysfs_root: Path = Path("/sys")) -> str:
    """A device that reports no identity, by where it is: on Linux the SCSI address behind an sg or st
    node (sysfs links both to one ``H:C:T:L`` directory), an iSCSI LUN by portal, target and LUN."""
    match = _NODE.match(device)
    if match:
        kind, number = match.groups()
        cls, name = ("scsi_generic", f"sg{number}") if kind == "sg" else ("scsi_tape", f"nst{number}")
        link = Path(sysfs_root) / "class" / cls / name / "device"
        if link.exists():
            return f"scsi:{link.resolve().name}"
        return f"path:{os.path.realpath(device)}"
    if device.lower().startswith("iscsi://"):
        from native.iscsi_url import IscsiUrl

        with contextlib.suppress(TapediagError):
            url = IscsiUrl.parse(device)
            return f"iscsi:{url.portal.lower()}/{url.target.lower()}/{url.lun}"
    return f"path:{display_device(device).lower()}"


# -- the claim ----------------------------------------------------------------------------------------------------


_held: dict[str, "Claim"] = {}  # this process's claims by key: a second one here names the first, too
_held_lock = threading.Lock()


@dataclass
class Claim:
    """A held claim; ``release`` (or leaving ``claimed``) gives it back. The OS gives it back at exit."""

    identity: Identity
    holder: Holder
    fd: int

    def release(self) -> None:
        with _held_lock:
            if _held.get(self.identity.key) is self:
                del _held[self.identity.key]
        if self.fd >= 0:
            with contextlib.suppress(OSError):
                lockfile.write_text(self.fd, "")
                lockfile.unlock(self.fd)
            os.close(self.fd)
            self.fd = -1


def _lock_path(identity: Identity) -> Path:
    import hashlib  # here: loading OpenSSL's digests costs ~2 ms, and ``info`` on a virtual drive claims nothing

    return lock_dir() / f"{hashlib.sha256(identity.key.encode()).hexdigest()[:32]}.lock"


def _refusal(device: str, identity: Identity, holder: Holder | None) -> DeviceInUse:
    who = holder.describe() if holder is not None else "another tapediag (it is starting or ending)"
    same = "" if holder is None or holder.device == device else f" (the same device, {identity.label})"
    return DeviceInUse(f"{device} is in use by {who}{same}: one test at a time on a device; nothing was done here",
                       hint="wait until that run ends, or stop it, then run again")


def take(target: _Device, command: str, identity: Identity | None = None) -> Claim:
    """Claim ``target`` for ``command`` ('assess', 'library --move', ...); ``DeviceInUse`` if another holds it."""
    identity = identity or identify(target.transport, target.device)
    with _held_lock:
        mine = _held.get(identity.key)
    if mine is not None:
        raise _refusal(target.device, identity, mine.holder)
    directory = lock_dir()
    _ensure(directory)
    path = _lock_path(identity)
    fd = lockfile.open_lock_file(path)
    if not lockfile.try_lock(fd):
        holder = Holder.parse(lockfile.read_text(fd))
        os.close(fd)
        raise _refusal(target.device, identity, holder)
    holder = Holder(_PROGRAM[0], command, target.device, os.getpid(),
                    datetime.datetime.now().isoformat(timespec="seconds"))
    try:
        lockfile.write_text(fd, json.dumps(holder.__dict__))
    except OSError:
        pass  # another user's file we may lock but not write: the refusal then names no one
    claim = Claim(identity, holder, fd)
    with _held_lock:
        _held[identity.key] = claim
    return claim


@contextlib.contextmanager
def claimed(target: _Device, command: str) -> Iterator[Claim]:
    """Hold the claim on ``target`` for the ``with`` block."""
    claim = take(target, command)
    try:
        yield claim
    finally:
        claim.release()


@contextlib.contextmanager
def claimed_all(targets: Sequence[_Device], command: str) -> Iterator[list[Claim]]:
    """Claim several devices for one run (tape-perf on several drives): two names for one device are
    refused as such (bad input), then each is claimed; all or none."""
    seen: dict[str, str] = {}
    identities = [identify(target.transport, target.device) for target in targets]
    for target, identity in zip(targets, identities):
        if identity.key in seen:
            raise InvalidParameter(f"{seen[identity.key]} and {target.device} are the same drive ({identity.label}): "
                                   f"name each drive once; nothing was written to any of the {len(targets)} drives")
        seen[identity.key] = target.device
    claims: list[Claim] = []
    try:
        for target, identity in zip(targets, identities):
            claims.append(take(target, command, identity))
        yield claims
    finally:
        for claim in claims:
            claim.release()


def holder_of(target: _Device) -> Holder | None:
    """Who holds ``target`` now (this process or another), without claiming it; None when free."""
    identity = identify(target.transport, target.device)
    with _held_lock:
        mine = _held.get(identity.key)
    if mine is not None:
        return mine.holder
    path = _lock_path(identity)
    if not path.exists():
        return None
    try:
        fd = lockfile.open_lock_file(path)
    except TapediagError:
        return None
    try:
        if lockfile.try_lock(fd):
            lockfile.unlock(fd)
            return None
        return Holder.parse(lockfile.read_text(fd)) or Holder(_PROGRAM[0], "?", target.device, 0, "?")
    finally:
        os.close(fd)


__all__ = ["Claim", "DeviceInUse", "Holder", "Identity", "claimed", "claimed_all", "holder_of", "identify",
           "lock_dir", "path_key", "set_program", "take"]
