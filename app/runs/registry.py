"""The registry of run kinds: filled by ``app.catalog`` (the one list), asked by every reader.

pluggy's plug-in manager, Django's app registry: the registry imports no kind. ``app.catalog``
registers the built-in kinds and says so (``install``); a reader that asks before that is a
programming error, said at once (``KindsNotInstalled``), never an empty history. A kind a test
adds (``register``) joins them; ``app.execute`` registers the kind it runs, so a run is always of
a known kind.
"""
from __future__ import annotations

from typing import TYPE_CHECKING, Any, Iterable

if TYPE_CHECKING:  # the command line asks the registry on every start; the run model loads with a kind
    from app.runs.kind import RunKind

_REGISTRY: dict[str, RunKind[Any, Any]] = {}
_installed = False


class KindsNotInstalled(RuntimeError):
    """The registry was asked for the kinds before ``app.catalog`` installed them (Django's AppRegistryNotReady)."""


def install(kinds: Iterable[RunKind[Any, Any]]) -> None:
    """Register the catalog's kinds, in order, and mark the registry ready."""
    global _installed
    for kind in kinds:
        register(kind)
    _installed = True


def register(kind: RunKind[Any, Any]) -> RunKind[Any, Any]:
    """Add ``kind``; a second kind with the name of another is refused (two meanings for one stored name)."""
    known = _REGISTRY.get(kind.name)
    if known is not None and known is not kind:
        raise ValueError(f"a run kind named {kind.name!r} is registered already")
    _REGISTRY[kind.name] = kind
    return kind


def unregister(name: str) -> None:
    """For tests that add a throwaway kind."""
    _REGISTRY.pop(name, None)


def _ready() -> None:
    if not _installed:
        raise KindsNotInstalled("the run kinds are not installed: import app.catalog first")


def kinds() -> tuple[str, ...]:
    """Every registered kind's name, the catalog's order first."""
    _ready()
    return tuple(_REGISTRY)


def get(name: str) -> RunKind[Any, Any] | None:
    """The kind of that name; None for a name this version does not know (a row a newer tapediag wrote)."""
    kind = _REGISTRY.get(name)
    if kind is None:
        _ready()
    return kind


def known(name: str) -> bool:
    """Whether ``name`` is a registered kind (no readiness needed: the history asks it of every run it starts)."""
    return name in _REGISTRY


def title(name: str) -> str:
    kind = get(name)
    return kind.title if kind else name


def commands() -> dict[str, RunKind[Any, Any]]:
    """The registered kinds that are ``tapediag`` sub-commands, by command name (no readiness needed: the CLI
    lists what is registered beside its own table, without importing the catalog)."""
    return {k.command.name: k for k in _REGISTRY.values() if k.command is not None}


__all__ = ["KindsNotInstalled", "commands", "get", "install", "kinds", "known", "register", "title", "unregister"]
