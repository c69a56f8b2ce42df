"""The standard log pages that say how the *drive* is doing (issue 15), beside ``logpages``.

``native.scsi.logpages`` decodes the per-cartridge pages (error counters, sequential access,
volume statistics, compression, TapeAlert). This module adds the drive-wide ones real LTO
drives list (HP Ultrium 6: 0D 11 12 14 16 18; IBM ULT3580-TD6/TDA: 06 11 12 14 16 1A):

=====  ==============================  ============================================
page   name                            layout from
=====  ==============================  ============================================
0x06   non-medium error                SPC-4 7.3.12 (one counter, code 0000h)
0x0D   temperature                     SPC-4 7.3.21 (code 0000h current, 0001h reference;
                                       byte 5 of the parameter, degrees C, FFh = unknown)
0x11   DT device status                SSC-4 8.2.4 / ADC-3 (code 0000h "very high frequency
                                       data": 4 flag bytes)
0x12   TapeAlert response              SSC-4 8.2.5 / ADC-3 (code 0000h: 64 flags in 8 bytes,
                                       flag 1 = bit 7 of the first byte; reading it does NOT
                                       clear the flags, unlike page 0x2E)
0x14   device statistics               SSC-4 8.2.6 (lifetime counters 0000h-0017h, ASCII
                                       0040h-0043h, 1000h medium type/hours descriptors)
0x16   tape diagnostic data            SSC-4 8.2.7 (one 68-byte-plus entry per parameter)
0x18   protocol specific port (SAS)    SPL-4 "Protocol-Specific Port log page" (one parameter
                                       per target port, 48-byte phy descriptors)
0x1A   power condition transitions     SPC-4 7.3.18 (codes 0001h-0004h, 0008h, 0009h)
=====  ==============================  ============================================

The field offsets were checked against sg3_utils' ``sg_logs`` (src/sg_logs.c, read, not
copied: show_dt_device_status_page, show_tapealert_response_page, show_device_stats_page,
show_tape_diag_data_page, show_sas_port_param, show_temperature_page) and the tests decode
the virtual drive's bytes with ``sg_logs --inhex`` to the same values.

Typed pages never raise on access: a parameter that is missing or too short reads as None
(or is left out of a list) and stays available raw in ``parameters``. Only a page whose
parameter list overruns the page raises ``ParseError`` (in ``LogPage.parse``).
"""
from __future__ import annotations

from dataclasses import dataclass

from native.scsi._bytes import ascii_field, bit
from native.scsi.logpages import LogPage, LogParameter, TapeAlertFlag
from native.scsi.sensekeys import sense_key_name
from native.scsi.tapealert import definition

PAGE_NON_MEDIUM_ERRORS = 0x06
PAGE_TEMPERATURE = 0x0D
PAGE_DT_DEVICE_STATUS = 0x11
PAGE_TAPEALERT_RESPONSE = 0x12
PAGE_DEVICE_STATISTICS = 0x14
PAGE_TAPE_DIAGNOSTIC = 0x16
PAGE_PROTOCOL_PORT = 0x18
PAGE_POWER_CONDITIONS = 0x1A

TEMPERATURE_UNKNOWN = 0xFF


def _param(code: int, value: bytes, control: int = 0x03) -> LogParameter:
    """A parameter for the page builders (tests, round trips); control 03h = binary list, as drives send."""
    return LogParameter(code=code, du=bool(control & 0x80), tsd=bool(control & 0x20), etc=bool(control & 0x10),
                        tmc=(control >> 2) & 3, format_linking=control & 3, value=bytes(value))


def _page(code: int, params: list[LogParameter]) -> bytes:
    return LogPage(code, 0, False, False, tuple(params)).build()


# ---------------------------------------------------------------- 0x06 non-medium errors
@dataclass(frozen=True)
class NonMediumErrors(LogPage):
    """Page 0x06: errors not tied to the medium (SPC-4): transport, firmware, power."""

    @property
    def count(self) -> int | None:
        return self.value(0x0000)


