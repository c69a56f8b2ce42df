"""LTFS cartridges (issue 30 §3): recognised from what mkltfs wrote, in info, in the scan and in the write refusal.

The volume is the one the LTFS reference implementation's mkltfs formatted (``tests/data/ltfs-mkltfs``),
written through the virtual drive with partitions (``tests/helpers/ltfs.py``). tgt's tape LUN cannot hold
one: it has no partitions (checked below)."""
from __future__ import annotations

import hashlib
from pathlib import Path

import pytest

from app.cli import main
from app.drive import STATE_CHANGING_OPCODES, TapeDrive
from app.scan import MediaScan, ScanParams
from app.visits import Prior
from native.errors import IllegalRequest, ParseError
from native.scsi import cdb as C
from native.scsi.ltfs import CoherencyInfo, from_mam
from native.scsi.ltfs_labels import IndexHeader, LtfsLabel, Vol1Label
from native.scsi.mam import Mam
from native.transport import DEFAULT_TIMEOUT, CommandResult, Transport
from native.virtual import open_virtual
from tests.helpers.ltfs import MKLTFS, VOLUME_NAME, VOLUME_UUID, WRITTEN_BY, write_mkltfs_volume

EXIT_REFUSED = 3


def _mam(partition: int) -> Mam:
    raw = b"".join(p.read_bytes() for p in sorted(MKLTFS.glob(f"attr_{partition}_*")))
    return Mam.parse(len(raw).to_bytes(4, "big") + raw)


def test_the_layouts_decode_what_mkltfs_wrote() -> None:
    vol1 = Vol1Label.parse((MKLTFS / "0_0_R").read_bytes())
    assert vol1 is not None and vol1.is_ltfs and vol1.volume_id == "TD0001" and vol1.version == "4"
    label = LtfsLabel.parse((MKLTFS / "0_2_R").read_bytes())
    assert (label.version, label.creator, label.volume_uuid) == ("2.4.0", WRITTEN_BY, VOLUME_UUID)
    assert (label.partition, label.index_partition, label.data_partition, label.blocksize) == ("a", "a", "b", 524288)
    index = IndexHeader.parse((MKLTFS / "0_5_R").read_bytes())
    assert (index.volume_name, index.generation, index.volume_uuid) == (VOLUME_NAME, 1, VOLUME_UUID)
    for partition in (0, 1):
        coherency = _mam(partition).get(0x080C)
        assert coherency is not None
        parsed = CoherencyInfo.parse(coherency.raw)
        assert parsed is not None and parsed.volume_uuid == VOLUME_UUID and parsed.generation == 1 and parsed.index_block == 5
    volume = from_mam(_mam(0))
    assert volume is not None
    assert volume.describe() == f"LTFS volume '{VOLUME_NAME}' (UUID {VOLUME_UUID}), written by IBM LTFS 2.4.8.4"


