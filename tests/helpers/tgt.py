"""A real tgtd per test: the one real SCSI tape drive reachable on this machine.

tgt emulates an SSC tape drive in user space and serves it over iSCSI on 127.0.0.1
(see ``/work/shared/design/tgt-target.md``). Each ``TgtTarget`` owns one tgtd
process with its own cartridge file, loopback port and control socket, so concurrent
test runs (and other engineers' runs) never share a daemon.

Why the care around start and stop:

* the control socket number ``-C N`` is global on the machine
  (``/var/run/tgtd/socket.N``); tgtd refuses to start when another daemon holds
  ``socket.N.lock``. We pick N at random, hold our own ``flock`` on a per-N file for
  the daemon's lifetime (so two test processes cannot race between check and start),
  check tgtd's lock file too, and retry when tgtd still says the number is in use;
* a port taken between our bind test and tgtd's bind makes tgtd log "failed to
  create/bind to portal" and keep running without a portal: we read its log and retry;
* tgtd ignores SIGTERM: we delete the target and the system through tgtadm, then
  SIGKILL *our* PID if it is still there. Never ``pkill``.

Fixtures (loaded by ``tests/conftest.py`` via ``pytest_plugins``):

* ``tgt_target``: a fresh daemon + 64 MB cartridge, function-scoped;
* ``tgt_target_fast``: the same with large iSCSI data segments (for big transfers);
* ``tgt_factory``: ``tgt_factory(size_mb=..., large_segments=..., barcode=..., luns=N)``
  makes as many targets as a test needs, all stopped at teardown (``luns=N``: N tape LUNs
  behind one target, each on its own cartridge file, ``target.urls``);
* ``tgt_cartridge_factory``: makes extra cartridge files (for ``swap_cartridge``);
* ``tgt_module_target``: one daemon shared by a module (reset the tape yourself).
"""
from __future__ import annotations

import os
import random
import re
import shutil
import signal
import socket
import subprocess
import time
from dataclasses import dataclass

try:
    import fcntl
except ImportError:  # Windows: no tgtd there, and tgt_available() says so (issue 18.3)
    fcntl = None  # type: ignore[assignment]
from pathlib import Path
from typing import Callable, Iterator

import pytest

TGTD = "tgtd"
TGTADM = "tgtadm"
TGTIMG = "tgtimg"

SOCKET_DIR = Path("/var/run/tgtd")
LOCK_DIR = Path("/tmp/tapediag-tgtd-locks")
CONTROL_RANGE = (100, 9999)  # tgtd accepts -C up to at least 9999; small ones are popular

#: Session parameters that lift the 8 KiB data-segment cap (design note, "Speed").
LARGE_SEGMENT_PARAMS = (
    ("MaxRecvDataSegmentLength", "262144"),
    ("MaxXmitDataSegmentLength", "262144"),
    ("FirstBurstLength", "262144"),
    ("MaxBurstLength", "16776192"),
    ("InitialR2T", "No"),
)

class TgtError(RuntimeError):
    """tgtd could not be started or configured (a test-environment problem)."""


@dataclass(frozen=True)
class TapeRecord:
    """One record of a cartridge file as ``tgtimg --op show`` lists it."""

    type: str  # "BOT", "DATA", "FILEMARK", "EOD"
    size: int  # block size in bytes (0 for marks)

    def __iter__(self) -> Iterator[object]:  # unpacks as (type, size)
        return iter((self.type, self.size))


def tgt_available() -> bool:
    if fcntl is None:  # not a POSIX system: tgt is Linux's iSCSI target
        return False
    return all(shutil.which(tool) or Path("/usr/sbin", tool).exists() for tool in (TGTD, TGTADM, TGTIMG))


def _tool(name: str) -> str:
    return shutil.which(name) or str(Path("/usr/sbin", name))


def make_cartridge(path: Path, *, size_mb: int = 64, barcode: str = "TDG001L6") -> Path:
    """A blank data cartridge image made by ``tgtimg``."""
    path = Path(path).resolve()
    if path.exists():
        path.unlink()
    subprocess.run(
        [_tool(TGTIMG), "--op", "new", "--device-type", "tape", "--barcode", barcode,
         "--size", str(size_mb), "--type", "data", "--file", str(path)],
        check=True, capture_output=True, text=True, timeout=30,
    )
    return path


# tgtimg prints one line per record: "<name>(<type code>): Blk No. N, ..., sz <bytes>";
# the BOT line says "Capacity N MB" instead of a size.
_SHOW_LINE = re.compile(r"^\s*[A-Za-z ]+\((?P<code>\d+)\):(?P<rest>.*)$")
_SHOW_SIZE = re.compile(r"\bsz (?P<size>\d+)")
_BLOCK_TYPES = {0x02: "DATA", 0x10: "BOT", 0x20: "EOD", 0x40: "FILEMARK"}


