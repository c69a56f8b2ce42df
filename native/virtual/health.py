"""The virtual drive's drive-wide log pages: 0x06 0x0D 0x11 0x12 0x14 0x16 0x18 0x1A (issue 15).

Byte layouts are written here from the standards (SPC-4 / SSC-4 / SPL-4; see
``native.scsi.devicelogs`` for the table), independently of the host-side parsers, and the tests
decode them with ``sg_logs --inhex``: three readers agreeing is the check. ``native`` never
imports ``app``.

The drive's lifetime figures are a *model*, not measurements: they start from the ``hours=``
option (power-on hours, default 2000) and are derived from it with fixed ratios chosen to look
like a drive in ordinary service (head hours 40 % of power-on hours, one load per 3 power-on
hours, one cleaning per 150 head hours, 5 m of tape per second of motion). No vendor publishes
these ratios; they exist so a technician can practise reading the pages, and ``hours=`` and
``phyerrors=`` let a trainer make a worn or badly cabled drive.
"""
from __future__ import annotations

import struct
from dataclasses import dataclass, field

from native.virtual import pages

#: Model ratios (see the module docstring): not published figures.
HEAD_HOURS_PER_POWER_ON_HOUR = 0.4
POWER_ON_HOURS_PER_LOAD = 3
HEAD_HOURS_PER_CLEANING = 150
TAPE_METRES_PER_SECOND = 5

#: Flags that say the drive wants cleaning: TapeAlert 14h "clean now" (required), 15h "clean periodic" (requested).
CLEAN_NOW, CLEAN_PERIODIC = 0x14, 0x15

_HOST_SAS_ADDRESS = 0x500605B0_00000001  # the virtual HBA's SAS address (made up, constant)


@dataclass
class DriveLife:
    """The drive's own lifetime state (not the cartridge's): what pages 0x11-0x1A report."""

    power_on_hours: int
    temperature: int
    phy_errors: int
    cleaning_required: bool
    cleaning_requested: bool
    loads_this_session: int = 0
    diagnostics: list[bytes] = field(default_factory=list)  # 0x16 entry values, newest last
    # The drive's own alarms (issue 25), as the trainer's options set them.
    reference_temperature: int | None = None  # 0x0D parameter 0001h; None: not reported
    max_temperature_exceeded: bool = False  # 0x14 parameter 0081h
    hard_write_errors: int = 0  # 0x14 parameter 000Eh
    hard_read_errors: int = 0  # 0x14 parameter 000Fh
    non_medium_errors: int = 0  # 0x06 parameter 0000h
    error_history_cleared: bool = False  # READ BUFFER 1Ch buffer FEh/FFh was sent (``buffers.py``)

    @property
    def head_hours(self) -> int:
        return int(self.power_on_hours * HEAD_HOURS_PER_POWER_ON_HOUR)

    @property
    def loads(self) -> int:
        return self.power_on_hours // POWER_ON_HOURS_PER_LOAD + self.loads_this_session

    @property
    def cleanings(self) -> int:
        return self.head_hours // HEAD_HOURS_PER_CLEANING

    @property
    def metres(self) -> int:
        return self.head_hours * 3600 * TAPE_METRES_PER_SECOND


def _sas_rate_code(interface_bytes_s: float) -> int:
    """SPL negotiated logical link rate code of the link the drive's interface option implies."""
    mb_s = interface_bytes_s / 1e6
    return 0x8 if mb_s <= 150 else 0x9 if mb_s <= 300 else 0xA if mb_s <= 600 else 0xB


def non_medium_errors(life: DriveLife) -> list[bytes]:
    return [pages.log_param(0x0000, life.non_medium_errors.to_bytes(4, "big"), 0x02)]


def temperature(life: DriveLife) -> list[bytes]:
    # SPC-4: byte 0 reserved, byte 1 degrees C (FFh: not available); 0001h the reference temperature.
    out = [pages.log_param(0x0000, bytes([0, max(0, min(life.temperature, 0xFE))]), 0x03)]
    if life.reference_temperature is not None:
        out.append(pages.log_param(0x0001, bytes([0, max(0, min(life.reference_temperature, 0xFE))]), 0x03))
    return out


