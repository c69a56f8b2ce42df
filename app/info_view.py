"""What a technician reads of a ``DriveInfo``: titled sections of labelled, formatted values.

Written once here and rendered by every front end: ``tapediag info`` prints the rows as
aligned text, the GUI's Drive information panel shows them as a tree, ``show`` prints an
old run through the CLI's text. So a field has one name and one format everywhere (the
GUI used to show "density 96" where the CLI said "LTO-9 (0x60)", and raw flags such as
"Buffered mode 1" or "Write protect 0").

Sizes follow the project's rule: decimal units first, the binary figure the drive
reported in parentheses (MAM capacities are MiB by SPC-4's definition of the attributes).
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Callable, Iterable

from app.drive import NOT_SUPPORTED, Supported, Unsupported
from app.health_rules import Finding
from app.info import DriveInfo, Verdict
from app.info.stored import block_mode, sas_address
from app.timeouts import CommandTimeoutEntry
from app.wear import WearFigure
from native.scsi.density import density_name
from native.scsi.ltfs import LtfsVolume
from native.units import block_text, date_text, plural, rate_text, size_text

MiB = 1 << 20

#: Severity of a row, for colour in the GUI: a TapeAlert severity or a verdict, lower case.
Severity = str | None

#: SSC-4 mode parameter header, BUFFERED MODE field.
_BUFFERED_MODES = {0: "off (the drive reports a write done once it is on tape)",
                   1: "on (writes complete from the drive's buffer)",
                   2: "on, shared by several initiators"}

#: Page 0x17 parameters that are flags (SSC-4 8.2.3, volume statistics log page).
_VOLUME_FLAGS = frozenset({"page_valid", "write_protect", "worm", "max_recommended_temperature_exceeded"})


@dataclass(frozen=True)
class Row:
    """One labelled line of a section, with the severity its value is shown in."""

    label: str
    value: str
    severity: Severity = None
    indent: int = 0  # a sub-row (a SAS phy's counters under its phy)


@dataclass(frozen=True)
class Section:
    """A titled group of rows, as the text, the GUI and the report lay it out."""

    title: str
    rows: tuple[Row, ...]
    expanded: bool = True


def yes_no(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def mib_size(mib: int | None) -> str:
    """A size the drive gives in MiB, as decimal GB/TB first: "8.59 GB (8,192 MiB)"."""
    if mib is None:
        return "-"
    return f"{size_text(mib * MiB)} ({mib:,} MiB)" if mib else "0 MB"


def _bytes(n: int) -> str:
    return plural(n, "byte")


def statistic_label(name: str) -> str:
    text = name.replace("_", " ").capitalize()
    text = text.replace(" mb", " MB").replace("Mb ", "MB ").replace("Bom ", "BOM ").replace("Mom ", "MOM ")
    text = text.replace(" ms", " (ms)").replace("Hard ", "Hard (unrecovered) ")
    return "WORM" if text == "Worm" else text


def _volume_rows(stats: dict) -> list[Row]:
    """Page 17h's figures, or why there are none: a page its drive says is not valid (Page Valid 0: no
    cartridge, or the last one's leftovers) names no volume, so its serial and barcode are not shown."""
    if stats.get("page_valid") == 0:
        return [Row("Page valid", "no: not the figures of a loaded cartridge (none is loaded, or they are the last one's)")]
    return [Row(statistic_label(k), _volume_value(k, val)) for k, val in stats.items()] or [Row("", "none reported")]


def _volume_value(name: str, value: int | str) -> str:
    if name in _VOLUME_FLAGS and isinstance(value, int):
        return yes_no(bool(value))
    return yes_no(value)


def timeout_text(seconds: float) -> str:
    """Seconds as a technician reads a command timeout: "3 h", "25 min", "90 s" (measured times are
    ``app.runs.words.duration``'s, with tenths)."""
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{seconds / 3600:g} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


def _timeout_origin(entry: CommandTimeoutEntry) -> str:
    if entry.recommended is None:
        return ""
    if entry.recommended < entry.seconds:
        return f" (tapediag's minimum; the drive recommends {timeout_text(entry.recommended)})"
    return " (the drive's)"


