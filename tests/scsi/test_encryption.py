"""Tape data encryption status (SECURITY PROTOCOL IN 20h), read-only: parsers, the virtual drive, info."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from app.drive import Supported, TapeDrive
from app.info import gather
from native.scsi import cdb as C
from native.scsi.encryption import Algorithm, EncryptionCapabilities, EncryptionStatus
from native.errors import ParseError
from native.virtual import open_virtual
from tests.helpers.faults import FaultyTransport

CAPS = EncryptionCapabilities(config_prevented=0, algorithms=(Algorithm(1, 2, 2, 32, 0x00010014),
                                                              Algorithm(2, 1, 3, 32, 0x80010400)))
STATUS = EncryptionStatus(nexus_scope=1, key_scope=2, encryption_mode=2, decryption_mode=3, algorithm_index=1,
                          key_instance_counter=0x01020304, volume_has_encrypted_blocks=True, raw_decryption_disabled=True)


def test_round_trips() -> None:
    caps = EncryptionCapabilities.parse(CAPS.build())
    assert caps == CAPS and caps.capable and [a.name for a in caps.algorithms] == ["AES-256-GCM-128", "algorithm 0x80010400"]
    status = EncryptionStatus.parse(STATUS.build())
    assert status == STATUS and status.encrypting and status.decryption_mode_name.startswith("mixed")
    off = EncryptionStatus(0, 0, 0, 0, 0, 0, False, False)
    assert EncryptionStatus.parse(off.build()).encryption_mode_name == "off"


def test_the_wrong_page_is_a_parse_error() -> None:
    for parse, data in ((EncryptionCapabilities.parse, STATUS.build()), (EncryptionStatus.parse, CAPS.build())):
        try:
            parse(data)
        except ParseError as err:
            assert "page code" in str(err)
        else:
            raise AssertionError("parsed a page with the wrong code")


@settings(max_examples=300, deadline=None)
@given(which=st.booleans(), cut=st.integers(0, 80), pos=st.integers(0, 67), byte=st.integers(0, 255), tail=st.binary(max_size=40))
def test_truncated_or_garbled_pages_raise_only_parse_error(which: bool, cut: int, pos: int, byte: int, tail: bytes) -> None:
    seed = CAPS.build() if which else STATUS.build()
    data = (seed[:pos] + bytes([byte]) + seed[pos + 1:])[:cut] + tail
    try:
        (EncryptionCapabilities.parse if which else EncryptionStatus.parse)(data)
    except ParseError:
        pass


def _virtual(tmp_path: Path, encrypt: int) -> str:
    return f"virtual:lto9?cartridge={tmp_path / 'c.cart'}&realtime=0&capacity=64M&encrypt={encrypt}"


def test_info_reads_encryption_without_moving_the_tape(tmp_path: Path) -> None:
    with TapeDrive.open(_virtual(tmp_path, 1)) as drive:  # put a block on the volume first
        drive.write(b"x" * 4096)
        drive.write_filemarks(1)
    transport = FaultyTransport(open_virtual(_virtual(tmp_path, 1)))
    with TapeDrive(transport) as drive:
        drive.space(1, C.SpaceCode.FILEMARKS)
        before = drive.read_position().first_block
        start = len(transport.calls)
        info = gather(drive)
        sent = transport.calls[start:]
        assert drive.read_position().first_block == before == 2
    assert isinstance(info.encryption, Supported)
    enc = info.encryption.value
    assert (enc.capable, enc.mode, enc.algorithm, enc.volume_has_encrypted_blocks, enc.key_instance_counter) == (
        True, "on (encrypting)", "AES-256-GCM-128", True, 1)
    security = [cdb for cdb in sent if cdb[0] == C.SECURITY_PROTOCOL_IN]
    assert [(cdb[1], int.from_bytes(cdb[2:4], "big")) for cdb in security] == [(0x20, 0x10), (0x20, 0x20)]
    motion = {C.REWIND, C.SPACE_6, C.LOCATE_10, C.LOCATE_16, C.LOAD_UNLOAD, C.READ_6, C.WRITE_6, C.ERASE_6, 0xB5}
    assert not [cdb for cdb in sent if cdb[0] in motion]  # nothing moved, nothing set (no SECURITY PROTOCOL OUT)
    assert info.to_dict()["encryption"]["mode"] == "on (encrypting)"


def test_encryption_off_and_blank_volume(tmp_path: Path) -> None:
    with TapeDrive.open(_virtual(tmp_path, 0)) as drive:
        info = gather(drive)
    enc = info.encryption.value
    assert (enc.capable, enc.mode, enc.algorithm, enc.volume_has_encrypted_blocks) == (True, "off", None, False)
