"""The support ticket (issues 15, 30): read-only capture, raw pages, each with the command that decodes it as a tape
page, the drive's buffers, and the drive's own recorded runs."""
from __future__ import annotations

import hashlib
import json
import shlex
import shutil
import socket
import subprocess
import zipfile
from pathlib import Path
from typing import Any

import pytest

from app.cli import main
from app.drive import ReadOnlyRefusal, TapeDrive, state_changing
from app.history import History
from app.ticket import OnceTransport, collect_from, write
from native.scsi import cdb as C
from native.scsi.buffers import ErrorHistoryDirectory
from native.scsi.opcodes import SupportedCommands
from native.transport import DEFAULT_TIMEOUT, CommandResult, TransferLimit, Transport
from native.virtual import open_virtual
from tests.helpers.faults import RecordingTransport

DEV = "virtual:lto9?tapealert=3,20"

#: What sg_logs prints for each tape page it decodes (its own titles, for a sequential-access device): the oracle
#: that a command read the file as the tape page it is. A disk's reading of the same codes is in ``DISK_READINGS``.
SG_LOGS_TITLES = {0x00: "supported log pages", 0x02: "write error counter", 0x03: "read error counter",
                  0x06: "non-medium error", 0x0C: "sequential access device", 0x0D: "temperature",
                  0x11: "dt device status", 0x12: "tapealert response", 0x14: "device statistics",
                  0x16: "tape diagnostic", 0x17: "volume statistics", 0x18: "protocol specific port",
                  0x1A: "power condition transitions", 0x1B: "data compression", 0x30: "tape usage",
                  0x31: "tape capacity", 0x32: "data compression"}  # words in sg_logs 1.46's and 1.48's titles
#: What the same bytes read as without --pdt=1 (a disk's pages), and sdparm's disk reading of mode page 10h.
DISK_READINGS = ("Logical block provisioning", "Solid state media", "ATA pass-through", "Non-volatile cache",
                 "XORDIS", "Unable to decode", "Unknown page")
#: Per tool, what its output shows when it read a tape drive's answer.
TAPE_MARKS = {"sg_inq": "PDT=1", "sg_read_attr": "Attribute values", "sg_decode_sense": "Sense key",
              "sg_read_buffer": "Error history directory", "sg_rep_density": "Description: Ultrium",
              "sdparm": "Device configuration (SSC) mode page"}
#: Options that came with the sg3_utils release a command needs: a tool without it is older and is skipped.
PROBES = {"sg_read_buffer": "--eh_code",  # 1.47, with the error history decoder
          "sg_rep_density": "--inhex"}  # the tool itself is new in 1.47


class Guard(Transport):
    """Passes commands on, fails the test on any that writes or changes state (``app.drive.state_changing``), and
    keeps every CDB; ``limit`` is the transfer limit it reports (a path that takes smaller transfers)."""

    def __init__(self, inner: Transport, limit: int | None = None) -> None:
        self.inner, self.device, self.cdbs, self.limit = inner, inner.device, [], limit  # type: ignore[var-annotated]

    def execute(self, cdb, *, data_out=None, data_in=0, timeout=DEFAULT_TIMEOUT) -> CommandResult:  # type: ignore[no-untyped-def]
        assert state_changing(bytes(cdb)) is None, f"{state_changing(bytes(cdb))} was sent"
        self.cdbs.append(bytes(cdb))
        return self.inner.execute(cdb, data_out=data_out, data_in=data_in, timeout=timeout)

    def transfer_limit(self) -> TransferLimit | None:
        return TransferLimit(self.limit, "the test's path") if self.limit else self.inner.transfer_limit()

    def close(self) -> None:
        self.inner.close()


def _unpack(zip_path: Path, into: Path) -> tuple[str, list[dict[str, Any]]]:
    with zipfile.ZipFile(zip_path) as zf:
        assert zf.namelist()[0] == "SUMMARY.txt"  # the first thing a vendor's engineer sees
        zf.extractall(into)
    return (into / "SUMMARY.txt").read_text(), json.loads((into / "captures.json").read_text())


def _why_not_runnable(argv: list[str]) -> str | None:
    tool = argv[0]
    if not shutil.which(tool):
        return f"{tool} is not installed"
    probe = PROBES.get(tool)
    if probe:
        usage = subprocess.run([tool, "--help"], capture_output=True, text=True, timeout=30)
        if probe not in usage.stdout + usage.stderr:
            return f"{tool} is older than the release the command needs"
    return None


