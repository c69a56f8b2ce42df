"""Discovery on a fake sysfs tree shaped like the real one, remembered targets, the CLI."""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app import discovery, targets
from app.cli import main
from app.discovery import DeviceEntry, discover, linux_tape_drives
from native.errors import InvalidParameter
from tests.helpers.tgt import TgtTarget

ROOT = Path(__file__).resolve().parents[2]


def _fake_tape(sysfs: Path, hctl: str, index: int, sg: int, vendor: str, model: str, rev: str) -> Path:
    """Mirror the kernel's layout: the scsi_device directory holds the attributes and
    scsi_tape/ + scsi_generic/ children; /sys/class/scsi_tape/* are symlinks into it,
    each with a ``device`` link back up to the scsi_device."""
    host = hctl.split(":")[0]
    scsi_dev = sysfs / "devices" / "pci0000:00" / "0000:00:1f.2" / f"host{host}" / f"target{hctl.rsplit(':', 1)[0]}" / hctl
    scsi_dev.mkdir(parents=True)
    (scsi_dev / "vendor").write_text(f"{vendor:<8}\n")
    (scsi_dev / "model").write_text(f"{model:<16}\n")
    (scsi_dev / "rev").write_text(f"{rev}\n")
    (scsi_dev / "type").write_text("1\n")
    (scsi_dev / "scsi_generic" / f"sg{sg}").mkdir(parents=True)
    class_dir = sysfs / "class" / "scsi_tape"
    class_dir.mkdir(parents=True, exist_ok=True)
    for node in (f"st{index}", f"st{index}a", f"nst{index}", f"nst{index}l"):
        node_dir = scsi_dev / "scsi_tape" / node
        node_dir.mkdir(parents=True)
        (node_dir / "device").symlink_to(os.path.relpath(scsi_dev, node_dir))
        (class_dir / node).symlink_to(os.path.relpath(node_dir, class_dir))
    return scsi_dev


@pytest.fixture
def fake_sysfs(tmp_path: Path) -> tuple[Path, Path]:
    sysfs, dev = tmp_path / "sys", tmp_path / "dev"
    dev.mkdir()
    _fake_tape(sysfs, "3:0:0:0", 0, 2, "HP", "Ultrium 6-SCSI", "35GD")
    _fake_tape(sysfs, "4:0:1:0", 10, 11, "IBM", "ULTRIUM-HH8", "N9M1")
    (dev / "nst0").write_bytes(b"")  # stands in for the node: openable
    return sysfs, dev


def test_linux_tape_drives_from_fake_sysfs(fake_sysfs: tuple[Path, Path]) -> None:
    sysfs, dev = fake_sysfs
    entries = linux_tape_drives(sysfs, dev)
    assert [e.device for e in entries] == [str(dev / "nst0"), str(dev / "nst10")]  # numeric order, nst only
    hp, ibm = entries
    assert (hp.vendor, hp.product, hp.revision) == ("HP", "Ultrium 6-SCSI", "35GD")
    assert hp.alternative == str(dev / "sg2") and ibm.alternative == str(dev / "sg11")
    assert hp.kind == "passthrough" and "3:0:0:0" in hp.description
    # The probe sends INQUIRY, not just open(): a fake node (a regular file here) opens but is no drive.
    assert hp.reachable is False and "not a device node" in hp.note, hp.note
    assert ibm.reachable is False and "missing" in ibm.note


def test_no_probe_leaves_reachability_unknown(fake_sysfs: tuple[Path, Path]) -> None:
    sysfs, dev = fake_sysfs
    assert {e.reachable for e in linux_tape_drives(sysfs, dev, probe=False)} == {None}


def test_machine_without_scsi_tape_class(tmp_path: Path) -> None:
    assert linux_tape_drives(tmp_path / "sys", tmp_path / "dev") == []


def test_discover_lists_virtual_drives_last(fake_sysfs: tuple[Path, Path]) -> None:
    sysfs, dev = fake_sysfs
    entries = discover(sysfs_root=sysfs, dev_root=dev)
    assert [e.device for e in entries[-6:]] == [f"virtual:lto{g}" for g in range(5, 11)]
    assert entries[0].device == str(dev / "nst0")


