"""Where the report's pages end: the document is laid out once as one long page, then cut.

Qt's own pagination cuts wherever a page is full: a table row split over two pages, a
verdict box's last line alone on the next, a page holding only a table's last row ("Drive
settings" alone on page 3, issue 31). So ``ui/pdf.py`` lays the document out without pages,
this module lists where a page may end (``items``: between blocks and tables, between a
table's rows, between the lines of a long paragraph) and ``paginate`` chooses, page by page,
the lowest such place that fits. The rules, as data at the top:

* a row, a verdict box (any table without a grid), an image and a short paragraph are never cut;
* a heading stays with what follows it, and so does a one-line paragraph right after a
  heading (a run's "Complete · started ..." line);
* a table starts on a page with its header and at least ``FIRST_ROWS`` rows, and a table
  continued on the next page brings at least ``LAST_ROWS`` rows there, under its header
  drawn again;
* a section that asks for a new page (``page-break-before``) gets one.

Only when nothing fits (a single row taller than a page) is a page cut where it is full,
at a line if one is there.

``paginate`` is plain arithmetic on the positions (no Qt), so its rules are tested alone.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING, Sequence

if TYPE_CHECKING:
    from PySide6.QtCore import QRectF
    from PySide6.QtGui import QAbstractTextDocumentLayout, QTextBlock, QTextDocument, QTextTable

#: Rows of a table that stay under its header on the page it starts on.
FIRST_ROWS = 2
#: Rows of a table that go with it to the next page, so no page holds only its last row.
LAST_ROWS = 3
#: A paragraph of up to this many lines is never cut; a longer one keeps ``PARAGRAPH_EDGE`` lines on each side.
WHOLE_PARAGRAPH_LINES = 12
PARAGRAPH_EDGE = 3


@dataclass(frozen=True)
class Item:
    """One top-level part of the laid-out document, in document coordinates (device pixels)."""

    top: float
    bottom: float
    keep_with_next: bool = False  # no page may end between it and the next item
    new_page: bool = False  # a page always ends before it (``page-break-before``)
    cuts: tuple[float, ...] = ()  # where a page may end inside it (between rows, between lines)
    weak: tuple[float, ...] = ()  # where a page may end inside it only when nothing else fits
    header: tuple[float, float] | None = None  # a table's header rows: drawn again above its rows on a next page


@dataclass(frozen=True)
class Page:
    """The slice [top, bottom) of the document on one page, after ``header`` (a table's header rows again)."""

    top: float
    bottom: float
    header: tuple[float, float] | None = None

    @property
    def header_height(self) -> float:
        return self.header[1] - self.header[0] if self.header else 0.0


@dataclass(frozen=True)
class _Cut:
    y: float
    new_page: bool = False
    header: tuple[float, float] | None = None  # the table that goes on below the cut


def _cuts(items: Sequence[Item]) -> tuple[list[_Cut], list[_Cut]]:
    """Where a page may end (allowed, and only-if-nothing-else-fits), in document order."""
    allowed: list[_Cut] = []
    weak: list[_Cut] = []
    for k, item in enumerate(items):
        if k and (item.new_page or not items[k - 1].keep_with_next):
            allowed.append(_Cut(item.top, item.new_page))
        elif k:
            weak.append(_Cut(item.top))
        allowed.extend(_Cut(y, header=item.header) for y in item.cuts)
        weak.extend(_Cut(y, header=item.header) for y in item.weak)
    return allowed, weak


def paginate(items: Sequence[Item], height: float) -> list[Page]:
    """The pages: each ends at the lowest allowed place that fits ``height`` (see the module's rules)."""
    if not items:
        return [Page(0.0, 0.0)]
    allowed, weak = _cuts(items)
    end = max(i.bottom for i in items)
    pages: list[Page] = []
    pos, header = min(i.top for i in items), None
    while pos < end - 0.5:
        limit = pos + height - (header[1] - header[0] if header else 0.0)
        cut = _next_cut(allowed, weak, pos, limit, end)
        pages.append(Page(pos, cut.y, header))
        pos, header = cut.y, cut.header
    return pages


def _next_cut(allowed: list[_Cut], weak: list[_Cut], pos: float, limit: float, end: float) -> _Cut:
    forced = next((c for c in allowed if c.new_page and c.y > pos + 0.5), None)
    if forced is not None and forced.y <= limit:
        return forced
    if end <= limit:
        return _Cut(end)
    for pool in (allowed, weak):
        fits = [c for c in pool if pos + 0.5 < c.y <= limit]
        if fits:
            return max(fits, key=lambda c: c.y)
    return _Cut(limit)  # one row taller than a page: cut where the page is full


def fragments(items: Sequence[Item], pages: Sequence[Page], height: float) -> list[int]:
    """Pages that hold only the end of a table begun on the page before, less than half full: what a reader
    takes for a page left over ("Drive settings" alone on page 3). ``ui/pdf.py`` places the sign-off so that
    there is none; the tests check it."""
    return [n for n, page in enumerate(pages)
            if page.header is not None and not any(page.top + 0.5 <= i.top < page.bottom for i in items)
            and page.bottom - page.top + page.header_height < height / 2]


# -- reading the positions from Qt's layout ----------------------------------------------------------


def items(doc: "QTextDocument") -> list[Item]:
    """The document's top-level blocks and tables with where a page may end inside each.

    Empty blocks (Qt puts one after every table) carry no content and are left out; their
    page-break flag, if any, goes to the next item.
    """
    from PySide6.QtGui import QTextFormat, QTextTable

    layout = doc.documentLayout()
    out: list[Item] = []
    after_heading = False
    new_page = False
    it = doc.rootFrame().begin()
    while not it.atEnd():
        frame, block = it.currentFrame(), it.currentBlock()
        it += 1
        if isinstance(frame, QTextTable):
            rect = layout.frameBoundingRect(frame)
            flag = frame.frameFormat().pageBreakPolicy() & QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore
            out.append(_table(layout, frame, rect.top(), rect.bottom(), new_page or bool(flag)))
            new_page = after_heading = False
        elif block.isValid():
            flag = block.blockFormat().pageBreakPolicy() & QTextFormat.PageBreakFlag.PageBreak_AlwaysBefore
            if not block.text().strip("\u00a0 ") and block.layout().lineCount() <= 1 and not _has_image(block):
                new_page = new_page or bool(flag)
                continue
            heading = block.blockFormat().headingLevel() > 0
            out.append(_block(layout, block, heading or (after_heading and block.layout().lineCount() == 1),
                              new_page or bool(flag)))
            new_page, after_heading = False, heading
    return out


def _has_image(block: "QTextBlock") -> bool:
    it = block.begin()
    while not it.atEnd():
        if it.fragment().charFormat().isImageFormat():
            return True
        it += 1
    return False


def _block(layout: "QAbstractTextDocumentLayout", block: "QTextBlock", keep: bool, new_page: bool) -> Item:
    rect = layout.blockBoundingRect(block)
    text = block.layout()
    origin = text.position().y()
    lines = [origin + text.lineAt(i).y() for i in range(1, text.lineCount())]
    cuts: tuple[float, ...] = ()
    if text.lineCount() > WHOLE_PARAGRAPH_LINES:
        cuts = tuple(lines[PARAGRAPH_EDGE - 1:len(lines) - PARAGRAPH_EDGE + 1])
    return Item(rect.top(), rect.bottom(), keep_with_next=keep, new_page=new_page, cuts=cuts, weak=tuple(lines))


def _table(layout: "QAbstractTextDocumentLayout", table: "QTextTable", top: float, bottom: float,
           new_page: bool) -> Item:
    """A grid (a bordered table) may end a page between rows, under the rules above; a table without
    a grid (a verdict box, the sign-off block, the cover's fields) is one piece."""
    if table.format().border() <= 0 or table.rows() < 2:
        return Item(top, bottom, new_page=new_page)
    spans = [_row_span(layout, table, r) for r in range(table.rows())]
    # Between two rows: half way through the cell padding that separates their text (on the rule between them).
    between = [(spans[r - 1][1] + spans[r][0]) / 2 for r in range(1, len(spans))]
    head = max(1, table.format().headerRowCount())
    rows = table.rows() - head
    header = (top, between[head - 1]) if head - 1 < len(between) else None
    cuts = tuple(y for r, y in enumerate(between, 1) if r - head >= FIRST_ROWS and table.rows() - r >= LAST_ROWS)
    return Item(top, bottom, new_page=new_page, cuts=cuts if rows >= FIRST_ROWS + LAST_ROWS else (),
                weak=tuple(between[head - 1:]), header=header)


def _row_span(layout: "QAbstractTextDocumentLayout", table: "QTextTable", row: int) -> tuple[float, float]:
    """The top of the row's first text and the bottom of its last, over its cells."""
    tops, bottoms = [], []
    for col in range(table.columns()):
        cell = table.cellAt(row, col)
        tops.append(layout.blockBoundingRect(cell.firstCursorPosition().block()).top())
        bottoms.append(layout.blockBoundingRect(cell.lastCursorPosition().block()).bottom())
    return min(tops), max(bottoms)


def image_boxes(doc: "QTextDocument", names: set[str]) -> dict[str, "QRectF"]:
    """Where each named image (a chart's placeholder) sits in the laid-out document, in document coordinates."""
    from PySide6.QtCore import QRectF

    found: dict[str, QRectF] = {}
    block = doc.begin()
    while block.isValid():
        it = block.begin()
        while not it.atEnd():
            fragment = it.fragment()
            it += 1
            fmt = fragment.charFormat()
            if not fmt.isImageFormat() or fmt.toImageFormat().name() not in names:
                continue
            # A chart's place is a paragraph of its own: the image is its one line, sitting on the baseline.
            text = block.layout()
            line = text.lineForTextPosition(fragment.position() - block.position())
            if not line.isValid():  # not laid out (the caller lays the document out first)
                continue
            origin = text.position()
            found[fmt.toImageFormat().name()] = QRectF(origin.x() + line.x(), origin.y() + line.y(),
                                                       line.naturalTextWidth(), line.ascent())
        block = block.next()
    return found