def dt_device_status(life: DriveLife, *, loaded: bool, write_protected: bool, compression: bool, alerts: bool,
                     encryption: bool = False) -> list[bytes]:
    """SSC-4 page 0x11 parameter 0000h, "very high frequency data" (4 bytes)."""
    b0 = (0x20 if loaded else 0) | (0x10 if compression else 0) | (0x08 if loaded and write_protected else 0)
    b0 |= (0x04 if life.cleaning_requested else 0) | (0x02 if life.cleaning_required else 0) | 0x01  # DINIT
    b1 = (0x10 | 0x04 | 0x02 | 0x01) if loaded else 0  # MPRSNT, MSTD, MTHRD, MOUNTED
    b3 = (0x20 if life.diagnostics else 0) | (0x10 if encryption else 0) | (0x01 if alerts else 0)  # TDDEC, EPP, TAFC
    return [pages.log_param(0x0000, bytes([b0, b1, 0, b3]), 0x03)]


def tapealert_response(flags: set[int]) -> list[bytes]:
    """SSC-4 page 0x12: flag n is bit (7 - (n-1) % 8) of byte (n-1) // 8; reading clears nothing."""
    bits = bytearray(8)
    for n in flags:
        bits[(n - 1) // 8] |= 0x80 >> ((n - 1) % 8)
    return [pages.log_param(0x0000, bytes(bits), 0x03)]


def device_statistics(life: DriveLife, *, serial: str, density_code: int) -> list[bytes]:
    """SSC-4 page 0x14: lifetime counters, the drive serial, head hours per medium type (1000h)."""
    since_clean = life.head_hours % HEAD_HOURS_PER_CLEANING
    counters = ((0x0000, life.loads), (0x0001, life.cleanings), (0x0002, life.power_on_hours),
                (0x0003, life.head_hours), (0x0004, life.metres), (0x0008, since_clean),
                (0x000C, max(1, life.power_on_hours // 500)), (0x000E, life.hard_write_errors),
                (0x000F, life.hard_read_errors))
    out = [pages.log_param(code, value.to_bytes(4, "big"), 0x03) for code, value in counters]
    out.append(pages.log_param(0x0041, pages.ascii_field(serial, 12), 0x01))
    if life.max_temperature_exceeded:  # SSC-4: 0081h, a 1-byte flag
        out.append(pages.log_param(0x0081, bytes([1]), 0x03))
    per_medium = bytes([0, 0, density_code, 0x00]) + life.head_hours.to_bytes(4, "big")
    out.append(pages.log_param(0x1000, per_medium, 0x03))
    return out


def diagnostic_entry(*, sense_key: int, asc: int, ascq: int, opcode: int, density_code: int, head_hours: int,
                     hours_since_clean: int, medium_id: str, revision: str, timestamp_ms: int) -> bytes:
    """One SSC-4 tape diagnostic data parameter value (68 bytes)."""
    v = bytearray(68)
    v[2] = density_code
    struct.pack_into(">I", v, 4, head_hours)
    v[9], v[10], v[11] = sense_key & 0x0F, asc, ascq
    v[16:20] = pages.ascii_field(revision, 4)
    struct.pack_into(">I", v, 20, hours_since_clean)
    v[24] = opcode
    v[28:60] = pages.ascii_field(medium_id, 32)
    v[60] = 0x02  # timestamp origin: since power on (SPC-4 "timestamp origin" 010b)
    v[62:68] = timestamp_ms.to_bytes(6, "big")
    return bytes(v)


def tape_diagnostic(life: DriveLife) -> list[bytes]:
    return [pages.log_param(code, value, 0x03) for code, value in enumerate(life.diagnostics)]


def protocol_port(life: DriveLife, *, sas_address: int, interface_rate: float) -> list[bytes]:
    """SPL page 0x18, SAS: one target port (relative port 1) with one phy descriptor of 48 bytes."""
    d = bytearray(48)
    d[1], d[3] = 0, 44  # phy 0, descriptor length 44 (+4)
    d[4] = 0x10  # attached: end device
    d[5] = _sas_rate_code(interface_rate)
    d[6] = 0x08  # attached SSP initiator port
    struct.pack_into(">QQ", d, 8, sas_address, _HOST_SAS_ADDRESS)
    errors = life.phy_errors
    struct.pack_into(">IIII", d, 32, errors, errors, errors // 10, 0)  # invalid dwords, disparity, loss of sync, reset problems
    return [pages.log_param(0x0001, bytes([0x06, 0, 1, 1]) + bytes(d), 0x03)]


def power_conditions(life: DriveLife) -> list[bytes]:
    """SPC-4 page 0x1A: transitions to active (one per load) and idle_a (the drive idles between loads)."""
    return [pages.log_param(code, value.to_bytes(4, "big"), 0x02)
            for code, value in ((0x0001, life.loads), (0x0002, life.loads), (0x0003, 0), (0x0004, 0), (0x0008, 0), (0x0009, 0))]


# ---------------------------------------------------------------- SECURITY PROTOCOL IN 20h (SSC-4 8.5)
AES_256_GCM = 0x00010014  # security algorithm code (SFSC), what LTO drives offer


def encryption_page(page: int, *, encrypt: bool, volume_encrypted: bool, key_descriptor: str = "",
                    next_block: tuple[int, int] | None = None) -> bytes | None:
    """Pages 0000h (supported pages), 0010h (capabilities), 0020h (status) and 0021h (next block status) of the
    tape data encryption protocol (SSC-4 8.5).

    One algorithm, index 1, AES-256-GCM with a 32-byte key, encrypt and decrypt capable by host
    control (ENCRYPT_C = DECRYPT_C = 10b). With ``encrypt`` the status page says encryption and
    decryption on, key instance counter 1; VCELB says whether the volume holds encrypted blocks;
    ``key_descriptor`` (``keydesc=``) is the U-KAD the application named its key with: a descriptor of
    type 00h, AUTHENTICATED 1h (not authenticated), KAD format 02h (ASCII), from byte 24 of 0020h and
    byte 16 of 0021h. ``next_block`` is (logical object number, encryption status) for 0021h; the block's
    U-KAD follows only for an encrypted block (status 5h or 6h), as the drive reads it from the tape.
    """
    kad = struct.pack(">BBH", 0x00, 0x01, len(key_descriptor)) + key_descriptor.encode("ascii") \
        if encrypt and key_descriptor else b""
    if page == 0x0000:
        body = struct.pack(">HHHH", 0x0000, 0x0010, 0x0020, 0x0021)
    elif page == 0x0010:
        desc = bytearray(24)
        desc[0] = 1
        struct.pack_into(">H", desc, 2, 20)
        desc[4] = (2 << 2) | 2  # DECRYPT_C, ENCRYPT_C: capable, by SECURITY PROTOCOL OUT
        desc[5] = 0x04  # VCELB_C: the drive can say whether a volume holds encrypted blocks
        struct.pack_into(">H", desc, 10, 32)  # key length, bytes
        struct.pack_into(">I", desc, 20, AES_256_GCM)
        body = bytes(16) + bytes(desc)
    elif page == 0x0020:
        status = bytearray(20)
        status[0] = 0x00  # I_T nexus scope public, key scope public
        status[1], status[2], status[3] = (2, 2, 1) if encrypt else (0, 0, 0)
        struct.pack_into(">I", status, 4, 1 if encrypt else 0)
        status[8] = 0x08 if volume_encrypted else 0  # VCELB
        status[9] = 0x02 if kad else 0x00  # KAD FORMAT: ASCII
        body = bytes(status) + kad
    elif page == 0x0021 and next_block is not None:
        number, state = next_block
        encrypted = state in (0x5, 0x6)
        head = struct.pack(">QBBBB", number, state & 0x0F, 1 if encrypted else 0, 0, 0x02 if encrypted and kad else 0)
        body = head + (kad if encrypted else b"")
    else:
        return None
    return struct.pack(">HH", page, len(body)) + body
