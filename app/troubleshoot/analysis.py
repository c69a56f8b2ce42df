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

from dataclasses import dataclass

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


@dataclass(frozen=True)
class _Side:
    """One direction's figures: backup (tape write, disk read) or restore (tape read, disk write)."""

    direction: str
    tape: Figure | None
    single: Figure | None
    parallel: Figure | None
    achieved: float | None
    network: Figure | None = None  # measured by net-test this direction's way

    @classmethod
    def of(cls, inp: TroubleshootInput, direction: str) -> "_Side":
        m, w = inp.measurements, inp.workload
        if direction == "backup":
            return cls(direction, m.tape_write, m.disk_read_single, m.disk_read_parallel, w.backup_mb_s,
                       m.network_backup)
        return cls(direction, m.tape_read, m.disk_write_single, m.disk_write_parallel, w.restore_mb_s,
                   m.network_restore)

    @property
    def backup(self) -> bool:
        return self.direction == "backup"

    @property
    def disk_verb(self) -> str:
        return "read" if self.backup else "write"

    @property
    def tape_verb(self) -> str:
        return "write" if self.backup else "read"

    @property
    def name(self) -> str:
        return self.direction.capitalize()


def _direction(inp: TroubleshootInput, direction: str) -> tuple[BottleneckTable | None, list[str]]:
    side, w = _Side.of(inp, direction), inp.workload
    notes: list[str] = []
    if not (side.tape or side.single or side.parallel) and side.achieved is None:
        return None, notes  # nothing of this direction was measured (a link alone is no table)
    rows, link_rate = _measured_rows(side, w.link, w.network_mb_s, notes)
    candidates: list[tuple[str, float]] = []
    if side.tape and side.tape.component is not None:
        candidates.append((side.tape.component, side.tape.mb_s))
    disk = _disk_figure(side.single, side.parallel, w.streams)
    if disk:
        candidates.append(("disk", disk.mb_s))
    if link_rate is not None:
        candidates.append(("network", link_rate))
    bottleneck, verdict, limit, share = _verdict(inp, side, candidates)
    if side.achieved is not None and candidates:
        notes += _overmeasured(side.direction, side.achieved, candidates, link_rate, side.network is not None)
    table_rows = [TableRow(test, rate, comp, comp == bottleneck, src) for test, rate, comp, src in rows]
    if side.achieved is not None:
        app = w.application or "Backup application"
        streams = f", {w.streams} stream{'s' if w.streams != 1 else ''}" if w.streams else ""
        table_rows.append(TableRow(f"{app}: {direction}{streams}", side.achieved, "application",
                                   bottleneck == "application", "entered"))
    return BottleneckTable(direction, tuple(table_rows), bottleneck, verdict, side.achieved, limit, share), notes


def _measured_rows(side: _Side, link_text: str | None, network_mb_s: float | None,
                   notes: list[str]) -> tuple[list[tuple[str, float | None, str, str]], float | None]:
    """The table's measured rows (test, MB/s, component, source) and the network's rate, if the data crosses one."""
    rows: list[tuple[str, float | None, str, str]] = []
    if side.tape:
        rows.append(_tape_row(side.tape, side.tape_verb, notes))
    if side.single:
        rows.append((f"Disk {side.disk_verb}, single stream", side.single.mb_s, "disk", side.single.source))
    if side.parallel:
        rows.append((f"Disk {side.disk_verb}, parallel streams", side.parallel.mb_s, "disk", side.parallel.source))
    if side.network:  # measured by net-test: the figure of this path, whatever the link's name says
        way = "client to server" if side.backup else "server to client"
        label = f" ({parse_link(link_text).label})" if link_text else ""
        rows.append((f"Network{label}, {way}", side.network.mb_s, "network", f"{side.network.source}, net-test"))
        return rows, side.network.mb_s
    if not link_text:
        return rows, None
    link = parse_link(link_text)
    link_rate = network_mb_s if network_mb_s else link.practical_mb_s
    src = "measured" if network_mb_s else f"{fmt(link.nominal_mb_s)} MB/s line rate, practical limit"
    rows.append((f"Network ({link.label})", link_rate, "network", src))
    return rows, link_rate


