"""``info`` shows the path's maximum transfer and the command timeouts, in text and JSON (issue 13)."""
from __future__ import annotations

import json

from app.info_view import render_text
from app.drive import Supported, TapeDrive
from app.info import gather
from native.transport import DEFAULT_TIMEOUT, CommandResult, TransferLimit, Transport


class LimitedPath(Transport):
    """The virtual drive behind a host that reports a maximum transfer, as the pass-through does."""

    def __init__(self, limit: TransferLimit | None) -> None:
        self.inner = TapeDrive.open("virtual:lto9?realtime=0").transport
        self.device = "limited:lto9"
        self.limit = limit

    def execute(self, cdb, *, data_out=None, data_in=0, timeout=DEFAULT_TIMEOUT) -> CommandResult:  # type: ignore[no-untyped-def]
        return self.inner.execute(cdb, data_out=data_out, data_in=data_in, timeout=timeout)

    def transfer_limit(self) -> TransferLimit | None:
        return self.limit

    def close(self) -> None:
        self.inner.close()


def test_a_host_limit_below_the_largest_block_is_shown_with_its_source_and_a_note() -> None:
    limit = TransferLimit(512 << 10, "SCSI host host2: max_sectors 1024 (512 KiB)")
    with TapeDrive(LimitedPath(limit)) as drive:
        info = gather(drive)
    assert info.max_transfer == Supported(limit)
    text = render_text(info)
    assert "Maximum transfer          512 KiB (SCSI host host2: max_sectors 1024 (512 KiB))" in text
    assert "below the drive's maximum block (16,777,215 bytes)" in text
    data = json.loads(json.dumps(info.to_dict()))
    assert data["max_transfer"] == {"supported": True, "max_bytes": 512 << 10, "source": limit.source}


def test_the_timeouts_and_their_source_are_in_text_and_json() -> None:
    with TapeDrive(LimitedPath(None)) as drive:
        info = gather(drive)
    text = render_text(info)
    assert "Maximum transfer          not reported by this path" in text
    assert "Command timeouts\n  Source                    reported by the drive\n" in text
    assert "  READ(6)                   25 min (the drive's)\n" in text
    assert "  REWIND                    3 h (tapediag's minimum; the drive recommends 20 min)\n" in text
    data = json.loads(json.dumps(info.to_dict()))
    timeouts = data["command_timeouts"]
    assert timeouts["supported"] and timeouts["reported"] and timeouts["source"] == "reported by the drive"
    rewind = next(c for c in timeouts["commands"] if c["command"] == "REWIND")
    assert rewind == {"command": "REWIND", "opcode": 1, "seconds": 10800.0, "default": 10800.0, "recommended": 1200}


def test_tape_perf_refuses_an_io_size_the_path_cannot_carry_before_writing() -> None:
    """The OS/HBA would fail the first WRITE mid-run; the run is refused first, naming what fits."""
    import pytest

    from app.tapeperf import TapePerfTest
    from app.tapeperf.params import TapePerfParams
    from native.errors import InvalidParameter
    from tests.helpers.faults import FaultyTransport

    path = LimitedPath(TransferLimit(768 << 10, "SCSI host host2: max_sectors 1536 (768 KiB)"))
    spy = FaultyTransport(path)
    with TapeDrive(spy) as drive:
        params = TapePerfParams(direction="write", block_size=256 << 10, io_size=1 << 20, size=8 << 20)
        with pytest.raises(InvalidParameter) as refused:
            TapePerfTest(drive, params).run()
    assert "larger than the largest transfer this path accepts (786,432 bytes; SCSI host host2" in str(refused.value)
    assert refused.value.hint == "use --io-size 768 KiB or less"
    sent = {cdb[0] for cdb in spy.calls}
    assert not sent & {0x0A, 0x10, 0x15, 0x55, 0x01}  # no WRITE, filemark, MODE SELECT, not even a REWIND
