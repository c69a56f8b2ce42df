"""The stored form of ``info``'s sections: what ``DriveInfo.to_dict()`` writes of each parser type, and the
parser type read back from it (``DriveInfo.from_dict``).

Why a table of its own: ``info`` shows the parser types of ``native.scsi`` as they are (``BlockLimits``,
``ErrorCounters``, ``DtStatus`` ...), but what it stores is a promise to stored runs, reports and
``info --json`` scripts, older than the parser types' names (``min_block``, not ``min_length``). Each
section's stored fields are declared once here, next to how the parser type is rebuilt from them: fields
the stored form does not keep take neutral values, and a log page's parameters are rebuilt with the same
encoders the tests use, so a run read back is shown and judged as it was when it ran, and
``to_dict(from_dict(d)) == d`` (``tests/test_info_stored.py``).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Generic, TypeVar

from native.scsi.density import density_name
from native.scsi.devicelogs import (
    DT_ACTIVITY,
    PROTOCOL_SAS,
    SAS_LINK_RATES,
    DeviceStatistics,
    DiagnosticEntry,
    DtStatus,
    MediumTypeHours,
    PortStatus,
    SasPhy,
    Temperature,
    device_statistics_page,
    temperature_page,
)
from native.scsi.logpages import HP_RATE_UNIT_MB_S, PAGE_HP_PERFORMANCE, ErrorCounters, HpPerformance, TapeAlertFlag, counter, error_counters_page
from native.scsi.logparse import parse_log_page
from native.scsi.mam import ATTRIBUTE_NAMES, MEDIUM_TYPES, AttrFormat, Attribute, Mam
from native.scsi.mode import BlockDescriptor, CompressionPage, ModeData
from native.scsi.tape import BlockLimits
from native.scsi.tapealert import Severity, TapeAlertDefinition

P = TypeVar("P")
Json = dict[str, Any]


@dataclass(frozen=True)
class Stored(Generic[P]):
    """How one section's parser type is stored: ``write`` its JSON fields (or, ``listed``, a list of rows,
    stored under "value"), ``read`` it back from them."""

    write: Callable[[P], Any]
    read: Callable[[Any], P]
    listed: bool = False


def each(item: Stored[P]) -> Stored[tuple[P, ...]]:
    """A section that is a tuple of items, stored one row per item."""
    return Stored(lambda items: [item.write(i) for i in items], lambda rows: tuple(item.read(r) for r in rows),
                  listed=True)


def renamed(cls: Callable[..., P], neutral: Json | None = None, **stored: str) -> Stored[P]:
    """A parser dataclass stored field by field under other names (``stored name="attribute"``); the
    attributes the stored form leaves out take their ``neutral`` values when read back."""
    return Stored(lambda obj: {key: getattr(obj, attr) for key, attr in stored.items()},
                  lambda data: cls(**(neutral or {}), **{attr: data[key] for key, attr in stored.items()}))


def block_mode(block_length: int | None) -> str:
    """The mode header's block length as a technician reads it: "variable", "fixed 65536 bytes"."""
    if block_length is None:
        return "unknown"
    return "variable" if block_length == 0 else f"fixed {block_length} bytes"


# -- the mode header (MODE SENSE): density, block size, write protect, buffering ------------------------

def _media_write(mode: ModeData) -> Json:
    return {"density_code": mode.density_code, "density_name": density_name(mode.density_code),
            "block_size": mode.block_length, "write_protected": mode.write_protected,
            "buffered_mode": mode.buffered_mode, "block_mode": block_mode(mode.block_length)}


def _media_read(data: Json) -> ModeData:
    length, density = data["block_size"], data["density_code"]
    descriptors = () if length is None and density is None else (BlockDescriptor(density or 0, 0, length or 0),)
    return ModeData(ten=True, medium_type=0, write_protected=data["write_protected"],
                    buffered_mode=data["buffered_mode"], speed=0, block_descriptors=descriptors, pages=())


# -- the cartridge memory (MAM) --------------------------------------------------------------------------

#: The MAM attributes ``info`` names, as stored: stored name -> attribute identifier (SPC-4 7.4).
_MAM_FIELDS = {
    "barcode": 0x0806, "manufacturer": 0x0400, "serial": 0x0401, "medium_type": 0x0408, "density_code": 0x0405,
    "manufacture_date": 0x0406, "load_count": 0x0003, "remaining_capacity_mib": 0x0000,
    "maximum_capacity_mib": 0x0001, "mib_written_total": 0x0220, "mib_read_total": 0x0221,
    "mib_written_last_load": 0x0222, "mib_read_last_load": 0x0223,
}
_MAM_PROPERTIES = {"mib_written_total": "mb_written_total", "mib_read_total": "mb_read_total",
                   "mib_written_last_load": "mb_written_last_load", "mib_read_last_load": "mb_read_last_load"}
_ATTRIBUTE_IDS = {name: ident for ident, (name, _) in reversed(ATTRIBUTE_NAMES.items())}


