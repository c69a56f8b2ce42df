"""Remembered iSCSI targets: the ones a technician added with ``--add-iscsi``.

iSCSI drives cannot be discovered from the OS (we use no kernel initiator), so the
user names them once and ``tapediag devices`` lists them from then on. Kept as a
small JSON file in ``data_dir()`` so it is readable, diffable and survives upgrades;
written atomically (temp file + rename) so a crash never leaves half a file.
"""
from __future__ import annotations

import json
import os
import tempfile
from dataclasses import asdict, dataclass
from datetime import datetime, timezone
from pathlib import Path

from native.errors import InvalidParameter, ParseError
from native.iscsi import IscsiUrl
from native.paths import data_dir

FILE_NAME = "iscsi_targets.json"


@dataclass(frozen=True)
class RememberedTarget:
    url: str
    added: str  # ISO 8601, UTC

    def to_dict(self) -> dict[str, str]:
        return asdict(self)


def _path() -> Path:
    return data_dir() / FILE_NAME


def list_targets() -> list[RememberedTarget]:
    """The remembered targets, oldest first ([] when none were added)."""
    path = _path()
    if not path.exists():
        return []
    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return [RememberedTarget(str(item["url"]), str(item.get("added", ""))) for item in raw["targets"]]
    except (ValueError, KeyError, TypeError) as err:
        raise ParseError(f"{path} is damaged ({err}); fix or delete it") from None


def _save(targets: list[RememberedTarget]) -> None:
    path = _path()
    payload = json.dumps({"targets": [t.to_dict() for t in targets]}, indent=2) + "\n"
    fd, tmp = tempfile.mkstemp(prefix=FILE_NAME, dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(payload)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def add_target(url: str) -> RememberedTarget:
    """Remember ``url`` (validated, not contacted). Adding it twice keeps one entry."""
    url = url.strip()
    IscsiUrl.parse(url)  # InvalidParameter for a malformed string
    targets = list_targets()
    for existing in targets:
        if existing.url == url:
            return existing
    entry = RememberedTarget(url, datetime.now(timezone.utc).isoformat(timespec="seconds"))
    _save([*targets, entry])
    return entry


def remove_target(url: str) -> None:
    """Forget ``url``; InvalidParameter if it was never remembered."""
    url = url.strip()
    targets = list_targets()
    kept = [t for t in targets if t.url != url]
    if len(kept) == len(targets):
        raise InvalidParameter(f"{url} is not a remembered iSCSI target", hint="see 'tapediag devices'")
    _save(kept)
