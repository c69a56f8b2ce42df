"""Typed results back from their stored dictionaries (``to_dict`` → history → ``from_dict``), strictly.

Readers of the history (``show``, reports, the GUI) get the engine's own result objects, never
dictionaries dug by key (cattrs' ``structure``). Stored runs outlive the code that wrote them, so:

* keys the class does not have are ignored (a newer field, a key beside the result such as the
  identities or a ticket's raw pages), and a field the class gained since takes its default: that
  is how a row of an older version reads, with the kind's own ``upgrade`` for anything more;
* but a value of the wrong type, or a field without a default that is missing, is a damaged result
  (``DamagedResult``, naming the field), never a default in its place: a renderer must not print
  an empty figure where the record holds a broken one.
"""
from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Any, TypeVar, Union

from native.errors import DamagedResult

T = TypeVar("T")


def from_dict(cls: type[T], data: Any, where: str = "") -> T:
    """An instance of the dataclass ``cls`` from ``data`` (as its ``to_dict`` wrote it); ``DamagedResult`` says
    which field (``where``: the path to it) does not fit."""
    where = where or cls.__name__
    if not isinstance(data, dict):
        raise DamagedResult(f"{where}: expected a mapping, found {type(data).__name__}")
    if "from_dict" in vars(cls):  # a class that reads its own stored form (``app.info.DriveInfo``)
        return _own(cls, data, where)
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not f.init:
            continue
        if f.name not in data:
            if f.default is dataclasses.MISSING and f.default_factory is dataclasses.MISSING:
                raise DamagedResult(f"{where}.{f.name}: missing")
            continue
        kwargs[f.name] = _convert(hints.get(f.name, Any), data[f.name], f"{where}.{f.name}")
    return cls(**kwargs)


def _own(cls: type[T], data: dict[str, Any], where: str) -> T:
    """A class's own reading of its stored form; what it cannot read is a damaged result, named."""
    try:
        return cls.from_dict(data)  # type: ignore[attr-defined]
    except DamagedResult:
        raise
    except (KeyError, TypeError, ValueError, AttributeError) as err:
        raise DamagedResult(f"{where}: {type(err).__name__}: {err}") from None


def _optional(hint: Any) -> bool:
    return typing.get_origin(hint) in (Union, types.UnionType) and type(None) in typing.get_args(hint)


def _convert(hint: Any, value: Any, where: str) -> Any:
    origin = typing.get_origin(hint)
    if hint is Any or (value is None and (_optional(hint) or hint is type(None))):
        return value
    if value is None:
        raise DamagedResult(f"{where}: missing (null), expected {_name(hint)}")
    if origin in (Union, types.UnionType):
        return _union(hint, value, where)
    if origin is not None and getattr(origin, "__name__", "") == "Supported":
        return _supported(origin, typing.get_args(hint), value, where)
    if origin in (list, tuple):
        if not isinstance(value, (list, tuple)):
            raise DamagedResult(f"{where}: expected a list, found {type(value).__name__}")
        args = typing.get_args(hint)
        if origin is tuple and args and args[-1] is not Ellipsis and len(args) > 1:  # tuple[int, int, int]
            if len(args) != len(value):
                raise DamagedResult(f"{where}: expected {len(args)} items, found {len(value)}")
            return tuple(_convert(a, v, f"{where}[{i}]") for i, (a, v) in enumerate(zip(args, value)))
        item = args[0] if args else Any
        items = [_convert(item, v, f"{where}[{i}]") for i, v in enumerate(value)]
        return items if origin is list else tuple(items)  # a tuple field gets a tuple back
    if origin is dict:
        if not isinstance(value, dict):
            raise DamagedResult(f"{where}: expected a mapping, found {type(value).__name__}")
        return dict(value)
    if isinstance(hint, type):
        return _plain(hint, value, where)
    return value


def _union(hint: Any, value: Any, where: str) -> Any:
    members = [a for a in typing.get_args(hint) if a is not type(None)]
    wrong = []
    for arg in members:
        try:
            return _convert(arg, value, where)
        except DamagedResult as err:
            wrong.append(str(err))
    raise DamagedResult(wrong[0] if len(wrong) == 1 else f"{where}: {value!r} is none of {_name(hint)}")


def _plain(hint: type, value: Any, where: str) -> Any:
    if dataclasses.is_dataclass(hint):
        return from_dict(hint, value, where)
    if issubclass(hint, enum.Enum):
        try:
            return hint(value)
        except ValueError:
            raise DamagedResult(f"{where}: {value!r} is not a {hint.__name__}") from None
    if hint is float and isinstance(value, (int, float)) and not isinstance(value, bool):
        return float(value)
    if hint is dict and isinstance(value, dict):
        return dict(value)
    if not isinstance(value, hint) or (hint is int and isinstance(value, bool)):
        raise DamagedResult(f"{where}: {value!r} is not {_name(hint)}")
    return value


def _name(hint: Any) -> str:
    return getattr(hint, "__name__", None) or str(hint).replace("typing.", "")


def _supported(cls: Any, args: tuple[Any, ...], value: Any, where: str) -> Any:
    """``app.drive.Supported[T]`` as ``app.info`` stores it: ``{"supported": true, <fields>}`` or
    ``{"supported": true, "value": ...}``; ``{"supported": false, ...}`` is not one (Unsupported is)."""
    if not isinstance(value, dict) or value.get("supported") is not True:
        raise DamagedResult(f"{where}: not a supported section")
    inner_hint = args[0] if args else Any
    if "value" in value and len(value) == 2:
        inner = _convert(inner_hint, value["value"], where)
    else:
        inner = _convert(inner_hint, {k: v for k, v in value.items() if k != "supported"}, where)
    return cls(inner)
