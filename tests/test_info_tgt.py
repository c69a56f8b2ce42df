"""Issue 11 over real iSCSI (tgtd on 127.0.0.1): a tape LUN that reports no health pages
is "Not assessed", and a disk LUN is refused by info and tape-perf with nothing written."""
from __future__ import annotations

import hashlib
import json
from pathlib import Path

import pytest

from app.cli import main
from app.discovery import remembered_iscsi
from app.cli.devices import format_table
from app import targets
from tests.helpers.tgt import TgtFactory, TgtTarget  # noqa: F401

pytest.importorskip("native.iscsi")
pytestmark = pytest.mark.tgt


def _sha(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def test_tgt_tape_lun_is_not_assessed_exit_12(tgt_target: TgtTarget, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", tgt_target.url, "--json"]) == 12
    data = json.loads(capsys.readouterr().out)
    assert data["health"]["verdict"] == "Not assessed" and data["health"]["exit_code"] == 12
    assert "TapeAlert" in data["health"]["reasons"][0]
    # tgt has no LOG SENSE and no SECURITY PROTOCOL IN: the drive pages and encryption say so, nothing fails (issue 15)
    for key in ("temperature", "device_status", "device_statistics", "ports", "diagnostics", "encryption", "vendor_pages", "wear"):
        assert data[key] == {"supported": False, "reason": "not supported by this device"}, key
    assert main(["info", tgt_target.url]) == 12
    out = capsys.readouterr().out
    assert "Verdict                   Not assessed" in out and "Healthy" not in out


def test_disk_lun_is_refused_by_info_and_tape_perf_with_nothing_written(
        tgt_factory, capsys: pytest.CaptureFixture[str]) -> None:  # type: ignore[no-untyped-def]
    disk = tgt_factory(device_type="disk", size_mb=8)
    before = _sha(disk.cartridge_path)

    assert main(["info", disk.url]) == 2
    captured = capsys.readouterr()
    assert "Product" in captured.out and "Not a tape drive:" in captured.out and "Verdict" not in captured.out
    assert captured.err.strip().endswith("is a disk (peripheral type 0), not a tape drive")
    assert captured.err.count("\n") == 1

    rc = main(["tape-perf", disk.url, "--force", "--size", "1M", "--pattern", "random"])
    err = capsys.readouterr().err
    assert rc == 2, err
    assert "is a disk (peripheral type 0), not a tape drive" in err and err.count("\n") == 1

    assert _sha(disk.cartridge_path) == before  # not one byte of the "customer's disk" changed

    targets.add_target(disk.url)
    table = format_table(remembered_iscsi())
    assert "NOT A TAPE DRIVE" in table and "peripheral type 0" in table