def non_medium_error_page(count: int) -> bytes:
    return _page(PAGE_NON_MEDIUM_ERRORS, [_param(0, count.to_bytes(4, "big"), 0x02)])


# ---------------------------------------------------------------- 0x0D temperature
@dataclass(frozen=True)
class Temperature(LogPage):
    """Page 0x0D: current and reference (maximum rated operating) temperature, degrees C."""

    def _celsius(self, code: int) -> int | None:
        p = self.param(code)
        if p is None or len(p.value) < 2 or p.value[1] == TEMPERATURE_UNKNOWN:
            return None
        return p.value[1]

    @property
    def celsius(self) -> int | None:
        return self._celsius(0x0000)

    @property
    def reference_celsius(self) -> int | None:
        return self._celsius(0x0001)


def temperature_page(celsius: int | None, reference: int | None = None) -> bytes:
    params = [_param(0, bytes([0, TEMPERATURE_UNKNOWN if celsius is None else celsius]))]
    if reference is not None:
        params.append(_param(1, bytes([0, reference])))
    return _page(PAGE_TEMPERATURE, params)


# ---------------------------------------------------------------- 0x11 DT device status
#: DT device activity codes (ADC-3 / SSC-4 table "DT device activity").
DT_ACTIVITY = (
    "no DT device activity", "cleaning operation in progress", "volume is being loaded",
    "volume is being unloaded", "other medium activity", "reading from medium", "writing to medium",
    "locating medium", "rewinding medium", "erasing volume", "formatting volume", "calibrating",
    "other DT device activity", "microcode update in progress", "reading encrypted from medium",
    "writing encrypted to medium", "diagnostic operation in progress",
)

# (attribute, byte, bit) of the "very high frequency data" parameter (0000h).
_DT_FLAGS = (
    ("prevent_removal", 0, 7),  # PAMR
    ("host_initiated_unload", 0, 6),  # HIU
    ("mam_accessible", 0, 5),  # MACC
    ("compression_enabled", 0, 4),  # CMPR
    ("write_protected", 0, 3),  # WRTP
    ("cleaning_requested", 0, 2),  # CRQST
    ("cleaning_required", 0, 1),  # CRQRD
    ("initialized", 0, 0),  # DINIT
    ("in_transition", 1, 7),  # INXTN
    ("robotic_access_allowed", 1, 5),  # RAA
    ("medium_present", 1, 4),  # MPRSNT
    ("medium_seated", 1, 2),  # MSTD
    ("medium_threaded", 1, 1),  # MTHRD
    ("mounted", 1, 0),  # MOUNTED
    ("tape_diagnostic_entry_created", 3, 5),  # TDDEC
    ("encryption_parameters_present", 3, 4),  # EPP
    ("encryption_service_requested", 3, 3),  # ESR
    ("recovery_requested", 3, 2),  # RRQST
    ("interface_changed", 3, 1),  # INTFC
    ("tapealert_changed", 3, 0),  # TAFC
)
DT_FLAG_NAMES = tuple(name for name, _, _ in _DT_FLAGS)


@dataclass(frozen=True)
class DtStatus:
    """The decoded "very high frequency data" (page 0x11 parameter 0000h)."""

    flags: dict[str, bool]
    activity: int

    @property
    def cleaning_required(self) -> bool:
        return self.flags.get("cleaning_required", False)

    @property
    def cleaning_requested(self) -> bool:
        return self.flags.get("cleaning_requested", False)

    @property
    def medium_present(self) -> bool:
        return self.flags.get("medium_present", False)

    @property
    def write_protected(self) -> bool:
        return self.flags.get("write_protected", False)

    @property
    def activity_name(self) -> str:
        if self.activity < len(DT_ACTIVITY):
            return DT_ACTIVITY[self.activity]
        return f"vendor specific ({self.activity:02X}h)" if self.activity >= 0x80 else f"reserved ({self.activity:02X}h)"

    @classmethod
    def parse(cls, value: bytes) -> DtStatus | None:
        if len(value) < 4:
            return None
        return cls(flags={name: bit(value[byte], n) for name, byte, n in _DT_FLAGS}, activity=value[2])

    def build(self) -> bytes:
        out = bytearray(4)
        out[2] = self.activity & 0xFF
        for name, byte, n in _DT_FLAGS:
            if self.flags.get(name):
                out[byte] |= 1 << n
        return bytes(out)


