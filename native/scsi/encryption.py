"""Tape data encryption status, read-only (SECURITY PROTOCOL IN, protocol 20h; SSC-4 8.5).

Three pages are read, never written (no SECURITY PROTOCOL OUT is ever sent):

* 0010h Data Encryption Capabilities: per algorithm, whether the drive can encrypt and
  decrypt, its key size and security algorithm code (e.g. 00010014h AES-256-GCM);
* 0020h Data Encryption Status: the current encryption / decryption mode, the algorithm
  in use, the key instance counter and VCELB ("volume contains encrypted logical
  blocks", which the drive knows from the cartridge without moving the tape), and the
  key-associated data descriptors of the key in use (the U-KAD a backup application
  names its key with, an A-KAD, a nonce or metadata);
* 0021h Next Block Encryption Status: whether the block at the current position is
  encrypted and the key-associated data recorded with it. The drive answers from what it
  has already read: before it has read that block it says so ("not yet read"), and
  tapediag never moves the tape to make the answer more informative (stenc 1.0's status
  command may read up to 100 blocks for that; tapediag does not).

Layouts: SSC-4 tables "Data Encryption Capabilities page", "Data Encryption Status page",
"Next Block Encryption Status page" and "Key-associated data descriptor", checked against
stenc (github.com/scsitape/stenc, src/scsiencrypt.h: page_dec, page_des, page_nbes, kad:
status page descriptors from byte 24, next block descriptors from byte 16; read, not copied).
"""
from __future__ import annotations

from dataclasses import dataclass

from native.scsi._bytes import bit, need, uint
from native.errors import ParseError

PAGE_CAPABILITIES = 0x0010
PAGE_STATUS = 0x0020
PAGE_NEXT_BLOCK = 0x0021

ENCRYPTION_MODES = {0: "off", 1: "external", 2: "on (encrypting)"}
DECRYPTION_MODES = {0: "off", 1: "raw (no decryption)", 2: "on (decrypting)", 3: "mixed (decrypts encrypted blocks)"}
#: Security algorithm codes (SFSC / SSC-4; the names as stenc prints them).
ALGORITHMS = {0x0001000C: "AES-256-CBC-HMAC-SHA-1", 0x00010010: "AES-256-CCM-128", 0x00010014: "AES-256-GCM-128",
              0x00010016: "AES-256-XTS-HMAC-SHA-512"}
ALGORITHM_DESCRIPTOR_LENGTH = 24
STATUS_DESCRIPTORS_AT = 24  # the status page's key-associated data descriptors start here
NEXT_BLOCK_DESCRIPTORS_AT = 16

#: KEY DESCRIPTOR TYPE of a key-associated data descriptor (SSC-4).
KAD_TYPES = {0x00: "U-KAD (unauthenticated)", 0x01: "A-KAD (authenticated)", 0x02: "nonce", 0x03: "M-KAD (metadata)"}
#: ENCRYPTION STATUS of the next block (SSC-4 Next Block Encryption Status page).
NEXT_BLOCK_STATUS = {0x0: "cannot be determined by this drive", 0x1: "not yet read (the drive has not read that block)",
                     0x2: "not a logical block (a filemark or end of data)", 0x3: "not encrypted",
                     0x4: "encrypted with an algorithm this drive does not support",
                     0x5: "encrypted, and the drive can decrypt it", 0x6: "encrypted, and the drive has no key for it"}


def algorithm_name(code: int) -> str:
    return ALGORITHMS.get(code, f"algorithm 0x{code:08X}")


def _page(data: bytes, code: int, what: str) -> bytes:
    """The page body (header checked), cut at its own length."""
    data = bytes(data)
    need(data, 4, what)
    if uint(data, 0, 2) != code:
        raise ParseError(f"{what}: page code 0x{uint(data, 0, 2):04X}, expected 0x{code:04X}")
    return data[: 4 + uint(data, 2, 2)]


