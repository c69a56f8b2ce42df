"""PassThroughTransport on a machine without SCSI devices: what can be tested for real.

The kernel here has no SCSI stack, so no command reaches a drive through SG_IO.
What is real: the library loads and its symbols resolve, the open-time errors come
from real open(2) calls on real nodes, and a command through libsgutils2 on a
non-SCSI node fails with the mapped error.
"""
from __future__ import annotations

import ctypes.util

import os
import stat
import sys
from pathlib import Path

import pytest

from native import open_transport, sgpt
from native.errors import DeviceNotFound, TransportError, TransportUnavailable
from native.sgpt import PassThroughTransport
from tests.helpers.unprivileged import run_unprivileged

ROOT = Path(__file__).resolve().parents[2]


def test_library_loads_and_every_symbol_resolves() -> None:
    binding = sgpt.load()
    assert "sgutils2" in binding.path
    for name in sgpt.PROTOTYPES:
        assert getattr(binding.lib, name).argtypes is not None, name
    assert binding.version  # scsi_pt_version() answered


def test_missing_node_is_device_not_found(tmp_path: Path) -> None:
    with pytest.raises(DeviceNotFound, match="does not exist"):
        PassThroughTransport(str(tmp_path / "nst0"))


def test_open_transport_routes_dev_nst_to_pass_through() -> None:
    missing = "/dev/nst97"
    assert not os.path.exists(missing)
    with pytest.raises(DeviceNotFound):
        open_transport(missing)


def test_non_scsi_node_is_refused_clearly() -> None:
    with pytest.raises(DeviceNotFound) as info:
        PassThroughTransport("/dev/null")
    assert "'mem' device, not a SCSI" in str(info.value)


def test_regular_file_is_refused(tmp_path: Path) -> None:
    plain = tmp_path / "tape.img"
    plain.write_bytes(b"x")
    with pytest.raises(DeviceNotFound, match="not a device node"):
        PassThroughTransport(str(plain))


def _sg_node(path: Path) -> Path:
    try:
        os.mknod(path, 0o600 | stat.S_IFCHR, os.makedev(21, 0))  # the sg major
    except PermissionError:
        pytest.skip("cannot mknod here")
    return path


def test_node_without_a_driver_is_device_not_found(tmp_path: Path) -> None:
    node = _sg_node(tmp_path / "sg0")
    with pytest.raises(DeviceNotFound, match="no device is attached"):
        PassThroughTransport(str(node))


def test_permission_denied_without_root_privilege(tmp_path: Path) -> None:
    node = _sg_node(tmp_path / "sg1")
    node.chmod(0o000)  # root-owned; without root's file-mode bypass nobody may open it
    code = (
        "import sys\n"
        "from native.sgpt import PassThroughTransport\n"
        "from native.errors import DevicePermissionDenied\n"
        "try:\n"
        f"    PassThroughTransport({str(node)!r})\n"
        "except DevicePermissionDenied as err:\n"
        "    print(err); sys.exit(0)\n"
        "sys.exit(1)\n"
    )
    proc = run_unprivileged([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, cwd=ROOT,
                            env={**os.environ, "PYTHONPATH": str(ROOT)})
    assert proc.returncode == 0, proc.stderr
    assert "no permission to open" in proc.stdout and "'tape'/'disk' group" in proc.stdout


def test_command_on_a_non_scsi_node_maps_the_os_error(monkeypatch: pytest.MonkeyPatch) -> None:
    """Bypass the node check to push a real TEST UNIT READY through do_scsi_pt on /dev/null."""
    monkeypatch.setattr(PassThroughTransport, "_check_linux_node", lambda self: None)
    try:
        transport = PassThroughTransport("/dev/null")
    except TransportError as err:  # the library itself may refuse the fd at construction
        assert "pass-through" in str(err)
        return
    with transport:
        with pytest.raises(TransportError) as info:
            transport.execute(bytes(6), timeout=5)
    assert "/dev/null" in str(info.value) and "\n" not in str(info.value)


def test_missing_library_is_transport_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(sgpt, "library_candidates", lambda: ["libsgutils2-not-here.so.9"])
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)  # the last resort finds nothing either
    sgpt.load.cache_clear()
    try:
        with pytest.raises(TransportUnavailable) as info:
            PassThroughTransport("/dev/nst0")
        assert "apt-get install libsgutils2-1.46-2" in str(info.value)
    finally:
        sgpt.load.cache_clear()


def test_the_system_search_is_the_last_resort_only(monkeypatch: pytest.MonkeyPatch) -> None:
    """``find_library`` spawns ldconfig and a compiler: not run when a known name loads (start-up, issue 13.4)."""
    asked: list[str] = []
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: asked.append(name))
    sgpt.load.cache_clear()
    try:
        sgpt.load()
        assert asked == []
        monkeypatch.setattr(sgpt, "library_candidates", lambda: ["libsgutils2-not-here.so.9"])
        monkeypatch.setattr(ctypes.util, "find_library", lambda name: asked.append(name) or "libsgutils2-1.46.so.2")
        sgpt.load.cache_clear()
        assert sgpt.load().path == "libsgutils2-1.46.so.2" and asked == ["sgutils2"]
    finally:
        sgpt.load.cache_clear()
