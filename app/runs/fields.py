"""A kind's parameters declared once: one field table makes the CLI's options, the GUI's form, and the labels of
``show``'s and the report's parameter lines (PyMoDAQ's parameter trees, argparse fed from the same table).

A field is one input as a person gives it: its name (the key the front ends hand over, and the GUI's saved
settings), its label (with the GUI's mnemonic), its help, its default *as typed* (the CLI's default and the
GUI field's text: one declaration, so the two cannot differ), the parser of the field alone (the GUI checks
each field as it is typed, the CLI each option), its choices, and whether it is a yes/no. The parameters
class lists its fields (``FIELDS``) and turns the given values into itself with ``from_values``: the one
conversion both front ends call, raising ``InvalidParameter``; for a class whose fields are its attributes
(the network test's) ``from_values`` and ``check_ranges`` below do it all.

Stored parameters (``to_dict()``) are labelled from the same table (``stored``: the keys a field fills,
``unit``: how its value is written), so a stored ``zone_bytes: 1000000000`` reads "Rate per zone of 1 GB".
"""
from __future__ import annotations

import argparse
import dataclasses
from dataclasses import dataclass
from typing import Any, Callable, Iterable, Mapping, TypeVar

from native.errors import InvalidParameter
from native.units import (block_text, duration_text, parse_duration, parse_size, rate_text, size_input_text,
                          size_text)

T = TypeVar("T")


@dataclass(frozen=True)
class Field:
    """One parameter as a front end shows it (module docstring)."""

    name: str
    label: str  # the GUI's, with its mnemonic: "Scan &limit:"; a flag's is the check box's text
    help: str
    default: str | bool = ""  # as typed; "" = left out (``placeholder`` says what that means)
    parse: Callable[[str], Any] | None = None  # the field alone, as typed: its value, or InvalidParameter
    choices: tuple[tuple[str, str], ...] = ()  # (value, words)
    flag: bool = False  # a yes/no: a check box, an option without a value
    option: str | None = ""  # the CLI's option: "" is "--" + the name with dashes; "--no-x" for a flag on by default
    metavar: str | None = None
    placeholder: str = ""  # what a blank field means, in the GUI
    gui: bool = True  # in the GUI's form (False: the CLI's alone, or set elsewhere, e.g. a confirmation)
    stored: tuple[str, ...] = ()  # the keys of the parameters' ``to_dict()`` this field fills (default: its name)
    #: How a stored value is written: "size" (binary: 256 KiB), "bytes" (decimal: 1.07 GB), "s", "bytes/s", "MB/s",
    #: "id" (a number that names something, a port: no thousands separator) or "" (as it is); one per stored key when
    #: they differ (a limit stored as bytes or as seconds).
    unit: str | tuple[str, ...] = ""
    low: float | None = None  # the range ``check_ranges`` holds a number to
    high: float | None = None

    @property
    def plain(self) -> str:
        """The label for a line of text: "Scan limit" (no mnemonic, no colon)."""
        return self.label.replace("&&", "\0").replace("&", "").replace("\0", "&").rstrip(":").strip()

    @property
    def cli(self) -> str | None:
        """The CLI option, or None when the field is not one."""
        return None if self.option is None else (self.option or "--" + self.name.replace("_", "-"))

    @property
    def keys(self) -> tuple[str, ...]:
        return self.stored or (self.name,)

    def check(self, text: str) -> Any:
        """The field's value as typed (blank: None, the default applies); ``InvalidParameter`` when it cannot be."""
        if not str(text).strip():
            return None
        if self.choices and text not in {value for value, _words in self.choices}:
            raise InvalidParameter(f"{self.plain.lower() or self.name}: '{text}' is not one of "
                                   f"{', '.join(value for value, _words in self.choices)}")
        return self.parse(text) if self.parse is not None else text

    def unit_of(self, key: str) -> str:
        if isinstance(self.unit, str):
            return self.unit
        return self.unit[self.keys.index(key)] if key in self.keys else ""

    def words(self, value: Any, key: str = "") -> str:
        """A stored value of this field (under ``key``) for people, by its unit."""
        if isinstance(value, bool):
            return "yes" if value else "no"
        if isinstance(value, (int, float)):
            return _UNITS.get(self.unit_of(key or self.keys[0]), _number)(value)
        if isinstance(value, (list, tuple)):
            return ", ".join(str(v) for v in value)
        return str(value)


