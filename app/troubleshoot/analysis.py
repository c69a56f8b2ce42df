"""The bottleneck analysis of the white paper's "Finding bottlenecks" process.

For each direction (backup: tape write + disk read; restore: tape read + disk write;
plus the network when the data crosses one) the components' measured rates are
compared with what the backup application achieved:

* the slowest component is the expected bottleneck;
* if the application reached at least ``component_share`` of that rate, that
  component *is* the bottleneck (Tables 1, 2, 3, 5, 7, 9, 10);
* if it fell far below, but the slowest component is a file system full of small
  files, the file system still is (the raw disk test does not include creating files
  with names and attributes: Tables 6, 8);
* otherwise every component is faster than the application: the application itself.
"""
from __future__ import annotations

from .data import drive_spec, thresholds
from .model import COMPONENT_LABELS, LIMIT_WORDS, BottleneckTable, Figure, TableRow, TroubleshootInput
from .parse import parse_link

SMALL_FILE_KB = 64  # average file size at or below which a data set counts as "small files"
#: The components in the order the advice names them, and a recorded tape run's link in words.
_ORDER = ("tape", "link", "disk", "network")
_NAMED = {"link": "connection to the tape drive"}
MANY_FILES = 1_000_000


def fmt(value: float | None) -> str:
    """MB/s as the white paper prints it: up to two decimals, no trailing zeros."""
    if value is None:
        return "-"
    return format(value, ".2f").rstrip("0").rstrip(".")


def _disk_figure(single: Figure | None, parallel: Figure | None, streams: int | None) -> Figure | None:
    """The disk rate the application can expect with its number of streams."""
    if streams == 1:
        return single or parallel
    if streams and streams > 1:
        return parallel or single
    candidates = [f for f in (single, parallel) if f]
    return max(candidates, key=lambda f: f.mb_s) if candidates else None


