"""Tape data encryption status (SECURITY PROTOCOL IN 20h), read-only: parsers, the virtual drive, info."""
from __future__ import annotations

from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from app.drive import Supported, TapeDrive
from app.info import gather
from native.scsi import cdb as C
from native.scsi.encryption import Algorithm, EncryptionCapabilities, EncryptionStatus, KeyDescriptor, NextBlockStatus
from native.errors import ParseError
from native.virtual import open_virtual
from tests.helpers.faults import FaultyTransport

CAPS = EncryptionCapabilities(config_prevented=0, algorithms=(Algorithm(1, 2, 2, 32, 0x00010014),
                                                              Algorithm(2, 1, 3, 32, 0x80010400)))
STATUS = EncryptionStatus(nexus_scope=1, key_scope=2, encryption_mode=2, decryption_mode=3, algorithm_index=1,
                          key_instance_counter=0x01020304, volume_has_encrypted_blocks=True, raw_decryption_disabled=True)

UKAD = KeyDescriptor(kind=0x00, authenticated=1, value=b"BACKUP-KEY-2024")
KEYED = EncryptionStatus(nexus_scope=0, key_scope=0, encryption_mode=2, decryption_mode=2, algorithm_index=1,
                         key_instance_counter=7, volume_has_encrypted_blocks=True, raw_decryption_disabled=False,
                         kad_format=2, descriptors=(UKAD, KeyDescriptor(0x02, 1, bytes(range(12)))))
NEXT = NextBlockStatus(logical_object=41, compression_status=0, encryption_status=5, algorithm_index=1,
                       encryption_mode_external=False, raw_decryption_disabled=True, kad_format=2, descriptors=(UKAD,))


def test_round_trips() -> None:
    caps = EncryptionCapabilities.parse(CAPS.build())
    assert caps == CAPS and caps.capable and [a.name for a in caps.algorithms] == ["AES-256-GCM-128", "algorithm 0x80010400"]
    status = EncryptionStatus.parse(STATUS.build())
    assert status == STATUS and status.encrypting and status.decryption_mode_name.startswith("mixed")
    off = EncryptionStatus(0, 0, 0, 0, 0, 0, False, False)
    assert EncryptionStatus.parse(off.build()).encryption_mode_name == "off"
    keyed = EncryptionStatus.parse(KEYED.build())
    assert keyed == KEYED and [d.text for d in keyed.descriptors] == ["BACKUP-KEY-2024", "000102030405060708090a0b"]
    assert [d.kind_name for d in keyed.descriptors] == ["U-KAD (unauthenticated)", "nonce"]
    nbes = NextBlockStatus.parse(NEXT.build())
    assert nbes == NEXT and nbes.status_name == "encrypted, and the drive can decrypt it"


def test_key_descriptors_sit_where_stenc_reads_them() -> None:
    """stenc (src/scsiencrypt.h) reads the status page's descriptors from byte 24 and the next block page's from
    byte 16, each a 4-byte header (type, authenticated, length) and the value: the same bytes here."""
    status, nbes = KEYED.build(), NEXT.build()
    assert status[24:28] == bytes([0x00, 0x01, 0x00, 15]) and status[28:43] == b"BACKUP-KEY-2024"
    assert status[13] == 0x02 and nbes[12] & 0x0F == 5 and nbes[4:12] == (41).to_bytes(8, "big")
    assert nbes[16:20] == bytes([0x00, 0x01, 0x00, 15]) and nbes[20:35] == b"BACKUP-KEY-2024"


def test_the_wrong_page_is_a_parse_error() -> None:
    for parse, data in ((EncryptionCapabilities.parse, STATUS.build()), (EncryptionStatus.parse, CAPS.build())):
        try:
            parse(data)
        except ParseError as err:
            assert "page code" in str(err)
        else:
            raise AssertionError("parsed a page with the wrong code")


@settings(max_examples=300, deadline=None)
@given(which=st.integers(0, 2), cut=st.integers(0, 80), pos=st.integers(0, 67), byte=st.integers(0, 255),
       tail=st.binary(max_size=40))
def test_truncated_or_garbled_pages_raise_only_parse_error(which: int, cut: int, pos: int, byte: int, tail: bytes) -> None:
    seed = (CAPS.build(), KEYED.build(), NEXT.build())[which]
    data = (seed[:pos] + bytes([byte]) + seed[pos + 1:])[:cut] + tail
    try:
        (EncryptionCapabilities.parse, EncryptionStatus.parse, NextBlockStatus.parse)[which](data)
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
    assert [(cdb[1], int.from_bytes(cdb[2:4], "big")) for cdb in security] == [(0x20, 0x10), (0x20, 0x20), (0x20, 0x21)]
    assert enc.next_block == "block 2: not a logical block (a filemark or end of data)"  # what the drive knows there
    motion = {C.REWIND, C.SPACE_6, C.LOCATE_10, C.LOCATE_16, C.LOAD_UNLOAD, C.READ_6, C.WRITE_6, C.ERASE_6, 0xB5}
    assert not [cdb for cdb in sent if cdb[0] in motion]  # nothing moved, nothing set (no SECURITY PROTOCOL OUT)
    assert info.to_dict()["encryption"]["mode"] == "on (encrypting)"


def test_encryption_off_and_blank_volume(tmp_path: Path) -> None:
    with TapeDrive.open(_virtual(tmp_path, 0)) as drive:
        info = gather(drive)
    enc = info.encryption.value
    assert (enc.capable, enc.mode, enc.algorithm, enc.volume_has_encrypted_blocks) == (True, "off", None, False)


def test_info_shows_the_key_descriptors_of_the_key_in_use_and_of_a_block_read(tmp_path: Path) -> None:
    """The virtual drive with ``encrypt=1&keydesc=``: 0020h carries the U-KAD; 0021h says "not yet read" until the
    drive has read at the position, then the block's status and its U-KAD (as stenc prints both)."""
    device = _virtual(tmp_path, 1) + "&keydesc=BACKUP-KEY-2024"
    with TapeDrive.open(device) as drive:
        drive.write(b"x" * 4096)
        drive.write(b"y" * 4096)
        drive.write_filemarks(1)
    with TapeDrive.open(device) as drive:
        before = gather(drive).encryption
        drive.read(4096)
        after = gather(drive).encryption
    assert isinstance(before, Supported) and isinstance(after, Supported)
    assert before.value.key_descriptors == ("U-KAD (unauthenticated): BACKUP-KEY-2024",)
    assert before.value.next_block == "block 0: not yet read (the drive has not read that block)"
    assert before.value.next_block_key_descriptors == ()
    assert after.value.next_block == "block 1: encrypted, and the drive can decrypt it"
    assert after.value.next_block_key_descriptors == ("U-KAD (unauthenticated): BACKUP-KEY-2024",)


def test_a_key_descriptor_needs_an_encrypting_drive(tmp_path: Path) -> None:
    from native.errors import InvalidParameter
    from native.virtual.options import parse_device

    try:
        parse_device(f"virtual:lto9?cartridge={tmp_path / 'c.cart'}&keydesc=K1")
    except InvalidParameter as err:
        assert "encrypt=1" in (err.hint or "") and "keydesc=" in str(err)
    else:
        raise AssertionError("keydesc= without encrypt=1 was accepted")
