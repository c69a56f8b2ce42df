"""``info`` shows the parser types of ``native.scsi`` and keeps its stored form: ``DriveInfo.to_dict()``
writes, field for field and in the same order, what it wrote when it held copies of them, and a stored
run reads back (``DriveInfo.from_dict``) into the same parser types, shown and judged as it ran.

``tests/data/drive_info_stored.json`` holds, for five virtual drives (an HP drive with every drive-wide
page and alarm, an IBM one, an empty drive, a write-protected LTO-6, a drive whose TEST UNIT READY
fails), every answer the drive gave to ``gather``, and the ``to_dict()`` and the text the code before this
change (main at fe51e28, with its copies of the parser types) wrote from them. The answers are replayed here,
so the comparison does not move when the emulator does. Regenerate the file only with a version of the
stored form (and an upgrade of the old rows)."""
from __future__ import annotations

import json
from collections import defaultdict, deque
from pathlib import Path
from typing import Any

import pytest

from app.drive import Supported, TapeDrive
from app.info import DriveInfo, gather
from app.info.stored import SECTIONS
from app.info_view import render_text
from app.runs.typed import from_dict
from native.scsi.devicelogs import DtStatus, PortStatus
from native.scsi.logpages import ErrorCounters, TapeAlertFlag
from native.scsi.mam import Mam
from native.scsi.mode import ModeData
from native.scsi.tape import BlockLimits
from native.transport import DEFAULT_TIMEOUT, Buffer, CommandResult, Transport, WritableBuffer

RECORDED: dict[str, dict[str, Any]] = json.loads((Path(__file__).parent / "data" / "drive_info_stored.json").read_text())
NAMES = sorted(RECORDED)


class Replay(Transport):
    """The recorded drive: each CDB gets the answers it got then, in the order it got them."""

    def __init__(self, name: str) -> None:
        self.device = name
        self.answers: dict[str, deque[list[Any]]] = defaultdict(deque)
        for cdb, *answer in RECORDED[name]["answers"]:
            self.answers[cdb].append(answer)

    def execute(self, cdb: bytes, *, data_out: Buffer | None = None, data_in: int | WritableBuffer = 0,
                timeout: float = DEFAULT_TIMEOUT) -> CommandResult:
        queue = self.answers[bytes(cdb).hex()]
        assert queue, f"{bytes(cdb).hex()} was not asked when the drive was recorded"
        status, sense, data = queue.popleft()
        raw = bytes.fromhex(data)
        return CommandResult(status, bytes.fromhex(sense), memoryview(raw), len(raw))


def _stored(name: str) -> dict[str, Any]:
    return RECORDED[name]["stored"]


def _gathered(name: str) -> DriveInfo:
    with TapeDrive(Replay(name), device=name) as drive:
        return gather(drive)


@pytest.mark.parametrize("name", NAMES)
def test_to_dict_writes_what_it_wrote_before_key_for_key_in_order(name: str) -> None:
    written = _gathered(name).to_dict()
    before = _stored(name)
    assert written == before
    assert json.dumps(written) == json.dumps(before)  # the same order too: `info --json` prints it as it is


def test_the_sections_hold_the_parser_types_not_copies() -> None:
    info = _gathered("hp_full")
    expected = {"media": ModeData, "block_limits": BlockLimits, "cartridge": Mam, "write_errors": ErrorCounters,
                "device_status": DtStatus}
    for name, cls in expected.items():
        section = getattr(info, name)
        assert isinstance(section, Supported) and isinstance(section.value, cls), name
    assert isinstance(info.tapealerts, Supported) and all(isinstance(a, TapeAlertFlag) for a in info.tapealerts.value)
    assert isinstance(info.ports, Supported) and all(isinstance(p, PortStatus) for p in info.ports.value)


@pytest.mark.parametrize("name", NAMES)
def test_a_stored_run_reads_back_into_the_parser_types_and_writes_the_same(name: str) -> None:
    stored = _stored(name)
    back = from_dict(DriveInfo, stored)  # what `show`, reports and the GUI's history do
    assert back.to_dict() == stored
    for section in SECTIONS:
        assert (stored[section]["supported"] is True) == isinstance(getattr(back, section), Supported), section


@pytest.mark.parametrize("name", NAMES)
def test_the_text_is_what_it_was_and_a_stored_run_is_shown_as_it_ran(name: str) -> None:
    text = RECORDED[name]["text"]  # what `tapediag info` printed before the change
    assert render_text(_gathered(name)) == text
    assert render_text(DriveInfo.from_dict(_stored(name))) == text


def test_a_section_a_drive_did_not_report_reads_back_with_its_reason() -> None:
    stored = _stored("empty")
    back = DriveInfo.from_dict(stored)
    assert not isinstance(back.cartridge, Supported) and back.cartridge.reason == stored["cartridge"]["reason"]