def show_blocks(path: Path) -> list[TapeRecord]:
    """Parse ``tgtimg --op show --device-type tape`` into (type, size) records.

    The listing starts with BOT and ends with EOD; in between, DATA records carry
    their byte size and FILEMARKs size 0. Unknown record types are kept as
    ``"TYPE<code>"`` so a test sees them rather than losing them.
    """
    out = subprocess.run(
        [_tool(TGTIMG), "--op", "show", "--device-type", "tape", "--file", str(path)],
        check=True, capture_output=True, text=True, timeout=60,
    ).stdout
    records: list[TapeRecord] = []
    for line in out.splitlines():
        match = _SHOW_LINE.match(line)
        if not match:
            continue
        code = int(match["code"])
        size = _SHOW_SIZE.search(match["rest"])
        records.append(TapeRecord(_BLOCK_TYPES.get(code, f"TYPE{code}"), int(size["size"]) if size else 0))
    return records


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def _port_accepts(port: int) -> bool:
    try:
        with socket.create_connection(("127.0.0.1", port), timeout=0.5):
            return True
    except OSError:
        return False


def _tgtd_lock_free(control: int) -> bool:
    """True when no tgtd holds ``socket.N.lock`` (tgtd takes it with lockf)."""
    lock = SOCKET_DIR / f"socket.{control}.lock"
    if not lock.exists():
        return True
    try:
        fd = os.open(lock, os.O_RDWR)
    except OSError:
        return False
    try:
        fcntl.lockf(fd, fcntl.LOCK_EX | fcntl.LOCK_NB, 1)
    except OSError:
        return False
    else:
        fcntl.lockf(fd, fcntl.LOCK_UN, 1)
        return True
    finally:
        os.close(fd)


