"""A troubleshooting session as a run kind (``troubleshoot``): the figures it was given (``TroubleshootInput``,
built from the request by ``app.troubleshoot.request.build_input``), the diagnosis, and its words."""
from __future__ import annotations

from app.runs.kind import Call, Command, Finding, RunContext, RunKind, Target
from app.runs.words import mb_s
from app.troubleshoot import diagnose
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


def _engine(ctx: RunContext[TroubleshootInput]) -> Call[Diagnosis]:
    params = ctx.params
    return Call(lambda: diagnose(params))


TROUBLESHOOT: RunKind[TroubleshootInput, Diagnosis] = RunKind(
    "troubleshoot", "Troubleshooting session", Target.NOTHING, TroubleshootInput, Diagnosis, _engine,
    headline=lambda dx: dx.verdict, text=format_text, findings=findings,
    command=Command("troubleshoot", "find the bottleneck of a slow backup or restore"))

__all__ = ["TROUBLESHOOT", "findings"]
