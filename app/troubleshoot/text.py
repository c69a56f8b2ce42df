"""A troubleshooting session as ``tapediag troubleshoot`` prints it: the bottleneck tables and the advice."""
from __future__ import annotations

import textwrap

from app.troubleshoot.analysis import fmt
from app.troubleshoot.model import Diagnosis


def format_text(dx: Diagnosis) -> str:
    """The bottleneck tables and advice as text (``show`` prints a stored session the same way)."""
    lines: list[str] = []
    for table in dx.tables:
        lines.append(f"{table.direction.capitalize()} — bottleneck determination")
        width = max(len(r.test) for r in table.rows) + 4
        lines.append(f"  {'Test'.ljust(width)}{'Performance (MB/s)':>20}  Bottleneck?")
        for i, row in enumerate(table.rows, 1):
            src = f"  ({row.source})" if row.source and row.source != "entered" else ""
            test = f"{i}. {row.test}"
            lines.append(f"  {test.ljust(width)}{fmt(row.mb_s):>20}  {row.bottleneck_text}{src}")
        lines.append(f"  {table.verdict}")
        lines.append("")
    if not dx.tables:
        lines += [dx.verdict, ""]
    for note in dx.notes:
        lines += textwrap.wrap(f"Note: {note}", 88) + [""]
    if dx.recommendations:
        lines.append("Recommendations")
        for rec in dx.recommendations:
            lines.append(f"  [{rec.severity}] {rec.title}")
            for label, text in (("", rec.advice), ("Why: ", rec.reason), ("Source: ", rec.source)):
                lines += textwrap.wrap(label + text, 86, initial_indent="    ", subsequent_indent="      ")
    return "\n".join(lines).rstrip()


__all__ = ["format_text"]
