"""Media scan (issue 16): a customer's cartridge read BOT to EOD, nothing written, nothing left changed."""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest

from app.cli import main
from app.drive import STATE_CHANGING_OPCODES, ReadOnlyRefusal, TapeDrive
from app.scan import MediaScan, ScanParams
from app.scan.results import CartridgeVerdict
from native.transport import DEFAULT_TIMEOUT, CommandResult, Transport
from native.virtual import open_virtual
from tests.helpers.faults import FaultyTransport, medium_error_read

#: What "another backup application" wrote: (block sizes of each file), filemark after each.
LAYOUT = ([65536] * 12, [1000, 3000, 5000, 3000, 1000], [262144] * 3)


def write_foreign(transport: Transport, layout=LAYOUT) -> None:  # type: ignore[no-untyped-def]
    """Blocks written with hand-built CDBs (REWIND, WRITE(6) variable, WRITE FILEMARKS), not tapediag's engine."""
    def ok(cdb: bytes, data: bytes | None = None) -> None:
        result = transport.execute(cdb, data_out=data)
        assert result.status == 0, (cdb.hex(), result.sense.hex())

    ok(bytes([0x01, 0, 0, 0, 0, 0]))  # REWIND
    if transport.execute(bytes([0x00] * 6)).status != 0:  # a fresh cartridge reports UNIT ATTENTION once
        ok(bytes([0x00] * 6))
    ok(bytes([0x15, 0x10, 0, 0, 12, 0]), bytes([0, 0, 0x10, 8, 0, 0, 0, 0, 0, 0, 0, 0]))  # MODE SELECT: variable
    for n, file in enumerate(layout):
        for i, size in enumerate(file):
            ok(bytes([0x0A, 0, (size >> 16) & 0xFF, (size >> 8) & 0xFF, size & 0xFF, 0]), bytes([n + i & 0xFF]) * size)
        ok(bytes([0x10, 0, 0, 0, 1, 0]))  # WRITE FILEMARKS 1
    ok(bytes([0x01, 0, 0, 0, 0, 0]))


class Guard(Transport):
    def __init__(self, inner: Transport) -> None:
        self.inner, self.device = inner, inner.device

    def execute(self, cdb, *, data_out=None, data_in=0, timeout=DEFAULT_TIMEOUT) -> CommandResult:  # type: ignore[no-untyped-def]
        assert cdb[0] not in STATE_CHANGING_OPCODES, f"{STATE_CHANGING_OPCODES[cdb[0]]} was sent"
        return self.inner.execute(cdb, data_out=data_out, data_in=data_in, timeout=timeout)

    def close(self) -> None:
        self.inner.close()


class SlowReads(Transport):
    """Every ``every``-th READ takes ``pause`` s longer: a drive repositioning while the host keeps up."""

    def __init__(self, inner: Transport, every: int, pause: float) -> None:
        self.inner, self.device, self.every, self.pause, self.reads = inner, inner.device, every, pause, 0

    def execute(self, cdb, *, data_out=None, data_in=0, timeout=DEFAULT_TIMEOUT) -> CommandResult:  # type: ignore[no-untyped-def]
        if cdb[0] == 0x08:
            self.reads += 1
            if self.reads % self.every == 0:
                time.sleep(self.pause)
        return self.inner.execute(cdb, data_out=data_out, data_in=data_in, timeout=timeout)

    def close(self) -> None:
        self.inner.close()


class SlowZone(Transport):
    """A stretch of the tape the drive reads slowly (retries): READs number ``first``..``last`` cost
    ``slow`` s each, every other READ ``normal`` s, on a clock of its own that the scan reads (no sleeping,
    so a busy test machine cannot make a zone slow that the test did not)."""

    def __init__(self, inner: Transport, first: int, last: int, normal: float = 0.005, slow: float = 0.05) -> None:
        self.inner, self.device, self.first, self.last = inner, inner.device, first, last
        self.normal, self.slow, self.reads, self.t = normal, slow, 0, 0.0

    def clock(self) -> float:
        return self.t

    def execute(self, cdb, *, data_out=None, data_in=0, timeout=DEFAULT_TIMEOUT) -> CommandResult:  # type: ignore[no-untyped-def]
        if cdb[0] == 0x08:
            self.reads += 1
            self.t += self.slow if self.first <= self.reads <= self.last else self.normal
        return self.inner.execute(cdb, data_out=data_out, data_in=data_in, timeout=timeout)

    def close(self) -> None:
        self.inner.close()


