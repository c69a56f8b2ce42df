"""A Linux guest with its own SCSI stack, for the real-kernel tests (issue 13).

This machine's kernel has no SCSI devices, so the OS pass-through (``/dev/nstN``,
``/dev/sgN``) is exercised in a guest: Debian's own kernel (unpacked by
``scripts/guest-kernel.sh``) under qemu's software emulation, a busybox initramfs that
loads ``sg``, ``st``, ``iscsi_tcp`` and 9p, and the host's root shared read-only so the
guest runs this checkout's ``.venv``, tgt and open-iscsi binaries. Inside the guest a
tgtd on the guest's own 127.0.0.1 serves the LUNs and the kernel's iSCSI initiator
logs in to them, so the kernel makes real ``st``/``sg`` nodes. There is no network
device (``-nic none``). Scenario scripts (``SCENARIOS``) run in the guest one after the
other, in one boot (``scenarios.sh``: each from a clean guest, with its own tgtd and tape
images), and each leaves its results in its own directory of a writable 9p share.

Figures measured in the guest are never performance figures (software emulation).
"""
from __future__ import annotations

import glob
import gzip
import os
import shutil
import subprocess
import threading
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
CACHE = ROOT / ".cache" / "guest-kernel"
HERE = Path(__file__).resolve().parent
BUSYBOX = Path("/bin/busybox")
QEMU = "qemu-system-x86_64"

# Loaded in this order (each after what it depends on, per the kernel's modules.dep).
MODULES = (
    "crypto/crc32c_generic",  # iscsi_tcp allocates a crc32c transform per connection (ENOMEM without it)
    "drivers/scsi/scsi_common", "drivers/scsi/scsi_mod", "drivers/scsi/sg", "drivers/scsi/st",
    "drivers/scsi/scsi_transport_iscsi", "drivers/scsi/libiscsi", "drivers/scsi/libiscsi_tcp",
    "drivers/scsi/iscsi_tcp",
    "drivers/virtio/virtio_ring", "drivers/virtio/virtio", "drivers/virtio/virtio_pci_legacy_dev",
    "drivers/virtio/virtio_pci_modern_dev", "drivers/virtio/virtio_pci",
    "fs/netfs/netfs", "fs/fscache/fscache", "net/9p/9pnet", "net/9p/9pnet_virtio", "fs/9p/9p",
    "fs/overlayfs/overlay",
)


class GuestUnavailable(Exception):
    """What the guest needs is not installed here (the reason is the message)."""


@dataclass(frozen=True)
class Kernel:
    version: str
    root: Path

    @property
    def vmlinuz(self) -> Path:
        return self.root / "boot" / f"vmlinuz-{self.version}"

    def module(self, name: str) -> Path:
        return self.root / "lib" / "modules" / self.version / "kernel" / f"{name}.ko"


def find_kernel() -> Kernel:
    for path in sorted(glob.glob(str(CACHE / "*" / "boot" / "vmlinuz-*")), reverse=True):
        version = Path(path).name.removeprefix("vmlinuz-")
        return Kernel(version, Path(path).parents[1])
    raise GuestUnavailable("no guest kernel unpacked (run scripts/guest-kernel.sh)")


def check_available() -> Kernel:
    for tool in (QEMU, "tgtd", "tgtadm", "tgtimg", "iscsid", "iscsiadm"):
        if shutil.which(tool) is None:
            raise GuestUnavailable(f"{tool} is not installed (scripts/setup.sh --tests installs it)")
    if not BUSYBOX.exists():
        raise GuestUnavailable("busybox-static is not installed")
    kernel = find_kernel()
    for name in MODULES:
        if not kernel.module(name).exists():
            raise GuestUnavailable(f"the guest kernel lacks {name}.ko")
    return kernel


