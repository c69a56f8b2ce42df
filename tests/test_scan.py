"""Media scan (issue 16): a customer's cartridge read BOT to EOD, nothing written, nothing left changed."""
from __future__ import annotations

import hashlib
import json
import time
from pathlib import Path

import pytest

from app.cli import main
from app.drive import STATE_CHANGING_OPCODES, ReadOnlyRefusal, TapeDrive
from app.visits import Prior
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


def test_pauses_while_the_host_kept_up_are_seen_once_then_monitored(foreign_cart: Path) -> None:
    """Repositions while the host kept up: one scan says "check again"; a second sighting (an earlier scan of the
    same cartridge, here in another drive) makes it MONITOR, naming that run and drive."""
    from app.history.keys import RunKeys
    from app.visits import Visit

    slow = SlowReads(open_virtual(f"virtual:lto9?realtime=0&cartridge={foreign_cart}"), every=4, pause=0.3)
    with TapeDrive(slow) as drive:
        once = MediaScan(drive, ScanParams(), prior=lambda keys: Prior()).run()
    assert len(once.read.drive_stalls) >= 4 and {s.cause for s in once.read.stalls} == {"drive"}
    assert once.verdict is CartridgeVerdict.CHECK_AGAIN and once.exit_code == 13
    assert once.reasons[0].startswith("seen once: the drive repositioned") and "scan again" in once.reasons[0]
    assert once.cartridge_signals == ["repositions"]
    seen: list[RunKeys] = []

    def prior(keys: RunKeys) -> Prior:
        seen.append(keys)
        return Prior(cartridge=(Visit(7, "media-scan", "2026-11-20T10:00:00", "OTHERDRIVE1", keys.barcode,
                                      keys.mam_serial, 0.1, 0, 0, False, True, ("repositions",)),))

    slow = SlowReads(open_virtual(f"virtual:lto9?realtime=0&cartridge={foreign_cart}"), every=4, pause=0.3)
    with TapeDrive(slow) as drive:
        twice = MediaScan(drive, ScanParams(), prior=prior).run()
    assert [(k.barcode, k.mam_serial) for k in seen] == [(once.cartridge["barcode"], once.cartridge["serial"])]
    assert twice.verdict is CartridgeVerdict.MONITOR and twice.exit_code == 10
    assert "seen before in run 7 (2026-11-20, drive OTHERDRIVE1), in 2 different drives: it is the cartridge" \
        in twice.reasons[0]


def test_a_zone_of_slow_reads_is_reported_as_a_slow_zone(tmp_path: Path) -> None:
    cart = tmp_path / "slow.img"
    block = 250_000
    t = open_virtual(f"virtual:lto9?realtime=0&cartridge={cart}")
    try:
        write_foreign(t, ([block] * 160,))  # 40 MB in one file: ten 4 MB zones of sixteen blocks
    finally:
        t.close()
    # READs 65-96 are blocks 64-95: zones 16-20 MB and 20-24 MB, at a seventh of the others' rate (each READ
    # slower, none stopped: 7 times the typical READ is no stall).
    slow = SlowZone(open_virtual(f"virtual:lto9?realtime=0&cartridge={cart}"), first=65, last=96, normal=0.1, slow=0.7)
    with TapeDrive(slow) as drive:
        result = MediaScan(drive, ScanParams(zone_bytes=4_000_000), clock=slow.clock,
                           prior=lambda keys: Prior()).run()
    assert [(z.start_byte, round(z.drive_mb_s, 2)) for z in result.slow_zones] == [(16_000_000, 0.36),
                                                                                    (20_000_000, 0.36)]
    assert result.typical_zone_mb_s == pytest.approx(2.5)  # sixteen 250 kB blocks in 1.6 s
    assert not result.read.stalls  # slow, not stopped: no repositioning claimed
    assert result.verdict is CartridgeVerdict.CHECK_AGAIN  # one scan: seen once
    assert any(r.startswith("seen once: 2 slow zones: the drive read 16.0-20.0 MB at 0.4 MB/s (typical 2.5 MB/s "
                            "for 256 KiB records), 20.0-24.0 MB at 0.4 MB/s") for r in result.reasons), result.reasons
    from app.scan.kind import rows
    from app.scan.text import summary_lines
    from tests.helpers.kinds import typed

    assert "  slow zone 16.0-20.0 MB: the drive read it at 0.4 MB/s (typical zone 2.5 MB/s)" in summary_lines(result)
    assert dict(rows(typed("media-scan", result.to_dict())))["Slow zones"].startswith("16.0-20.0 MB at 0.4 MB/s")
    # The same cartridge read evenly: no slow zone, and the cartridge is kept.
    even = SlowZone(open_virtual(f"virtual:lto9?realtime=0&cartridge={cart}"), first=0, last=-1, normal=0.1)
    with TapeDrive(even) as drive:
        again = MediaScan(drive, ScanParams(zone_bytes=4_000_000), clock=even.clock).run()
    assert again.slow_zones == [] and again.verdict is CartridgeVerdict.KEEP