def _size(value: float) -> str:
    return block_text(int(value)) if value == int(value) else size_text(value, binary=True)


_UNITS: dict[str, Callable[[Any], str]] = {"size": _size, "bytes": size_text, "s": duration_text,
                                           "bytes/s": lambda v: rate_text(v / 1e6), "MB/s": rate_text,
                                           "id": str}  # a number that names something (a TCP port): as it is


def _number(value: float) -> str:
    return f"{value:,}" if isinstance(value, int) else f"{value:,.3g}"


# -- the CLI ---------------------------------------------------------------------------------------
def add_options(parser: argparse.ArgumentParser | argparse._ArgumentGroup, fields: Iterable[Field]) -> None:
    """Every field that is a CLI option, as argparse options: its help, its default (as typed), its choices. The
    values reach ``from_values`` as typed: the one conversion does the rest."""
    for f in fields:
        if f.cli is None:
            continue
        if f.flag:  # on by default: the option turns it off (``--no-evict``)
            on = bool(f.default)
            parser.add_argument(f.cli, dest=f.name, action="store_false" if on else "store_true", help=f.help,
                                default=on)
            continue
        # No argparse default: an option left out is absent from ``values``, and ``from_values`` applies the declared
        # default (a preset's figures stand where nothing is given); the help says what it is.
        said = f.help if f.default == "" or "default" in f.help else f"{f.help} (default {f.default})"
        kwargs: dict[str, Any] = {"dest": f.name, "help": said.replace("%", "%%"), "metavar": f.metavar}
        if f.choices and f.parse is None:  # with a parser of its own, the choices are only the GUI's list of them
            kwargs["choices"] = [value for value, _words in f.choices]
        parser.add_argument(f.cli, **kwargs)


def values(args: argparse.Namespace, fields: Iterable[Field]) -> dict[str, Any]:
    """The options' values by field name (what ``from_values`` takes); an option left out is absent."""
    return {f.name: getattr(args, f.name) for f in fields if f.cli is not None and getattr(args, f.name, None) is not None}


# -- a parameters class whose fields are its attributes ----------------------------------------------
def given(values: Mapping[str, object], name: str) -> object | None:
    """A value the user gave, None when left out. Given but blank (``--streams ""``) is a mistake, never "the
    default": the GUI leaves its blank fields out (``ui.form.given``), as a command line leaves an option out."""
    value = values.get(name)
    if isinstance(value, str) and not value.strip():
        raise InvalidParameter(f"--{name.replace('_', '-')} is empty: give a value or leave the option out")
    return value


def from_values(cls: type[T], fields: Iterable[Field], values: Mapping[str, object]) -> T:
    """``cls`` from what a user gave, typed (options) or as text (form fields); missing or blank: the field's
    default (as typed), else the class's own."""
    types = {f.name: f.type for f in dataclasses.fields(cls)}  # type: ignore[arg-type]
    required = {f.name for f in dataclasses.fields(cls)  # type: ignore[arg-type]
                if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING}
    kwargs: dict[str, Any] = {}
    for f in fields:
        value = given(values, f.name)
        if value is None and f.default not in ("", False):
            value = f.default
        if value is None:
            continue
        kwargs[f.name] = _typed(f, str(types[f.name]), value)
    missing = sorted(required - set(kwargs))
    if missing:
        raise InvalidParameter(f"no {missing[0].replace('_', ' ')} given")
    return cls(**kwargs)


def _typed(field: Field, kind: str, value: object) -> object:
    if isinstance(value, (int, float)) and not isinstance(value, bool) and kind in ("int", "float"):
        number = float(value)
    elif kind in ("int", "float"):
        number = _number_as_typed(field, str(value).strip())
    else:  # text: the field's parser, if it has one (the choices are ``check_ranges``' to hold)
        return field.parse(str(value)) if field.parse is not None else str(value).strip()
    if kind == "int":
        if number != int(number):
            raise InvalidParameter(f"{field.name.replace('_', ' ')}: '{value}' is not a whole number")
        return int(number)
    return number


