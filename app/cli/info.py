"""``tapediag info DEVICE [--json]``: identity, modes, cartridge, TapeAlert, errors, health.

Decoding and the verdict live in ``app.info``; this module only renders: aligned,
grouped text for a technician, or ``DriveInfo.to_dict()`` as JSON for machines.
Exit status says the verdict so scripts can act on it (``app.info.EXIT_CODES``):
0 Healthy, 10 Attention, 11 Failing, 12 Not assessed, 2 not a tape drive (identity
only, nothing but INQUIRY sent); 1 is kept for "the device could not be queried".

Every snapshot is recorded in the history as a ``drive-info`` run whose results are
exactly ``DriveInfo.to_dict()`` (``app.info.snapshot``, shared with the GUI).
"""
from __future__ import annotations

import argparse
import json
import sys
from typing import Any, Callable, Iterable

from app.cli.commands import HELP
from app.drive import NOT_SUPPORTED, Supported, Unsupported
from app.info import EXIT_CODES, DriveInfo, Verdict, snapshot
from app.timeouts import CommandTimeoutEntry

LABEL_WIDTH = 26

EPILOG = f"""exit status (also in --json: "health": {{"verdict": ..., "exit_code": ...}}):
  {EXIT_CODES[Verdict.HEALTHY]:<4}Healthy: TapeAlert and/or the error counters were read and are clean
  {EXIT_CODES[Verdict.ATTENTION]:<4}Attention: warnings, cleaning requested, uncorrected errors, a MEDIUM ERROR
  {EXIT_CODES[Verdict.FAILING]:<4}Failing: a critical TapeAlert flag or a HARDWARE ERROR / failing TEST UNIT READY
  {EXIT_CODES[Verdict.NOT_ASSESSED]:<4}Not assessed: the drive reported neither TapeAlert nor error counters
  {EXIT_CODES[Verdict.NOT_A_TAPE]:<4}not a tape drive (identity shown, no tape command sent), or bad input
  1   the device could not be reached or queried"""


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "info",
        help=HELP["info"],
        description="Read-only: queries the drive and the loaded cartridge; nothing is written or moved. Besides "
                    "identity, modes, cartridge memory, TapeAlert and error counters it shows the drive's own log "
                    "pages where the drive has them (temperature, device status, lifetime statistics, SAS link "
                    "counters, kept errors) and its encryption status.",
        epilog=EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("device", metavar="DEVICE", help="/dev/sgN, /dev/nstN, \\\\.\\TapeN, iscsi://host/iqn/lun or virtual:lto9")
    parser.add_argument("--json", action="store_true", help="print machine-readable JSON instead of text")
    parser.set_defaults(func=run)


def run(args: argparse.Namespace) -> int:
    info, run_id = snapshot(args.device)
    code = info.health.exit_code
    if args.json:
        print(json.dumps({"run_id": run_id, **info.to_dict()}, indent=2))
    else:
        print(render_text(info), end="")
        print(f"\nRecorded as run {run_id} ('tapediag report {run_id} -o report.pdf').")
    if info.health.verdict is Verdict.NOT_A_TAPE:
        print(f"tapediag: error: {info.health.reasons[0]}", file=sys.stderr)
    return code


def _fmt(value: Any) -> str:
    if value is None:
        return "-"
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, int):
        return f"{value:,}"
    return str(value)


def _mib(value: int | None) -> str:
    if value is None:
        return "-"
    if value >= 1024 * 1024:
        return f"{value:,} MiB ({value / 1024 / 1024:.2f} TiB)"
    if value >= 1024:
        return f"{value:,} MiB ({value / 1024:.1f} GiB)"
    return f"{value:,} MiB"


def _bytes(n: int) -> str:
    for unit, size in (("MiB", 1 << 20), ("KiB", 1 << 10)):
        if n >= size and n % size == 0:
            return f"{n // size:,} {unit}"
    return f"{n:,} bytes"


def _duration(seconds: float) -> str:
    """Seconds as a technician reads a timeout: "3 h", "25 min", "90 s"."""
    if seconds >= 3600 and seconds % 3600 == 0:
        return f"{seconds / 3600:g} h"
    if seconds >= 60 and seconds % 60 == 0:
        return f"{seconds / 60:g} min"
    return f"{seconds:g} s"


def _timeout_origin(entry: CommandTimeoutEntry) -> str:
    if entry.recommended is None:
        return ""
    if entry.recommended < entry.seconds:
        return f" (tapediag's minimum; the drive recommends {_duration(entry.recommended)})"
    return " (the drive's)"


def _transfer_note(info: DriveInfo, max_bytes: int) -> list[tuple[str, str]]:
    """The hidden bottleneck: a path that cannot carry the drive's largest block."""
    if isinstance(info.block_limits, Supported) and info.block_limits.value.max_block > max_bytes:
        return [("Note", f"below the drive's maximum block ({_bytes(info.block_limits.value.max_block)}): "
                         f"larger blocks or I/O sizes are refused by the OS/HBA")]
    return []


