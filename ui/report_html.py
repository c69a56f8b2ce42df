"""The report body as the HTML subset QTextDocument lays out (tables, headings, images).

Plots are referenced by name (``plot:N``) and registered as image resources by
``ui/pdf.py``; this module only writes markup, so the layout decisions live in one
readable place.
"""
from __future__ import annotations

from html import escape

from app.report import Field, Plot, Report

NAVY = "#1f3a5f"
RULE = "#c8ccd2"
SEVERITY_COLOURS = {"high": "#b3261e", "medium": "#b86e00", "info": "#2e6b30"}

CSS = f"""
body {{ font-size: 9pt; color: #222; }}
h1 {{ font-size: 15pt; color: {NAVY}; margin-top: 0; margin-bottom: 6pt; }}
h2 {{ font-size: 12pt; color: {NAVY}; margin-top: 14pt; margin-bottom: 5pt; }}
h3 {{ font-size: 10pt; color: {NAVY}; margin-top: 10pt; margin-bottom: 3pt; }}
p {{ margin-top: 2pt; margin-bottom: 4pt; }}
table.grid {{ border-collapse: collapse; border-color: {RULE}; margin-bottom: 6pt; }}
table.grid th {{ background-color: {NAVY}; color: white; font-weight: bold; text-align: left; }}
td.num {{ text-align: right; }}
.muted {{ color: #666; font-size: 8pt; }}
.verdict {{ font-weight: bold; }}
"""


SPACER = '<p style="margin: 0; font-size: 5pt;">&nbsp;</p>'  # QTextDocument drops heading margins after tables


def _e(text: str) -> str:
    return escape(str(text))


def _grid(header: tuple[str, ...], rows: list[tuple[str, ...]], *, numeric: tuple[int, ...] = (),
          highlight: set[int] | None = None, widths: tuple[int, ...] | None = None) -> str:
    """A bordered table; ``highlight`` rows get a tinted, bold line (the bottleneck)."""
    out = ['<table class="grid" border="0.5" cellspacing="0" cellpadding="3" width="100%">']
    ws = widths or ()
    heads = []
    for i, h in enumerate(header):
        width = f' width="{ws[i]}%"' if i < len(ws) else ""
        align = " align=right" if i in numeric else ""
        heads.append(f"<th{width}{align}>{_e(h)}</th>")
    out.append("<tr>" + "".join(heads) + "</tr>")
    for n, row in enumerate(rows):
        hl = highlight and n in highlight
        bg = ' bgcolor="#fbe3dd"' if hl else (' bgcolor="#f4f6f9"' if n % 2 else "")
        cells = []
        for i, cell in enumerate(row):
            text = f"<b>{_e(cell)}</b>" if hl else _e(cell)
            cells.append(f'<td{" class=num align=right" if i in numeric else ""}>{text}</td>')
        out.append(f"<tr{bg}>" + "".join(cells) + "</tr>")
    out.append("</table>")
    return "".join(out)


def _fields(fields: tuple[Field, ...] | list[Field], header: tuple[str, str] = ("Item", "Value")) -> str:
    return _grid(header, [(f.label, f.value) for f in fields], widths=(45, 55))


def _img(name: str, width: int, height: int) -> str:
    return f'<p><img src="{name}" width="{width}" height="{height}"></p>'


def plot_names(report: Report) -> dict[str, Plot]:
    """Resource name -> plot, for every image the body refers to."""
    names = {f"plot:run{r.run_id}": r.plot for r in report.runs if r.plot is not None}
    if report.comparison is not None:
        names["plot:comparison"] = report.comparison
    return names