def cartridge_fields(mam: Mam) -> Json:
    """The cartridge memory as ``info`` (and the media scan) stores it: the named attributes, then every one by name."""
    out: Json = {key: getattr(mam, _MAM_PROPERTIES.get(key, key)) for key in _MAM_FIELDS}
    out["attributes"] = {a.name: a.value.hex() if isinstance(a.value, bytes) else a.value for a in mam.attributes}
    return out


def _attribute(ident: int, value: Any) -> Attribute:
    """An attribute holding ``value`` as it was stored: a number as binary, text (or a blob's hex) as text."""
    if isinstance(value, bool) or not isinstance(value, (int, str)):
        raise TypeError(f"MAM attribute {ident:04X}h: {value!r} is neither a number nor text")
    if isinstance(value, int):
        return Attribute(ident, True, AttrFormat.BINARY, value.to_bytes(8, "big"))
    return Attribute(ident, True, AttrFormat.TEXT, value.encode("utf-8"))


def _attribute_id(name: str) -> int | None:
    if name.startswith("Attribute 0x"):
        return int(name.removeprefix("Attribute 0x"), 16)
    return _ATTRIBUTE_IDS.get(name)


def _cartridge_read(data: Json) -> Mam:
    by_id: dict[int, Attribute] = {}
    for name, value in (data.get("attributes") or {}).items():
        ident = _attribute_id(name)
        if ident is not None and value is not None:
            by_id[ident] = _attribute(ident, value)
    media_types = {text: code for code, text in MEDIUM_TYPES.items()}
    for key, ident in _MAM_FIELDS.items():
        value = data.get(key)
        if key == "medium_type" and isinstance(value, str):
            value = media_types.get(value, int(value.removeprefix("type 0x"), 16) if value.startswith("type 0x") else None)
        if value is not None and ident not in by_id:
            by_id[ident] = _attribute(ident, value)
    return Mam(tuple(by_id.values()))


# -- log pages ---------------------------------------------------------------------------------------------

def _page(cls: type[P], code: int, values: dict[int, int | None], size: int = 8) -> P:
    """A typed log page holding ``values`` (parameter code -> counter; None: the drive did not report it)."""
    return cls(page_code=code, subpage=0, ds=False, spf=False,  # type: ignore[call-arg]
               parameters=tuple(counter(c, v, size) for c, v in values.items() if v is not None))


def _counters(page_code: int) -> Stored[ErrorCounters]:
    """Pages 02h/03h as stored: the four totals a technician reads (parameters 0003h, 0006h, 0002h, 0005h)."""
    def write(page: ErrorCounters) -> Json:
        return {"corrected": page.total_corrected, "uncorrected": page.total_uncorrected,
                "retries": page.total_retries, "bytes_processed": page.total_bytes_processed}

    def read(data: Json) -> ErrorCounters:
        page = parse_log_page(error_counters_page(page_code, corrected=data["corrected"], uncorrected=data["uncorrected"],
                                                  retries=data["retries"], processed=data["bytes_processed"]))
        assert isinstance(page, ErrorCounters)
        return page
    return Stored(write, read)


_HP_RATES = {"buffer_in_mb_s": 0x0001, "max_possible_mb_s": 0x0002, "current_mb_s": 0x0003, "native_mb_s": 0x0004}


def _performance_write(page: HpPerformance) -> Json:
    return {"repositions_per_100mb": page.repositions_per_100mb,
            **{name: getattr(page, name) for name in _HP_RATES}}


def _performance_read(data: Json) -> HpPerformance:
    rates = {code: None if data[name] is None else round(data[name] / HP_RATE_UNIT_MB_S) for name, code in _HP_RATES.items()}
    return _page(HpPerformance, PAGE_HP_PERFORMANCE, {0x0000: data["repositions_per_100mb"], **rates}, 2)


def _temperature_read(data: Json) -> Temperature:
    page = parse_log_page(temperature_page(data["celsius"], data["reference_celsius"]))
    assert isinstance(page, Temperature)
    return page


def _activity_code(name: str) -> int:
    """DT device activity back from its name (``DtStatus.activity_name``)."""
    if name in DT_ACTIVITY:
        return DT_ACTIVITY.index(name)
    return int(name[-4:-2], 16) if name.endswith("h)") else 0


def _status_write(status: DtStatus) -> Json:
    return {"cleaning_required": status.cleaning_required, "cleaning_requested": status.cleaning_requested,
            "medium_present": status.medium_present, "write_protected": status.write_protected,
            "activity": status.activity_name, "flags": dict(status.flags)}


def _statistics_write(page: DeviceStatistics) -> Json:
    return {"figures": page.stats(),
            "per_medium": [{"density_code": m.density_code, "density": density_name(m.density_code),
                            "medium_type": m.medium_type, "head_hours": m.hours} for m in page.medium_type_hours]}