def _verdict(inp: TroubleshootInput, side: _Side,
             candidates: list[tuple[str, float]]) -> tuple[str | None, str, float | None, float | None]:
    """(bottleneck, verdict, the slowest rate, the application's share of it), by the white paper's process."""
    name, direction, tape, achieved = side.name, side.direction, side.tape, side.achieved
    if not candidates:
        return None, (f"{name}: the tape test was limited by {LIMIT_WORDS.get(tape.limited_by, tape.limited_by)} and no "
                      "other component was measured: no bottleneck can be named." if tape else
                      f"{name}: no component was measured, so no bottleneck can be named."), None, None
    slowest, limit = min(candidates, key=lambda c: c[1])
    label = COMPONENT_LABELS[slowest].lower()
    if achieved is None:
        return slowest, (f"{name}: the slowest component is the {label} at {fmt(limit)} MB/s; "
                         f"the {direction} cannot run faster than that."), limit, None
    t = thresholds()
    share = achieved / limit if limit else None
    if share is not None and share > t["overmeasured_share"]:
        # The application beat the slowest test: that test under-measured, and naming it the
        # bottleneck would put a figure below what the application achieved in the headline.
        return None, (f"{name}: the {direction} achieved {fmt(achieved)} MB/s, more than the {label} test "
                      f"measured ({fmt(limit)} MB/s): repeat that test with settings closer to the "
                      f"application's before naming a bottleneck."), limit, share
    if share is not None and share >= t["component_share"]:
        return slowest, (f"{name}: the bottleneck is the {label} ({fmt(limit)} MB/s); "
                         f"the {direction} achieved {fmt(achieved)} MB/s."), limit, share
    if slowest == "disk" and _small_files(inp):
        return "disk", (f"{name}: the bottleneck is the file system: with many small files the {direction} "
                        f"achieved only {fmt(achieved)} MB/s against {fmt(limit)} MB/s measured."), limit, share
    tape_as = tape.component if tape else None
    missing = [c for c in ("tape", "disk") if c not in dict(candidates) and (c, tape_as) != ("tape", "link")]
    if missing:
        what = " and ".join(f"the {c} {side.disk_verb if c == 'disk' else side.tape_verb}"
                            + (" again, from a host that keeps the drive fed," if c == "tape" and tape else "")
                            for c in missing)
        return None, (f"{name}: the measured components are all faster than the {direction} "
                      f"({fmt(achieved)} MB/s); measure {what} to name the bottleneck."), limit, share
    return "application", (f"{name}: every component is faster than the backup application "
                           f"({fmt(achieved)} MB/s against at least {fmt(limit)} MB/s): "
                           f"the bottleneck is the backup application."), limit, share


def _overmeasured(direction: str, achieved: float, candidates: list[tuple[str, float]],
                  link_rate: float | None, measured: bool = False) -> list[str]:
    """A component test the application beat under-measured it: said, so that its figure is not trusted."""
    over = thresholds()["overmeasured_share"]
    notes = [f"The {direction} achieved {fmt(achieved)} MB/s, more than the {COMPONENT_LABELS[comp].lower()} test "
             f"measured ({fmt(rate)} MB/s): that test under-measured the component."
             for comp, rate in candidates if achieved > rate * over and comp != "network"]
    if link_rate is not None and achieved > link_rate * over and measured:
        notes.append(f"The {direction} achieved {fmt(achieved)} MB/s, more than the network test measured "
                     f"({fmt(link_rate)} MB/s): did the backup cross the path that was measured, in this direction?")
    elif link_rate is not None and achieved > link_rate * over:
        notes.append(f"The {direction} achieved {fmt(achieved)} MB/s, more than the network "
                     f"limit assumed ({fmt(link_rate)} MB/s): is the data really crossing that link?")
    return notes


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
    f = {**_measured_facts(inp), **_drive_facts(inp), **_link_facts(inp)}
    w = inp.workload
    achieved = [v for v in (w.backup_mb_s, w.restore_mb_s) if v is not None]
    f["best_app_mb_s"] = max(achieved) if achieved else None
    f["os"] = w.os
    f["streams_multiple"] = w.streams > 1 if w.streams else None
    f["component_share"] = thresholds()["component_share"]
    f.update(_table_facts(tables))
    f["undermeasured"] = any("under-measured" in n for n in notes)
    f["undermeasured_text"] = " ".join(n for n in notes if "under-measured" in n) or None
    return f