def test_a_zone_the_host_or_this_machine_was_slow_in_is_not_judged() -> None:
    """The rule judges the drive's own time (its READs' latencies, less what this machine made an emulated drive
    fall behind), in zones where the host kept up and long enough to tell from chance."""
    from app.scan.results import Zone, slow_zones

    def zone(i: int, seconds: float, drive: float, lag: float = 0.0, reads: int = 20) -> Zone:
        return Zone(i * 1_000_000, 1_000_000, seconds, drive, 1 << 18, 0, lag, reads)

    zones = [zone(i, 1.0, 1.0) for i in range(7)]
    zones[2] = zone(2, 5.0, 1.0)  # the host stalled for 4 s between READs: 80 % of the zone is the host's
    zones[3] = zone(3, 4.0, 1.0, lag=3.0)  # the virtual drive fell 3 s behind its model there: this machine
    zones[4] = zone(4, 10.0, 10.0)  # the drive took ten times as long: retries
    zones[5] = zone(5, 0.2, 0.2, reads=3)  # too short to tell from chance
    slow, typical = slow_zones(zones + [Zone(7_000_000, 10_000, 0.1, 0.1, 1 << 18, 0, 0.0, 1)], 1_000_000)
    assert [z.start_byte for z in slow] == [4_000_000] and typical == pytest.approx(1.0)
    assert [z.left_out for z in zones] == ["", "", "host", "machine", "", "short", ""]
    assert slow_zones(zones[:3], 1_000_000) == ([], None)  # too few zones to know what is typical


def test_zones_are_compared_only_with_zones_of_their_own_record_size() -> None:
    """A backup application's 64 KiB label file reads slower per byte than its 1 MiB data (the commands' overhead):
    it is no slow stretch. Each record size fills its own zones, judged against its own median."""
    from app.scan.results import slow_zones, zones_from
    from app.tapeperf.results import SampleLog

    log, t = SampleLog("read"), 0.0
    for size, count, latency in ((1 << 20, 400, 0.0125), (1 << 16, 3200, 0.005), (1 << 20, 400, 0.0125)):
        for _ in range(count):  # 1 MiB at 84 MB/s, 64 KiB at 13 MB/s, then 1 MiB again
            t += latency
            log.add(t, latency, size)
    zones = zones_from(log, 100_000_000, [])
    assert {z.record_size for z in zones} == {1 << 16, 1 << 20}
    slow, typical = slow_zones(zones, 100_000_000)
    assert slow == [] and typical == pytest.approx((1 << 20) / 0.0125 / 1e6)
    small = [z for z in zones if z.record_size == 1 << 16 and not z.left_out]
    assert len(small) == 2 and all(z.drive_mb_s == pytest.approx(13.1072) for z in small)
    big = [z for z in zones if z.record_size == 1 << 20 and not z.left_out]
    assert len(big) == 8 and any(z.start_byte < small[0].start_byte < z.end_byte for z in big)  # one spans the label
    # Compared with the 1 MiB zones, as one list of zones used to be, the 64 KiB ones would all have been "slow".
    assert all(z.drive_mb_s < 0.5 * typical for z in small)


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
