"""A troubleshooting session as a run kind (``troubleshoot``): the figures it was given (``TroubleshootInput``,
built from the request by ``app.troubleshoot.request.build_input``), the diagnosis, and its words."""
from __future__ import annotations

from typing import Any

from native.errors import InvalidParameter

from app.runs.fields import Field, stored_rows
from app.runs.kind import Call, Command, Finding, RunContext, RunKind, Target
from app.runs.words import mb_s
from app.troubleshoot import diagnose
from app.troubleshoot.parse import parse_link
from app.troubleshoot.model import COMPONENT_LABELS, BottleneckTable, Diagnosis, TroubleshootInput
from app.troubleshoot.text import format_text

_BOTTLENECK_TONES = {"tape": "good", "application": "warn", "disk": "warn", "network": "warn"}
_SEVERITY_TONES = {"high": "bad", "medium": "warn", "info": "good"}


def _bottleneck_detail(table: BottleneckTable) -> str:
    """The session's figures behind a bottleneck, rounded as the rest of the report
    (the engine's own verdict sentence, word for word, is in the bottleneck section)."""
    parts = []
    direction = table.direction.lower() or "the job"
    if table.achieved_mb_s is not None:
        parts.append(f"The {direction} achieved {mb_s(table.achieved_mb_s)}")
    components = [r for r in table.rows if r.component != "application" and r.mb_s is not None]
    if components:
        slowest = min(components, key=lambda r: r.mb_s or 0.0)
        parts.append(f"the slowest component, {slowest.test.lower()}, measured {mb_s(slowest.mb_s)}")
    return "; ".join(parts) + "." if parts else table.verdict


def findings(dx: Diagnosis) -> list[Finding]:
    out = []
    for table in dx.tables:
        who = table.bottleneck
        words = f"The {str(COMPONENT_LABELS.get(who or '') or who).lower()}" if who else "Not determined"
        if who and table.limit_mb_s is not None and who != "application":
            words += f" ({mb_s(table.limit_mb_s)})"
        out.append(Finding(f"{table.direction.capitalize()} bottleneck", words,
                           _BOTTLENECK_TONES.get(str(who), "none"), _bottleneck_detail(table)))
    if dx.recommendations:
        first = dx.recommendations[0]
        out.append(Finding("First recommendation", first.title, _SEVERITY_TONES.get(first.severity, "none"),
                           first.reason, first.advice))
    return out


#: What the technician said about the backup job (``Workload``), each with its unit: the parameter line of ``show``
#: and of the report (the measurements are the bottleneck tables' rows; the drive is the report's device line).
WORKLOAD_WORDS = (
    Field("backup_mb_s", "Backup rate", "", unit="MB/s"), Field("restore_mb_s", "Restore rate", "", unit="MB/s"),
    Field("streams", "Streams", ""), Field("block_size", "Block size", "", unit="size"),
    Field("software_compression", "Software compression", ""), Field("link", "Network link", ""),
    Field("network_mb_s", "Network rate", "", unit="MB/s"), Field("small_files", "Many small files", ""),
    Field("file_count", "Files", ""), Field("avg_file_bytes", "Average file size", "", unit="bytes"),
    Field("application", "Backup application", ""), Field("os", "Operating system", ""),
)


def _link_words(typed: str) -> str:
    """'Gigabit Ethernet' for a stored 'gige'; what was typed when this version does not know the link (a row
    from a version that knew more links: shown as stored, never an error)."""
    try:
        return parse_link(typed).label
    except InvalidParameter:
        return typed


def parameter_rows(params: dict[str, Any]) -> list[tuple[str, str]]:
    """A session's workload as 'Backup rate 40.0 MB/s', 'Average file size 10.1 KB' (never 'Avg file kb: 10 KB'),
    and the drive's generation when it was given."""
    given = TroubleshootInput.from_dict(params)
    workload = {f.name: getattr(given.workload, f.name, None) for f in WORKLOAD_WORDS if f.name != "avg_file_bytes"}
    if given.workload.avg_file_kb is not None:  # KiB, as the tree walk measured it
        workload["avg_file_bytes"] = given.workload.avg_file_kb * 1024
    if given.workload.link:  # the link by its name ("Gigabit Ethernet"), not as it was typed ("gige")
        workload["link"] = _link_words(given.workload.link)
    if given.workload.software_compression is False:
        workload["software_compression"] = "off"  # a False is left out of the rows, but "off" was said
    rows = stored_rows(WORKLOAD_WORDS, workload)
    drive = given.drive
    if drive.generation:
        rows.insert(0, ("Drive", f"LTO-{drive.generation}" + (" half-height" if drive.half_height else "")))
    if drive.compression_ratio:
        rows.append(("Compression ratio of the data", f"{drive.compression_ratio:.2f}:1"))
    return rows


def _engine(ctx: RunContext[TroubleshootInput]) -> Call[Diagnosis]:
    params = ctx.params
    return Call(lambda: diagnose(params))


TROUBLESHOOT: RunKind[TroubleshootInput, Diagnosis] = RunKind(
    "troubleshoot", "Troubleshooting session", Target.NOTHING, TroubleshootInput, Diagnosis, _engine,
    headline=lambda dx: dx.verdict, text=format_text, findings=findings, parameters=parameter_rows,
    command=Command("troubleshoot", "find the bottleneck of a slow backup or restore"))

__all__ = ["TROUBLESHOOT", "WORKLOAD_WORDS", "findings", "parameter_rows"]
