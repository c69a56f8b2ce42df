"""The report as the HTML subset QTextDocument lays out (tables, headings, images).

Page 1 is for the customer's manager: who, where and when, then every verdict in words
and colour with what to do. The pages after it are for the engineer. Images are
referenced by name (``plot:...``, ``bars:N``) and registered by ``ui/pdf.py``; this module
only writes markup, so the layout decisions live in one readable place.
"""
from __future__ import annotations

from html import escape

from app.compare.model import Comparison
from app.report import BarChart, Field, Headline, Plot, Report
from ui.format import unbroken

NAVY = "#1f3a5f"
RULE = "#c8ccd2"
SEVERITY_COLOURS = {"high": "#b3261e", "medium": "#b86e00", "info": "#2e6b30"}
# A verdict's colour and the word beside it, so it reads in grey print too.
TONES = {"good": ("#2e6b30", "#e6f2e6", "OK"), "warn": ("#b86e00", "#fdf1dc", "CHECK"),
         "bad": ("#b3261e", "#fbe3dd", "ACT"), "none": ("#555555", "#eeeeee", "INFO")}

CSS = f"""
body {{ font-size: 9pt; color: #222; }}
h1 {{ font-size: 14pt; color: {NAVY}; margin-top: 0; margin-bottom: 5pt; }}
h2 {{ font-size: 11.5pt; color: {NAVY}; margin-top: 10pt; margin-bottom: 4pt; }}
h3 {{ font-size: 10pt; color: {NAVY}; margin-top: 8pt; margin-bottom: 2pt; }}
p {{ margin-top: 1pt; margin-bottom: 3pt; }}
table.grid {{ border-collapse: collapse; border-color: {RULE}; margin-bottom: 4pt; }}
table.grid th {{ background-color: {NAVY}; color: white; font-weight: bold; text-align: left; }}
td.num {{ text-align: right; }}
.muted {{ color: #666; font-size: 8pt; }}
.verdict {{ font-weight: bold; }}
"""

SPACER = '<p style="margin: 0; font-size: 4pt;">&nbsp;</p>'  # QTextDocument drops heading margins after tables
PAGE_BREAK = "page-break-before: always;"


def _e(text: str) -> str:
    """Escaped, with every figure kept whole where a box or a cell wraps (``ui.format.unbroken``)."""
    return escape(unbroken(str(text)))


def _grid(header: tuple[str, ...], rows: list[tuple[str, ...]], *, numeric: tuple[int, ...] = (),
          highlight: set[int] | None = None, widths: tuple[int, ...] | None = None, padding: int = 2) -> str:
    """A bordered table; ``highlight`` rows get a tinted, bold line (the bottleneck)."""
    out = [f'<table class="grid" border="0.5" cellspacing="0" cellpadding="{padding}" width="100%">']
    ws = widths or ()
    heads = []
    for i, h in enumerate(header):
        width = f' width="{ws[i]}%"' if i < len(ws) else ""
        align = " align=right" if i in numeric else ""
        heads.append(f"<th{width}{align}>{_e(h)}</th>")
    out.append("<thead><tr>" + "".join(heads) + "</tr></thead>")  # repeated where the table goes on a new page
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


def _fields(fields: tuple[Field, ...] | list[Field], header: tuple[str, str] = ("Item", "Value"),
            widths: tuple[int, int] = (30, 70)) -> str:
    return _grid(header, [(f.label, f.value) for f in fields], widths=widths)


def _img(name: str, width: int, height: int) -> str:
    return f'<p><img src="{name}" width="{width}" height="{height}"></p>'


def plot_names(report: Report) -> dict[str, Plot]:
    """Resource name -> throughput plot, for every plot the body refers to."""
    return {f"plot:run{r.run_id}": r.plot for r in report.runs if r.plot is not None}


def chart_names(report: Report) -> dict[str, BarChart]:
    """Resource name -> bar chart (one per bottleneck section)."""
    return {f"bars:{i}": chart for i, chart in enumerate(report.bar_charts)}


