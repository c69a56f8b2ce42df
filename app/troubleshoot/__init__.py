"""Guided troubleshooting: the white paper's bottleneck table and recommendations.

    from app.troubleshoot import diagnose, TroubleshootInput, Measurements, Workload, Figure
    dx = diagnose(TroubleshootInput(Measurements(tape_write=Figure(154), ...), Workload(backup_mb_s=22.98)))
    dx.tables, dx.recommendations, dx.verdict, dx.to_dict()

Figures may be typed in or taken from history runs (``figures_from_history``).
"""
from .analysis import bottleneck_tables, facts, fmt
from .model import (COMPONENT_LABELS, BottleneckTable, Diagnosis, DriveContext, Figure, Measurements,
                    Recommendation, TableRow, TroubleshootInput, Workload)
from .rules import evaluate


def diagnose(inp: TroubleshootInput) -> Diagnosis:
    """Bottleneck tables for backup and restore, then the rules over the resulting facts."""
    tables, notes = bottleneck_tables(inp)
    f = facts(inp, tables, notes)
    return Diagnosis(input=inp, tables=tables, recommendations=evaluate(f), facts=f, notes=notes)


__all__ = [
    "diagnose", "fmt", "COMPONENT_LABELS", "BottleneckTable", "Diagnosis", "DriveContext", "Figure",
    "Measurements", "Recommendation", "TableRow", "TroubleshootInput", "Workload",
]
