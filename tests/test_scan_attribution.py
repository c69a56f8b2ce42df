"""Issue 25 §1, 27 §1: the media scan names the cartridge only for what the tape did.

Real parts: the virtual drive in real time (its model's timing, its own lag figure), a CPU
burner on every core started here, tgt over iSCSI, and the CLI, ``show`` and the PDF's page 1.
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app.cli import main
from app.drive import TapeDrive
from app.execute import execute
from app.scan.kind import MEDIA_SCAN
from app.events import CancelToken, Progress
from app.visits import Prior
from app.scan import MediaScan, ScanParams
from app.scan.results import CartridgeVerdict
from native.virtual import open_virtual
from tests.test_scan import write_foreign

#: 2.6 GB of all-zero 256 KiB records written with compression off: 2.6 GB of tape that costs no disk (the
#: virtual cartridge stores no zero block), read at LTO-9's 400 MB/s: five 500 MB zones of about 1.25 s, and a tail.
DATA = "2600MB"
ZONE = "500MB"


def _page_one(run_id: int, tmp_path: Path, capsys: pytest.CaptureFixture[str] | None = None) -> str:
    """Page 1 of the run's PDF report as text (what is printed on the way is taken off ``capsys``)."""
    pdf = tmp_path / f"run{run_id}.pdf"
    assert main(["report", str(run_id), "-o", str(pdf)]) == 0
    if capsys is not None:
        capsys.readouterr()
    text = subprocess.run(["pdftotext", "-f", "1", "-l", "1", str(pdf), "-"], capture_output=True,
                          text=True, check=True).stdout
    return " ".join(text.split())


@pytest.fixture(scope="module")
def written(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A brand-new virtual LTO-9 cartridge with 2.5 GB on it, written by tapediag's own tape test."""
    cart = tmp_path_factory.mktemp("cart") / "new.cart"
    data = tmp_path_factory.mktemp("data")
    got = subprocess.run([str(Path(sys.executable).with_name("tapediag")), "tape-perf",
                          f"virtual:lto9?realtime=0&cartridge={cart}", "--size", DATA, "--direction", "write",
                          "--pattern", "zeros", "--compression", "off"],
                         env={**os.environ, "TAPEDIAG_DATA_DIR": str(data)}, capture_output=True, text=True, timeout=600)
    assert got.returncode == 0, got.stderr
    return cart


def _burners() -> list[subprocess.Popen[bytes]]:
    """A CPU burner on every core (two per core), at the scan's own priority."""
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2 * (os.cpu_count() or 1))]


@pytest.mark.slow
def test_a_new_cartridge_on_a_busy_host_is_kept(written: Path, capsys: pytest.CaptureFixture[str]) -> None:
    burners = _burners()
    try:
        code = main(["scan", f"virtual:lto9?cartridge={written}", "--zone", ZONE, "--json"])
    finally:
        for p in burners:
            p.kill()
            p.wait()
    out = json.loads(capsys.readouterr().out)
    assert out["end_reason"] == "end of data" and out["read"]["bytes"] > 2_500_000_000
    # The rule was armed (five full zones of one record size), and nothing the host did marked the cartridge.
    assert sum(1 for z in out["zones"] if z["left_out"] != "tail") == 5
    assert (code, out["verdict"], out["slow_zones"], out["cartridge_signals"]) == (0, "keep", [], []), out["reasons"]
    assert all(f["culprit"] == "host" for f in out["findings"])  # what the host did is a note about the host