class TgtTarget:
    """One tgtd process serving one tape LUN (or ``luns`` of them) on a loopback port.

    ``url`` is ``iscsi://127.0.0.1:PORT/IQN/1``. ``stop()`` is idempotent; ``kill()``
    simulates a crashed target (for connection-loss tests).
    """

    def __init__(
        self,
        workdir: Path,
        *,
        cartridge: Path | None = None,
        size_mb: int = 64,
        barcode: str = "TDG001L6",
        large_segments: bool = False,
        iqn: str | None = None,
        device_type: str = "tape",
        luns: int = 1,
    ) -> None:
        self.workdir = Path(workdir).resolve()
        self.workdir.mkdir(parents=True, exist_ok=True)
        # device_type="disk": an SBC LUN (bstype rdwr) on a plain file of size_mb, for the
        # tests that prove tape commands are never sent to a non-tape (issue 11).
        self.device_type = device_type
        if device_type == "disk":
            self.cartridge_path = Path(cartridge).resolve() if cartridge is not None else self.workdir / "disk.img"
            if cartridge is None:
                with open(self.cartridge_path, "wb") as f:
                    f.write(os.urandom(size_mb * 1024 * 1024))
        else:
            self.cartridge_path = (
                Path(cartridge).resolve() if cartridge is not None
                else make_cartridge(self.workdir / "tape.img", size_mb=size_mb, barcode=barcode)
            )
        # luns > 1: more tape LUNs behind the same target and portal (one path shared by several
        # drives, as on one HBA port), LUN k on its own blank cartridge tape<k>.img (``urls``).
        if luns < 1 or (luns > 1 and device_type != "tape"):
            raise ValueError("luns: 1 or more, and more than one only for tape LUNs")
        self.extra_cartridges = [make_cartridge(self.workdir / f"tape{k}.img", size_mb=size_mb, barcode=f"TDG{k:03d}L6")
                                 for k in range(2, luns + 1)]
        self.large_segments = large_segments
        self.iqn = iqn or f"iqn.2026-11.org.tapediag.test:tape{os.getpid()}x{random.randrange(1 << 24):06x}"
        self.port = 0
        self.control = 0
        self.process: subprocess.Popen[bytes] | None = None
        self.log_path = self.workdir / "tgtd.log"
        self._lock_fd: int | None = None

    # -- lifecycle -------------------------------------------------------------------

    @property
    def url(self) -> str:
        return f"iscsi://127.0.0.1:{self.port}/{self.iqn}/1"

    @property
    def urls(self) -> list[str]:
        """One URL per LUN, LUN 1 first."""
        base = self.url[:-len("/1")]
        return [f"{base}/{k}" for k in range(1, 2 + len(self.extra_cartridges))]

    @property
    def cartridges(self) -> list[Path]:
        """Each LUN's cartridge file, LUN 1 first."""
        return [self.cartridge_path, *self.extra_cartridges]

    @property
    def pid(self) -> int:
        return self.process.pid if self.process else 0

    def start(self, attempts: int = 8) -> "TgtTarget":
        last = "no attempt made"
        for _ in range(attempts):
            control = self._reserve_control()
            port = _free_port()
            try:
                self._spawn(control, port)
                self._configure()
                self._wait_accepting()
                return self
            except TgtError as err:
                last = str(err)
                self._teardown_process()
                self._release_control()
        raise TgtError(f"could not start tgtd after {attempts} attempts: {last}")

    def _reserve_control(self) -> int:
        LOCK_DIR.mkdir(parents=True, exist_ok=True)
        for _ in range(200):
            control = random.randint(*CONTROL_RANGE)
            fd = os.open(LOCK_DIR / f"{control}.lock", os.O_RDWR | os.O_CREAT, 0o666)
            try:
                fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            except OSError:
                os.close(fd)
                continue
            if not _tgtd_lock_free(control):
                fcntl.flock(fd, fcntl.LOCK_UN)
                os.close(fd)
                continue
            self._lock_fd = fd
            self.control = control
            return control
        raise TgtError("no free tgtd control socket number")

    def _release_control(self) -> None:
        if self._lock_fd is not None:
            fcntl.flock(self._lock_fd, fcntl.LOCK_UN)
            os.close(self._lock_fd)
            self._lock_fd = None

    def _spawn(self, control: int, port: int) -> None:
        self.port = port
        log = open(self.log_path, "wb")
        try:
            self.process = subprocess.Popen(
                [_tool(TGTD), "-f", "--iscsi", f"portal=127.0.0.1:{port}", "-C", str(control)],
                stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                cwd=self.workdir, start_new_session=True,
            )
        finally:
            log.close()
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if self.process.poll() is not None:
                raise TgtError(f"tgtd exited at start: {self._log_tail()}")
            if "failed to create/bind to portal" in self._log():
                raise TgtError(f"tgtd could not bind port {port}")
            if self._adm("--op", "show", "--mode", "sys", check=False).returncode == 0:
                return
            time.sleep(0.05)
        raise TgtError(f"tgtd did not open its control socket: {self._log_tail()}")

    def _configure(self) -> None:
        self._adm("--lld", "iscsi", "--op", "new", "--mode", "target", "--tid", "1", "-T", self.iqn)
        bstype = "ssc" if self.device_type == "tape" else "rdwr"
        self._adm("--lld", "iscsi", "--op", "new", "--mode", "logicalunit", "--tid", "1", "--lun", "1",
                  "--bstype", bstype, "--device-type", self.device_type, "-b", str(self.cartridge_path))
        for k, path in enumerate(self.extra_cartridges, start=2):
            self._adm("--lld", "iscsi", "--op", "new", "--mode", "logicalunit", "--tid", "1", "--lun", str(k),
                      "--bstype", bstype, "--device-type", self.device_type, "-b", str(path))
        if self.large_segments:
            for name, value in LARGE_SEGMENT_PARAMS:
                self._adm("--lld", "iscsi", "--op", "update", "--mode", "target", "--tid", "1",
                          "-n", name, "-v", value)
        self._adm("--lld", "iscsi", "--op", "bind", "--mode", "target", "--tid", "1", "-I", "ALL")
        if "failed to create/bind to portal" in self._log():
            raise TgtError(f"tgtd could not bind port {self.port}")

    def _wait_accepting(self) -> None:
        deadline = time.monotonic() + 10
        while time.monotonic() < deadline:
            if _port_accepts(self.port):
                return
            time.sleep(0.05)
        raise TgtError(f"tgtd does not accept on port {self.port}")

    def stop(self) -> None:
        """Delete the target and the system through tgtadm, then reap (SIGKILL if needed)."""
        if self.process is None:
            return
        if self.process.poll() is None:
            self._adm("--lld", "iscsi", "--op", "delete", "--mode", "target", "--tid", "1", "--force",
                      check=False)
            self._adm("--op", "delete", "--mode", "system", check=False)
        self._teardown_process()
        self._release_control()

    def kill(self) -> None:
        """SIGKILL the daemon without a goodbye: what a crashed target looks like."""
        if self.process is not None and self.process.poll() is None:
            os.kill(self.process.pid, signal.SIGKILL)
            self.process.wait(timeout=10)

    def _teardown_process(self) -> None:
        proc = self.process
        if proc is None:
            return
        try:
            proc.wait(timeout=3)
        except subprocess.TimeoutExpired:
            os.kill(proc.pid, signal.SIGKILL)
            proc.wait(timeout=10)
        self.process = None
        # tgtd leaves its socket and lock file behind. We still hold our flock on N, so
        # no fixture can be starting a daemon on N now; remove them if no tgtd holds N.
        if self.control and _tgtd_lock_free(self.control):
            for stale in (SOCKET_DIR / f"socket.{self.control}", SOCKET_DIR / f"socket.{self.control}.lock"):
                try:
                    stale.unlink()
                except OSError:
                    pass

    def __enter__(self) -> "TgtTarget":
        return self.start()

    def __exit__(self, *exc: object) -> None:
        self.stop()

    # -- the cartridge ---------------------------------------------------------------

    def show_blocks(self) -> list[TapeRecord]:
        """The cartridge's records as tgtimg lists them: [(type, size), ...]."""
        return show_blocks(self.cartridge_path)

    def data_blocks(self) -> list[TapeRecord]:
        """``show_blocks`` without the BOT and EOD markers."""
        return [rec for rec in self.show_blocks() if rec.type not in ("BOT", "EOD")]

    def swap_cartridge(self, path: Path) -> None:
        """Unload the current cartridge and load ``path`` (tgt raises no UNIT ATTENTION)."""
        path = Path(path).resolve()
        base = ["--lld", "iscsi", "--op", "update", "--mode", "logicalunit", "--tid", "1", "--lun", "1"]
        self._adm(*base, "--params", "online=0")
        self._adm(*base, "--params", f"path={path}")
        self.cartridge_path = path

    # -- helpers ---------------------------------------------------------------------

    def _adm(self, *args: str, check: bool = True) -> subprocess.CompletedProcess[str]:
        result = subprocess.run(
            [_tool(TGTADM), "-C", str(self.control), *args],
            capture_output=True, text=True, timeout=30,
        )
        if check and result.returncode != 0:
            raise TgtError(f"tgtadm {' '.join(args)} failed: {result.stderr.strip() or result.stdout.strip()}")
        return result

    def _log(self) -> str:
        try:
            return self.log_path.read_text(errors="replace")
        except OSError:
            return ""

    def _log_tail(self) -> str:
        lines = [ln for ln in self._log().splitlines() if "RDMA" not in ln and "can't adjust" not in ln]
        return " | ".join(lines[-3:])

    def __repr__(self) -> str:
        return f"TgtTarget(url={self.url!r}, control={self.control}, pid={self.pid})"