def _path(info: DriveInfo) -> Section:
    """The path's largest transfer (issue 13): a host that cannot carry the drive's largest block is a
    classic hidden bottleneck, so it is said beside the limit."""
    limit = info.max_transfer
    if not isinstance(limit, Supported):
        return Section("Path to the drive", (Row("Maximum transfer", limit.reason),))
    max_bytes = limit.value.max_bytes
    rows = [Row("Maximum transfer", f"{block_text(max_bytes)} ({limit.value.source})")]
    if isinstance(info.block_limits, Supported) and info.block_limits.value.max_length > max_bytes:
        rows.append(Row("Note", f"below the drive's maximum block ({block_text(info.block_limits.value.max_length)}): "
                                f"larger blocks or I/O sizes are refused by the OS/HBA", "warning"))
    return Section("Path to the drive", tuple(rows))


def _section(title: str, section: Any, rows: Callable[[Any], Iterable[Row]], *, expanded: bool = True) -> Section:
    if isinstance(section, Unsupported):
        return Section(title, (Row("", section.reason),), expanded=False)
    return Section(title, tuple(rows(section.value)), expanded)


def identity_section(info: DriveInfo) -> Section:
    ident = info.identity
    rows = [Row("Vendor", ident.vendor), Row("Product", ident.product), Row("Firmware revision", ident.revision),
            Row("Serial number", yes_no(ident.serial)), Row("WWN", yes_no(ident.wwn)), Row("Device type", ident.device_type)]
    if info.health.verdict is not Verdict.NOT_A_TAPE:
        rows.append(Row("LTO generation", f"LTO-{info.generation}" if info.generation else "unknown"))
    return Section(f"Drive {info.device}", tuple(rows))


def sections(info: DriveInfo) -> list[Section]:
    """Every section a technician reads, in the order the CLI prints them; health last."""
    out = [identity_section(info)]
    if info.health.verdict is Verdict.NOT_A_TAPE:  # identity only: no tape section was queried
        return out
    out.append(_section("Mode", info.media, lambda m: [
        Row("Density", f"{density_name(m.density_code)}" + (f" (0x{m.density_code:02X})" if m.density_code is not None else "")),
        Row("Block mode", block_mode(m.block_length)),
        Row("Write protected", yes_no(m.write_protected), "warning" if m.write_protected else None),
        Row("Buffered mode", _BUFFERED_MODES.get(m.buffered_mode, f"{m.buffered_mode} (reserved value)")),
    ]))
    out.append(_section("Block limits", info.block_limits, lambda b: [
        Row("Minimum block", _bytes(b.min_length)),
        Row("Maximum block", _bytes(b.max_length)),
        Row("Granularity", _bytes(2 ** b.granularity)),
    ]))
    out.append(_path(info))
    out.append(_section("Command timeouts", info.command_timeouts, lambda t: [Row("Source", t.source)] + [
        Row(e.command, timeout_text(e.seconds) + _timeout_origin(e)) for e in t.commands], expanded=False))
    out.append(_section("Compression", info.compression, lambda c: [
        Row("Capable", yes_no(c.dcc)),
        Row("Enabled", yes_no(c.dce)),
    ]))
    out.append(_section("Cartridge (MAM)", info.cartridge, lambda c: [
        Row("Barcode", yes_no(c.barcode)),
        Row("Manufacturer", yes_no(c.manufacturer)),
        Row("Serial number", yes_no(c.serial)),
        Row("Medium type", yes_no(c.medium_type)),
        Row("Density code", f"0x{c.density_code:02X}" if c.density_code is not None else "-"),
        Row("Manufacture date", date_text(c.manufacture_date)),
        Row("Load count", yes_no(c.load_count)),
        Row("Capacity remaining", mib_size(c.remaining_capacity_mib)),
        Row("Capacity maximum", mib_size(c.maximum_capacity_mib)),
        Row("Written (lifetime)", mib_size(c.mb_written_total)),
        Row("Read (lifetime)", mib_size(c.mb_read_total)),
        Row("Written (last load)", mib_size(c.mb_written_last_load)),
        Row("Read (last load)", mib_size(c.mb_read_last_load)),
    ]))
    if info.ltfs is not None:
        out.append(ltfs_section(info.ltfs))
    out.append(_tapealert(info))
    for title, counts in (("Write errors", info.write_errors), ("Read errors", info.read_errors)):
        out.append(_section(title, counts, lambda e: [
            Row("Corrected", yes_no(e.total_corrected)),
            Row("Uncorrected", yes_no(e.total_uncorrected), "warning" if e.total_uncorrected else None),
            Row("Retries", yes_no(e.total_retries)),
            Row("Bytes processed", yes_no(e.total_bytes_processed)),
        ]))
    out.append(_section("Volume statistics", info.volume_statistics, _volume_rows, expanded=False))
    if isinstance(info.performance, Supported):  # an HP-only page: no "not supported" noise for other drives
        out.append(_section("Performance (HP log page 0x34)", info.performance, lambda p: [
            Row("Repositions per 100 MB", yes_no(p.repositions_per_100mb)),
            Row("Host data rate", rate_text(p.current_mb_s)),
            Row("Maximum possible rate", rate_text(p.max_possible_mb_s)),
            Row("Rate into buffer (tape)", rate_text(p.buffer_in_mb_s)),
            Row("Native rate", rate_text(p.native_mb_s)),
        ]))
    out += _drive_wide(info)
    out.append(_section("Encryption (SECURITY PROTOCOL IN 20h)", info.encryption, lambda e: [
        Row("Capable", yes_no(e.capable) + (f" ({', '.join(e.algorithms)})" if e.algorithms else "")),
        Row("Encryption", e.mode),
        Row("Decryption", e.decryption),
    ] + ([Row("Algorithm in use", e.algorithm)] if e.algorithm else []) + [
        Row("Volume holds encrypted blocks", yes_no(e.volume_has_encrypted_blocks)),
        Row("Key instance counter", yes_no(e.key_instance_counter)),
    ] + [Row("Key in use, descriptor", d) for d in e.key_descriptors]
      + ([Row("Next block (0021h)", e.next_block)] if e.next_block else [])
      + [Row("Next block's key, descriptor", d) for d in e.next_block_key_descriptors], expanded=False))
    out += _vendor(info)
    out += _wear(info)
    out.append(health_section(info))
    return out


