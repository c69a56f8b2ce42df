"""Leave the drive's settings as found (issue 11 §2): block mode and compression put back after a tape test."""
from __future__ import annotations

from pathlib import Path

import pytest

from app.drive import TapeDrive
from app.events import CancelToken, Event, SampleBatch
from app.patterns import Pattern
from app.tapeperf import TapePerfParams
from app.tapeperf.engine import TapePerfTest
from native.virtual import open_virtual
from tests.helpers.faults import FaultyTransport, connection_lost, medium_error_write

MiB = 1 << 20
FIXED_NO_COMPRESSION = dict(direction="write+read", pattern=Pattern.parse("2:1"), mode="fixed", block_size=256 << 10,
                            io_size=MiB, size=16 * MiB, compression="off", force=True)


def _state(drive: TapeDrive) -> tuple[int | None, bool | None]:
    page = drive.compression()
    return drive.block_size(), (page.dce if page is not None else None)


def test_a_fixed_mode_test_without_compression_puts_both_back(tmp_path: Path) -> None:
    with TapeDrive.open(f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}") as drive:
        drive.wait_ready(timeout=10)
        assert _state(drive) == (0, True)
        result = TapePerfTest(drive, TapePerfParams(**FIXED_NO_COMPRESSION)).run()
        assert result.status == "complete"
        assert _state(drive) == (0, True)
    assert result.settings == "drive settings put back: variable-block mode, compression on"


def test_a_drive_found_in_fixed_mode_is_left_in_it(tmp_path: Path) -> None:
    with TapeDrive.open(f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}") as drive:
        drive.wait_ready(timeout=10)
        drive.set_block_size(65536)
        TapePerfTest(drive, TapePerfParams(direction="write", mode="variable", block_size=MiB, io_size=MiB,
                                           size=8 * MiB, force=True)).run()
        assert drive.block_size() == 65536


@pytest.mark.parametrize("how", ["medium error", "cancel"])
def test_settings_are_put_back_after_a_failure_or_a_cancel(tmp_path: Path, how: str) -> None:
    inner = open_virtual(f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}")
    faulty = FaultyTransport(inner)
    cancel = CancelToken()
    if how == "medium error":
        faulty.inject(medium_error_write(), opcode=0x0A, after=4)
    with TapeDrive(faulty) as drive:
        drive.wait_ready(timeout=10)
        params = dict(FIXED_NO_COMPRESSION, size=None, duration=30.0) if how == "cancel" else FIXED_NO_COMPRESSION

        def sink(event: Event) -> None:  # cancelled once samples show data written (the settings were changed)
            if how == "cancel" and isinstance(event, SampleBatch):
                cancel.cancel()

        result = TapePerfTest(drive, TapePerfParams(**params)).run(sink, cancel=cancel)
        assert result.phases and result.phases[0].bytes > 0
        assert result.status == ("failed" if how == "medium error" else "cancelled")
        assert _state(drive) == (0, True)
    assert "put back" in result.settings


def test_a_lost_connection_says_what_could_not_be_put_back(tmp_path: Path) -> None:
    inner = open_virtual(f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}")
    faulty = FaultyTransport(inner).inject(connection_lost(), opcode=0x0A, after=2)
    with TapeDrive(faulty) as drive:
        result = TapePerfTest(drive, TapePerfParams(**FIXED_NO_COMPRESSION)).run()
    assert result.status == "failed"
    assert "could not be put back" in result.settings and "variable-block mode, compression on" in result.settings


@pytest.mark.tgt
def test_on_tgt_the_next_session_finds_variable_mode_and_a_second_run_works(tgt_target) -> None:  # type: ignore[no-untyped-def]
    for _ in range(2):
        with TapeDrive.open(tgt_target.url) as drive:
            result = TapePerfTest(drive, TapePerfParams(**dict(FIXED_NO_COMPRESSION, compression="leave"))).run()
            assert result.status == "complete", result.error
    with TapeDrive.open(tgt_target.url) as drive:
        drive.wait_ready(timeout=10)
        assert drive.block_size() == 0  # tgt keeps the mode across sessions: it must be the one found


def test_one_safety_decision_for_every_front_end() -> None:
    from app.tapeperf.safety import CartridgeState, decide

    assert decide(CartridgeState(), force=False) is None
    wp = decide(CartridgeState(write_protected=True), force=True)
    assert wp is not None and not wp.overridable and "write-protected" in str(wp)  # --force never lifts it
    worm = decide(CartridgeState(worm=True), force=True)
    assert worm is not None and not worm.overridable
    data = decide(CartridgeState(found="a block at BOT of 256 KiB", mam_mb_written=4096), force=False)
    assert data is not None and data.overridable and "4,096 MB written" in str(data)
    assert decide(CartridgeState(found="a block at BOT of 256 KiB"), force=True) is None


def test_the_gui_shows_the_engines_decision(tmp_path: Path) -> None:
    from ui import engines

    cart = tmp_path / "c.img"
    dev = f"virtual:lto9?realtime=0&cartridge={cart}"
    with TapeDrive.open(dev) as drive:
        TapePerfTest(drive, TapePerfParams(direction="write", size=4 * MiB, force=True)).run()
    check = engines.tapeperf_probe(dev, TapePerfParams())
    with TapeDrive.open(dev) as drive:
        with pytest.raises(Exception) as engine_refusal:
            TapePerfTest(drive, TapePerfParams(direction="write", size=4 * MiB)).run()
    assert check.refusal is not None and check.refusal.overridable
    assert str(check.refusal) == str(engine_refusal.value)