# -- pytest fixtures ---------------------------------------------------------------------


def _require_tgt() -> None:
    if fcntl is None:
        pytest.skip("tgt is Linux's iSCSI target: it does not run on Windows")
    if not tgt_available():
        pytest.skip("tgt (tgtd/tgtadm/tgtimg) is not installed: apt-get install tgt")


TgtFactory = Callable[..., TgtTarget]


@pytest.fixture
def tgt_factory(tmp_path: Path) -> Iterator[TgtFactory]:
    """``tgt_factory(size_mb=64, large_segments=False, barcode=..., cartridge=None)``."""
    _require_tgt()
    made: list[TgtTarget] = []

    def make(**kwargs: object) -> TgtTarget:
        target = TgtTarget(tmp_path / f"tgt{len(made)}", **kwargs)  # type: ignore[arg-type]
        made.append(target)
        return target.start()

    yield make
    for target in made:
        target.stop()


@pytest.fixture
def tgt_target(tgt_factory: TgtFactory) -> TgtTarget:
    """A fresh tgtd with a blank 64 MB cartridge."""
    return tgt_factory()


@pytest.fixture
def tgt_target_fast(tgt_factory: TgtFactory) -> TgtTarget:
    """A fresh tgtd with 256 KiB iSCSI data segments (for big transfers)."""
    return tgt_factory(large_segments=True)


@pytest.fixture
def tgt_cartridge_factory(tmp_path: Path) -> Callable[..., Path]:
    """``tgt_cartridge_factory(name, size_mb=64, barcode=...)`` -> a blank cartridge file."""
    _require_tgt()

    def make(name: str = "extra.img", *, size_mb: int = 64, barcode: str = "TDG002L6") -> Path:
        return make_cartridge(tmp_path / name, size_mb=size_mb, barcode=barcode)

    return make


@pytest.fixture(scope="module")
def tgt_module_target(tmp_path_factory: pytest.TempPathFactory) -> Iterator[TgtTarget]:
    """One tgtd shared by a whole module (tests must rewind / rewrite the tape themselves)."""
    _require_tgt()
    target = TgtTarget(tmp_path_factory.mktemp("tgt-module"), size_mb=128).start()
    yield target
    target.stop()