def _direction(inp: TroubleshootInput, direction: str) -> tuple[BottleneckTable | None, list[str]]:
    m, w = inp.measurements, inp.workload
    notes: list[str] = []
    backup = direction == "backup"
    tape = m.tape_write if backup else m.tape_read
    single = m.disk_read_single if backup else m.disk_write_single
    parallel = m.disk_read_parallel if backup else m.disk_write_parallel
    achieved = w.backup_mb_s if backup else w.restore_mb_s
    verb = "read" if backup else "write"

    if not (tape or single or parallel) and achieved is None:
        return None, notes  # nothing of this direction was measured (a link alone is no table)
    rows: list[tuple[str, float | None, str, str]] = []  # test, mb_s, component, source
    tape_as = tape.component if tape else None
    if tape:
        rows.append(_tape_row(tape, "write" if backup else "read", notes))
    if single:
        rows.append((f"Disk {verb}, single stream", single.mb_s, "disk", single.source))
    if parallel:
        rows.append((f"Disk {verb}, parallel streams", parallel.mb_s, "disk", parallel.source))
    link_rate: float | None = None
    if w.link:
        link = parse_link(w.link)
        link_rate = w.network_mb_s if w.network_mb_s else link.practical_mb_s
        src = "measured" if w.network_mb_s else f"{fmt(link.nominal_mb_s)} MB/s line rate, practical limit"
        rows.append((f"Network ({link.label})", link_rate, "network", src))

    candidates: list[tuple[str, float]] = []
    if tape and tape_as is not None:
        candidates.append((tape_as, tape.mb_s))
    disk = _disk_figure(single, parallel, w.streams)
    if disk:
        candidates.append(("disk", disk.mb_s))
    if link_rate is not None:
        candidates.append(("network", link_rate))

    t = thresholds()
    bottleneck: str | None = None
    limit = share = None
    name = direction.capitalize()
    if not candidates:
        verdict = (f"{name}: the tape test was limited by {LIMIT_WORDS.get(tape.limited_by, tape.limited_by)} and no "
                   "other component was measured: no bottleneck can be named." if tape else
                   f"{name}: no component was measured, so no bottleneck can be named.")
    else:
        slowest, limit = min(candidates, key=lambda c: c[1])
        label = COMPONENT_LABELS[slowest].lower()
        if achieved is None:
            bottleneck = slowest
            verdict = (f"{name}: the slowest component is the {label} at {fmt(limit)} MB/s; "
                       f"the {direction} cannot run faster than that.")
        else:
            share = achieved / limit if limit else None
            if share is not None and share > t["overmeasured_share"]:
                # The application beat the slowest test: that test under-measured, and naming it the
                # bottleneck would put a figure below what the application achieved in the headline.
                verdict = (f"{name}: the {direction} achieved {fmt(achieved)} MB/s, more than the {label} test "
                           f"measured ({fmt(limit)} MB/s): repeat that test with settings closer to the "
                           f"application's before naming a bottleneck.")
            elif share is not None and share >= t["component_share"]:
                bottleneck = slowest
                verdict = (f"{name}: the bottleneck is the {label} ({fmt(limit)} MB/s); "
                           f"the {direction} achieved {fmt(achieved)} MB/s.")
            elif slowest == "disk" and _small_files(inp):
                bottleneck = "disk"
                verdict = (f"{name}: the bottleneck is the file system: with many small files the {direction} "
                           f"achieved only {fmt(achieved)} MB/s against {fmt(limit)} MB/s measured.")
            elif missing := [c for c in ("tape", "disk") if c not in dict(candidates) and (c, tape_as) != ("tape", "link")]:
                what = " and ".join(f"the {'tape' if c == 'tape' else 'disk'} {verb if c == 'disk' else ('write' if backup else 'read')}"
                                    + (" again, from a host that keeps the drive fed," if c == "tape" and tape else "")
                                    for c in missing)
                verdict = (f"{name}: the measured components are all faster than the {direction} "
                           f"({fmt(achieved)} MB/s); measure {what} to name the bottleneck.")
            else:
                bottleneck = "application"
                verdict = (f"{name}: every component is faster than the backup application "
                           f"({fmt(achieved)} MB/s against at least {fmt(limit)} MB/s): "
                           f"the bottleneck is the backup application.")
            for comp, rate in candidates:
                if achieved > rate * t["overmeasured_share"] and comp != "network":
                    notes.append(f"The {direction} achieved {fmt(achieved)} MB/s, more than the "
                                 f"{COMPONENT_LABELS[comp].lower()} test measured ({fmt(rate)} MB/s): "
                                 f"that test under-measured the component.")
            if link_rate is not None and achieved > link_rate * t["overmeasured_share"]:
                notes.append(f"The {direction} achieved {fmt(achieved)} MB/s, more than the network "
                             f"limit assumed ({fmt(link_rate)} MB/s): is the data really crossing that link?")

    table_rows = [TableRow(test, rate, comp, comp == bottleneck, src) for test, rate, comp, src in rows]
    if achieved is not None:
        app = w.application or "Backup application"
        streams = f", {w.streams} stream{'s' if w.streams != 1 else ''}" if w.streams else ""
        table_rows.append(TableRow(f"{app}: {direction}{streams}", achieved, "application",
                                   bottleneck == "application", "entered"))
    return BottleneckTable(direction, tuple(table_rows), bottleneck, verdict, achieved, limit, share), notes


def _tape_row(tape: Figure, verb: str, notes: list[str]) -> tuple[str, float | None, str, str]:
    """The tape figure's row (test, MB/s, component, source): a figure its run said something else limited says so
    in its source, and one that is not the drive's (``Figure.component`` None) gets a note saying whose it is."""
    source = tape.source
    if tape.component != "tape":
        source += f", limited by {LIMIT_WORDS.get(tape.limited_by, tape.limited_by)}"
    if tape.component is None:
        notes.append(f"The tape {verb} figure ({fmt(tape.mb_s)} MB/s, {tape.source}) is not the drive's: its run said "
                     f"it was limited by {tape.limited_why or tape.limited_by}. It is what that test fed the drive, so "
                     "it names no bottleneck: repeat the tape test from a host that keeps the drive fed.")
    return f"Tape {verb}", tape.mb_s, tape.component or "tape", source


def _small_files(inp: TroubleshootInput) -> bool:
    w = inp.workload
    if w.small_files is not None:
        return w.small_files
    if w.file_count is not None and w.file_count >= MANY_FILES:
        return True
    return w.avg_file_kb is not None and w.avg_file_kb <= SMALL_FILE_KB


def bottleneck_tables(inp: TroubleshootInput) -> tuple[tuple[BottleneckTable, ...], tuple[str, ...]]:
    tables, notes = [], []
    for direction in ("backup", "restore"):
        table, more = _direction(inp, direction)
        if table is not None:
            tables.append(table)
        notes.extend(more)
    return tuple(tables), tuple(notes)