def body_html(report: Report, image_size: tuple[int, int]) -> str:
    w, h = image_size
    parts = [f"<html><head><style>{CSS}</style></head><body>"]

    parts.append("<h1>Summary</h1>")
    if report.verdict:
        parts.append(f'<table width="100%" cellpadding="6" bgcolor="#eef3f9" border="0"><tr><td>'
                     f'<p class="verdict">{_e(report.verdict)}</p></td></tr></table>')
    if report.summary_rows:
        parts.append(_grid(("Run", "Test", "Device", "Result"), [tuple(r) for r in report.summary_rows],
                           widths=(8, 26, 22, 44)))

    if report.bottlenecks:
        parts.append(SPACER + "<h2>Bottleneck analysis</h2>")
        parts.append('<p class="muted">Each component measured on its own, compared with what the backup '
                     "application achieved (HP Data Protector performance white paper, “Finding bottlenecks”).</p>")
        for section in report.bottlenecks:
            parts.append(SPACER + f"<h3>{_e(section.direction)} — bottleneck determination</h3>")
            rows: list[tuple[str, ...]] = [(f"{i}. {r.test}", r.mb_s, r.bottleneck,
                                             "" if r.source == "entered" else r.source)
                                            for i, r in enumerate(section.rows, 1)]
            parts.append(_grid(("Test", "Performance (MB/s)", "Bottleneck?", "Source"), rows, numeric=(1,),
                               highlight={i for i, r in enumerate(section.rows) if r.is_bottleneck},
                               widths=(42, 18, 20, 20)))
            parts.append(f'<p class="verdict">{_e(section.verdict)}</p>')
        for note in report.notes:
            parts.append(f'<p class="muted">Note: {_e(note)}</p>')

    if report.recommendations:
        parts.append(SPACER + "<h2>Recommendations</h2>")
        for i, rec in enumerate(report.recommendations, 1):
            colour = SEVERITY_COLOURS.get(rec.severity, "#444")
            parts.append(SPACER + f'<h3>{i}. {_e(rec.title)} <span style="color:{colour}; font-size:8pt;">'
                         f"[{_e(rec.severity)}]</span></h3>")
            parts.append(f"<p>{_e(rec.advice)}</p>")
            parts.append(f"<p><i>Why:</i> {_e(rec.reason)}</p>")
            parts.append(f'<p class="muted">Source: {_e(rec.source)}</p>')

    if report.devices:
        parts.append(SPACER + "<h2>Devices</h2>")
        for dev in report.devices:
            parts.append(SPACER + f"<h3>{_e(dev.device)}</h3>")
            if dev.identity:
                parts.append(_fields(dev.identity, ("Identity", "")))
            if dev.health:
                parts.append(f'<p><b>Health:</b> {_e(dev.health)}</p>')
            if dev.health_details:
                parts.append(_fields(dev.health_details, ("Health detail", "")))
            for alert in dev.alerts:
                parts.append(f'<p style="color:#b3261e;">• {_e(alert)}</p>')
            if not (dev.identity or dev.health):
                parts.append('<p class="muted">No drive information was recorded for this device.</p>')

    if report.runs:
        parts.append('<h2 style="page-break-before: always;">Test runs</h2>')
    for run in report.runs:
        parts.append(SPACER + f"<h3>Run #{run.run_id}: {_e(run.title)}</h3>")
        parts.append(f'<p class="muted">Status {_e(run.status)} · started {_e(run.started_at)} · '
                     f"finished {_e(run.finished_at)} (UTC)</p>")
        for msg in run.messages:
            parts.append(f"<p>• {_e(msg)}</p>")
        if run.headline:
            parts.append(_fields(run.headline, ("Result", "")))
        if run.parameters:
            parts.append(_fields(run.parameters, ("Parameter", "")))
        if run.plot is not None:
            parts.append(_img(f"plot:run{run.run_id}", w, h))
        if run.results:
            shown = [f for f in run.results if f not in run.headline][:24]
            more = len(run.results) - len(shown)
            parts.append(_fields(shown, ("Measured", "")))
            if more > 0:
                where = "in the appendix" if report.appendix else "with 'tapediag report --appendix'"
                parts.append(f'<p class="muted">{more} more figures {where}.</p>')
    if report.comparison is not None:
        parts.append(SPACER + "<h2>Runs compared</h2>")
        parts.append(_img("plot:comparison", w, h))

    if report.appendix:
        parts.append('<h2 style="page-break-before: always;">Appendix: raw figures</h2>')
        for block in report.appendix:
            parts.append(SPACER + f"<h3>{_e(block.title)}</h3>")
            parts.append(_fields(block.rows, ("Field", "Value")))
    parts.append("</body></html>")
    return "".join(parts)
