"""A stored run read back into its kind's typed result, once, at the edge: the one loader.

Every reader of the history (``history``, ``show``, the report, the GUI's history and panels) asks
here; after ``load`` there are attributes, never ``results.get("key")``. The loader:

* finds the run's kind in the registry (``app.catalog`` installed it); a kind this version does not
  know (a row a newer tapediag wrote) loads as no result, and is listed with its raw figures;
* brings a row stored at an older version of the kind's result up to date (``RunKind.upgrade``;
  rows from before versions were stored are version 0);
* reads it into ``RunKind.result`` strictly (``app.runs.typed``), with the identities every run on a
  device records beside it (``app.identity``).

What cannot be read raises ``DamagedResult`` naming the run, in one line. Nothing here catches a
renderer's exception: a renderer with a bug fails (its test with it), it never prints ``''``.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeVar

from app.identity import DeviceIdentity, recorded
from app.runs import registry
from app.runs.kind import Finding, RunKind, Rows, Series
from app.runs.typed import from_dict
from native.errors import DamagedResult

R = TypeVar("R")

#: The key under which a run's results keep the version of their kind's shape (``app.execute`` writes it).
VERSION_KEY = "result_version"


class StoredRun(Protocol):
    """A stored run as the loader and its readers see it (``app.history.Run`` is one)."""

    @property
    def id(self) -> int: ...

    @property
    def kind(self) -> str: ...

    @property
    def device(self) -> str: ...

    @property
    def status(self) -> str: ...

    @property
    def error(self) -> str | None: ...

    @property
    def params(self) -> dict[str, Any]: ...

    @property
    def results(self) -> dict[str, Any] | None: ...


@dataclass(frozen=True)
class Loaded(Generic[R]):
    """A stored run with its typed result (None: no result stored, or a kind this version does not know) and
    the identities of the devices it touched (None: a run from before they were recorded)."""

    run: StoredRun
    kind: RunKind[Any, R] | None
    result: R | None
    identities: tuple[DeviceIdentity, ...] | None

    def headline(self) -> str:
        """The kind's one line, or "" when there is no result to word."""
        return self.kind.headline(self.result) if self.kind is not None and self.result is not None else ""

    def text(self) -> str | None:
        """The result as the run printed it; None: the kind has no text (or there is no result)."""
        if self.kind is None or self.kind.text is None or self.result is None:
            return None
        return self.kind.text(self.result)

    def rows(self) -> Rows | None:
        """The report's labelled rows; None: the kind has none (the report lists the raw figures)."""
        if self.kind is None or self.kind.rows is None or self.result is None:
            return None
        return self.kind.rows(self.result)

    def findings(self) -> list[Finding]:
        if self.kind is None or self.kind.findings is None or self.result is None:
            return []
        return self.kind.findings(self.result)

    def series(self) -> Series | None:
        """The curves the result carries; None: plot the stored samples by phase."""
        if self.kind is None or self.kind.series is None or self.result is None:
            return None
        return self.kind.series(self.result)


    def yardstick(self) -> tuple[str, float] | None:
        """(label, MB/s) the verdict judged against, drawn on the run's plot; None: the kind draws none."""
        if self.kind is None or self.kind.yardstick is None or self.result is None:
            return None
        return self.kind.yardstick(self.result)

    def scale(self) -> float | None:
        """The rate the plot's scale is made for without a yardstick (``RunKind.scale``); None: the readings'."""
        if self.kind is None or self.kind.scale is None or self.result is None:
            return None
        return self.kind.scale(self.result)


def result_of(kind: RunKind[Any, R], data: dict[str, Any]) -> R | None:
    """``data`` as stored (any version) read into ``kind``'s result; ``DamagedResult`` when it does not fit."""
    version = data.get(VERSION_KEY, 0)
    if not isinstance(version, int) or version > kind.version:
        raise DamagedResult(f"results of version {version!r}, newer than this tapediag reads ({kind.version})")
    if version < kind.version and kind.upgrade is not None:
        data = kind.upgrade(data, version)
    return kind.load(data) if kind.load is not None else from_dict(kind.result, data, kind.result.__name__)


def load(run: StoredRun) -> Loaded[Any]:
    """The run's typed result (module docstring); ``DamagedResult`` names the run when it cannot be read."""
    kind = registry.get(run.kind)
    data = run.results
    if data is None:
        return Loaded(run, kind, None, None)
    try:
        identities = recorded(data)
        result = result_of(kind, data) if kind is not None else None
    except DamagedResult as err:
        raise DamagedResult(f"run {run.id} ({run.kind}) has results this tapediag cannot read: {err}",
                            hint="'tapediag show --json' prints them as stored") from None
    return Loaded(run, kind, result, tuple(identities) if identities is not None else None)


__all__ = ["Loaded", "StoredRun", "VERSION_KEY", "load", "result_of"]