def ltfs_section(volume: LtfsVolume) -> Section:
    """The LTFS volume a cartridge holds (``native.scsi.ltfs``): what it is and what the recognition rests on."""
    rows = [Row("Volume", volume.describe() + ": holds data", "warning"),
            Row("Name", volume.name or "-"), Row("UUID", volume.volume_uuid or "-"),
            Row("Written by", volume.written_by or "-"), Row("LTFS format version", volume.format_version or "-"),
            Row("Partitions", yes_no(volume.partitions))]
    if volume.generation is not None:
        rows.append(Row("Index generation", str(volume.generation)))
    rows.append(Row("Recognised from", "; ".join(volume.evidence) or "-"))
    return Section("LTFS volume", tuple(rows))


def _vendor(info: DriveInfo) -> list[Section]:
    """Vendor pages 30h-3Eh: decoded figures by name, the rest raw by parameter code, each with its source."""
    if not isinstance(info.vendor_pages, Supported):
        return []  # the drive lists none: no "not supported" noise (tgt, most non-LTO drives)
    out: list[Section] = []
    for page in info.vendor_pages.value:
        rows = [Row(_vendor_label(k), _vendor_value(k, v)) for k, v in page.figures.items()]
        rows += [Row(f"Parameter {r.code:04X}h (raw)", r.hex or "(empty)") for r in page.raw]
        if page.problem:
            rows = [Row("", page.problem)]
        out.append(Section(page.title[:1].upper() + page.title[1:],
                           tuple((rows or [Row("", "no parameters reported")]) + [Row("Layout from", page.source)]),
                           expanded=False))
    return out


def _vendor_label(name: str) -> str:
    """The figure's name without its unit: the value carries it ("Main partition remaining  8.59 GB (8,192 MiB)")."""
    return statistic_label(name.removesuffix("_mib").removesuffix("_x100"))