def _check_decode(folder: Path, row: dict[str, Any]) -> None:
    """Run one row's command on its file; it must read the file as the tape page it is."""
    argv = shlex.split(row["decode"])
    got = subprocess.run(argv, cwd=folder, capture_output=True, text=True, timeout=60)
    out = got.stdout + got.stderr
    assert got.returncode == 0 and got.stdout.strip(), (row, out)
    assert not [d for d in DISK_READINGS if d in out], (row["decode"], out)
    tool, name = argv[0], Path(row["file"]).stem
    if tool == "sg_logs":
        code = int(name[len("page_"):-1], 16)
        assert SG_LOGS_TITLES[code] in out.lower(), (row["decode"], out)
    elif tool in TAPE_MARKS:
        assert TAPE_MARKS[tool] in out, (row["decode"], out)


def check_every_decode(zip_path: Path, into: Path) -> tuple[list[str], dict[str, str]]:
    """Each file's decode from the zip's own table: a command that reads it as a tape page where the tool is here,
    else tapediag's own decode beside it, else a buffer kept for the vendor's tools. Returns the commands run and
    those skipped, with why."""
    summary, rows = _unpack(zip_path, into)
    ran, skipped = [], {}
    for row in rows:
        if row["file"] is None:
            assert row["error"], row  # not collected: it says why
            continue
        assert (into / row["file"]).stat().st_size > 0 and row["file"] in summary, row
        if row["tapediag_decode"]:
            decoded = (into / row["tapediag_decode"]).read_text()
            assert decoded.strip() and "does not decode" not in decoded and "no decoder" not in decoded, row
        if row["decode"]:
            assert row["decode"] in summary, row
            why = _why_not_runnable(shlex.split(row["decode"]))
            if why:
                skipped[row["decode"]] = why
                continue
            _check_decode(into, row)
            ran.append(row["decode"])
        else:
            assert row["tapediag_decode"] or row["file"].endswith(".bin") or row["file"] == "dump/descriptor.hex", row
    return ran, skipped


@pytest.mark.parametrize("vendor", ["hp", "ibm"])
def test_every_file_has_a_command_that_decodes_it_as_a_tape_page(vendor: str, tmp_path: Path) -> None:
    out = tmp_path / "t.zip"
    assert main(["ticket", f"{DEV}&vendor={vendor}&cartridge={tmp_path / 'c.cart'}", "-o", str(out)]) == 0
    ran, skipped = check_every_decode(out, tmp_path / "x")
    if shutil.which("sg_logs") and shutil.which("sdparm"):
        tools = {shlex.split(c)[0] for c in ran}
        assert {"sg_logs", "sg_inq", "sg_vpd", "sdparm", "sg_read_attr", "sg_decode_sense"} <= tools, tools
        vendor_pages = [c for c in ran if "-M lto5" in c]
        assert len(vendor_pages) == 3, vendor_pages  # 30h 31h 32h: the LTO pages sg_logs has a layout for
        assert all("--pdt=1" in c for c in ran if c.startswith(("sg_logs", "sdparm")))
    assert set(skipped.values()) <= {f"{t} is older than the release the command needs" for t in PROBES} | {
        f"{t} is not installed" for t in ("sg_logs", "sdparm", "sg_inq", "sg_vpd", "sg_read_attr", "sg_decode_sense",
                                          *PROBES)}
    rows = json.loads((tmp_path / "x/captures.json").read_text())
    by_file = {r["file"]: r for r in rows if r["file"]}
    if vendor == "hp":  # sg_logs would call HP's performance page IBM's "Read forward errors": no command for it
        assert by_file["log/page_34h.hex"]["decode"] == ""
        assert "HP log page 0x34: performance data" in (tmp_path / "x/log/page_34h.txt").read_text()
    else:
        assert "media_efficiency" in (tmp_path / "x/log/page_37h.txt").read_text()


def test_the_summary_names_the_drive_what_was_collected_and_what_was_not(tmp_path: Path) -> None:
    out = tmp_path / "hp.zip"
    assert main(["ticket", f"{DEV}&serial=HU1234ABCD&cartridge={tmp_path / 'c.cart'}", "-o", str(out)]) == 0
    summary, rows = _unpack(out, tmp_path / "x")
    head = summary.split("How to decode each file")[0]
    assert "Drive:    HPE Ultrium 9-SCSI, serial HU1234ABCD, firmware " in head
    assert "by tapediag " in head and "Created:" in head and "Read-only" in head
    missing = {r["command"]: r["error"] for r in rows if r["file"] is None}
    assert "Saving parameters not supported" in missing["MODE SENSE(10) all pages (saved values)"]
    assert "12h holds the same flags" in missing["LOG SENSE 2Eh (TapeAlert)"]
    assert "HPE publishes no read-only way" in missing["vendor drive dump"]  # HPE: said plainly, not silently absent
    for command, why in missing.items():
        assert command in head and why in head  # every query that was not answered, with why, before the table
    assert "Host (no host name)" in summary and "Ultrium 9" in summary and "TapeAlert" in summary