@dataclass(frozen=True)
class KeyDescriptor:
    """One key-associated data descriptor: what the application recorded with its key (a U-KAD is text)."""

    kind: int  # KEY DESCRIPTOR TYPE
    authenticated: int  # AUTHENTICATED field (0 reserved, 1 not checked, 2 authenticated, 3 failed)
    value: bytes

    @property
    def kind_name(self) -> str:
        return KAD_TYPES.get(self.kind, f"type {self.kind:02X}h")

    @property
    def text(self) -> str:
        """The value as a person reads it: printable ASCII as text, anything else in hex."""
        if self.value and all(0x20 <= b < 0x7F for b in self.value.rstrip(b"\x00")):
            return self.value.rstrip(b"\x00").decode("ascii")
        return self.value.hex()

    def build(self) -> bytes:
        return bytes([self.kind, self.authenticated & 7]) + len(self.value).to_bytes(2, "big") + self.value


def _descriptors(page: bytes, start: int, what: str) -> tuple[KeyDescriptor, ...]:
    out, pos = [], start
    while pos + 4 <= len(page):
        size = uint(page, pos + 2, 2)
        if pos + 4 + size > len(page):
            raise ParseError(f"{what}: key-associated data descriptor at byte {pos} runs past the page")
        out.append(KeyDescriptor(kind=page[pos], authenticated=page[pos + 1] & 7, value=page[pos + 4 : pos + 4 + size]))
        pos += 4 + size
    return tuple(out)


@dataclass(frozen=True)
class Algorithm:
    """One algorithm descriptor of the capabilities page."""

    index: int
    encrypt_capable: int  # ENCRYPT_C: 0 no, 1 external only, 2 host (SECURITY PROTOCOL OUT), 3 both
    decrypt_capable: int  # DECRYPT_C, same coding
    key_bytes: int
    code: int

    @property
    def name(self) -> str:
        return algorithm_name(self.code)

    def build(self) -> bytes:
        d = bytearray(ALGORITHM_DESCRIPTOR_LENGTH)
        d[0] = self.index
        d[2:4] = (ALGORITHM_DESCRIPTOR_LENGTH - 4).to_bytes(2, "big")
        d[4] = ((self.decrypt_capable & 3) << 2) | (self.encrypt_capable & 3)
        d[10:12] = self.key_bytes.to_bytes(2, "big")
        d[20:24] = self.code.to_bytes(4, "big")
        return bytes(d)


@dataclass(frozen=True)
class EncryptionCapabilities:
    """Page 0010h: what the drive can do; ``capable`` when any algorithm can encrypt."""

    config_prevented: int
    algorithms: tuple[Algorithm, ...]

    @property
    def capable(self) -> bool:
        return any(a.encrypt_capable for a in self.algorithms)

    @classmethod
    def parse(cls, data: bytes) -> EncryptionCapabilities:
        page = _page(data, PAGE_CAPABILITIES, "data encryption capabilities")
        need(page, 20, "data encryption capabilities")
        algorithms, pos = [], 20
        while pos + 4 <= len(page):
            size = 4 + uint(page, pos + 2, 2)
            if size < ALGORITHM_DESCRIPTOR_LENGTH or pos + size > len(page):
                raise ParseError(f"data encryption capabilities: algorithm descriptor at byte {pos} is {size} bytes")
            d = page[pos : pos + size]
            algorithms.append(Algorithm(index=d[0], encrypt_capable=d[4] & 3, decrypt_capable=(d[4] >> 2) & 3,
                                        key_bytes=uint(d, 10, 2), code=uint(d, 20, 4)))
            pos += size
        return cls(config_prevented=page[4] & 3, algorithms=tuple(algorithms))

    def build(self) -> bytes:
        body = bytes([self.config_prevented & 3]) + bytes(15) + b"".join(a.build() for a in self.algorithms)
        return PAGE_CAPABILITIES.to_bytes(2, "big") + len(body).to_bytes(2, "big") + body