def _headline(h: Headline) -> str:
    """One verdict: a coloured band with its word (OK/CHECK/ACT), the verdict, why, what to do."""
    ink, tint, word = TONES.get(h.tone, TONES["none"])
    parts = [f'<span style="color:#555; font-size:8pt;">{_e(h.topic.upper())} · RUN #{h.run_id}</span><br>'
             f'<span style="color:{ink}; font-size:11pt; font-weight:bold;">{_e(h.words)}</span>']
    if h.detail:
        parts.append(f'<br><span style="font-size:8.5pt;">{_e(h.detail)}</span>')
    if h.action:
        parts.append(f'<br><span style="font-size:8.5pt;"><b>What to do:</b> {_e(h.action)}</span>')
    return (f'<table width="100%" cellspacing="0" cellpadding="4" border="0" style="margin-bottom:4pt;"><tr>'
            f'<td width="11%" bgcolor="{ink}" align="center" valign="middle">'
            f'<span style="color:white; font-weight:bold; font-size:9pt;">{word}</span></td>'
            f'<td bgcolor="{tint}">{"".join(parts)}</td></tr></table>')


def _comparison(c: Comparison) -> list[str]:
    """Page 1 of a comparison: what differs besides the figures, in words, then each figure of both runs with its
    judgement in its tone's colour (``app.compare``), then how noise was judged."""
    a, b = c.before, c.after
    parts = [SPACER + "<h2>Before and after</h2>",
             f"<p>Run #{a.run_id} ({_e(a.started_at)}) before, run #{b.run_id} ({_e(b.started_at)}) after: "
             f"<b>{_e(c.summary)}</b>.</p>"]
    if c.same_test:
        parts.append("<p>Same test, drive and cartridge in both runs.</p>")
    else:
        parts.append("<p><b>What differs besides the figures:</b><br>" + "<br>".join(
            f"• {_e(d.what)}: {_e(d.before)} / {_e(d.after)}: {_e(d.words)}" for d in c.differences) + "</p>")
    out = ['<table class="grid" border="0.5" cellspacing="0" cellpadding="3" width="100%"><thead><tr>'
           + "".join(f"<th{w}>{_e(h)}</th>" for h, w in (("Figure", ' width="27%"'), (f"Run #{a.run_id}", ' width="22%"'),
                                                       (f"Run #{b.run_id}", ' width="22%"'), ("Change", ' width="11%"'),
                                                       ("Judgement", ' width="18%"'))) + "</tr></thead>"]
    for n, r in enumerate(c.rows):
        ink = TONES.get(r.tone, TONES["none"])[0]
        bg = ' bgcolor="#f4f6f9"' if n % 2 else ""
        out.append(f"<tr{bg}><td>{_e(r.figure)}</td><td>{_e(r.before)}</td><td>{_e(r.after)}</td>"
                   f"<td>{_e(r.change or '—')}</td><td><span style=\"color:{ink}; font-weight:bold;\">"
                   f"{_e(r.judgement)}</span></td></tr>")
    parts.append("".join(out) + "</table>")
    notes = [f"{r.figure}: {r.basis}" for r in c.rows if r.basis and r.judgement != "same"]
    parts.append('<p class="muted">' + "<br>".join(_e(x) for x in (*notes, *c.noise, *c.notes)) + "</p>")
    return parts


