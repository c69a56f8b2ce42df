"""Issue 12: keyboard mnemonics that work. No literal '&' where a mnemonic was meant
("&File:", "&Directory:" on labels without a buddy; "History  reports" with its '&'
stripped), and no Alt+letter that two things in view at once answer to (Alt+S was both
"Start test" and "Trouble&shooting", Alt+R both Refresh and Read).

A scope is what Qt's shortcut map sees at once: the window's menu bar titles, the panel
tabs and the device pane, plus the current panel's current page (every widget of it,
shown or not: a hidden check box appears beside the Start button it would clash with).
Each menu is its own scope; a dialog is its own window.
"""
from __future__ import annotations

import re

import pytest
from PySide6.QtWidgets import QAbstractButton, QLabel, QMenu, QTabBar, QWidget

from tests.gui.conftest import wait_idle

pytestmark = pytest.mark.gui

LOST_MNEMONIC = re.compile(r"&(?!&)(?!#?\w+;)\S")  # "&F" shown as it is (rich text: not an entity)


def mnemonic(text: str) -> str | None:
    """The Alt+key ``text`` answers to ('&&' is a literal ampersand), or None."""
    i = 0
    while i < len(text):
        if text[i] == "&":
            if text[i + 1:i + 2] == "&":
                i += 2
                continue
            return text[i + 1:i + 2].lower()
        i += 1
    return None


def shown(text: str) -> str:
    """``text`` as drawn on a button, tab or menu item."""
    out, i = [], 0
    while i < len(text):
        if text[i] == "&":
            i += 1
            if i < len(text):
                out.append(text[i])
        else:
            out.append(text[i])
        i += 1
    return "".join(out)


def _check_text(where: str, text: str, problems: list[str]) -> None:
    key = mnemonic(text)
    if key is not None and not key.isalnum():
        problems.append(f"{where}: {text!r} has the mnemonic {key!r}")
    if "  " in shown(text):
        problems.append(f"{where}: {text!r} is shown as {shown(text)!r}")


def _entries(root: QWidget, where: str, problems: list[str]) -> list[tuple[str, str]]:
    """(mnemonic, what) for every button, buddied label and tab under ``root``; label text
    that would show a literal '&' where a mnemonic was meant goes to ``problems``."""
    out: list[tuple[str, str]] = []
    widgets = [root, *root.findChildren(QWidget)]
    for w in widgets:
        if isinstance(w, QAbstractButton):
            _check_text(where, w.text(), problems)
            key = mnemonic(w.text())
            if key:
                out.append((key, f"button {w.text()!r}"))
        elif isinstance(w, QLabel):
            text = w.text()
            if w.buddy() is not None:
                _check_text(where, text, problems)
                key = mnemonic(text)
                if key:
                    out.append((key, f"label {text!r}"))
            elif LOST_MNEMONIC.search(text):
                problems.append(f"{where}: label {text[:60]!r} has no buddy: its '&' is shown as it is")
        elif isinstance(w, QTabBar):
            for i in range(w.count()):
                _check_text(where, w.tabText(i), problems)
                key = mnemonic(w.tabText(i))
                if key:
                    out.append((key, f"tab {w.tabText(i)!r}"))
    return out


def _duplicates(scope: str, entries: list[tuple[str, str]], problems: list[str]) -> None:
    seen: dict[str, str] = {}
    for key, what in entries:
        if key in seen:
            problems.append(f"{scope}: Alt+{key.upper()} is both {seen[key]} and {what}")
        else:
            seen[key] = what


def _window_level(window, problems: list[str]) -> list[tuple[str, str]]:
    out = []
    for action in window.menuBar().actions():
        _check_text("menu bar", action.text(), problems)
        key = mnemonic(action.text())
        if key:
            out.append((key, f"menu {action.text()!r}"))
    tabs = window.tabs.tabBar()
    for i in range(tabs.count()):
        _check_text("panel tabs", tabs.tabText(i), problems)
        key = mnemonic(tabs.tabText(i))
        if key:
            out.append((key, f"tab {tabs.tabText(i)!r}"))
    out += _entries(window.devices, "device pane", problems)
    return out


def _put_in_overwrite_state(panel) -> None:
    """The tape panel's confirm page as it is when the cartridge holds data."""
    from native.errors import SafetyRefusal

    panel.show_refusal(SafetyRefusal("the cartridge holds data", reason="a block at BOT", overridable=True))


def test_no_literal_ampersand_and_no_mnemonic_twice_in_view(qtbot, window):
    wait_idle(qtbot, window)
    problems: list[str] = []
    common = _window_level(window, problems)
    assert len(common) >= 3  # File, Panels, Help (the walk sees them)
    for panel in window.panels.values():
        window.show_panel(panel.key)
        if panel.key == "tapeperf":
            _put_in_overwrite_state(panel)
        outside = [w for w in panel.findChildren(QWidget) if not panel.stack.isAncestorOf(w) and w is not panel.stack]
        panel_level: list[tuple[str, str]] = []
        for w in outside:
            if w.parent() is panel:
                panel_level += _entries(w, panel.key, problems)
        for i in range(panel.stack.count()):
            page = panel.stack.widget(i)
            name = next(k for k, (wid, _) in panel._pages.items() if wid is page)
            scope = f"{panel.key}/{name}"
            _duplicates(scope, common + panel_level + _entries(page, scope, problems), problems)
    for menu in window.menuBar().findChildren(QMenu):
        entries = []
        for action in menu.actions():
            if action.isSeparator():
                continue
            _check_text(f"menu {menu.title()!r}", action.text(), problems)
            key = mnemonic(action.text())
            if key:
                entries.append((key, f"item {action.text()!r}"))
        _duplicates(f"menu {menu.title()!r}", entries, problems)
    assert not problems, "\n".join(problems)


def test_the_panels_menu_names_each_panel_as_its_tab_does(qtbot, window):
    menu = next(m for m in window.menuBar().findChildren(QMenu) if shown(m.title()) == "Panels")
    tabs = window.tabs.tabBar()
    names = [shown(a.text()) for a in menu.actions()]
    assert names[:tabs.count()] == [shown(tabs.tabText(i)) for i in range(tabs.count())]
    assert names[tabs.count():] == ["", "Network…"]  # after a separator, the panel in a window of its own
    assert {"History", "Assessment", "Media scan"} <= {shown(a.text()) for a in menu.actions()}
    wait_idle(qtbot, window)


def test_dialogs_have_working_mnemonics(qtbot, window):
    from ui.reportdialog import ReportDialog

    problems: list[str] = []
    dialog = ReportDialog("x.pdf", window)
    qtbot.addWidget(dialog)
    _duplicates("report dialog", _entries(dialog, "report dialog", problems), problems)
    assert not problems, "\n".join(problems)
    wait_idle(qtbot, window)


def test_the_walk_finds_what_it_looks_for():
    """The helpers catch the issue's own cases (a walk that finds nothing proves nothing)."""
    problems: list[str] = []
    _check_text("x", "History  reports", problems)
    _check_text("x", "&History && reports", problems)
    assert len(problems) == 1
    _duplicates("x", [("s", "button '&Start test'"), ("s", "tab 'Trouble&shooting'")], problems)
    assert "Alt+S is both" in problems[-1]
    assert LOST_MNEMONIC.search("&File:") and LOST_MNEMONIC.search("&Directory:")
    assert not LOST_MNEMONIC.search("History & reports") and not LOST_MNEMONIC.search("L&amp;TT")
    assert mnemonic("Trouble&shooting") == "s" and mnemonic("A && B") is None