def _mb_s(figure: Figure | None) -> float | None:
    return figure.mb_s if figure else None


def _measured_facts(inp: TroubleshootInput) -> dict:
    """The measured rates and the workload as entered."""
    m, w = inp.measurements, inp.workload
    return {
        "tape_write_mb_s": _mb_s(m.tape_write),
        "tape_read_mb_s": _mb_s(m.tape_read),
        # What a recorded tape run said limited it ("" typed in): a figure not the drive's names no drive.
        "tape_write_limited_by": m.tape_write.limited_by if m.tape_write else None,
        "tape_read_limited_by": m.tape_read.limited_by if m.tape_read else None,
        "tape_limit_why": next((f.limited_why for f in (m.tape_write, m.tape_read)
                                if f and f.component is None and f.limited_why), None),
        "disk_read_single_mb_s": _mb_s(m.disk_read_single),
        "disk_read_parallel_mb_s": _mb_s(m.disk_read_parallel),
        "disk_write_single_mb_s": _mb_s(m.disk_write_single),
        "disk_write_parallel_mb_s": _mb_s(m.disk_write_parallel),
        "backup_mb_s": w.backup_mb_s,
        "restore_mb_s": w.restore_mb_s,
        "streams": w.streams,
        "block_size_kb": w.block_size / 1024 if w.block_size else None,
        "software_compression": w.software_compression,
        "remote": w.link is not None or _network_figure(inp) is not None,
        "small_files": _small_files(inp),
    }


def _drive_facts(inp: TroubleshootInput) -> dict:
    """The drive's generation and what its published figures say (``data.drive_spec``)."""
    d = inp.drive
    spec = drive_spec(d.generation, half_height=d.half_height) if d.generation else None
    ratio = d.compression_ratio or (spec.nominal_ratio if spec else None)
    return {
        "lto_generation": d.generation,
        # Every LTO generation compresses in hardware (SLDC); unknown drives: unknown.
        "drive_compresses": True if d.generation else None,
        "compression_ratio": ratio,
        "native_mb_s": spec.native_mb_s if spec else None,
        "lowest_step_mb_s": spec.lowest_step_mb_s if spec else None,
        "streaming_floor_mb_s": (spec.lowest_step_mb_s * ratio) if spec and spec.lowest_step_mb_s and ratio else None,
    }


def _network_figure(inp: TroubleshootInput) -> Figure | None:
    """The slower of the directions net-test measured (None: no recorded network test)."""
    measured = [f for f in (inp.measurements.network_backup, inp.measurements.network_restore) if f]
    return min(measured, key=lambda f: f.mb_s) if measured else None


def _link_facts(inp: TroubleshootInput) -> dict:
    """The network's name and rate: as net-test measured it, else the rate typed in, else the link's practical rate."""
    link_text, measured = inp.workload.link, _network_figure(inp)
    if measured is not None:
        where = f"{parse_link(link_text).label} as net-test measured it ({measured.source})" if link_text else \
            f"The network path net-test measured ({measured.source})"
        return {"link_label": where, "link_mb_s": measured.mb_s}
    if not link_text:
        return {"link_label": None, "link_mb_s": None}
    link = parse_link(link_text)
    return {"link_label": link.label, "link_mb_s": inp.workload.network_mb_s or link.practical_mb_s}


def _table_facts(tables: tuple[BottleneckTable, ...]) -> dict:
    """Each direction's bottleneck, share and limit, and what the application-bottleneck advice may claim."""
    f: dict = {}
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
    return f


__all__ = ["bottleneck_tables", "facts", "fmt"]
