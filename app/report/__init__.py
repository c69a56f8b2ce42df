"""The report model (Qt-free): ``build_report(history, run_ids, customer=..., ...) -> Report``.

Rendering to PDF lives in ``ui/pdf.py`` (Qt's own PDF writer): the GUI calls it directly,
the CLI through ``app.frontends.pdf_writer()``, which its composition root (``app/__main__.py``) provides.
"""
from .build import build_report, host_name
from .model import (AppendixBlock, Bar, BarChart, BottleneckRow, BottleneckSection, Cover, DeviceSection, Field,
                    Headline, Plot,
                    RecommendationItem, Report, RunSection, SeriesData)
from .output import check_report_path

__all__ = [
    "build_report", "check_report_path", "host_name", "Report", "Cover", "DeviceSection", "RunSection", "BottleneckSection",
    "BottleneckRow", "Bar", "BarChart", "Headline", "RecommendationItem", "AppendixBlock", "Field", "Plot", "SeriesData",
]