def _vendor_value(name: str, value: int) -> str:
    """A vendor page's figure with its unit, read from its decoded name (issue 31: never a raw byte count)."""
    if name.endswith("_mib"):
        return mib_size(value)
    if name.endswith("_x100"):  # HP 32h: a compression ratio times 100; 0 before any data went through
        return f"{value / 100:.2f}:1" if value else "- (no data yet)"
    if name.startswith("bytes_") or name.endswith("_bytes"):
        return size_text(value)
    if name == "compression_enabled":
        return yes_no(bool(value))
    if name == "tapealert_flags":  # Quantum 3Eh 7000h: the 64 flags as a bitmap (flag 1 = the top bit)
        return f"{value:016X}h"
    if name == "media_efficiency":  # IBM 37h: 01h best ... FFh worst, 00h unknown (Oracle STA reference)
        return "unknown (00h)" if value == 0 else f"{value:02X}h (01h best ... FFh worst)"
    return yes_no(value)


def _wear_row(f: WearFigure) -> Row:
    value = "-" if f.value is None else f"{f.value:,}"
    if f.design_life is None:
        return Row(f.quantity.capitalize(), f"{value} ({f.source})")
    return Row(f.quantity.capitalize(),
               f"{value} of {f.design_life:,} = {f.percent_used} % of design life used ({f.source})")


def _wear(info: DriveInfo) -> list[Section]:
    """Wear against design life: % used only where a published figure exists, with its source."""
    if not isinstance(info.wear, Supported):
        return []
    wear = info.wear.value
    out = [Section("Drive wear (log page 0x14)", tuple(_wear_row(f) for f in wear.drive))] if wear.drive else []
    if wear.cartridge is not None:
        c = wear.cartridge
        verdict = Row("Verdict", c.verdict.value, {"retire": "critical", "monitor": "warning"}.get(c.verdict.value))
        out.append(Section("Cartridge wear", tuple(_wear_row(f) for f in c.figures) + (verdict,)
                           + tuple(Row("", f"- {r}") for r in c.reasons)))
    return out


#: A finding's level as a row severity (the GUI's colour).
_LEVEL_SEVERITY = {"Failing": "failing", "Attention": "attention"}


def finding_rows(f: Finding) -> tuple[Row, ...]:
    """One finding as a technician quotes it: the sentence, then who is at fault, the evidence
    (page, parameter, value), the threshold with its source, and what to do."""
    note = f.level.value == "Note"
    rows = [Row("Note (not judged)" if note else f"Culprit: {f.culprit}", f.text, _LEVEL_SEVERITY.get(f.level.value))]
    rows.append(Row("Evidence", f"{f.page}, {f.parameter}: {f.value}", indent=1))
    rows.append(Row("Threshold", f"{f.threshold}; source: {f.source}", indent=1))
    if f.action:
        rows.append(Row("What to do", f.action, indent=1))
    return tuple(rows)


def health_section(info: DriveInfo) -> Section:
    """The verdict, then each finding with its evidence and culprit; the reasons that are not
    findings (what a Healthy or Not assessed verdict rests on) as plain lines."""
    health = info.health
    texts = {f.text for f in health.findings}
    rows = [Row("Verdict", health.verdict.value, health.verdict.value.lower())]
    rows += [Row("", f"- {reason}") for reason in health.reasons if reason not in texts]
    for f in health.findings:
        rows += finding_rows(f)
    return Section("Health", tuple(rows))


def _tapealert(info: DriveInfo) -> Section:
    if not isinstance(info.tapealerts, Supported):
        return Section("TapeAlert", (Row("", info.tapealerts.reason),))
    # By hex number as the verdict names a flag ("TapeAlert 14h"), with the decimal one that
    # vendors' manuals (and the virtual drive's tapealert= option) use beside it.
    rows = [Row(f"{a.code:02X}h ({a.code}) {a.name}", f"{a.severity.value}: {a.definition.text}", a.severity.value.lower())
            for a in info.tapealerts.value] or [Row("", "no flags set")]
    if info.tapealert_source:
        rows.append(Row("Read from", info.tapealert_source))
    return Section("TapeAlert", tuple(rows))