def _cpio_newc(entries: list[tuple[str, int, bytes]]) -> bytes:
    """An initramfs archive (cpio "newc"): (path, mode, contents) per entry, directories first."""
    out = bytearray()
    for ino, (name, mode, data) in enumerate([*entries, ("TRAILER!!!", 0, b"")], start=1):
        encoded = name.encode() + b"\0"
        fields = (ino, mode, 0, 0, 1, 0, len(data), 0, 0, 0, 0, len(encoded), 0)
        out += b"070701" + b"".join(b"%08X" % f for f in fields) + encoded
        out += b"\0" * (-len(out) % 4) + data
        out += b"\0" * (-len(out) % 4)
    return bytes(out)


def build_initramfs(kernel: Kernel, dest: Path) -> Path:
    directory, executable, regular = 0o040755, 0o100755, 0o100644
    entries: list[tuple[str, int, bytes]] = [
        (d, directory, b"") for d in ("bin", "lib", "lib/modules", "proc", "sys", "dev", "host", "newroot", "ov", "out")
    ]
    entries.append(("bin/busybox", executable, BUSYBOX.read_bytes()))
    entries.append(("init", executable, (HERE / "guest_init.sh").read_bytes()))
    names = [m.rsplit("/", 1)[1] for m in MODULES]
    entries.append(("modules.order", regular, "\n".join(names).encode() + b"\n"))
    for module, name in zip(MODULES, names):
        entries.append((f"lib/modules/{name}.ko", regular, kernel.module(module).read_bytes()))
    path = dest / "initramfs.gz"
    path.write_bytes(gzip.compress(_cpio_newc(entries), compresslevel=1))
    return path


@dataclass(frozen=True)
class Scenario:
    """A script the guest runs, whose results one test module reads."""

    name: str
    script: Path
    tests: str  # the test module that reads its results, as pytest names it (relative to the checkout)
    seconds: float  # its limit inside the guest, only against a hang: under emulation on a loaded machine a run
    # takes several times a quiet one (beside stress-ng and a second pytest worker: pass-through over 900 s)
    tools: tuple[str, ...] = ()  # what it needs beyond the guest's own (check_available)


#: Every scenario, in the order one boot runs them. Quiet-machine durations: passthrough about ninety seconds,
#: watch about a hundred, netem about fifty (the boot itself about four).
SCENARIOS = {s.name: s for s in (
    Scenario("passthrough", HERE / "scenario.sh", "tests/kernel/test_real_kernel.py", 1800),
    Scenario("watch", HERE / "watch_scenario.sh", "tests/kernel/test_watch_kernel.py", 1200,
             ("tapestat", "dmsetup", "tar", "mt")),
    Scenario("netem", ROOT / "tests" / "nettest" / "guest_netem.sh", "tests/nettest/test_shaped_guest.py", 1200),
)}
BOOT_SECONDS = 300  # booting and powering off, beyond the scenarios' own limits


def missing_tool(scenario: Scenario) -> str | None:
    """Why ``scenario`` cannot run here, or None."""
    for tool in scenario.tools:
        if shutil.which(tool) is None:
            return f"{tool} is not installed (scripts/setup.sh --tests installs it)"
    return None


@dataclass(frozen=True)
class GuestRun:
    out: Path  # the share the scenario wrote its results into
    console: str  # the boot's console, shared by every scenario of the boot
    returncode: int | None  # the scenario's exit status, None if it never finished
    #: Seconds qemu's threads ran on a CPU and waited for one (runnable, the machine busy) while the guest ran:
    #: how much of the CPU the emulated guest wanted this machine withheld (Linux schedstat; 0.0 where unknown).
    cpu_seconds: float = 0.0
    waited_seconds: float = 0.0

    @property
    def withheld(self) -> float:
        """The share of the CPU time the guest wanted that it waited for instead (0 to 1)."""
        wanted = self.cpu_seconds + self.waited_seconds
        return self.waited_seconds / wanted if wanted > 0 else 0.0

    def log(self) -> str:
        path = self.out / "guest.log"
        return path.read_text(errors="replace") if path.exists() else ""


