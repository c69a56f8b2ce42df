"""The report model (Qt-free): ``build_report(history, run_ids, customer=..., ...) -> Report``.

Rendering to PDF lives in ``ui/pdf.py`` (Qt's own PDF writer); the CLI imports it lazily.
"""
from .build import build_report
from .model import (AppendixBlock, BottleneckRow, BottleneckSection, Cover, DeviceSection, Field, Plot,
                    RecommendationItem, Report, RunSection, SeriesData)

__all__ = [
    "build_report", "Report", "Cover", "DeviceSection", "RunSection", "BottleneckSection",
    "BottleneckRow", "RecommendationItem", "AppendixBlock", "Field", "Plot", "SeriesData",
]