def _drive_wide(info: DriveInfo) -> list[Section]:
    """The drive's own pages (issue 15): temperature, status, lifetime statistics, SAS link, kept errors.

    These pages are optional: the ones a drive does not implement are named on one line
    instead of one "not supported" section each (tgt implements none of them)."""
    drive_pages = (("temperature (0x0D)", info.temperature), ("device status (0x11)", info.device_status),
                   ("device statistics (0x14)", info.device_statistics), ("SAS port (0x18)", info.ports),
                   ("tape diagnostic data (0x16)", info.diagnostics), ("non-medium errors (0x06)", info.non_medium_errors))
    missing = [name for name, sec in drive_pages if isinstance(sec, Unsupported) and sec.reason == NOT_SUPPORTED]
    if len(missing) == len(drive_pages):
        return [Section("Drive log pages", (Row("", f"{', '.join(missing)}: {NOT_SUPPORTED}"),), expanded=False)]
    return [
        _section("Temperature (log page 0x0D)", info.temperature, lambda t: [
            Row("Current", "-" if t.celsius is None else f"{t.celsius} °C"),
        ] + ([Row("Rated maximum", f"{t.reference_celsius} °C")] if t.reference_celsius is not None else [])),
        _section("Device status (log page 0x11)", info.device_status, lambda s: [
            Row("Cleaning required", yes_no(s.cleaning_required), "warning" if s.cleaning_required else None),
            Row("Cleaning requested", yes_no(s.cleaning_requested), "warning" if s.cleaning_requested else None),
            Row("Medium present", yes_no(s.medium_present)),
            Row("Write protected", yes_no(s.write_protected)),
            Row("Activity", s.activity_name),
        ]),
        _section("Device statistics (log page 0x14)", info.device_statistics, lambda d: [
            Row(statistic_label(k), yes_no(v)) for k, v in d.stats().items()
        ] + [Row(f"Head hours on {density_name(m.density_code)}", f"{m.hours:,} (medium type 0x{m.medium_type:02X})")
             for m in d.medium_type_hours]
            or [Row("", "none reported")]),
        _section("SAS port (log page 0x18)", info.ports, lambda ports: [
            row for port in ports for p in port.phys for row in (
                Row(f"Port {port.port} phy {p.phy_id}", f"{p.link_rate}, SAS address {sas_address(p.sas_address)}"),
                Row("Invalid dwords", yes_no(p.invalid_dwords), indent=1),
                Row("Disparity errors", yes_no(p.disparity_errors), indent=1),
                Row("Loss of dword sync", yes_no(p.loss_of_sync), indent=1),
                Row("PHY reset problems", yes_no(p.phy_reset_problems), indent=1),
            )
        ] or [Row("", "no SAS phy reported")], expanded=False),
        _section("Tape diagnostic data (log page 0x16)", info.diagnostics, lambda entries: [
            Row(f"{e.head_hours:,} head hours", f"{e.sense_text}, command 0x{e.opcode:02X}, medium {e.medium_id or '-'}"
                                                + (" (repeated)" if e.repeat else ""))
            for e in entries
        ] or [Row("", "no errors recorded")]),
        _section("Non-medium errors (log page 0x06)", info.non_medium_errors, lambda n: [Row("Count", yes_no(n))]),
    ]


LABEL_WIDTH = 26


def text(secs: Iterable[Section]) -> str:
    """Aligned text, one block per section (``tapediag info``, ``show``)."""
    lines: list[str] = []
    for sec in secs:
        labels = ["  " * row.indent + row.label for row in sec.rows]
        width = max([LABEL_WIDTH] + [len(label) + 2 for label in labels])
        lines.append(sec.title)
        lines += [f"  {label:<{width}}{row.value}" for label, row in zip(labels, sec.rows)]
        lines.append("")
    return "\n".join(lines)


def render_text(info: DriveInfo) -> str:
    """The text ``info`` prints and ``show`` prints again: the sections of ``app.info_view``."""
    out = text(sections(info))
    if info.health.verdict is Verdict.NOT_A_TAPE:  # identity only: no tape section was queried, no verdict
        return out + f"Not a tape drive: {info.health.reasons[0]}\n"
    return out.rstrip() + "\n"