def _rate(value: float | None) -> str:
    return "-" if value is None else f"{value:,.1f} MB/s"


def _lines(title: str, rows: Iterable[tuple[str, str]]) -> list[str]:
    rows = list(rows)
    width = max([LABEL_WIDTH] + [len(label) + 2 for label, _ in rows])
    return [title] + [f"  {label:<{width}}{value}" for label, value in rows] + [""]


def _section(title: str, section: Any, rows: Callable[[Any], Iterable[tuple[str, str]]]) -> list[str]:
    if isinstance(section, Unsupported):
        return _lines(title, [("", section.reason)])
    return _lines(title, rows(section.value))


def render_text(info: DriveInfo) -> str:
    ident = info.identity
    out: list[str] = []
    out += _lines(f"Drive {info.device}", [
        ("Vendor", ident.vendor),
        ("Product", ident.product),
        ("Firmware revision", ident.revision),
        ("Serial number", _fmt(ident.serial)),
        ("WWN", _fmt(ident.wwn)),
        ("Device type", ident.device_type),
    ] + ([] if info.health.verdict is Verdict.NOT_A_TAPE else [
        ("LTO generation", f"LTO-{info.generation}" if info.generation else "unknown"),
    ]))
    if info.health.verdict is Verdict.NOT_A_TAPE:  # identity only: no tape section was queried, no verdict
        return "\n".join(out + [f"Not a tape drive: {info.health.reasons[0]}"]) + "\n"
    out += _section("Mode", info.media, lambda m: [
        ("Density", f"{m.density_name}" + (f" (0x{m.density_code:02X})" if m.density_code is not None else "")),
        ("Block mode", m.block_mode),
        ("Write protected", _fmt(m.write_protected)),
        ("Buffered mode", _fmt(m.buffered_mode)),
    ])
    out += _section("Block limits", info.block_limits, lambda b: [
        ("Minimum block", f"{b.min_block:,} bytes"),
        ("Maximum block", f"{b.max_block:,} bytes"),
        ("Granularity", f"{2 ** b.granularity} byte(s)"),
    ])
    limit = info.max_transfer
    out += _lines("Path to the drive", [
        ("Maximum transfer", f"{_bytes(limit.value.max_bytes)} ({limit.value.source})"),
    ] + _transfer_note(info, limit.value.max_bytes) if isinstance(limit, Supported) else [
        ("Maximum transfer", limit.reason),
    ])
    out += _section("Command timeouts", info.command_timeouts, lambda t: [("Source", t.source)] + [
        (e.command, _duration(e.seconds) + _timeout_origin(e)) for e in t.commands])
    out += _section("Compression", info.compression, lambda c: [
        ("Capable", _fmt(c.capable)),
        ("Enabled", _fmt(c.enabled)),
    ])
    out += _section("Cartridge (MAM)", info.cartridge, lambda c: [
        ("Barcode", _fmt(c.barcode)),
        ("Manufacturer", _fmt(c.manufacturer)),
        ("Serial number", _fmt(c.serial)),
        ("Medium type", _fmt(c.medium_type)),
        ("Density code", f"0x{c.density_code:02X}" if c.density_code is not None else "-"),
        ("Manufacture date", _fmt(c.manufacture_date)),
        ("Load count", _fmt(c.load_count)),
        ("Capacity remaining", _mib(c.remaining_capacity_mib)),
        ("Capacity maximum", _mib(c.maximum_capacity_mib)),
        ("Written (lifetime)", _mib(c.mib_written_total)),
        ("Read (lifetime)", _mib(c.mib_read_total)),
        ("Written (last load)", _mib(c.mib_written_last_load)),
        ("Read (last load)", _mib(c.mib_read_last_load)),
    ])
    if isinstance(info.tapealerts, Supported):
        alerts = info.tapealerts.value
        rows = [(f"{a.code:02X}h {a.severity}", f"{a.name}: {a.text}") for a in alerts] or [("", "no flags set")]
        out += _lines("TapeAlert", rows + ([("Read from", info.tapealert_source)] if info.tapealert_source else []))
    else:
        out += _lines("TapeAlert", [("", info.tapealerts.reason)])
    for title, section in (("Write errors", info.write_errors), ("Read errors", info.read_errors)):
        out += _section(title, section, lambda e: [
            ("Corrected", _fmt(e.corrected)),
            ("Uncorrected", _fmt(e.uncorrected)),
            ("Retries", _fmt(e.retries)),
            ("Bytes processed", _fmt(e.bytes_processed)),
        ])
    out += _section("Volume statistics", info.volume_statistics,
                    lambda v: [(_stat_label(k), _fmt(val)) for k, val in v.items()] or [("", "none reported")])
    if isinstance(info.performance, Supported):  # an HP-only page: no "not supported" noise for other drives
        out += _section("Performance (HP log page 0x34)", info.performance, lambda p: [
            ("Repositions per 100 MB", _fmt(p.repositions_per_100mb)),
            ("Host data rate", _rate(p.current_mb_s)),
            ("Maximum possible rate", _rate(p.max_possible_mb_s)),
            ("Rate into buffer (tape)", _rate(p.buffer_in_mb_s)),
            ("Native rate", _rate(p.native_mb_s)),
        ])
    out += _drive_wide(info)
    out += _section("Encryption (SECURITY PROTOCOL IN 20h)", info.encryption, lambda e: [
        ("Capable", _fmt(e.capable) + (f" ({', '.join(e.algorithms)})" if e.algorithms else "")),
        ("Encryption", e.mode),
        ("Decryption", e.decryption),
    ] + ([("Algorithm in use", e.algorithm)] if e.algorithm else []) + [
        ("Volume holds encrypted blocks", _fmt(e.volume_has_encrypted_blocks)),
        ("Key instance counter", _fmt(e.key_instance_counter)),
    ])
    health = info.health
    out += _lines("Health", [("Verdict", health.verdict.value)] + [("", f"- {r}") for r in health.reasons])
    return "\n".join(out).rstrip() + "\n"


