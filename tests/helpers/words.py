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
_NOT_WORDS = re.compile(r"\S*(?:/|\\\\|\?|=|://)\S*")

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
