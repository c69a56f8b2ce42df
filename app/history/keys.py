"""Which drive and which cartridge a run was on: the keys that let the history tell drive from media.

A run is keyed by the drive's serial number (VPD 80h) and the cartridge's barcode and MAM serial
(the cartridge memory's serial, burned in at manufacture: a relabelled cartridge keeps it).
``keys_from_results`` finds them in the stored results: first the identities a run on a drive
records (``app.identity``, read by its own typed reader ``recorded``), else, for runs stored before
those existed, ``info``'s identity and MAM, an assessment's serial, a scan's MAM figures (the
migration to schema 3 uses it).

This is the store indexing its own rows, not a reader of results: it runs as a run is recorded
(``app.history.recorder``) and inside the schema migration, on the dictionary being written or the
row's JSON, where no run kind is at hand (the migration selects results only) and the history must
not import the kinds (``app.runs.stored.load`` is above it). So the few keys of rows older than the
identities are read here by name, tolerantly: an odd row gives no key, never an error that would
stop a recording or a migration.
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any

from app.identity import TAPE_DRIVE, recorded


@dataclass(frozen=True)
class RunKeys:
    drive_serial: str | None = None
    barcode: str | None = None
    mam_serial: str | None = None

    def merged(self, other: "RunKeys") -> "RunKeys":
        """These keys, with what ``other`` knows where these have none."""
        return replace(self, drive_serial=self.drive_serial or other.drive_serial,
                       barcode=self.barcode or other.barcode, mam_serial=self.mam_serial or other.mam_serial)


def _text(value: Any) -> str | None:
    return value.strip() or None if isinstance(value, str) else None


def _dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def keys_from_results(results: Any) -> RunKeys:
    """The keys a stored result carries: ``info``'s identity and MAM, an assessment's serial, a scan's MAM
    figures. Anything else (an odd or damaged result) gives no key rather than an error."""
    if not isinstance(results, dict):
        return RunKeys()
    drives = [i for i in recorded(results) or () if i.role == TAPE_DRIVE]
    own = RunKeys(drives[0].serial, drives[0].barcode, drives[0].cartridge_serial) if len(drives) == 1 else RunKeys()
    identity, cartridge, volume = (_dict(results.get(k)) for k in ("identity", "cartridge", "volume_statistics"))
    if volume.get("page_valid") == 0:  # not the loaded cartridge's (none loaded): its barcode is no key
        volume = {}
    return own.merged(RunKeys(drive_serial=_text(identity.get("serial")) or _text(results.get("serial")),
                              barcode=_text(cartridge.get("barcode")) or _text(volume.get("volume_barcode")),
                              mam_serial=_text(cartridge.get("serial"))))
