"""Typed results back from their stored dictionaries (``to_dict`` → history → ``from_dict``).

Readers of the history (``show``, reports, the GUI) get the engine's own result objects,
not dictionaries dug by key. Stored runs outlive the code that wrote them, so this is
tolerant: keys the class no longer has are ignored, keys it gained take their defaults,
and a value of the wrong shape keeps the default rather than failing the whole run.
"""
from __future__ import annotations

import dataclasses
import enum
import types
import typing
from typing import Any, TypeVar, Union

T = TypeVar("T")


def from_dict(cls: type[T], data: Any) -> T:
    """An instance of the dataclass ``cls`` from ``data`` (as its ``to_dict`` wrote it)."""
    if not isinstance(data, dict):
        raise TypeError(f"{cls.__name__}: expected a mapping, got {type(data).__name__}")
    if "from_dict" in vars(cls):  # a class that reads its own stored form (app.info.DriveInfo)
        return cls.from_dict(data)  # type: ignore[attr-defined]
    hints = typing.get_type_hints(cls)
    kwargs: dict[str, Any] = {}
    for f in dataclasses.fields(cls):  # type: ignore[arg-type]
        if not f.init or f.name not in data:
            continue
        try:
            kwargs[f.name] = _convert(hints.get(f.name, Any), data[f.name])
        except (TypeError, ValueError, KeyError):
            continue  # an old or odd value: the field keeps its default
    return cls(**kwargs)


def _convert(hint: Any, value: Any) -> Any:
    origin = typing.get_origin(hint)
    if hint is Any or value is None:
        return value
    if origin in (Union, types.UnionType):
        members = [a for a in typing.get_args(hint) if a is not type(None)]
        for arg in members:
            try:
                return _convert(arg, value)
            except (TypeError, ValueError, KeyError):
                continue
        raise TypeError(f"no member of {hint} fits {value!r}")
    if origin is not None and getattr(origin, "__name__", "") == "Supported":
        return _supported(origin, typing.get_args(hint), value)
    if origin in (list, tuple):
        args = typing.get_args(hint)
        item = args[0] if args else Any
        items = [_convert(item, v) for v in value]
        return items if origin is list else tuple(items)  # a tuple field gets a tuple back
    if origin is dict:
        return dict(value)
    if isinstance(hint, type):
        if dataclasses.is_dataclass(hint):
            return from_dict(hint, value)
        if issubclass(hint, enum.Enum):
            return hint(value)
        if hint is float and isinstance(value, (int, float)):
            return float(value)
        if not isinstance(value, hint):
            raise TypeError(f"{value!r} is not a {hint.__name__}")
    return value


def _supported(cls: Any, args: tuple[Any, ...], value: Any) -> Any:
    """``app.drive.Supported[T]`` as ``app.info`` stores it: ``{"supported": true, <fields>}`` or
    ``{"supported": true, "value": ...}``; ``{"supported": false, ...}`` is not one (Unsupported is)."""
    if not isinstance(value, dict) or value.get("supported") is not True:
        raise TypeError("not a supported section")
    inner_hint = args[0] if args else Any
    if "value" in value and len(value) == 2:
        inner = _convert(inner_hint, value["value"])
    else:
        inner = _convert(inner_hint, {k: v for k, v in value.items() if k != "supported"})
    return cls(inner)