@dataclass(frozen=True)
class EncryptionStatus:
    """Page 0020h: what the drive is doing now, and whether the loaded volume holds encrypted blocks."""

    nexus_scope: int
    key_scope: int
    encryption_mode: int
    decryption_mode: int
    algorithm_index: int
    key_instance_counter: int
    volume_has_encrypted_blocks: bool  # VCELB
    raw_decryption_disabled: bool  # RDMD
    kad_format: int = 0  # KAD FORMAT (00h unspecified, 01h binary, 02h ASCII)
    descriptors: tuple[KeyDescriptor, ...] = ()

    @property
    def encrypting(self) -> bool:
        return self.encryption_mode == 2

    @property
    def encryption_mode_name(self) -> str:
        return ENCRYPTION_MODES.get(self.encryption_mode, f"reserved ({self.encryption_mode:02X}h)")

    @property
    def decryption_mode_name(self) -> str:
        return DECRYPTION_MODES.get(self.decryption_mode, f"reserved ({self.decryption_mode:02X}h)")

    @classmethod
    def parse(cls, data: bytes) -> EncryptionStatus:
        page = _page(data, PAGE_STATUS, "data encryption status")
        need(page, 13, "data encryption status")
        return cls(nexus_scope=page[4] >> 5, key_scope=page[4] & 7, encryption_mode=page[5], decryption_mode=page[6],
                   algorithm_index=page[7], key_instance_counter=uint(page, 8, 4),
                   volume_has_encrypted_blocks=bit(page[12], 3), raw_decryption_disabled=bit(page[12], 0),
                   kad_format=page[13] if len(page) > 13 else 0,
                   descriptors=_descriptors(page, STATUS_DESCRIPTORS_AT, "data encryption status"))

    def build(self) -> bytes:
        body = bytearray(20)
        body[0] = ((self.nexus_scope & 7) << 5) | (self.key_scope & 7)
        body[1], body[2], body[3] = self.encryption_mode, self.decryption_mode, self.algorithm_index
        body[4:8] = self.key_instance_counter.to_bytes(4, "big")
        body[8] = (0x08 if self.volume_has_encrypted_blocks else 0) | (0x01 if self.raw_decryption_disabled else 0)
        body[9] = self.kad_format
        body += b"".join(d.build() for d in self.descriptors)
        return PAGE_STATUS.to_bytes(2, "big") + len(body).to_bytes(2, "big") + bytes(body)


@dataclass(frozen=True)
class NextBlockStatus:
    """Page 0021h: the block at the current position, as far as the drive knows without moving the tape."""

    logical_object: int  # LOGICAL OBJECT NUMBER: the block the answer is about
    compression_status: int
    encryption_status: int
    algorithm_index: int
    encryption_mode_external: bool  # EMES
    raw_decryption_disabled: bool  # RDMDS
    kad_format: int
    descriptors: tuple[KeyDescriptor, ...] = ()

    @property
    def status_name(self) -> str:
        return NEXT_BLOCK_STATUS.get(self.encryption_status, f"reserved ({self.encryption_status:X}h)")

    @classmethod
    def parse(cls, data: bytes) -> NextBlockStatus:
        page = _page(data, PAGE_NEXT_BLOCK, "next block encryption status")
        need(page, NEXT_BLOCK_DESCRIPTORS_AT, "next block encryption status")
        return cls(logical_object=uint(page, 4, 8), compression_status=page[12] >> 4, encryption_status=page[12] & 0x0F,
                   algorithm_index=page[13], encryption_mode_external=bit(page[14], 1),
                   raw_decryption_disabled=bit(page[14], 0), kad_format=page[15],
                   descriptors=_descriptors(page, NEXT_BLOCK_DESCRIPTORS_AT, "next block encryption status"))

    def build(self) -> bytes:
        body = bytearray(12)
        body[0:8] = self.logical_object.to_bytes(8, "big")
        body[8] = ((self.compression_status & 0x0F) << 4) | (self.encryption_status & 0x0F)
        body[9] = self.algorithm_index
        body[10] = (0x02 if self.encryption_mode_external else 0) | (0x01 if self.raw_decryption_disabled else 0)
        body[11] = self.kad_format
        body += b"".join(d.build() for d in self.descriptors)
        return PAGE_NEXT_BLOCK.to_bytes(2, "big") + len(body).to_bytes(2, "big") + bytes(body)