def _statistics_read(data: Json) -> DeviceStatistics:
    hours = tuple(MediumTypeHours(m["density_code"], m["medium_type"], m["head_hours"]) for m in data["per_medium"])
    page = parse_log_page(device_statistics_page(dict(data["figures"]), hours))
    assert isinstance(page, DeviceStatistics)
    return page


# -- the SAS phys of page 18h, stored one row a phy ----------------------------------------------------------

def sas_address(address: int) -> str:
    """A SAS address as shown and stored: "0x5000c50012345678"."""
    return f"0x{address:016x}"


def _phy_write(port: int, phy: SasPhy) -> Json:
    return {"port": port, "phy": phy.phy_id, "link_rate": phy.link_rate, "sas_address": sas_address(phy.sas_address),
            "attached_sas_address": sas_address(phy.attached_sas_address), "invalid_dwords": phy.invalid_dwords,
            "disparity_errors": phy.disparity_errors, "loss_of_sync": phy.loss_of_sync,
            "phy_reset_problems": phy.phy_reset_problems}


def _link_rate_code(text: str) -> int:
    codes = {name: code for code, name in SAS_LINK_RATES.items()}
    return codes.get(text, int(text[-3:-2], 16) if text.startswith("reserved (") else 0)


def ports_write(ports: tuple[PortStatus, ...]) -> list[Json]:
    return [_phy_write(port.port, phy) for port in ports for phy in port.phys]


def ports_read(rows: list[Json]) -> tuple[PortStatus, ...]:
    by_port: dict[int, list[SasPhy]] = {}
    for r in rows:
        by_port.setdefault(r["port"], []).append(SasPhy(
            phy_id=r["phy"], link_rate_code=_link_rate_code(r["link_rate"]), attached_device_type=0,
            sas_address=int(r["sas_address"], 16), attached_sas_address=int(r["attached_sas_address"], 16),
            attached_phy_id=0, invalid_dwords=r["invalid_dwords"], disparity_errors=r["disparity_errors"],
            loss_of_sync=r["loss_of_sync"], phy_reset_problems=r["phy_reset_problems"]))
    return tuple(PortStatus(port, PROTOCOL_SAS, tuple(phys)) for port, phys in by_port.items())


# -- the kept errors of page 16h and the TapeAlert flags, stored one row each --------------------------------

def _diagnostic_write(e: DiagnosticEntry) -> Json:
    return {"sense": e.sense_text, "opcode": e.opcode, "medium_id": e.medium_id, "head_hours": e.head_hours,
            "timestamp": e.timestamp, "repeat": e.repeat, "key": e.sense_key, "asc": e.asc, "ascq": e.ascq}


def _diagnostic_read(d: Json) -> DiagnosticEntry:
    return DiagnosticEntry(code=0, density_code=0, medium_type=0, head_hours=d["head_hours"], repeat=d["repeat"],
                           sense_key=d.get("key", 0), asc=d.get("asc", 0), ascq=d.get("ascq", 0), vendor_code=0,
                           revision="", hours_since_clean=0, opcode=d["opcode"], service_action=0,
                           medium_id=d["medium_id"], timestamp_origin=0, timestamp=d["timestamp"])


def _alert_write(flag: TapeAlertFlag) -> Json:
    return {"code": flag.code, "name": flag.name, "severity": flag.severity.value, "text": flag.definition.text}


def _alert_read(d: Json) -> TapeAlertFlag:
    return TapeAlertFlag(d["code"], True, TapeAlertDefinition(d["code"], d["name"], Severity(d["severity"]), d["text"]))


#: Every section ``info`` shows as a parser type, with its stored form (the sections not named here are
#: tapediag's own dataclasses, stored field by field as they are).
SECTIONS: dict[str, Stored[Any]] = {
    "media": Stored(_media_write, _media_read),
    "block_limits": renamed(BlockLimits, granularity="granularity", min_block="min_length", max_block="max_length"),
    "compression": renamed(CompressionPage, {"dde": False, "red": 0, "decompression_algorithm": 0},
                           capable="dcc", enabled="dce", algorithm="compression_algorithm"),
    "cartridge": Stored(cartridge_fields, _cartridge_read),
    "write_errors": _counters(0x02),
    "read_errors": _counters(0x03),
    "performance": Stored(_performance_write, _performance_read),
    "temperature": Stored(lambda t: {"celsius": t.celsius, "reference_celsius": t.reference_celsius}, _temperature_read),
    "device_status": Stored(_status_write, lambda d: DtStatus(dict(d["flags"]), _activity_code(d["activity"]))),
    "device_statistics": Stored(_statistics_write, _statistics_read),
    "tapealerts": each(Stored(_alert_write, _alert_read)),
    "diagnostics": each(Stored(_diagnostic_write, _diagnostic_read)),
    "ports": Stored(ports_write, ports_read, listed=True),  # one row per phy of each port
}

__all__ = ["SECTIONS", "Stored", "block_mode", "cartridge_fields", "each", "renamed", "sas_address"]