@dataclass(frozen=True)
class DeviceStatus(LogPage):
    """Page 0x11: cleaning requested/required, medium present/threaded, write protect, activity."""

    @property
    def status(self) -> DtStatus | None:
        p = self.param(0x0000)
        return DtStatus.parse(p.value) if p is not None else None

    def flag(self, name: str) -> bool | None:
        s = self.status
        return None if s is None else s.flags.get(name)

    @property
    def cleaning_requested(self) -> bool | None:
        return self.flag("cleaning_requested")

    @property
    def cleaning_required(self) -> bool | None:
        return self.flag("cleaning_required")


def device_status_page(status: DtStatus) -> bytes:
    return _page(PAGE_DT_DEVICE_STATUS, [_param(0, status.build())])


# ---------------------------------------------------------------- 0x12 TapeAlert response
@dataclass(frozen=True)
class TapeAlertResponse(LogPage):
    """Page 0x12: the 64 TapeAlert flags as a bitmap. Unlike 0x2E, reading it clears nothing."""

    @property
    def flags(self) -> tuple[TapeAlertFlag, ...]:
        p = self.param(0x0000)
        if p is None:
            return ()
        bits = p.value[:8]
        return tuple(TapeAlertFlag(code=c, active=bool(bits[(c - 1) // 8] & (0x80 >> ((c - 1) % 8))), definition=definition(c))
                     for c in range(1, 8 * len(bits) + 1))

    @property
    def active(self) -> tuple[TapeAlertFlag, ...]:
        return tuple(f for f in self.flags if f.active)


def tapealert_response_page(active: set[int] | frozenset[int]) -> bytes:
    bits = bytearray(8)
    for c in active:
        if 1 <= c <= 64:
            bits[(c - 1) // 8] |= 0x80 >> ((c - 1) % 8)
    return _page(PAGE_TAPEALERT_RESPONSE, [_param(0, bytes(bits))])


# ---------------------------------------------------------------- 0x14 device statistics
DEVICE_STATISTICS = {
    0x0000: "lifetime_volume_loads",
    0x0001: "lifetime_cleaning_operations",
    0x0002: "lifetime_power_on_hours",
    0x0003: "lifetime_head_hours",  # "lifetime medium motion (head) hours"
    0x0004: "lifetime_metres_processed",
    0x0005: "head_hours_at_last_incompatible_load",
    0x0006: "power_on_hours_at_last_temperature_condition",
    0x0007: "power_on_hours_at_last_power_condition",
    0x0008: "head_hours_since_last_cleaning",
    0x0009: "head_hours_since_second_last_cleaning",
    0x000A: "head_hours_since_third_last_cleaning",
    0x000B: "power_on_hours_at_last_forced_reset",
    0x000C: "lifetime_power_cycles",
    0x000D: "volume_loads_since_parameter_reset",
    0x000E: "hard_write_errors",
    0x000F: "hard_read_errors",
    0x0010: "duty_cycle_sample_time_ms",
    0x0011: "read_duty_cycle",
    0x0012: "write_duty_cycle",
    0x0013: "activity_duty_cycle",
    0x0014: "volume_not_present_duty_cycle",
    0x0015: "ready_duty_cycle",
    0x0016: "mb_from_host_in_sample_time",
    0x0017: "mb_to_host_in_sample_time",
    0x0040: "drive_manufacturer_serial",
    0x0041: "drive_serial",
    0x0042: "manufacturing_date",  # yyyymmdd (SSC-5)
    0x0043: "manufacturing_week",  # yyyyww (SSC-5)
    0x0080: "medium_removal_prevented",
    0x0081: "max_mechanism_temperature_exceeded",
}
_DEVSTAT_TEXT = frozenset(range(0x0040, 0x0044))
PARAM_MEDIUM_TYPE_HOURS = 0x1000


@dataclass(frozen=True)
class MediumTypeHours:
    """One descriptor of device statistics parameter 1000h: head hours spent on one kind of medium."""

    density_code: int
    medium_type: int
    hours: int

    def build(self) -> bytes:
        return bytes([0, 0, self.density_code & 0xFF, self.medium_type & 0xFF]) + self.hours.to_bytes(4, "big")


@dataclass(frozen=True)
class DeviceStatistics(LogPage):
    """Page 0x14: the drive's lifetime figures (loads, cleanings, hours, metres, hard errors)."""

    def stats(self) -> dict[str, int | str]:
        out: dict[str, int | str] = {}
        for p in self.parameters:
            name = DEVICE_STATISTICS.get(p.code)
            if name is not None:
                out[name] = p.text if p.code in _DEVSTAT_TEXT else p.int
        return out

    @property
    def medium_type_hours(self) -> tuple[MediumTypeHours, ...]:
        p = self.param(PARAM_MEDIUM_TYPE_HOURS)
        if p is None:
            return ()
        v = p.value
        return tuple(MediumTypeHours(v[k + 2], v[k + 3], int.from_bytes(v[k + 4 : k + 8], "big"))
                     for k in range(0, len(v) - 7, 8))


def device_statistics_page(stats: dict[str, int | str], medium_hours: tuple[MediumTypeHours, ...] = ()) -> bytes:
    codes = {name: code for code, name in DEVICE_STATISTICS.items()}
    params = []
    for name, value in stats.items():
        code = codes[name]
        raw = str(value).encode("ascii") if code in _DEVSTAT_TEXT else int(value).to_bytes(max(4, (int(value).bit_length() + 7) // 8), "big")
        params.append(_param(code, raw, 0x01 if code in _DEVSTAT_TEXT else 0x03))
    if medium_hours:
        params.append(_param(PARAM_MEDIUM_TYPE_HOURS, b"".join(m.build() for m in medium_hours)))
    return _page(PAGE_DEVICE_STATISTICS, sorted(params, key=lambda p: p.code))


# ---------------------------------------------------------------- 0x16 tape diagnostic data
DIAGNOSTIC_ENTRY_LENGTH = 68  # bytes of a parameter value before any vendor-specific tail


@dataclass(frozen=True)
class DiagnosticEntry:
    """One tape diagnostic data parameter: an error the drive remembered, with its context."""

    code: int
    density_code: int
    medium_type: int
    head_hours: int
    repeat: bool
    sense_key: int
    asc: int
    ascq: int
    vendor_code: int
    revision: str
    hours_since_clean: int
    opcode: int
    service_action: int
    medium_id: str
    timestamp_origin: int
    timestamp: int

    @property
    def sense_text(self) -> str:
        """The kept error's sense as a technician reads it: "MEDIUM ERROR: Write error (03/0C/00)". The ASC table
        is loaded here, for a drive that kept an error: ``info`` reads this page on every drive (issue 32 §3)."""
        from native.scsi.asc import asc_text

        return (f"{sense_key_name(self.sense_key)}: {asc_text(self.asc, self.ascq)} "
                f"({self.sense_key:02X}/{self.asc:02X}/{self.ascq:02X})")

    @property
    def empty(self) -> bool:
        """An unused slot (drives send all-zero entries until they have something to keep)."""
        return not (self.sense_key or self.asc or self.ascq or self.opcode or self.timestamp or self.medium_id)

    @classmethod
    def parse(cls, p: LogParameter) -> DiagnosticEntry | None:
        v = p.value
        if len(v) < DIAGNOSTIC_ENTRY_LENGTH:
            return None
        return cls(
            code=p.code, density_code=v[2], medium_type=v[3], head_hours=int.from_bytes(v[4:8], "big"),
            repeat=bit(v[9], 7), sense_key=v[9] & 0x0F, asc=v[10], ascq=v[11],
            vendor_code=int.from_bytes(v[12:16], "big"), revision=ascii_field(v, 16, 4),
            hours_since_clean=int.from_bytes(v[20:24], "big"), opcode=v[24], service_action=v[25] & 0x1F,
            medium_id=ascii_field(v, 28, 32), timestamp_origin=v[60] & 0x07, timestamp=int.from_bytes(v[62:68], "big"),
        )

    def build(self) -> bytes:
        v = bytearray(DIAGNOSTIC_ENTRY_LENGTH)
        v[2], v[3] = self.density_code, self.medium_type
        v[4:8] = self.head_hours.to_bytes(4, "big")
        v[9] = (0x80 if self.repeat else 0) | (self.sense_key & 0x0F)
        v[10], v[11] = self.asc, self.ascq
        v[12:16] = self.vendor_code.to_bytes(4, "big")
        v[16:20] = self.revision.encode("ascii")[:4].ljust(4)
        v[20:24] = self.hours_since_clean.to_bytes(4, "big")
        v[24], v[25] = self.opcode, self.service_action & 0x1F
        v[28:60] = self.medium_id.encode("ascii")[:32].ljust(32)
        v[60] = self.timestamp_origin & 0x07
        v[62:68] = self.timestamp.to_bytes(6, "big")
        return bytes(v)


@dataclass(frozen=True)
class TapeDiagnostic(LogPage):
    """Page 0x16: the drive's last errors with sense, medium id, head hours and time."""

    @property
    def entries(self) -> tuple[DiagnosticEntry, ...]:
        """Every well-formed entry, unused (all-zero) slots left out."""
        out = (DiagnosticEntry.parse(p) for p in self.parameters)
        return tuple(e for e in out if e is not None and not e.empty)


def tape_diagnostic_page(entries: tuple[DiagnosticEntry, ...]) -> bytes:
    return _page(PAGE_TAPE_DIAGNOSTIC, [_param(e.code, e.build()) for e in entries])


# ---------------------------------------------------------------- 0x18 protocol specific port (SAS)
PROTOCOL_SAS = 0x6
PHY_DESCRIPTOR_LENGTH = 48
#: Negotiated logical link rate codes (SPL): what sg_logs prints for them.
SAS_LINK_RATES = {0x0: "unknown", 0x1: "phy disabled", 0x2: "speed negotiation failed", 0x3: "SATA spinup hold",
                  0x4: "port selector", 0x5: "reset in progress", 0x6: "unsupported phy attached",
                  0x8: "1.5 Gbps", 0x9: "3 Gbps", 0xA: "6 Gbps", 0xB: "12 Gbps", 0xC: "22.5 Gbps"}


@dataclass(frozen=True)
class SasPhy:
    """One SAS phy of a target port: link rate and the error counters a bad cable drives up."""

    phy_id: int
    link_rate_code: int
    attached_device_type: int
    sas_address: int
    attached_sas_address: int
    attached_phy_id: int
    invalid_dwords: int
    disparity_errors: int
    loss_of_sync: int
    phy_reset_problems: int

    @property
    def link_rate(self) -> str:
        return SAS_LINK_RATES.get(self.link_rate_code, f"reserved ({self.link_rate_code:X}h)")

    @property
    def error_total(self) -> int:
        return self.invalid_dwords + self.disparity_errors + self.loss_of_sync + self.phy_reset_problems

    @classmethod
    def parse(cls, d: bytes) -> SasPhy:
        u32 = lambda o: int.from_bytes(d[o : o + 4], "big")
        return cls(phy_id=d[1], link_rate_code=d[5] & 0x0F, attached_device_type=(d[4] >> 4) & 0x07,
                   sas_address=int.from_bytes(d[8:16], "big"), attached_sas_address=int.from_bytes(d[16:24], "big"),
                   attached_phy_id=d[24], invalid_dwords=u32(32), disparity_errors=u32(36), loss_of_sync=u32(40),
                   phy_reset_problems=u32(44))

    def build(self) -> bytes:
        d = bytearray(PHY_DESCRIPTOR_LENGTH)
        d[1], d[3] = self.phy_id, PHY_DESCRIPTOR_LENGTH - 4
        d[4] = (self.attached_device_type & 0x07) << 4
        d[5] = self.link_rate_code & 0x0F
        d[6] = 0x08  # attached SSP initiator port
        d[8:16] = self.sas_address.to_bytes(8, "big")
        d[16:24] = self.attached_sas_address.to_bytes(8, "big")
        d[24] = self.attached_phy_id
        for off, value in ((32, self.invalid_dwords), (36, self.disparity_errors), (40, self.loss_of_sync),
                           (44, self.phy_reset_problems)):
            d[off : off + 4] = value.to_bytes(4, "big")
        return bytes(d)


@dataclass(frozen=True)
class PortStatus:
    """One target port (parameter code = relative target port identifier)."""

    port: int
    protocol: int
    phys: tuple[SasPhy, ...]

    @property
    def is_sas(self) -> bool:
        return self.protocol == PROTOCOL_SAS


@dataclass(frozen=True)
class ProtocolPort(LogPage):
    """Page 0x18: per-port, per-phy link state. Only SAS (protocol 6) is decoded; others keep their bytes."""

    @property
    def ports(self) -> tuple[PortStatus, ...]:
        out = []
        for p in self.parameters:
            v = p.value
            if len(v) < 4:
                continue
            protocol, phys = v[0] & 0x0F, []
            if protocol == PROTOCOL_SAS:
                pos = 4
                while pos + PHY_DESCRIPTOR_LENGTH <= len(v):
                    # SAS-1 drives send 0 as the descriptor length; 44 means "48 bytes", more adds phy events.
                    size = max(PHY_DESCRIPTOR_LENGTH, v[pos + 3] + 4)
                    phys.append(SasPhy.parse(v[pos : pos + PHY_DESCRIPTOR_LENGTH]))
                    pos += size
            out.append(PortStatus(port=p.code, protocol=protocol, phys=tuple(phys)))
        return tuple(out)


def sas_port_page(ports: tuple[PortStatus, ...], generation_code: int = 0) -> bytes:
    params = []
    for port in ports:
        body = b"".join(phy.build() for phy in port.phys)
        params.append(_param(port.port, bytes([port.protocol & 0x0F, 0, generation_code, len(port.phys)]) + body))
    return _page(PAGE_PROTOCOL_PORT, params)


# ---------------------------------------------------------------- 0x1A power condition transitions
POWER_TRANSITIONS = {0x0001: "active", 0x0002: "idle_a", 0x0003: "idle_b", 0x0004: "idle_c",
                     0x0008: "standby_z", 0x0009: "standby_y"}


@dataclass(frozen=True)
class PowerConditions(LogPage):
    """Page 0x1A: how often the drive went into each power condition."""

    def transitions(self) -> dict[str, int]:
        return {name: p.int for p in self.parameters if (name := POWER_TRANSITIONS.get(p.code)) is not None}


def power_conditions_page(counts: dict[str, int]) -> bytes:
    codes = {name: code for code, name in POWER_TRANSITIONS.items()}
    return _page(PAGE_POWER_CONDITIONS, [_param(codes[n], v.to_bytes(4, "big"), 0x02) for n, v in counts.items()])