def _drive_wide(info: DriveInfo) -> list[str]:
    """The drive's own pages (issue 15): temperature, status, lifetime statistics, SAS link, kept errors.

    These pages are optional: the ones a drive does not implement are named on one line
    instead of one "not supported" section each (tgt implements none of them)."""
    drive_pages = (("temperature (0x0D)", info.temperature), ("device status (0x11)", info.device_status),
                   ("device statistics (0x14)", info.device_statistics), ("SAS port (0x18)", info.ports),
                   ("tape diagnostic data (0x16)", info.diagnostics), ("non-medium errors (0x06)", info.non_medium_errors))
    missing = [name for name, sec in drive_pages if isinstance(sec, Unsupported) and sec.reason == NOT_SUPPORTED]
    if len(missing) == len(drive_pages):
        return _lines("Drive log pages", [("", f"{', '.join(missing)}: {NOT_SUPPORTED}")])
    out: list[str] = []
    out += _section("Temperature (log page 0x0D)", info.temperature, lambda t: [
        ("Current", "-" if t.celsius is None else f"{t.celsius} °C"),
    ] + ([("Rated maximum", f"{t.reference_celsius} °C")] if t.reference_celsius is not None else []))
    out += _section("Device status (log page 0x11)", info.device_status, lambda s: [
        ("Cleaning required", _fmt(s.cleaning_required)),
        ("Cleaning requested", _fmt(s.cleaning_requested)),
        ("Medium present", _fmt(s.medium_present)),
        ("Write protected", _fmt(s.write_protected)),
        ("Activity", s.activity),
    ])
    out += _section("Device statistics (log page 0x14)", info.device_statistics, lambda d: [
        (_stat_label(k), _fmt(v)) for k, v in d.figures.items()
    ] + [(f"Head hours on {m.density}", f"{m.head_hours:,} (medium type 0x{m.medium_type:02X})") for m in d.per_medium]
        or [("", "none reported")])
    out += _section("SAS port (log page 0x18)", info.ports, lambda phys: [
        row for p in phys for row in (
            (f"Port {p.port} phy {p.phy}", f"{p.link_rate}, SAS address {p.sas_address}"),
            ("  Invalid dwords", _fmt(p.invalid_dwords)),
            ("  Disparity errors", _fmt(p.disparity_errors)),
            ("  Loss of dword sync", _fmt(p.loss_of_sync)),
            ("  PHY reset problems", _fmt(p.phy_reset_problems)),
        )
    ] or [("", "no SAS phy reported")])
    out += _section("Tape diagnostic data (log page 0x16)", info.diagnostics, lambda entries: [
        (f"{e.head_hours:,} head hours", f"{e.sense}, command 0x{e.opcode:02X}, medium {e.medium_id or '-'}"
                                         + (" (repeated)" if e.repeat else ""))
        for e in entries
    ] or [("", "no errors recorded")])
    out += _section("Non-medium errors (log page 0x06)", info.non_medium_errors, lambda n: [("Count", _fmt(n))])
    return out


def _stat_label(name: str) -> str:
    text = name.replace("_", " ").capitalize()
    text = text.replace(" mb", " MB").replace("Mb ", "MB ").replace("Bom ", "BOM ").replace("Mom ", "MOM ")
    return text.replace(" ms", " (ms)").replace("Hard ", "Hard (unrecovered) ")