@pytest.mark.slow
def test_the_host_storage_slowing_down_for_a_zone_is_this_machines_not_the_tapes(
        written: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """The cartridge file's storage slows down for the third zone (a busy host's disk: each 256 KiB block 3 ms
    late, about 80 MB/s as in the issue): the virtual drive falls behind its model there. That zone is this
    machine's, and the cartridge is kept."""
    from native.virtual.cartridge import Cartridge

    original, calls = Cartridge.read_into, [0]
    first, last = 1_000_000_000 // (1 << 18) + 1, 1_500_000_000 // (1 << 18)  # the blocks of 1.0-1.5 GB

    def read_into(self: Cartridge, pos: int, buf: memoryview) -> int:
        calls[0] += 1
        if first <= calls[0] <= last:
            time.sleep(0.003)  # the host's storage, not the drive: inside the emulator, before its deadline
        return original(self, pos, buf)

    monkeypatch.setattr(Cartridge, "read_into", read_into)
    with TapeDrive.open(f"virtual:lto9?cartridge={written}") as drive:
        result = MediaScan(drive, ScanParams.from_text(None, ZONE), prior=lambda keys: Prior()).run()
    third = result.zones[2]
    assert third.left_out == "machine" and third.lag_seconds > 2.0, third
    # On the drive's time as it was judged before (the READs' latencies, the machine's lag in them) the zone was
    # "slow": a worn stretch of tape, MONITOR.
    others = [z for z in result.zones if z is not third and not z.left_out]
    raw = third.bytes / (third.drive_seconds + third.lag_seconds)
    assert raw < 0.5 * min(z.drive_mb_s * 1e6 for z in others)
    assert result.verdict is CartridgeVerdict.KEEP and result.slow_zones == [] and result.exit_code == 0
    notes = [f.text for f in result.findings]
    # The slowed zone is among those left out; on a busy machine the emulator may lag in others too, which
    # the same note then counts (never against the cartridge).
    assert any(" not judged: this machine slowed the virtual drive there" in n for n in notes), notes
    assert all(f.culprit == "host" for f in result.findings)


@pytest.mark.slow
def test_a_worn_stretch_of_tape_is_found_seen_once_then_monitored(written: Path, tmp_path: Path,
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """badtape=: the drive rereads 1.0-1.5 GB of tape four times over. Found on the drive's own time; one scan says
    check again (exit 13), the second names the first and says MONITOR (exit 10), in the CLI, show and the PDF."""
    dev = f"virtual:lto9?cartridge={written}&buffer=64M&badtape=1000MB-1500MB"
    assert main(["scan", dev, "--zone", ZONE]) == 13
    text = capsys.readouterr().out
    assert "cartridge: CHECK AGAIN" in text and "drive: " not in text  # never the head while the tape may be it
    if "seen once: 1 slow zone" not in text:
        # The load of this machine, measured in the same scan (the virtual drive's lag, the host's share), hid the
        # drive's own rate in the worn zone: whether the errors came with a slow stretch is not known, said so.
        assert " not judged: this machine slowed" in text or " not judged: the host" in text, text
        assert "whether a slow stretch of tape came with them is not known" in text, text
        return
    assert "seen once: 1 slow zone: the drive read 1.0-1.5 GB at" in text
    assert "scan again (in another drive if there is one) to confirm" in text
    first = int(text.rsplit("Recorded as run ", 1)[1].split()[0])
    assert "Check again" in _page_one(first, tmp_path, capsys)
    code = main(["scan", dev, "--zone", ZONE, "--json"])
    out = json.loads(capsys.readouterr().out)
    if not out["slow_zones"]:  # this scan's worn zone hidden by the load, as above
        assert any(z["left_out"] in ("machine", "host") for z in out["zones"]), out["zones"]
        assert code == 13 and "whether a slow stretch of tape came with them is not known" in out["reasons"][0], out
        return
    assert code == 10
    (zone,) = out["slow_zones"]
    assert out["verdict"] == "monitor" and abs(zone["start_byte"] - 1_000_000_000) < 1 << 20  # zones end on blocks
    assert f"seen before in run {first} (" in out["reasons"][-1] and "in the same drive each time" in out["reasons"][-1]
    corrected = next(d["delta"] for d in out["log_deltas"] if d["name"] == "read errors corrected")
    assert corrected >= 500_000_000 * 3 // (400 * 1024)  # the rereads, counted as corrected read errors
    assert main(["show", str(out["run_id"])]) == 0
    assert "cartridge: MONITOR" in capsys.readouterr().out
    page = _page_one(out["run_id"], tmp_path)
    assert "CARTRIDGE" in page and "Monitor" in page and f"run {first}" in page


def test_a_worn_drive_head_is_a_drive_finding_and_the_cartridge_is_kept(tmp_path: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    cart = tmp_path / "c.cart"
    assert main(["tape-perf", f"virtual:lto9?realtime=0&cartridge={cart}", "--size", "256M", "--direction",
                 "write"]) == 0
    capsys.readouterr()
    assert main(["scan", f"virtual:lto9?realtime=0&cartridge={cart}&wornhead=5000"]) == 10  # the drive: watch
    text = capsys.readouterr().out
    assert "cartridge: KEEP" in text and "cartridge: MONITOR" not in text
    # 256 MiB read at 5,000 corrected errors per 10^9 bytes: 1,342 of them.
    assert "drive: the drive counted 1,342 corrected read errors in 268 MB (4,999.3 per GB), spread over the whole " \
           "read with no slow stretch: the mark of a dirty or worn head, or of a cartridge worn all over (seen once" \
           in text
    assert "what to do: Clean the drive with a cleaning cartridge and scan again" in text
    run_id = int(text.rsplit("Recorded as run ", 1)[1].split()[0])
    page = _page_one(run_id, tmp_path)
    assert "CARTRIDGE" in page and "Keep" in page and "DRIVE (SEEN IN THE SCAN)" in page
    assert "Dirty or worn head: 4,999 corrected read errors per GB" in page


@pytest.mark.parametrize(("flags", "code", "verdict", "culprit"), [
    ("20", 10, "keep", "drive"),  # 14h cleaning required: the drive's, Attention as info rates it
    ("30", 11, "keep", "drive"),  # 1Eh hardware A: Critical, Failing
    ("4", 11, "retire", None),  # 04h media: the cartridge's
])
def test_a_tapealert_raised_mid_scan_is_in_the_verdict_and_the_exit_code(tmp_path: Path, capsys, flags: str,  # type: ignore[no-untyped-def]
                                                                        code: int, verdict: str,
                                                                        culprit: str | None) -> None:
    cart = tmp_path / "c.cart"
    t = open_virtual(f"virtual:lto9?realtime=0&cartridge={cart}")
    try:
        write_foreign(t, ([65536] * 200,))
    finally:
        t.close()
    assert main(["scan", f"virtual:lto9?realtime=0&cartridge={cart}&alertat={flags}@4M", "--json"]) == code
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == verdict and out["exit_code"] == code
    drive = [f for f in out["findings"] if f["culprit"] == "drive"]
    assert [f["culprit"] for f in drive] == ([culprit] if culprit else [])
    page = _page_one(out["run_id"], tmp_path)
    flag = f"{int(flags):02X}h"
    assert flag in page


@pytest.mark.tgt
@pytest.mark.parametrize("zone", ["1MB", "4MB", "20MB", None])
def test_a_label_file_of_64k_records_beside_1m_data_is_kept_on_tgt(tgt_factory, zone: str | None,  # type: ignore[no-untyped-def]
                                                                   capsys: pytest.CaptureFixture[str]) -> None:
    """60x1048576,FM,300x65536,FM,FM: a backup application's everyday layout. Its 64 KiB file reads slower per byte
    (the commands' overhead), which is no worn stretch of tape."""
    from native import open_transport

    tape = tgt_factory(size_mb=128)
    t = open_transport(tape.url)
    try:
        write_foreign(t, ([1 << 20] * 60, [1 << 16] * 300, []))
    finally:
        t.close()
    assert main(["scan", tape.url, "--json"] + (["--zone", zone] if zone else [])) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["verdict"] == "keep" and out["slow_zones"] == [], out["reasons"]
    assert [(f["blocks"], f["max_block"]) for f in out["files"]] == [(60, 1 << 20), (300, 1 << 16), (0, 0)]
    assert out["cartridge_signals"] == []


@pytest.mark.tgt
def test_a_scan_cut_off_by_a_lost_connection_gives_no_cartridge_verdict(tgt_factory, tmp_path: Path) -> None:
    """tgtd killed once 8 MB have been read: the scan read part of the data, and not the tape stopped it."""
    from app.scan.text import summary_lines
    from app.scan.results import ScanResult
    from native import open_transport

    tape = tgt_factory(size_mb=160)
    t = open_transport(tape.url)
    try:
        write_foreign(t, ([1 << 16] * 2000,))  # 131 MB: seconds of 64 KiB READs
    finally:
        t.close()

    def sink(event: object) -> None:
        if isinstance(event, Progress) and event.done_bytes >= 8_000_000:
            tape.kill()  # once: a second call finds it dead

    params = ScanParams(zone_bytes=4_000_000)
    run = execute(MEDIA_SCAN, params, tape.url, cancel=CancelToken(), sink=sink)
    run_id, result = run.run_id, run.result
    assert isinstance(result, ScanResult) and result.end_reason == "lost" and result.status == "failed"
    assert result.verdict is CartridgeVerdict.NOT_ASSESSED and 0 < result.read.bytes < 131_072_000
    assert result.reasons[0].startswith("the scan was cut off after") and "no verdict on the cartridge" in \
        result.reasons[0]
    text = "\n".join(summary_lines(result))
    assert "cartridge: NOT ASSESSED" in text and "read everything" not in text and "KEEP" not in text
    assert "path: the connection to the drive was lost mid-scan" in text
    data = result.to_dict()
    assert data["verdict"] == "not assessed" and not any("read everything" in r for r in data["reasons"])
    page = _page_one(run_id, tmp_path)
    assert "Not assessed" in page and "Keep" not in page and "CONNECTION TO THE DRIVE" in page
