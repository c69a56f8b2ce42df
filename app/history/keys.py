"""Which drive and which cartridge a run was on: the keys that let the history tell drive from media.

A run is keyed by the drive's serial number (VPD 80h) and the cartridge's barcode and MAM serial
(the cartridge memory's serial, burned in at manufacture: a relabelled cartridge keeps it).
``keys_from_results`` finds them in the stored results: first the identities a run on a drive
records (``app.identity``, read from the drive before the test), else, for runs stored before
those existed, ``info``'s identity and MAM, an assessment's serial, a scan's MAM figures (the
migration to schema 3 uses it).
"""
from __future__ import annotations

from dataclasses import dataclass, replace
from typing import Any


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
    drives = [i for i in results.get("identities") or () if isinstance(i, dict) and i.get("role") == "tape drive"]
    recorded = RunKeys(_text(drives[0].get("serial")), _text(drives[0].get("barcode")),
                       _text(drives[0].get("cartridge_serial"))) if len(drives) == 1 else RunKeys()
    identity, cartridge, volume = (_dict(results.get(k)) for k in ("identity", "cartridge", "volume_statistics"))
    if volume.get("page_valid") == 0:  # not the loaded cartridge's (none loaded): its barcode is no key
        volume = {}
    return recorded.merged(RunKeys(drive_serial=_text(identity.get("serial")) or _text(results.get("serial")),
                                   barcode=_text(cartridge.get("barcode")) or _text(volume.get("volume_barcode")),
                                   mam_serial=_text(cartridge.get("serial"))))
