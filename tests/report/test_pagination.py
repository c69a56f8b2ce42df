"""Where the report's pages end (``ui.report_pages.paginate``), on positions alone: the rules of issue 31
(a row, a verdict box and a table's header with its first rows together; no page with only a table's
last row) before any PDF is drawn."""
from __future__ import annotations

from ui.report_pages import FIRST_ROWS, LAST_ROWS, Item, Page, paginate


def _table(top: float, rows: int, row: float = 10.0, header: float = 10.0) -> Item:
    """A grid table with a header row and ``rows`` rows, its cuts as ``ui.report_pages._table`` makes them."""
    between = [top + header + i * row for i in range(rows)]  # below the header, then below each row but the last
    cuts = tuple(y for r, y in enumerate(between, 1) if r - 1 >= FIRST_ROWS and rows + 1 - r >= LAST_ROWS)
    return Item(top, top + header + rows * row, cuts=cuts, weak=tuple(between), header=(top, top + header))


def test_a_table_whose_last_row_would_be_alone_takes_rows_with_it_under_its_header() -> None:
    lead = Item(0.0, 55.0)
    table = _table(55.0, 5)  # header 55-65, rows 65-115: a 110 high page would leave the last row alone
    pages = paginate([lead, table], 110.0)
    assert len(pages) == 2
    first, second = pages
    assert first == Page(0.0, 85.0)  # the header and FIRST_ROWS rows stay with the lead ...
    assert second.header == (55.0, 65.0) and second.top == 85.0 and second.bottom == 115.0  # ... LAST_ROWS go on
    assert (second.bottom - second.top) / 10.0 == LAST_ROWS


def test_a_table_that_cannot_keep_its_first_rows_starts_on_the_next_page() -> None:
    pages = paginate([Item(0.0, 85.0), _table(85.0, 6)], 100.0)
    assert pages[0] == Page(0.0, 85.0)  # no header alone at the foot of a page
    assert pages[1].top == 85.0 and pages[1].header is None


def test_a_heading_goes_with_what_follows_it_and_a_new_section_starts_a_page() -> None:
    heading = Item(40.0, 50.0, keep_with_next=True)
    box = Item(50.0, 90.0)  # a verdict box: one piece
    section = Item(90.0, 100.0, new_page=True)
    pages = paginate([Item(0.0, 40.0), heading, box, section, Item(100.0, 120.0)], 80.0)
    assert [(p.top, p.bottom) for p in pages] == [(0.0, 40.0), (40.0, 90.0), (90.0, 120.0)]


def test_a_row_taller_than_a_page_is_cut_where_the_page_is_full() -> None:
    pages = paginate([Item(0.0, 250.0)], 100.0)
    assert [(p.top, p.bottom) for p in pages] == [(0.0, 100.0), (100.0, 200.0), (200.0, 250.0)]


def test_a_long_paragraph_breaks_between_lines_and_a_short_one_does_not() -> None:
    lines = tuple(float(y) for y in range(10, 200, 10))
    long = Item(0.0, 200.0, cuts=lines[2:-2], weak=lines)
    pages = paginate([long], 95.0)
    assert pages[0].bottom == 90.0  # between lines, as low as fits
    short = Item(50.0, 90.0, weak=(60.0, 70.0, 80.0))
    assert paginate([Item(0.0, 50.0), short], 70.0)[0].bottom == 50.0  # moved whole to the next page


def test_a_page_with_only_a_tables_end_is_found_and_a_full_one_is_not() -> None:
    from ui.report_pages import fragments

    items = [Item(0.0, 55.0), _table(55.0, 5)]
    pages = paginate(items, 110.0)
    assert fragments(items, pages, 110.0) == [1]  # header + 3 rows on a page of its own: the sign-off goes there
    with_more = [*items, Item(115.0, 180.0)]  # something after the table: that page is not left over
    assert fragments(with_more, paginate(with_more, 110.0), 110.0) == []
