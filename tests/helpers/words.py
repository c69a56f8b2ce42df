"""What a customer or a GUI user must never read (issue 31): a command-line option ("give --os ..."), a
raw snake_case key ("streaming_mb_per_s") or a code path ("app.tapeperf.results...").

Paths and device strings are left out before looking (a directory may well be called ``test_dir``), so are
words the tests themselves typed (a customer called "ACME_Corp" is the technician's choice).

``KNOWN_IN_RENDERERS`` are findings in the renderers another change owns (issue 31, "Numbers and words":
``app/runs/rows.py``, ``app/runs/verdicts.py``, ``ui/summaries.py``, ``app/report/devices.py`` are being
rewritten on typed results): listed here by the exact word, each with where it comes from, so the tests
pass meanwhile and say which are still there. Remove an entry when its renderer no longer says it.
"""
from __future__ import annotations

import re

FLAG = re.compile(r"(?<![\w-])--[a-z][a-z0-9-]*")
SNAKE = re.compile(r"(?<![\w-])[a-z][a-z0-9]*(?:_[a-z0-9]+)+(?![\w-])")
CODE = re.compile(r"\b(?:app|native|ui)\.[a-z_]+\.[A-Za-z_.]+")
# A path, a URL or a device string (virtual:lto9?cartridge=/tmp/x_y/c.cart, iscsi://...): not words.
#: Paths, device strings and URLs, and a TCP port (an identifier, written as it is typed: "port 33969").
_NOT_WORDS = re.compile(r"\S*(?:/|\\\\|\?|=|://)\S*|\b[Pp]ort:? \d+")

KNOWN_IN_RENDERERS: dict[str, str] = {}

#: Names spelled so by their owners, which a source citation quotes as they are ("sg3_utils sg_logs",
#: "LTFS ibm_tape.h"): a program, a project, a header file; not keys.
PROPER_NAMES = frozenset({"sg3_utils", "sg_logs", "ibm_tape"})


def raw_words(text: str) -> list[str]:
    """Every option, snake_case key and code path in ``text`` (paths, device strings and proper names aside)."""
    text = _NOT_WORDS.sub(" ", text)
    return FLAG.findall(text) + [w for w in SNAKE.findall(text) if w not in PROPER_NAMES] + CODE.findall(text)


def unexpected(text: str) -> list[str]:
    """``raw_words`` not known to belong to another change's renderers."""
    return [w for w in raw_words(text) if w not in KNOWN_IN_RENDERERS]


# -- numbers (issue 31, "Numbers and words": one formatter, ``native.units``) ---------------------------------------
#: A whole number of five digits or more standing alone: every count and figure has its thousands separators
#: ('12,827 files/s' beside '2,062 files/s'); serials, WWNs, versions, dates and paths are not standalone numbers.
_BARE = re.compile(r"(?<![\w.,:/#+-])\d{5,}(?![\w.,:/-])")
#: A drive counter's change printed as '+0' (nothing moved: '0'), or a raw byte count after a sign ('+4294967296').
_PLUS = re.compile(r"(?<![\w.])\+(?:0(?![\d.,])|\d{5,})")
#: '1 loads', '1 files': a count of one with a plural noun.
_ONE_MANY = re.compile(r"(?<![\d.,])1 (loads|files|moves|streams|errors|blocks|filemarks|zones|drives|runs|directories|"
                       r"stalls|I/Os|times|visits|cartridges|records|back-hitches|slow I/Os|interval|intervals|"
                       r"commands|flags|passes|cleanings|hours|moves)\b")
#: A binary rate outside the parentheses that give it beside the decimal one ('489 MB/s (466 MiB/s)').
_MIB_RATE = re.compile(r"MiB/s")
#: A figure with a fraction and no unit after it, where the words say it is a time ('p50 0.026,', '0.016 s' is fine).
_TIME_WITHOUT_UNIT = re.compile(r"\b(?:p50|p90|p99|mean|median|max|min|latency)\s+\d+\.\d+(?!\d|\s*(?:ms|µs|s\b|min\b|h\b|MB|%))")


def _outside_parentheses(line: str) -> str:
    depth, out = 0, []
    for ch in line:
        depth += ch == "("
        if depth == 0:
            out.append(ch)
        depth -= ch == ")" and depth > 0
    return "".join(out)


def number_problems(text: str) -> list[str]:
    """Every figure ``text`` writes in a way ``native.units`` never does: a long number without separators, a '+0' or
    raw '+bytes' counter, 'one' with a plural noun, a MiB/s rate not in parentheses beside its MB/s, a time without
    its unit. Paths and device strings are left out first (``_NOT_WORDS``)."""
    found: list[str] = []
    for line in text.splitlines():
        words = _NOT_WORDS.sub(" ", line)
        found += [f"no separators: {m.group(0)!r} in {line.strip()!r}" for m in _BARE.finditer(words)]
        found += [f"raw counter: {m.group(0)!r} in {line.strip()!r}" for m in _PLUS.finditer(words)]
        found += [f"plural: {m.group(0)!r} in {line.strip()!r}" for m in _ONE_MANY.finditer(words)]
        found += [f"time without unit: {m.group(0)!r} in {line.strip()!r}" for m in _TIME_WITHOUT_UNIT.finditer(words)]
        if _MIB_RATE.search(_outside_parentheses(words)) and "MB/s" in words:
            found.append(f"MB/s and MiB/s side by side: {line.strip()!r}")
    return found


def gui_texts(root: object) -> list[str]:
    """The texts a window shows now: labels, buttons, group and tab titles, tree, table and list items, combo
    choices, placeholders, text views and tooltips of every widget visible in it (what a user can read).
    What a user typed (a line edit's text) is theirs and is left out."""
    from PySide6.QtWidgets import (QAbstractButton, QComboBox, QGroupBox, QLabel, QLineEdit, QListWidget, QTabWidget,
                                   QTableWidget, QTextEdit, QTreeWidget, QTreeWidgetItem, QWidget)

    assert isinstance(root, QWidget)
    out: list[str] = [root.windowTitle()]
    for w in [root, *root.findChildren(QWidget)]:
        if not w.isVisibleTo(root) and w is not root:
            continue
        out.append(w.toolTip())
        if isinstance(w, QLabel):
            out.append(_plain(w.text()))
        elif isinstance(w, QAbstractButton):
            out.append(w.text())
        elif isinstance(w, QGroupBox):
            out.append(w.title())
        elif isinstance(w, QTabWidget):
            out.extend(w.tabText(i) for i in range(w.count()))
        elif isinstance(w, QComboBox):
            out.extend(w.itemText(i) for i in range(w.count()))
        elif isinstance(w, QLineEdit):
            out.append(w.placeholderText())
        elif isinstance(w, QTextEdit):
            out.append(w.toPlainText())
        elif isinstance(w, QTreeWidget):
            stack: list[QTreeWidgetItem] = [w.topLevelItem(i) for i in range(w.topLevelItemCount())]
            while stack:
                item = stack.pop()
                out.extend(item.text(c) for c in range(w.columnCount()))
                stack.extend(item.child(i) for i in range(item.childCount()))
        elif isinstance(w, QTableWidget):
            out.extend(w.item(r, c).text() for r in range(w.rowCount()) for c in range(w.columnCount()) if w.item(r, c))
        elif isinstance(w, QListWidget):
            out.extend(w.item(i).text() for i in range(w.count()))
    return [t for t in out if t]


def _plain(text: str) -> str:
    """A label's rich text without its tags (an <a href="..."> is not a word the user reads)."""
    return re.sub(r"<[^>]*>", " ", text)