def test_ticket_zip_holds_raw_pages_that_sg3_utils_decodes(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    out = tmp_path / "ticket.zip"
    assert main(["ticket", DEV, "-o", str(out)]) == 0
    assert "Support ticket written to" in capsys.readouterr().out
    with zipfile.ZipFile(out) as zf:
        names = set(zf.namelist())
        assert {"inquiry.hex", "log/page_00h.hex", "log/page_14h.hex", "mam/attributes.hex", "mode/all_pages.hex",
                "mode/all_pages_changeable.hex", "mode/all_pages_default.hex", "encryption/page_0021h.hex",
                "decoded/info.json", "host.json", "runs.json"} <= names
        zf.extractall(tmp_path / "x")
    if shutil.which("sg_logs"):
        alerts = subprocess.run(["sg_logs", "--pdt=1", "--inhex", str(tmp_path / "x/log/page_12h.hex")],
                                capture_output=True, text=True, timeout=30)
        assert "03h: 1" in alerts.stdout and "14h: 1" in alerts.stdout, alerts.stdout
    decoded = json.loads((tmp_path / "x/decoded/info.json").read_text())
    assert decoded["identity"]["product"].startswith("Ultrium 9")
    with History.open() as hist:
        run = hist.list_runs(kind="drive-info", limit=1)[0]
    assert "log/page_14h" in run.results["raw_pages"]  # the raw pages are in the history too
    assert not [k for k in run.results["raw_pages"] if k.startswith("error_history/buffer")]  # buffers: the zip only
    opcodes = SupportedCommands.parse(bytes.fromhex(" ".join(
        line for line in (tmp_path / "x/opcodes/all.hex").read_text().splitlines() if not line.startswith("#"))))
    assert opcodes.find(0x0A) is not None  # WRITE(6), with the timeouts the drive recommends, raw for support


def test_every_error_history_buffer_and_the_ibm_dump_are_read_whole_in_pieces(tmp_path: Path) -> None:
    """The directory's buffers, each whole, in pieces no larger than the path takes, from increasing offsets; the
    IBM dump sized by its descriptor; nothing that snapshots or clears the history is sent (the virtual drive
    would forget its history if it were)."""
    piece = 64 * 1024
    guard = Guard(open_virtual(f"virtual:lto9?vendor=ibm&cartridge={tmp_path / 'c.img'}&diag=3/11/00"), limit=piece)
    ticket = collect_from(guard, "virtual:lto9")
    by_name = {c.name: c for c in ticket.captures}
    directory = ErrorHistoryDirectory.parse(by_name["error_history/directory"].data or b"")
    assert [e.buffer_id for e in directory.entries] == [0x00, 0x10, 0x11]  # the directory's own entry first (SPC-5)
    for entry in directory.entries[1:]:
        data = by_name[f"error_history/buffer_{entry.buffer_id:02x}h"].data
        assert data is not None and len(data) == entry.max_length
        reads = [c for c in guard.cdbs if c[:3] == bytes([0x3C, 0x1C, entry.buffer_id])]
        offsets = [int.from_bytes(c[3:6], "big") for c in reads]
        assert offsets == list(range(0, entry.max_length, piece))
        assert all(int.from_bytes(c[6:9], "big") <= piece for c in reads)
    assert b"sense key 3h, ASC/ASCQ 11h/00h" in (by_name["error_history/buffer_10h"].data or b"")  # page 16h's error
    dump = by_name["dump/drive_dump"].data or b""
    assert dump.startswith(b"TAPEDIAG VIRTUAL IBM LTO DUMP") and len(dump) == 640 * 1024
    assert [int.from_bytes(c[3:6], "big") for c in guard.cdbs if c[:3] == bytes([0x3C, 0x02, 0x01])] == list(
        range(0, len(dump), piece))
    error_history_ids = {c[2] for c in guard.cdbs if c[:2] == bytes([0x3C, 0x1C])}
    assert error_history_ids == {0x00, 0x10, 0x11}
    assert not guard.inner.life.error_history_cleared  # type: ignore[attr-defined]
    again = open_virtual(f"virtual:lto9?vendor=ibm&cartridge={tmp_path / 'c.img'}")
    try:  # the pieces put together are the buffer as one read of it gives it
        whole = again.execute(C.read_buffer(0x1C, 0x11, alloc=0xFFFFFF), data_in=0xFFFFFF)
    finally:
        again.close()
    assert bytes(whole.data) == by_name["error_history/buffer_11h"].data
    with zipfile.ZipFile(write(ticket, tmp_path / "t.zip")) as zf:
        assert zf.read("error_history/buffer_11h.bin") == bytes(whole.data)
        assert zf.read("dump/drive_dump.bin") == dump


@pytest.mark.parametrize("buffer_id", [0x01, 0x02, 0x03, 0xFE, 0xFF])
def test_error_history_ids_that_snapshot_or_clear_are_refused_before_they_are_sent(buffer_id: int,
                                                                                    tmp_path: Path) -> None:
    inner = open_virtual(f"virtual:lto9?cartridge={tmp_path / 'c.img'}")
    guard = Guard(inner)
    guard.execute = inner.execute  # type: ignore[method-assign]  # the drive object's own gate is under test
    with TapeDrive(guard, device="virtual:lto9", read_only=True) as drive:
        with pytest.raises(ReadOnlyRefusal, match=f"buffer ID {buffer_id:02X}h"):
            drive.query_raw(C.read_buffer(C.BufferMode.ERROR_HISTORY, buffer_id, alloc=64), 64)
        assert drive.query_raw(C.read_buffer(C.BufferMode.ERROR_HISTORY, 0x00, alloc=64), 64)  # the directory reads
    assert state_changing(C.read_buffer(C.BufferMode.DATA, buffer_id, alloc=64)) is None  # other modes only read


def test_mode_pages_come_as_current_changeable_and_default_values(tmp_path: Path) -> None:
    """With compression switched off, the current values say DCE 0 and the defaults DCE 1; the changeable mask says
    DCE may change. sdparm --pdt=1 reads all three."""
    inner = open_virtual(f"virtual:lto9?cartridge={tmp_path / 'c.img'}")
    with TapeDrive(inner, device="virtual:lto9") as setup:
        setup.set_compression(False)
        ticket = collect_from(Guard(setup.transport), "virtual:lto9")
    with zipfile.ZipFile(write(ticket, tmp_path / "t.zip")) as zf:
        zf.extractall(tmp_path / "x")
    captured = {c.name: c.data for c in ticket.captures}
    dce = {name: (captured[f"mode/{name}"] or b"")[8 + 8 + 2] >> 7 for name in
           ("all_pages", "all_pages_changeable", "all_pages_default")}  # header, block descriptor, page 0Fh byte 2
    assert dce == {"all_pages": 0, "all_pages_changeable": 1, "all_pages_default": 1}
    if shutil.which("sdparm"):
        for name, value in dce.items():
            got = subprocess.run(["sdparm", "--pdt=1", "--all", f"--inhex=mode/{name}.hex"], cwd=tmp_path / "x",
                                 capture_output=True, text=True, timeout=30)
            fields = dict(line.split()[:2] for line in got.stdout.splitlines() if line.startswith("  ") and
                          len(line.split()) >= 2)
            assert fields["DCE"] == str(value), (name, got.stdout)


def test_the_encryption_pages_carry_the_key_descriptors(tmp_path: Path) -> None:
    device = f"virtual:lto9?cartridge={tmp_path / 'c.img'}&realtime=0&encrypt=1&keydesc=BACKUP-KEY-2024"
    inner = open_virtual(device)
    with TapeDrive(inner, device="virtual:lto9") as drive:
        drive.write(b"a" * 4096)
        drive.write(b"b" * 4096)
        drive.rewind()
        drive.read(4096)  # the drive has read here: it knows the next block
        ticket = collect_from(Guard(drive.transport), "virtual:lto9")
    with zipfile.ZipFile(write(ticket, tmp_path / "t.zip")) as zf:
        status = zf.read("encryption/page_0020h.txt").decode()
        block = zf.read("encryption/page_0021h.txt").decode()
        summary = zf.read("SUMMARY.txt").decode()
    assert "key in use descriptor   U-KAD (unauthenticated): BACKUP-KEY-2024" in status
    assert "logical object number 1" in block and "encrypted, and the drive can decrypt it" in block
    assert "block's key descriptor   U-KAD (unauthenticated): BACKUP-KEY-2024" in block
    assert "Next block's key, descriptor" in summary and "BACKUP-KEY-2024" in summary


def test_the_ticket_carries_this_drives_recorded_runs_and_no_other(tmp_path: Path) -> None:
    mine, other = f"virtual:lto9?serial=HU0000MINE&cartridge={tmp_path / 'a.cart'}", \
        f"virtual:lto9?serial=HU000OTHER&cartridge={tmp_path / 'b.cart'}"
    assert main(["info", mine]) in (0, 10, 12) and main(["info", other]) in (0, 10, 12)
    assert main(["tape-perf", mine, "--size", "4M", "--json"]) in (0, 10)
    out = tmp_path / "t.zip"
    assert main(["ticket", mine, "-o", str(out)]) == 0
    with zipfile.ZipFile(out) as zf:
        runs = json.loads(zf.read("runs.json"))
        summary = zf.read("SUMMARY.txt").decode()
    assert sorted(r["kind"] for r in runs) == ["drive-info", "tape-perf"]
    assert all("HU0000MINE" in json.dumps(r["results"]) for r in runs)
    assert all(r["samples"] == [] and r["results"] for r in runs)  # results, not samples
    assert "2 run(s) on drive serial HU0000MINE" in summary


def test_the_capture_sends_nothing_that_changes_state_and_every_query_once(tmp_path: Path) -> None:
    guard = Guard(open_virtual(f"virtual:lto9?cartridge={tmp_path / 'c.img'}&tapealert=3"))
    ticket = collect_from(guard, "virtual:lto9")
    assert ticket.info is not None and ticket.captured > 20
    queries = [c for c in guard.cdbs if c[0] in (0x4D, 0x12, 0x1A, 0x5A, 0x8C, 0xA2, 0xA3, 0x3C)]
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
    ran, _ = check_every_decode(out, tmp_path / "x")  # tgt's pages, each decoded as a tape's where the tool is here
    summary = (tmp_path / "x/SUMMARY.txt").read_text()
    assert "IET" in summary and "ILLEGAL REQUEST" in summary  # pages tgt lacks are listed with its answer
    assert "error_history/directory" in summary.split("How to decode")[0]  # tgt has no error history: said so
    if shutil.which("sdparm"):  # tgt answers no LOG SENSE: its INQUIRY, VPD and mode pages are what sg3_utils reads
        assert {shlex.split(c)[0] for c in ran} >= {"sg_inq", "sg_vpd", "sdparm", "sg_decode_sense"}, ran

    disk = tgt_factory(device_type="disk", size_mb=8)
    before = hashlib.sha256(disk.cartridge_path.read_bytes()).hexdigest()
    capsys.readouterr()
    assert main(["ticket", disk.url, "-o", str(tmp_path / "disk.zip")]) == 2
    err = capsys.readouterr().err.strip().splitlines()
    assert len(err) == 1 and "not a tape drive" in err[0]
    assert not (tmp_path / "disk.zip").exists()
    assert hashlib.sha256(disk.cartridge_path.read_bytes()).hexdigest() == before


@pytest.mark.tgt
def test_no_chap_secret_and_no_host_name_in_the_ticket(tgt_factory, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    """A CHAP-protected tgt LUN given with its secret in the device string: the zip (summary, pages' comments,
    decoded info, runs) shows the device without the secret, and nowhere the host's name."""
    user, secret = "tdticket", "Tk7SecretChap42"  # tgt wants a 12-16 character secret
    tape = tgt_factory()
    tape._adm("--lld", "iscsi", "--op", "new", "--mode", "account", "--user", user, "--password", secret)
    tape._adm("--lld", "iscsi", "--op", "bind", "--mode", "account", "--tid", "1", "--user", user)
    with_secret = tape.url.replace("iscsi://", f"iscsi://{user}%{secret}@")
    assert main(["info", with_secret]) in (0, 10, 12)  # a recorded run of this drive
    out = tmp_path / "chap.zip"
    assert main(["ticket", with_secret, "-o", str(out)]) == 0
    host = socket.gethostname()
    with zipfile.ZipFile(out) as zf:
        blobs = {name: zf.read(name) for name in zf.namelist()}
    assert not [n for n, b in blobs.items() if secret.encode() in b]
    if len(host) >= 4 and host not in ("localhost", "debian"):
        assert not [n for n, b in blobs.items() if host.encode() in b], host
    assert f"iscsi://{user}@" in blobs["SUMMARY.txt"].decode()
    assert json.loads(blobs["runs.json"]), "the info run of this drive is in the ticket"


def test_bad_output_paths_are_one_line_before_the_drive_is_opened(tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
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