def test_what_is_not_ltfs_or_is_damaged_is_said_so() -> None:
    assert Vol1Label.parse(b"VOL1ABC123" + b" " * 70) is not None
    assert not Vol1Label.parse(b"VOL1ABC123" + b" " * 70).is_ltfs  # an ANSI label of another application
    assert Vol1Label.parse(bytes(80)) is None and Vol1Label.parse(b"VOL1") is None
    label = (MKLTFS / "0_2_R").read_bytes()
    with pytest.raises(ParseError):
        LtfsLabel.parse(label[: len(label) // 2])
    with pytest.raises(ParseError):  # no entity from a customer's tape is ever expanded
        LtfsLabel.parse(b'<?xml version="1.0"?><!DOCTYPE x [<!ENTITY a "aaaa">]><ltfslabel>&a;</ltfslabel>')
    other = bytearray((MKLTFS / "attr_0_80c").read_bytes()[5:])
    other[27:31] = b"XXXX"
    assert CoherencyInfo.parse(bytes(other)) is None  # another application's coherency information
    assert from_mam(Mam.parse(bytes(4))) is None


@pytest.fixture
def ltfs_cartridge(tmp_path: Path) -> str:
    dev = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'ltfs.cart'}"
    with TapeDrive(open_virtual(dev)) as drive:
        write_mkltfs_volume(drive)
    return dev


def _records(dev: str) -> str:
    """Both partitions' records (after the 64 KiB header, whose counters every load changes)."""
    cart = Path(dev.split("cartridge=")[1].split("&")[0])
    return "".join(hashlib.sha256(p.read_bytes()[64 << 10:]).hexdigest() for p in (cart, Path(f"{cart}.p1")))


def test_info_names_the_ltfs_volume_without_moving_the_tape(ltfs_cartridge: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["info", ltfs_cartridge]) == 0
    out = capsys.readouterr().out
    assert f"LTFS volume '{VOLUME_NAME}' (UUID {VOLUME_UUID}), written by IBM LTFS 2.4.8.4: holds data" in out
    assert "Partitions                2" in out
    assert main(["info", ltfs_cartridge, "--json"]) == 0
    import json

    info = json.loads(capsys.readouterr().out)
    assert info["ltfs"]["name"] == VOLUME_NAME and info["ltfs"]["partitions"] == 2


class Recording(Transport):
    """Passes commands through and keeps their opcodes."""

    def __init__(self, inner: Transport) -> None:
        self.inner, self.device, self.opcodes = inner, inner.device, []  # type: list[int]

    def execute(self, cdb, *, data_out=None, data_in=0, timeout=DEFAULT_TIMEOUT) -> CommandResult:  # type: ignore[no-untyped-def]
        self.opcodes.append(cdb[0])
        return self.inner.execute(cdb, data_out=data_out, data_in=data_in, timeout=timeout)

    def close(self) -> None:
        self.inner.close()


def test_positioning_between_partitions_is_not_a_state_change() -> None:
    for opcode in (C.LOCATE_10, C.LOCATE_16, C.SPACE_6, 0x91, C.REWIND, C.READ_POSITION):
        assert opcode not in STATE_CHANGING_OPCODES


def test_the_scan_reads_both_partitions_read_only_and_puts_the_tape_back(ltfs_cartridge: str) -> None:
    before = _records(ltfs_cartridge)
    transport = Recording(open_virtual(ltfs_cartridge))
    with TapeDrive(transport) as drive:
        drive.locate(0, partition=1)  # where LTFS (or an application) left it
        sent = len(transport.opcodes)
        result = MediaScan(drive, ScanParams(), prior=lambda keys: Prior()).run()
        assert drive.read_position().partition == 1
    assert not set(transport.opcodes[sent:]) & set(STATE_CHANGING_OPCODES)
    assert result.ltfs is not None and result.ltfs.name == VOLUME_NAME and result.ltfs.written_by == WRITTEN_BY
    assert result.partitions == 2 and result.end_reason == "end of data"
    assert {f.partition for f in result.files} == {0, 1}
    sizes = [(f.partition, f.max_block) for f in result.files if f.blocks]
    # each partition: the VOL1 label, the LTFS label, the index (mkltfs's own sizes)
    assert sizes == [(0, 80), (0, 489), (0, 1009), (1, 80), (1, 489), (1, 898)]
    assert "partition 1" in result.settings
    assert _records(ltfs_cartridge) == before


def test_the_scan_command_names_the_volume(ltfs_cartridge: str, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["scan", ltfs_cartridge]) == 0
    out = capsys.readouterr().out
    assert f"LTFS volume '{VOLUME_NAME}' (UUID {VOLUME_UUID}), written by {WRITTEN_BY}: holds data" in out
    assert "file 4 (partition 1)" in out


@pytest.mark.parametrize("start", ["bot", "eod"])
def test_a_write_is_refused_naming_the_ltfs_volume(ltfs_cartridge: str, start: str, capsys: pytest.CaptureFixture[str]) -> None:
    before = _records(ltfs_cartridge)
    assert main(["tape-perf", ltfs_cartridge, "--size", "4M", "--start", start]) == EXIT_REFUSED
    err = capsys.readouterr().err
    assert f"refused: LTFS volume '{VOLUME_NAME}' (UUID {VOLUME_UUID}), written by" in err and ": holds data" in err
    assert _records(ltfs_cartridge) == before


@pytest.mark.tgt
def test_tgt_has_no_partitions_to_hold_an_ltfs_volume(tgt_target) -> None:  # type: ignore[no-untyped-def]
    """Why the LTFS cartridge is made on the virtual drive: tgt 1.0.85's SSC has no medium partition page,
    no FORMAT MEDIUM and no WRITE ATTRIBUTE (each ILLEGAL REQUEST, so nothing was written), and tapediag reads its
    one partition as before."""
    from app import ltfs
    from native import open_transport

    with TapeDrive(open_transport(tgt_target.url)) as drive:
        assert ltfs.partition_count(drive) is None
        for cdb in (C.format_medium(), C.write_attribute(4)):
            with pytest.raises(IllegalRequest):
                drive._command(cdb, data_out=bytes(4) if cdb[0] == C.WRITE_ATTRIBUTE else None)
        assert ltfs.recognise(drive, labels=True) is None