def _records(cart: Path) -> str:
    return hashlib.sha256(cart.read_bytes()[64 << 10:]).hexdigest()


@pytest.fixture
def foreign_cart(tmp_path: Path) -> Path:
    cart = tmp_path / "foreign.img"
    t = open_virtual(f"virtual:lto9?realtime=0&cartridge={cart}")
    try:
        write_foreign(t)
    finally:
        t.close()
    return cart


def test_scan_reports_the_layout_another_application_wrote_and_writes_nothing(foreign_cart: Path) -> None:
    before = _records(foreign_cart)
    with TapeDrive(Guard(open_virtual(f"virtual:lto9?realtime=0&cartridge={foreign_cart}"))) as drive:
        result = MediaScan(drive, ScanParams(zone_bytes=1_000_000)).run()
    assert result.end_reason == "end of data" and not result.partial
    assert [(f.blocks, f.min_block, f.max_block, f.bytes) for f in result.files] == [
        (len(f), min(f), max(f), sum(f)) for f in LAYOUT]
    assert result.filemarks == 3 and result.read.bytes == sum(map(sum, LAYOUT))
    assert result.verdict is CartridgeVerdict.KEEP and "without a read error" in result.reasons[0]
    assert result.settings.startswith("no setting changed")
    assert _records(foreign_cart) == before


def test_a_drive_in_fixed_mode_is_put_back_and_a_read_only_session_refuses_to_switch(foreign_cart: Path) -> None:
    with TapeDrive.open(f"virtual:lto9?realtime=0&cartridge={foreign_cart}") as drive:
        drive.wait_ready(timeout=10)
        drive.set_block_size(65536)
        with pytest.raises(ReadOnlyRefusal, match="fixed-block mode"):
            MediaScan(TapeDrive(drive.transport, read_only=True), ScanParams()).run()
        result = MediaScan(drive, ScanParams()).run()
        assert drive.block_size() == 65536  # as found
    assert "put back to fixed 65536" in result.settings
    assert len(result.files) == 3