def facts(inp: TroubleshootInput, tables: tuple[BottleneckTable, ...], notes: tuple[str, ...]) -> dict:
    """The flat, JSON-safe facts the rules are written against (unknown facts are None)."""
    m, w, d = inp.measurements, inp.workload, inp.drive
    f: dict = {
        "tape_write_mb_s": m.tape_write.mb_s if m.tape_write else None,
        "tape_read_mb_s": m.tape_read.mb_s if m.tape_read else None,
        # What a recorded tape run said limited it ("" typed in): a figure not the drive's names no drive.
        "tape_write_limited_by": m.tape_write.limited_by if m.tape_write else None,
        "tape_read_limited_by": m.tape_read.limited_by if m.tape_read else None,
        "tape_limit_why": next((f.limited_why for f in (m.tape_write, m.tape_read)
                                if f and f.component is None and f.limited_why), None),
        "disk_read_single_mb_s": m.disk_read_single.mb_s if m.disk_read_single else None,
        "disk_read_parallel_mb_s": m.disk_read_parallel.mb_s if m.disk_read_parallel else None,
        "disk_write_single_mb_s": m.disk_write_single.mb_s if m.disk_write_single else None,
        "disk_write_parallel_mb_s": m.disk_write_parallel.mb_s if m.disk_write_parallel else None,
        "backup_mb_s": w.backup_mb_s,
        "restore_mb_s": w.restore_mb_s,
        "streams": w.streams,
        "block_size_kb": w.block_size / 1024 if w.block_size else None,
        "software_compression": w.software_compression,
        "remote": w.link is not None,
        "small_files": _small_files(inp),
        "lto_generation": d.generation,
        # Every LTO generation compresses in hardware (SLDC); unknown drives: unknown.
        "drive_compresses": True if d.generation else None,
    }
    spec = drive_spec(d.generation, half_height=d.half_height) if d.generation else None
    ratio = d.compression_ratio or (spec.nominal_ratio if spec else None)
    f["compression_ratio"] = ratio
    f["native_mb_s"] = spec.native_mb_s if spec else None
    f["lowest_step_mb_s"] = spec.lowest_step_mb_s if spec else None
    f["streaming_floor_mb_s"] = (spec.lowest_step_mb_s * ratio) if spec and spec.lowest_step_mb_s and ratio else None
    if w.link:
        link = parse_link(w.link)
        f["link_label"] = link.label
        f["link_mb_s"] = w.network_mb_s or link.practical_mb_s
    else:
        f["link_label"] = f["link_mb_s"] = None
    achieved = [v for v in (w.backup_mb_s, w.restore_mb_s) if v is not None]
    f["best_app_mb_s"] = max(achieved) if achieved else None
    f["os"] = w.os
    f["streams_multiple"] = w.streams > 1 if w.streams else None
    f["component_share"] = thresholds()["component_share"]
    app_directions = []
    for t in tables:
        f[f"{t.direction}_bottleneck"] = t.bottleneck
        f[f"{t.direction}_share"] = t.share
        f[f"{t.direction}_limit_mb_s"] = t.limit_mb_s
        measured = {row.component for row in t.rows if row.component != "application"}
        f[f"{t.direction}_disk_measured"] = "disk" in measured
        f[f"{t.direction}_tape_measured"] = "tape" in measured
        if t.bottleneck == "application":
            app_directions.append(sorted(measured, key=_ORDER.index))
    for direction in ("backup", "restore"):
        for key in ("bottleneck", "share", "limit_mb_s", "disk_measured", "tape_measured"):
            f.setdefault(f"{direction}_{key}", None)
    # What the application-bottleneck advice may claim was measured: the components of its tables.
    components = [_NAMED.get(c, c) for c in sorted({c for d in app_directions for c in d}, key=_ORDER.index)]
    f["app_components"] = (", ".join(components[:-1]) + " and " + components[-1]) if len(components) > 1 \
        else (components[0] if components else None)
    shares = [t.share for t in tables if t.share is not None and t.bottleneck == "tape"]
    f["best_app_share_pct"] = round(max(shares) * 100) if shares else None
    f["undermeasured"] = any("under-measured" in n for n in notes)
    f["undermeasured_text"] = " ".join(n for n in notes if "under-measured" in n) or None
    return f


__all__ = ["bottleneck_tables", "facts", "fmt"]