def _number_as_typed(field: Field, text: str) -> float:
    try:
        return float(text)
    except ValueError:
        if field.unit == "s":
            return parse_duration(text, field.name.replace("_", " "))
        if field.unit in ("size", "bytes"):
            return float(parse_size(text, field.name.replace("_", " ")))
        raise InvalidParameter(f"{field.name.replace('_', ' ')}: '{text}' is not a number") from None


def with_defaults(cls: type, fields: Iterable[Field]) -> tuple[Field, ...]:
    """``fields`` with each one's default as typed taken from the dataclass's own default, where it has one: for a
    class whose fields are its attributes the dataclass declares the default, once."""
    own = {f.name: f.default for f in dataclasses.fields(cls) if f.default is not dataclasses.MISSING}
    return tuple(dataclasses.replace(f, default=_as_typed(own[f.name])) if f.name in own and f.default == "" else f
                 for f in fields)


def _as_typed(value: object) -> str | bool:
    if isinstance(value, bool):
        return value
    return f"{value:g}" if isinstance(value, float) else str(value)


def check_ranges(obj: object, fields: Iterable[Field]) -> None:
    """Each field's value within its choices and range (``InvalidParameter`` for the first that is not)."""
    for f in fields:
        value = getattr(obj, f.name)
        label = f.name.replace("_", " ")
        if f.choices and value not in {v for v, _words in f.choices}:
            raise InvalidParameter(f"{label} must be one of {', '.join(v for v, _w in f.choices)}, not '{value}'")
        if f.low is not None and f.high is not None and not f.low <= value <= f.high:
            raise InvalidParameter(f"{label} must be {f.low:g} to {f.high:g}, not {value:g}")


# -- stored parameters, for people ---------------------------------------------------------------------
def stored_rows(fields: Iterable[Field], params: Mapping[str, Any]) -> list[tuple[str, str]]:
    """Stored parameters as (label, value) rows: each field by its label, the value written by its unit (a field
    left at nothing, None, False or "", is left out); keys no field names keep their own name, so nothing the
    run was asked is hidden."""
    rows: list[tuple[str, str]] = []
    said: set[str] = set()
    for f in fields:
        said.update(f.keys)
        shown = [f.words(params[k], k) for k in f.keys if params.get(k) not in (None, False, "", [], ())]
        if shown:
            rows.append((f.plain or f.name.replace("_", " "), ", ".join(shown)))
    rows += [(key.replace("_", " "), _raw(value)) for key, value in params.items()
             if key not in said and value not in (None, False, "", [], ())]
    return rows


def typed_values(fields: Iterable[Field], params: Mapping[str, Any]) -> dict[str, str | bool]:
    """Stored parameters back as a person types them, field by field: what the GUI's form is filled with to repeat a
    run (the history's "Repeat this run"), which ``from_values`` reads back to the same parameters. A field stored
    as nothing is blank (its default, as when it was left out); a duration gets its unit ("600s"); a size as typed
    ("128M", exact: ``native.units.size_input_text``). ``force`` is never carried over: a repeat asks again."""
    out: dict[str, str | bool] = {}
    for f in fields:
        if f.name == "force":
            continue
        if f.flag:
            out[f.name] = bool(params.get(f.keys[0]))
            continue
        key = next((k for k in f.keys if params.get(k) not in (None, "")), None)
        value = params.get(key) if key is not None else None
        if key is None:
            out[f.name] = ""
        elif f.unit_of(key) == "s" and isinstance(value, (int, float)):
            out[f.name] = f"{value:g}s"
        elif f.unit_of(key) in ("size", "bytes") and isinstance(value, int) and not isinstance(value, bool):
            out[f.name] = size_input_text(value)
        elif isinstance(value, float) and value.is_integer():
            out[f.name] = str(int(value))
        else:
            out[f.name] = f.words(value, key) if isinstance(value, (list, tuple)) else str(value)
    return out


def _raw(value: Any) -> str:
    if isinstance(value, float):
        return f"{value:,.3f}".rstrip("0").rstrip(".") if abs(value) < 1000 else f"{value:,.1f}"
    return value if isinstance(value, str) else str(value)


__all__ = ["Field", "add_options", "check_ranges", "from_values", "given", "stored_rows", "typed_values", "values", "with_defaults"]