def _returncode(out: Path) -> int | None:
    path = out / "scenario.rc"
    text = path.read_text().strip() if path.exists() else ""
    return int(text) if text else None


def run_scenarios(names: list[str], workdir: Path, *, memory_mb: int = 2048) -> dict[str, GuestRun]:
    """Boot the guest once, run the scenarios ``names`` in it in ``SCENARIOS``' order, return each one's results."""
    kernel = check_available()
    ordered = [SCENARIOS[name] for name in SCENARIOS if name in names]
    out = workdir / "out"
    out.mkdir(parents=True, exist_ok=True)
    shutil.copy(HERE / "scenarios.sh", out / "scenario.sh")
    (out / "checkout").write_text(str(ROOT))  # guest_init.sh keeps it reachable under the guest's own /tmp
    (out / "scenarios").write_text("".join(f"{s.name} {s.seconds:.0f}\n" for s in ordered))
    for scenario in ordered:
        (out / scenario.name).mkdir(exist_ok=True)
        shutil.copy(scenario.script, out / scenario.name / "scenario.sh")
        (out / scenario.name / "checkout").write_text(str(ROOT))
    initramfs = build_initramfs(kernel, workdir)
    argv = [
        QEMU, "-accel", "tcg", "-cpu", "max",  # "max": the host's Python and numpy use instructions qemu64 lacks
        "-m", str(memory_mb), "-smp", "1", "-nographic", "-no-reboot", "-nic", "none",
        "-kernel", str(kernel.vmlinuz), "-initrd", str(initramfs), "-append", "console=ttyS0 quiet panic=-1",
        "-fsdev", "local,id=hostroot,path=/,security_model=none,readonly=on,multidevs=remap",
        "-device", "virtio-9p-pci,fsdev=hostroot,mount_tag=hostroot",
        "-fsdev", f"local,id=out,path={out},security_model=none",
        "-device", "virtio-9p-pci,fsdev=out,mount_tag=out",
    ]
    env = {k: v for k, v in os.environ.items() if k != "DISPLAY"}
    timeout = BOOT_SECONDS + sum(s.seconds for s in ordered)
    # One boot, so one measure of what this machine withheld from the guest: it covers every scenario of the
    # boot (a scenario's own share would need the start and end times scenarios.sh prints).
    with subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace",
                          env=env, stdin=subprocess.DEVNULL) as proc, _Schedstat(proc.pid) as sched:
        try:
            console, _ = proc.communicate(timeout=timeout)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.communicate()
            raise
    cpu, waited = sched.totals()
    return {s.name: GuestRun(out / s.name, console, _returncode(out / s.name), cpu, waited) for s in ordered}


class _Schedstat:
    """Polls a process's threads' schedstat (ns on a CPU, ns runnable but waiting) until it ends: the last
    values seen per thread, added up (a thread's count is kept when the thread or the process ends)."""

    def __init__(self, pid: int) -> None:
        self._task = Path(f"/proc/{pid}/task")
        self._seen: dict[str, tuple[int, int]] = {}
        self._stop = threading.Event()
        self._thread = threading.Thread(target=self._poll, name="guest-schedstat", daemon=True)

    def _poll(self) -> None:
        while not self._stop.wait(0.2):
            try:
                for task in self._task.iterdir():
                    on_cpu, waiting = (task / "schedstat").read_text().split()[:2]
                    self._seen[task.name] = (int(on_cpu), int(waiting))
            except (OSError, ValueError):
                continue  # a thread (or the process) ended between the listing and the read

    def totals(self) -> tuple[float, float]:
        return (sum(c for c, _ in self._seen.values()) / 1e9, sum(w for _, w in self._seen.values()) / 1e9)

    def __enter__(self) -> "_Schedstat":
        self._thread.start()
        return self

    def __exit__(self, *_: object) -> None:
        self._stop.set()
        self._thread.join()