def test_partial_scan_and_cli_exit_codes(foreign_cart: Path, capsys: pytest.CaptureFixture[str]) -> None:
    dev = f"virtual:lto9?realtime=0&cartridge={foreign_cart}"
    assert main(["scan", dev, "--limit", "100K", "--json"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert out["partial"] and out["end_reason"] == "limit reached" and out["verdict"] == "keep"
    assert "partial scan" in out["reasons"][0]
    assert main(["scan", dev, "--limit", ""]) == 2
    assert len(capsys.readouterr().err.strip().splitlines()) == 1
    blank = foreign_cart.with_name("blank.img")
    assert main(["scan", f"virtual:lto9?realtime=0&cartridge={blank}"]) == 12  # nothing to judge
    assert "blank cartridge" in capsys.readouterr().out


def test_an_unrecovered_read_error_retires_the_cartridge(foreign_cart: Path) -> None:
    inner = open_virtual(f"virtual:lto9?realtime=0&cartridge={foreign_cart}")
    faulty = FaultyTransport(inner).inject(medium_error_read(), opcode=0x08, after=5)
    with TapeDrive(faulty) as drive:
        result = MediaScan(drive, ScanParams()).run()
    assert result.end_reason == "error" and result.verdict is CartridgeVerdict.RETIRE
    assert "MEDIUM ERROR" in result.reasons[0] and "copy what can be read" in result.reasons[0]


def test_pauses_while_the_host_kept_up_are_counted_as_repositions(foreign_cart: Path) -> None:
    slow = SlowReads(open_virtual(f"virtual:lto9?realtime=0&cartridge={foreign_cart}"), every=4, pause=0.3)
    with TapeDrive(slow) as drive:
        result = MediaScan(drive, ScanParams()).run()
    assert len(result.read.stalls) >= 4
    assert result.verdict is CartridgeVerdict.MONITOR
    assert any("repositioned" in r for r in result.reasons)


def test_a_zone_of_slow_reads_is_reported_as_a_slow_zone(tmp_path: Path) -> None:
    cart = tmp_path / "slow.img"
    block = 250_000
    t = open_virtual(f"virtual:lto9?realtime=0&cartridge={cart}")
    try:
        write_foreign(t, ([block] * 40,))  # 10 MB in one file: ten 1 MB zones of four blocks
    finally:
        t.close()
    slow = SlowZone(open_virtual(f"virtual:lto9?realtime=0&cartridge={cart}"), first=17, last=24)  # blocks 16-23
    with TapeDrive(slow) as drive:
        result = MediaScan(drive, ScanParams(zone_bytes=1_000_000), clock=slow.clock).run()
    assert [(z.start_byte, round(z.drive_mb_s, 1)) for z in result.slow_zones] == [(4_000_000, 5.0), (5_000_000, 5.0)]
    assert result.typical_zone_mb_s == pytest.approx(50.0)  # four 250 kB blocks in 20 ms
    assert not result.read.stalls  # slow, not stopped: no repositioning claimed
    assert result.verdict is CartridgeVerdict.MONITOR
    assert any(r.startswith("2 slow zones: the drive read 4.0-5.0 MB at 5.0 MB/s, 5.0-6.0 MB at 5.0 MB/s")
               for r in result.reasons)
    from app.cli.scan import summary_lines
    from app.runs import fields

    assert "  slow zone 4.0-5.0 MB: the drive read it at 5.0 MB/s (typical zone 50.0 MB/s)" in summary_lines(result)
    assert dict(fields("media-scan", result.to_dict()))["Slow zones"].startswith("4.0-5.0 MB at 5.0 MB/s")
    # The same cartridge read evenly: no slow zone, and the cartridge is kept.
    even = SlowZone(open_virtual(f"virtual:lto9?realtime=0&cartridge={cart}"), first=0, last=-1)
    with TapeDrive(even) as drive:
        again = MediaScan(drive, ScanParams(zone_bytes=1_000_000), clock=even.clock).run()
    assert again.slow_zones == [] and again.verdict is CartridgeVerdict.KEEP


def test_a_zone_the_host_was_slow_in_is_not_a_slow_zone() -> None:
    """The rule judges the drive's own time (its READs' latencies), not the wall clock."""
    from app.scan.results import Zone, slow_zones

    zones = [Zone(i * 1_000_000, 1_000_000, 0.02, 0.02) for i in range(6)]
    zones[2] = Zone(2_000_000, 1_000_000, 0.5, 0.02)  # the host stalled for 0.48 s; the drive did not
    zones[4] = Zone(4_000_000, 1_000_000, 0.2, 0.2)  # the drive took ten times as long: retries
    slow, typical = slow_zones(zones + [Zone(6_000_000, 10_000, 0.1, 0.1)], 1_000_000)  # a short tail is not judged
    assert [z.start_byte for z in slow] == [4_000_000] and typical == pytest.approx(50.0)
    assert slow_zones(zones[:3], 1_000_000) == ([], None)  # too few zones to know what is typical


@pytest.mark.tgt
def test_scan_on_tgt_reads_a_foreign_tape_and_leaves_its_file_unchanged(tgt_target) -> None:  # type: ignore[no-untyped-def]
    from native import open_transport

    t = open_transport(tgt_target.url)
    try:
        write_foreign(t)
    finally:
        t.close()
    before = hashlib.sha256(tgt_target.cartridge_path.read_bytes()).hexdigest()
    with TapeDrive.open(tgt_target.url) as drive:
        result = MediaScan(drive, ScanParams()).run()
    assert [(f.blocks, f.bytes) for f in result.files] == [(len(f), sum(f)) for f in LAYOUT]
    assert result.verdict is CartridgeVerdict.KEEP
    assert any("reports no read error counters" in r for r in result.reasons)
    assert hashlib.sha256(tgt_target.cartridge_path.read_bytes()).hexdigest() == before