def _page_one(report: Report) -> list[str]:
    c = report.cover
    parts = [f'<table width="100%" cellpadding="8" cellspacing="0" bgcolor="{NAVY}"><tr><td>'
             f'<span style="color:#c9d6e6; font-size:9pt;">tapediag {_e(c.tool_version)}</span><br>'
             f'<span style="color:white; font-size:18pt; font-weight:bold;">{_e(c.title)}</span></td></tr></table>',
             SPACER]
    who = [("Customer", c.customer), ("Site", c.site), ("Technician", c.technician), ("Ticket", c.ticket),
           ("Tests run", c.tested), ("Report date", c.date)]
    rows = ["<tr>" + "".join(f'<td width="14%"><span class="muted">{_e(k)}</span></td>'
                             f'<td width="36%"><b>{_e(v or "—")}</b></td>' for k, v in who[i:i + 2]) + "</tr>"
            for i in range(0, len(who), 2)]
    parts.append('<table width="100%" cellpadding="3" cellspacing="0" border="0">' + "".join(rows) + "</table>")
    if report.devices:
        devices = "; ".join(d.line for d in report.devices)  # vendor, product, serial, firmware, cartridge
        parts.append(f'<p><span class="muted">Devices</span>&nbsp;&nbsp;<b>{_e(devices)}</b></p>')
    if report.comparison is not None:
        parts.extend(_comparison(report.comparison))
    parts.append(SPACER + "<h2>Verdicts</h2>")
    if not report.headlines:
        parts.append(f"<p>{_e(c.summary or 'No run in this report gives a verdict.')}</p>")
    parts.extend(_headline(h) + SPACER for h in report.headlines)
    runs = ", ".join(f"{r[0]} {r[1]}" for r in report.summary_rows)
    parts.append(f'<p class="muted">Runs in this report: {_e(runs)}. The pages after this one give the '
                 "measurements behind each verdict.</p>")
    return parts


def _bottlenecks(report: Report, chart_size: tuple[int, int]) -> list[str]:
    parts = [f'<h1 style="{PAGE_BREAK}">Bottleneck analysis</h1>',
             '<p class="muted">Each component measured on its own, compared with what the backup application '
             "achieved (HP Data Protector performance white paper, “Finding bottlenecks”). A bar that ends left "
             "of the application's line held it back.</p>"]
    for i, section in enumerate(report.bottlenecks):
        parts.append(f"<h3>{_e(section.direction)}</h3>")
        if i < len(report.bar_charts):
            parts.append(_img(f"bars:{i}", *chart_size))
        rows: list[tuple[str, ...]] = [(f"{n}. {r.test}", r.mb_s, r.bottleneck, "" if r.source == "entered" else r.source)
                                       for n, r in enumerate(section.rows, 1)]
        parts.append(_grid(("Test", "MB/s", "Bottleneck?", "Source"), rows, numeric=(1,),
                           highlight={n for n, r in enumerate(section.rows) if r.is_bottleneck},
                           widths=(42, 12, 24, 22), padding=4))
        parts.append(f'<p class="verdict">{_e(section.verdict)}</p>')
    for note in report.notes:
        parts.append(f'<p class="muted">Note: {_e(note)}</p>')
    if report.recommendations:
        parts.append("<h2>Recommendations</h2>")
        for i, rec in enumerate(report.recommendations, 1):
            colour = SEVERITY_COLOURS.get(rec.severity, "#444")
            parts.append(f'<p><b>{i}. {_e(rec.title)}</b> <span style="color:{colour}; font-size:8pt;">'
                         f"[{_e(rec.severity)}]</span><br>{_e(rec.advice)}<br><i>Why:</i> {_e(rec.reason)}<br>"
                         f'<span class="muted">Source: {_e(rec.source)}</span></p>')
    return parts


def _devices(report: Report) -> list[str]:
    parts = ["<h2>Devices</h2>"]
    for dev in report.devices:
        parts.append(f"<h3>{_e(dev.device)}</h3>")
        if dev.identity:
            parts.append(_fields(dev.identity, ("Identity", "")))
        if dev.health:
            parts.append(f"<p><b>Health:</b> {_e(dev.health)}</p>")
        if dev.health_details:
            parts.append(_fields(dev.health_details, ("Health detail", "")))
        for alert in dev.alerts:
            parts.append(f'<p style="color:#b3261e;">• {_e(alert)}</p>')
    return parts


