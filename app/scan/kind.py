"""The media scan as a run kind (``media-scan``): parameters, engine, typed result, renderers.

The cartridge's verdict and what the scan saw of the drive, the path and the host, in the words of the
report (page 1 and its rows) and the history; the CLI's text is ``app.scan.text``.
"""
from __future__ import annotations

from app.history.figures import VisitFigures
from app.runs.kind import EXIT_CANCELLED, EXIT_FAILED, Command, Finding, RunContext, RunKind, Rows, Target
from app.runs.words import block, count, duration, volume
from app.scan.engine import MediaScan
from app.scan.params import ScanParams
from app.scan.results import ScanResult, where
from app.tapeperf.results import error_deltas
from app.scan.text import summary_lines
from native.units import rate_text

_TONES = {"keep": "good", "check again": "warn", "monitor": "warn", "retire": "bad"}
_ACTIONS = {"keep": "None: the cartridge reads cleanly.",
            "check again": ("Clean the drive and scan the cartridge again, in another drive if there is one: "
                            "seen in a second scan, it is the cartridge's."),
            "monitor": "Keep the cartridge in rotation but scan it again after its next use.",
            "retire": "Copy the data to another cartridge and retire this one.",
            "not assessed": "Scan the whole cartridge, to the end of its data, to judge it."}
#: A scan finding's severity as a report's tone; the drive's and the path's findings and the host's notes.
_FINDING_TONES = {"critical": "bad", "warning": "warn", "information": "none"}
_CULPRITS = {"drive": "Drive (seen in the scan)", "path": "Connection to the drive", "host": "Host (during the scan)"}


def headline(result: ScanResult) -> str:
    read = result.read
    rate = read.streaming_mb_per_s or read.mb_s
    figures = f"{volume(read.bytes)} read" + (f" at {rate_text(rate)}" if rate else "")
    return f"cartridge {result.verdict.value.upper()}: {figures}" + (" (partial)" if result.partial else "")


def exit_code(result: ScanResult) -> int:
    """The cartridge's verdict (``ScanResult.exit_code``: 0 keep, 10 monitor, 11 retire, 12 not assessed, 13 check
    again, raised by a drive finding); 1 when the connection was lost, 130 cancelled."""
    if result.status == "cancelled":
        return EXIT_CANCELLED
    if result.status == "failed" and result.end_reason == "lost":
        return EXIT_FAILED
    return result.exit_code


def findings(result: ScanResult) -> list[Finding]:
    """The cartridge's verdict, then what the scan found about the drive, the path and the host."""
    verdict = result.verdict.value
    out = [Finding("Cartridge", verdict.capitalize(), _TONES.get(verdict, "none"), "; ".join(result.reasons),
                   _ACTIONS.get(verdict, ""))]
    for f in result.findings:
        out.append(Finding(_CULPRITS.get(f.culprit, "Finding"), f.words or f.text, _FINDING_TONES.get(f.severity, "none"),
                           f.text, f.action))
    return out


def rows(r: ScanResult) -> Rows:
    ph = r.read
    out = [("LTFS volume", f"{r.ltfs.describe()}: holds data")] if r.ltfs is not None else []
    out += [("Cartridge verdict", r.verdict.value.upper())] + [("Why", reason) for reason in r.reasons]
    rate = f", {rate_text(ph.streaming_mb_per_s)} streaming" if ph.streaming_mb_per_s is not None else ""
    out += [("Read", f"{volume(ph.bytes)} in {duration(ph.elapsed)}{rate}; ended: {r.end_reason}"
                     + (" (partial scan)" if r.partial else "")),
            ("Layout", f"{count(len(r.files), 'file')}, {count(ph.filemarks, 'filemark')}, {count(ph.ios, 'block')}"),
            ("Slow zones", ", ".join(f"{where(z)} at {rate_text(z.drive_mb_s)}" for z in r.slow_zones[:6])
                           + (f" (typical zone {rate_text(r.typical_zone_mb_s)})" if r.typical_zone_mb_s else "")
                           if r.slow_zones else "none"),
            ("Repositions while the host kept up",
             f"{len(ph.drive_stalls):,} (total {duration(sum(s.latency for s in ph.drive_stalls))})" if ph.drive_stalls
             else "none")]
    out += [(f"{f.culprit.capitalize()} finding", f.text + (f" (what to do: {f.action})" if f.action else ""))
            for f in r.findings]
    for f in r.files[:12]:
        size = block(f.min_block) if f.min_block == f.max_block else f"{block(f.min_block)} to {block(f.max_block)}"
        out.append((f"File {f.index}", f"{count(f.blocks, 'block')} of {size}, {volume(f.bytes)}"
                                       + (f", {rate_text(f.mb_s)}" if f.mb_s else "")))
    out += [(f"{d.name.capitalize()} during the scan", d.change) for d in r.log_deltas
            if d.delta is not None and "read error" in d.name]
    if r.tapealert is not None:
        out.append(("TapeAlert after the scan", ", ".join(r.tapealert) or "no flags"))
    out.append(("Drive settings", r.settings))
    return out


def _engine(ctx: RunContext[ScanParams]) -> MediaScan:
    return MediaScan(ctx.drive, ctx.params)


def visit_figures(r: ScanResult) -> VisitFigures:
    """What a scan says about its cartridge and drive (``app.visits``): what it read, the error counters' change,
    its slow zones, a read an error stopped, and the cartridge's own signals."""
    corrected, uncorrected = error_deltas(r.log_deltas)
    return VisitFigures(r.read.bytes / 1e9 or None, corrected, uncorrected, slow=bool(r.slow_zones),
                        stopped=r.end_reason == "error", signals=tuple(r.cartridge_signals))


MEDIA_SCAN: RunKind[ScanParams, ScanResult] = RunKind(
    "media-scan", "Media scan", Target.DRIVE, ScanParams, ScanResult, _engine, headline=headline,
    text=lambda r: "\n".join(summary_lines(r)), rows=rows, findings=findings, exit_code=exit_code, visit=visit_figures,
    command=Command("scan", "read a cartridge from BOT to end of data, read-only: layout, read rate per zone, "
                            "repositions, verdict"))

__all__ = ["MEDIA_SCAN", "exit_code", "findings", "headline", "rows"]
