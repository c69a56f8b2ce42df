"""What the watch asks the drive (only queries, only before and after) and the streaming floor it draws
from the answers: the virtual LTO drive answers as a drive would, its compression page included."""
from __future__ import annotations

from pathlib import Path

import pytest

from app import drive as drive_module
from app.drive import TapeDrive
from app.patterns import Pattern
from app.watch.drivequery import ALLOWED, DriveQuery, QueriesOnly
from app.watch.floor import streaming_floor
from native import open_transport
from native.errors import DevicePermissionDenied, SafetyRefusal
from native.scsi import cdb as C


class Counting(QueriesOnly):
    """QueriesOnly around a real transport, counting what reached it."""

    def __init__(self, inner) -> None:
        super().__init__(inner)
        self.reached = 0
        self._execute = inner.execute
        inner.execute = self._count  # what gets past QueriesOnly

    def _count(self, cdb, **kwargs):
        self.reached += 1
        return self._execute(cdb, **kwargs)


@pytest.fixture
def virtual(tmp_path: Path) -> str:
    return f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}"


def test_the_drive_is_asked_before_and_after_and_its_ratio_read(virtual: str) -> None:
    """Between the two looks another program writes 2:1 data (here: straight through the same virtual
    drive, past watch's guard): the ratio is the drive's own, from its Data Compression page."""
    inner = open_transport(virtual)
    guarded = Counting(inner)
    guarded.close = lambda: None  # the virtual drive lives for both looks, as a real drive would
    query = DriveQuery("/dev/sg9", opener=lambda sg: guarded)
    query.begin()
    assert query.figures.queried and query.figures.generation == 9
    backup = TapeDrive(inner)
    blocks = Pattern.parse("2:1").generator(256 * 1024)
    for i in range(64):
        backup.write(blocks.block(i))
    figures = query.end()
    assert figures.ratio == pytest.approx(2.0, rel=0.15), (figures.ratio, figures.ratio_note)
    assert "Data Compression log page (1Bh)" in figures.ratio_note
    names = {s.split(" at ")[0] for s in figures.sent}
    assert names and all(n.split(" ")[0] in ("INQUIRY", "LOG", "REPORT") for n in names), names
    assert any("(before the watch)" in s for s in figures.sent) and any("(after the watch)" in s for s in figures.sent)
    assert not any("2Eh" in s for s in figures.sent), "reading TapeAlert 2Eh would clear the backup's flags"


@pytest.mark.parametrize("cdb", [C.rewind(), C.write_filemarks(1), C.space(1), C.load_unload(load=False),
                                 bytes([0x4C, 0x02, 0, 0, 0, 0, 0, 0, 0, 0]), bytes([0x15, 0x10, 0, 0, 12, 0]),
                                 bytes([0xA3, 0x0A, 0, 0, 0, 0, 0, 0, 0x10, 0, 0, 0])])
def test_nothing_but_queries_reaches_the_drive(virtual: str, cdb: bytes) -> None:
    guarded = Counting(open_transport(virtual))
    with pytest.raises(SafetyRefusal, match="sends a drive in use nothing but INQUIRY"):
        guarded.execute(cdb)
    assert guarded.reached == 0 and guarded.sent == []


def test_the_allowed_commands_change_nothing() -> None:
    """The allow-list and the drive's list of state-changing commands do not meet."""
    assert not set(ALLOWED) & set(drive_module.STATE_CHANGING_OPCODES)


def test_a_drive_that_cannot_be_asked_leaves_the_kernel_figures_and_says_why() -> None:
    def refused(sg: str) -> QueriesOnly:
        raise DevicePermissionDenied(f"cannot open {sg}", device=sg, hint="add the user to the 'tape' group")

    query = DriveQuery("/dev/sg1", opener=refused)
    query.begin()
    figures = query.end()
    assert not figures.queried and figures.sent == []
    assert figures.why_not == "/dev/sg1 may not be opened by this user: add the user to the 'tape' group"
    none = DriveQuery(None)
    none.begin()
    assert "no SCSI generic node beside the st node" in none.end().why_not


def test_a_job_below_the_slowest_step_gets_the_floor_and_what_to_do() -> None:
    floor = streaming_floor(9, vendor="IBM", form="full height", ratio=1.6, delivered_mb_s=120, busy_share=0.22)
    assert floor.below and floor.streams_needed == 3 and floor.host_floor_mb_s == pytest.approx(283.2)
    assert floor.line == ("LTO-9 full height matches down to about 177 MB/s native; at this data's 1.6:1 that is "
                          "283.2 MB/s from the host; the job delivered 120.0 MB/s, below the drive's slowest speed: it "
                          "stops and repositions (shoe-shining; its busy share fell to 22%): use 3 streams at once "
                          "(multiplexing), or a faster source")
    assert "TS4300" in floor.source and floor.fit == ""


def test_a_drive_that_was_the_limit_is_not_advised_a_faster_feed() -> None:
    floor = streaming_floor(9, vendor="IBM", form="full height", ratio=1.0, delivered_mb_s=40, busy_share=0.95,
                            drive_bound=True)
    assert floor.below and floor.streams_needed is None
    assert floor.line.endswith("below that, yet the drive was busy 95% of the time: not a slow feed but a slow drive "
                               "or path (see the verdict)")


def test_far_below_the_floor_the_advice_is_a_faster_source_not_dozens_of_streams() -> None:
    floor = streaming_floor(9, vendor="IBM", form="full height", ratio=1.0, delivered_mb_s=4.2, busy_share=0.2)
    assert floor.below and floor.streams_needed is None
    assert floor.line.endswith("a source 42 times faster is needed (more than 8 streams at this rate)")


def test_a_job_above_the_floor_streams_and_an_unknown_drive_is_not_judged() -> None:
    floor = streaming_floor(8, vendor="HPE", form=None, ratio=None, delivered_mb_s=200, busy_share=0.9)
    assert floor.below is False and floor.host_floor_mb_s == 112
    assert "the drive reported no compression ratio, so at 1:1 (native)" in floor.line
    assert "IBM's published figures for its LTO-8 drives (HPE publishes none tapediag knows of)" in floor.fit
    unknown = streaming_floor(None, vendor="IET", form=None, ratio=None, delivered_mb_s=30, busy_share=0.9)
    assert unknown.below is None and unknown.line.startswith("not judged: the drive's LTO generation is not known")
    lto5 = streaming_floor(5, vendor="HP", form=None, ratio=2.0, delivered_mb_s=30, busy_share=0.2)
    assert lto5.below is None and "no vendor speed-matching table for LTO-5" in lto5.line