def _runs(report: Report, plot_size: tuple[int, int]) -> list[str]:
    parts = []
    for run in report.runs:
        parts.append(f"<h3>Run #{run.run_id}: {_e(run.title)}</h3>")
        parts.append(f'<p class="muted">{_e(run.status.capitalize())} · started {_e(run.started_at)} · '
                     f"finished {_e(run.finished_at)}</p>")
        for msg in run.messages:
            parts.append(f"<p>• {_e(msg)}</p>")
        if run.headline:
            parts.append(_fields(run.headline, ("Result", "")))
        if run.parameters:
            params = " · ".join(f"{f.label}: {f.value}" for f in run.parameters)
            parts.append(f'<p class="muted"><b>Parameters</b> {_e(params)}</p>')
        if run.plot is not None:
            parts.append(_img(f"plot:run{run.run_id}", *plot_size))
            # Clear of the chart's box (its words are checked inside it); Qt takes this margin in px, not pt.
            parts.extend(f'<p class="muted" style="margin-top: 6px;">{_e(note)}</p>' for note in run.plot.notes)
        shown = [f for f in run.results if f not in run.headline]
        if shown:
            parts.append(_fields(shown, ("Measured", "")))
    return parts


def _signoff(report: Report) -> list[str]:
    """The last thing in the report: what made it, and lines for the technician's and the customer's
    signatures (one piece: the page cutter never splits a table without a grid)."""
    c = report.cover
    made = f"Made with tapediag {c.tool_version}"
    if c.recorded_with:
        made += f"; the runs were recorded with tapediag {', '.join(c.recorded_with)}"
    if c.host:
        made += f"; the tests ran on {c.host}"
    whom = ", ".join(x for x in (c.customer, c.site, f"ticket {c.ticket}" if c.ticket else "") if x)
    line = f'style="border-bottom: 1px solid {RULE};"'

    def field(label: str, value: str = "") -> str:
        return (f'<td width="13%"><span class="muted">{_e(label)}</span></td>'
                f'<td width="35%" {line}>{_e(value) or "&nbsp;"}</td>')

    rows = ['<tr><td colspan="2"><b>Technician</b></td><td width="4%"></td><td colspan="2"><b>Customer '
            "acknowledgement</b></td></tr>",
            f'<tr><td colspan="2"></td><td></td><td colspan="2"><span class="muted">Received this report'
            f'{_e(" for " + whom) if whom else ""}, and its results were explained.</span></td></tr>']
    for left, right in ((("Name", c.technician), ("Name", "")), (("Date", c.date), ("Date", "")),
                        (("Signature", ""), ("Signature", ""))):
        rows.append(f"<tr>{field(*left)}<td></td>{field(*right)}</tr>")
    return [SPACER + "<h2>Sign-off</h2>",
            '<table width="100%" cellpadding="5" cellspacing="0" border="0">'
            f'<tr><td colspan="5"><span class="muted">{_e(made)}.</span></td></tr>' + "".join(rows) + "</table>"]


def body_html(report: Report, image_size: tuple[int, int], *, signoff_first: bool = False) -> str:
    """The whole document; ``image_size`` is the width and height of a plot in CSS pixels. The sign-off
    goes on page 1 (``signoff_first``: the page a customer signs, when it has the room) or at the end."""
    w, h = image_size
    parts = [f"<html><head><style>{CSS}</style></head><body>"]
    parts.extend(_page_one(report))
    if signoff_first:
        parts.extend(_signoff(report))
    if report.bottlenecks:
        parts.extend(_bottlenecks(report, (w, int(h * 0.8))))
    details = _devices(report) if report.devices else []
    details += ["<h2>Test runs</h2>"] + _runs(report, (w, h)) if report.runs else []
    if details:  # after page 1, or straight on after the bottleneck analysis
        parts.append(f'<h1 style="{"" if report.bottlenecks else PAGE_BREAK}">Details</h1>')
        parts.extend(details)
    if report.appendix:
        parts.append(f'<h2 style="{PAGE_BREAK}">Appendix: raw figures</h2>')
        for block in report.appendix:
            parts.append(f"<h3>{_e(block.title)}</h3>")
            parts.append(_fields(block.rows, ("Field", "Value"), (45, 55)))
    if not signoff_first:
        parts.extend(_signoff(report))
    parts.append("</body></html>")
    return "".join(parts)
