"""A kind's parameter form, built from its field table (``app.runs.fields``): the one declaration the CLI's options
come from too, so the form's labels, tooltips, defaults, choices and checks are the CLI's.

A field becomes a check box (a yes/no), a drop-down (choices), or a line edit checked as it is typed by the
field's own parser, its placeholder saying what a blank field means. The panel keeps its presets, its own
wiring between fields and its layout; a blank field is left out of the values, as an option left out on the
command line (``given``).
"""
from __future__ import annotations

from typing import Any, Iterable

from PySide6.QtWidgets import QCheckBox, QComboBox, QLineEdit, QWidget

from app.runs.fields import Field
from ui.widgets import ValidatedField


def widget_for(field: Field) -> QWidget:
    """The widget a field is typed into, holding the field's default."""
    if field.flag:
        box = QCheckBox(field.label)
        box.setChecked(bool(field.default))
        return box
    if field.choices:
        combo = QComboBox()
        for value, words in field.choices:
            combo.addItem(words, value)
        index = combo.findData(field.default)
        combo.setCurrentIndex(max(index, 0))
        return combo
    edit = ValidatedField(field.check, str(field.default))
    edit.edit.setPlaceholderText(field.placeholder)
    return edit


def line_edit(field: Field) -> QLineEdit:
    """A plain line edit for a field (a panel that checks its fields when it runs, not as they are typed)."""
    edit = QLineEdit(str(field.default))
    edit.setPlaceholderText(field.placeholder)
    edit.setToolTip(field.help)
    return edit


def add_fields(panel: Any, fields: Iterable[Field]) -> dict[str, QWidget]:
    """Add each field meant for the GUI to ``panel``'s form (``TestPanel.add_field``): its widget, its label (a check
    box carries its own) and its help as the tooltip. Returns the widgets by field name."""
    out: dict[str, QWidget] = {}
    for field in fields:
        if field.gui:
            out[field.name] = panel.add_field(field.name, "" if field.flag else field.label, widget_for(field),
                                              field.help)
    return out


def given(values: dict[str, Any]) -> dict[str, Any]:
    """The form's values without its blank fields: what was left blank takes the declared default, as an option left
    out of a command line."""
    return {name: value for name, value in values.items() if not (isinstance(value, str) and not value.strip())}


__all__ = ["add_fields", "given", "line_edit", "widget_for"]