def test_remembered_targets_roundtrip() -> None:
    url = "iscsi://192.0.2.7:3261/iqn.2004-04.com.example:tape/1"
    targets.add_target(url)
    targets.add_target(url)  # no duplicate
    assert [t.url for t in targets.list_targets()] == [url]
    targets.remove_target(url)
    assert targets.list_targets() == []
    with pytest.raises(InvalidParameter):
        targets.remove_target(url)
    with pytest.raises(InvalidParameter):
        targets.add_target("iscsi://nowhere")


def test_cli_devices_json_lists_virtual_drives(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["devices", "--json"]) == 0
    listed = json.loads(capsys.readouterr().out)
    devices = [item["device"] for item in listed]
    assert [d for d in devices if d.startswith("virtual:")] == [f"virtual:lto{g}" for g in range(5, 11)] + \
        ["virtual:library"]  # the libraries follow the drives (app.library_discovery)
    assert set(listed[0]) == set(DeviceEntry("x", "virtual", "x").to_dict())
    assert set(listed[-1]) >= set(listed[0]) and listed[-1]["is_changer"] and listed[-1]["is_tape"] is False


def test_cli_devices_as_a_real_command(isolated_data_dir: Path) -> None:
    proc = subprocess.run([sys.executable, "-m", "app", "devices", "--json"], capture_output=True, text=True,
                          timeout=60, cwd=ROOT, env={**os.environ, "TAPEDIAG_DATA_DIR": str(isolated_data_dir)})
    assert proc.returncode == 0, proc.stderr
    assert "virtual:lto9" in [item["device"] for item in json.loads(proc.stdout)]


def test_cli_add_and_forget(capsys: pytest.CaptureFixture[str]) -> None:
    url = "iscsi://198.51.100.4/iqn.2004-04.com.example:tape/0"
    assert main(["devices", "--add-iscsi", url, "--no-probe"]) == 0
    out = capsys.readouterr().out
    assert f"remembered {url}" in out and url in out.splitlines()[2]
    assert main(["devices", "--forget", url, "--no-probe"]) == 0
    out = capsys.readouterr().out
    assert out.startswith(f"forgot {url}\n") and url not in out.split("\n", 1)[1]
    assert main(["devices", "--add-iscsi", "iscsi://bad"]) == 2  # one clear line, usage exit
    assert "not an iSCSI device string" in capsys.readouterr().err


@pytest.mark.tgt
def test_remembered_tgt_target_is_probed(tgt_target: TgtTarget) -> None:
    targets.add_target(tgt_target.url)
    dead = tgt_target.url.replace(tgt_target.iqn, tgt_target.iqn + "-gone")
    targets.add_target(dead)
    entries = {e.device: e for e in discovery.remembered_iscsi()}
    live = entries[tgt_target.url]
    assert live.reachable and (live.vendor, live.product) == ("IET", "VIRTUAL-TAPE") and live.note == ""
    assert entries[dead].reachable is False and "login" in entries[dead].note.lower()


def test_without_cap_sys_rawio_the_sg_node_is_offered(fake_sysfs: tuple[Path, Path], monkeypatch) -> None:
    """A user in the 'tape' group can open /dev/nstN, but st refuses SG_IO without CAP_SYS_RAWIO."""
    import native.sgpt

    sysfs, dev = fake_sysfs
    monkeypatch.setattr(native.sgpt, "has_cap_sys_rawio", lambda: False)
    entries = linux_tape_drives(sysfs, dev, probe=False)
    assert [(e.device, e.alternative) for e in entries] == [
        (str(dev / "sg2"), str(dev / "nst0")), (str(dev / "sg11"), str(dev / "nst10"))]
    monkeypatch.setattr(native.sgpt, "has_cap_sys_rawio", lambda: True)
    assert linux_tape_drives(sysfs, dev, probe=False)[0].device == str(dev / "nst0")
