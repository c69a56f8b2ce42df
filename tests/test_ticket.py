"""The support ticket (issue 15): read-only capture, raw pages sg3_utils decodes, one query each."""
from __future__ import annotations

import hashlib
import json
import shutil
import subprocess
import zipfile
from pathlib import Path

import pytest

from app.cli import main
from app.drive import STATE_CHANGING_OPCODES
from app.history import History
from native.scsi import cdb as C
from native.scsi.opcodes import SupportedCommands
from app.ticket import OnceTransport, collect_from
from native.transport import DEFAULT_TIMEOUT, CommandResult, Transport
from native.virtual import open_virtual
from tests.helpers.faults import RecordingTransport

DEV = "virtual:lto9?tapealert=3,20"


class Guard(Transport):
    """Passes commands on, fails the test on any that writes or changes state, counts the rest."""

    def __init__(self, inner: Transport) -> None:
        self.inner, self.device, self.cdbs = inner, inner.device, []  # type: list[bytes]

    def execute(self, cdb, *, data_out=None, data_in=0, timeout=DEFAULT_TIMEOUT) -> CommandResult:  # type: ignore[no-untyped-def]
        assert cdb[0] not in STATE_CHANGING_OPCODES, f"{STATE_CHANGING_OPCODES[cdb[0]]} was sent"
        self.cdbs.append(bytes(cdb))
        return self.inner.execute(cdb, data_out=data_out, data_in=data_in, timeout=timeout)

    def close(self) -> None:
        self.inner.close()


def test_ticket_zip_holds_raw_pages_that_sg3_utils_decodes(tmp_path: Path, capsys) -> None:
    out = tmp_path / "ticket.zip"
    assert main(["ticket", DEV, "-o", str(out)]) == 0
    assert "Support ticket written to" in capsys.readouterr().out
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
        summary = zf.read("SUMMARY.txt").decode()
        assert {"inquiry.hex", "log/page_00h.hex", "log/page_14h.hex", "mam/attributes.hex",
                "decoded/info.json", "host.json", "runs.json"} <= names
        assert "read-only" in summary and "Ultrium 9" in summary and "TapeAlert" in summary
        zf.extractall(tmp_path / "x")
    if shutil.which("sg_logs"):
        stats = subprocess.run(["sg_logs", "--inhex", str(tmp_path / "x/log/page_14h.hex")],
                               capture_output=True, text=True, timeout=30)
        assert stats.returncode == 0 and "Lifetime media loads" in stats.stdout, stats.stderr
        alerts = subprocess.run(["sg_logs", "--inhex", str(tmp_path / "x/log/page_12h.hex")],
                                capture_output=True, text=True, timeout=30)
        assert "03h: 1" in alerts.stdout and "14h: 1" in alerts.stdout, alerts.stdout
    decoded = json.loads((tmp_path / "x/decoded/info.json").read_text())
    assert decoded["identity"]["product"].startswith("Ultrium 9")
    with History.open() as hist:
        run = hist.list_runs(kind="drive-info", limit=1)[0]
    assert "log/page_14h" in run.results["raw_pages"]  # the raw pages are in the history too
    opcodes = SupportedCommands.parse(bytes.fromhex(" ".join(
        line for line in (tmp_path / "x/opcodes/all.hex").read_text().splitlines() if not line.startswith("#"))))
    assert opcodes.find(0x0A) is not None  # WRITE(6), with the timeouts the drive recommends, raw for support


def test_the_capture_sends_nothing_that_changes_state_and_every_query_once(tmp_path: Path) -> None:
    guard = Guard(open_virtual(f"virtual:lto9?cartridge={tmp_path / 'c.img'}&tapealert=3"))
    ticket = collect_from(guard, "virtual:lto9")
    assert ticket.info is not None and ticket.captured > 20
    queries = [c for c in guard.cdbs if c[0] in (0x4D, 0x12, 0x1A, 0x5A, 0x8C, 0xA2, 0xA3)]
    assert len(queries) == len(set(queries)), "a query was sent twice"
    assert not any(c[0] == 0x4D and c[2] & 0x3F == 0x2E for c in guard.cdbs)  # flags read from 12h, not cleared


def test_a_repeated_query_is_answered_from_the_first_answer() -> None:
    inner = RecordingTransport(responses={0x4D: bytes([0x2E, 0, 0, 4, 0, 1, 0, 1])})
    once = OnceTransport(inner)
    first = once.execute(C.log_sense(0x2E), data_in=64)
    again = once.execute(C.log_sense(0x2E), data_in=64)
    assert bytes(first.data) == bytes(again.data) and len(inner.calls) == 1
    once.execute(C.request_sense(252), data_in=252)
    once.execute(C.request_sense(252), data_in=252)
    assert len(inner.calls) == 3  # REQUEST SENSE is the drive's state now: always sent


@pytest.mark.tgt
def test_ticket_on_tgt_states_what_is_not_supported_and_refuses_a_disk(tgt_factory, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    tape = tgt_factory()
    out = tmp_path / "tgt.zip"
    assert main(["ticket", tape.url, "-o", str(out)]) == 0
    with zipfile.ZipFile(out) as zf:
        summary = zf.read("SUMMARY.txt").decode()
    assert "IET" in summary and "ILLEGAL REQUEST" in summary  # pages tgt lacks are listed with its answer

    disk = tgt_factory(device_type="disk", size_mb=8)
    before = hashlib.sha256(disk.cartridge_path.read_bytes()).hexdigest()
    capsys.readouterr()
    assert main(["ticket", disk.url, "-o", str(tmp_path / "disk.zip")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a tape drive" in err[0]
    assert not (tmp_path / "disk.zip").exists()
    assert hashlib.sha256(disk.cartridge_path.read_bytes()).hexdigest() == before


def test_bad_output_paths_are_one_line_before_the_drive_is_opened(tmp_path: Path, capsys) -> None:
    for target, words in ((tmp_path, "is a directory"), (tmp_path / "missing" / "t.zip", "does not exist")):
        assert main(["ticket", "virtual:lto9", "-o", str(target)]) == 2
        err = capsys.readouterr().err.strip().splitlines()
        assert len(err) == 1 and words in err[0], err
    with History.open() as hist:
        assert hist.list_runs(kind="drive-info") == []


def test_ticket_of_an_ibm_drive_holds_its_vendor_pages_raw_and_decoded(tmp_path: Path) -> None:
    out = tmp_path / "ibm.zip"
    assert main(["ticket", f"virtual:lto9?vendor=ibm&cartridge={tmp_path / 'i.cart'}", "-o", str(out)]) == 0
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
        summary = zf.read("SUMMARY.txt").decode()
        decoded = json.loads(zf.read("decoded/info.json"))
        zf.extractall(tmp_path / "x")
    assert {f"log/page_{c:02x}h.hex" for c in (0x30, 0x31, 0x32, 0x33, 0x34, 0x37, 0x38, 0x39, 0x3B, 0x3C, 0x3D)} <= names
    assert "IBM log page 0x34: read forward errors" in summary and "Cartridge wear" in summary
    assert {p["page_code"] for p in decoded["vendor_pages"]["value"]} >= {0x30, 0x31, 0x37}
    if shutil.which("sg_logs"):
        usage = subprocess.run(["sg_logs", "--inhex", str(tmp_path / "x/log/page_30h.hex"), "-M", "lto5"],
                               capture_output=True, text=True, timeout=30)
        assert "Tape usage page" in usage.stdout and "Thread count" in usage.stdout, usage.stdout + usage.stderr
