"""A device's identity and health for the report: what a support case quotes.

Vendor, product, serial, firmware and the cartridge's barcode and density come from the
newest ``drive-info`` run and from the identities every run that touches a device records
(``app.identity``: newest first); runs of other kinds fill in what they know (an
assessment's firmware and serial, a tape-perf run's drive and the TapeAlert flags it saw).
What no run recorded (a run from before issue 25) is said: "not recorded", never left out,
so a support case sees that the serial is missing rather than that there is none.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.assess.engine import AssessResult
from app.erase.result import EraseResult
from app.health_rules import Finding as HealthFinding
from app.identity import LIBRARY, TAPE_DRIVE
from app.info import DriveInfo
from app.runs.kind import Target
from app.runs.stored import Loaded
from app.runs.words import density
from app.scan.results import ScanResult
from native.scsi.ltfs import LtfsVolume
from app.troubleshoot.fromhistory import drive_from_run

from .model import DeviceSection, Field

NOT_RECORDED = "not recorded"
_NAMED = ("Vendor", "Product", "Serial", "Firmware")


def _from_drive_info(info: DriveInfo) -> tuple[dict[str, str], str, list[Field], list[str]]:
    """Identity, health verdict, health details and alerts from a ``drive-info`` run."""
    ident = info.identity
    identity = {name: str(value) for name, value in (("Vendor", ident.vendor), ("Product", ident.product),
                                                     ("Serial", ident.serial), ("Firmware", ident.revision),
                                                     ("WWN", ident.wwn)) if value}
    if info.generation:
        identity["Generation"] = f"LTO-{info.generation}"
    cart, media = info.cartridge.value, info.media.value
    if cart is not None and cart.barcode:
        identity["Cartridge barcode"] = cart.barcode
    code = media.density_code if media is not None else (cart.density_code if cart is not None else None)
    if code:
        identity["Cartridge density"] = density(code)
    health = info.health
    said = {f.text for f in health.findings}
    details = [Field("Reason", r) for r in health.reasons if r not in said]
    details += [_finding_field(f) for f in health.findings]
    alerts: list[str] = []
    if info.tapealerts.value is not None:
        alerts = [f"TapeAlert {a.code:02X}h {a.name} ({a.severity.value}): {a.definition.text}"
                  for a in info.tapealerts.value]
        if not alerts:
            details.append(Field("TapeAlert", "no flags set"))
    else:
        details.append(Field("TapeAlert", info.tapealerts.reason))
    return identity, health.verdict.value, details, alerts


def _finding_field(f: HealthFinding) -> Field:
    """A health finding (``app.health_rules.Finding``) as the support case quotes it: who, what, the
    evidence and the threshold with its source."""
    who = "Note (not judged)" if f.level.value == "Note" else f"{f.level.value}: {f.culprit}"
    return Field(who, f"{f.text}. Evidence: {f.page}, {f.parameter}: {f.value}; threshold {f.threshold} ({f.source})")


def _recorded(device: str, runs: list[Loaded[Any]], fields: dict[str, str]) -> tuple[str | None, list[tuple[str, int]]]:
    """Fill ``fields`` from the identities the runs recorded for ``device`` (newest first); its role, and the
    cartridge barcodes with the run each was seen in."""
    role, barcodes = None, []
    for loaded in runs:
        for ident in loaded.identities or ():
            if ident.device != device:
                continue
            role = role or ident.role
            for name, value in zip(_NAMED, (ident.vendor, ident.product, ident.serial, ident.firmware)):
                if value and name not in fields:
                    fields[name] = value
            if ident.barcode:
                barcodes.append((ident.barcode, loaded.run.id))
    return role, barcodes


def _volume_of(result: Any) -> LtfsVolume | None:
    """The LTFS volume a run's own result names: a media scan's and an erase's from the labels on tape (what was there
    when the erase began), a drive-info run's from the cartridge memory."""
    if isinstance(result, (ScanResult, DriveInfo)):
        return result.ltfs
    if isinstance(result, EraseResult) and result.cartridge is not None:
        return result.cartridge.ltfs
    return None


@dataclass(frozen=True)
class _Seen:
    """An LTFS volume one run found on the device's cartridge: ``key`` tells volumes apart (the UUID), ``read`` says
    the run's own result named it (its words the fullest: the labels' creator), ``erased``: the run erased it."""

    key: str
    words: str
    run: int
    read: bool
    erased: bool = False


def _ltfs(device: str, runs: list[Loaded[Any]]) -> list[_Seen]:
    """The LTFS volumes the runs found on ``device``'s cartridge (newest first): the run's own result's, else the one
    the cartridge memory named when the run began (``app.identity``)."""
    found: list[_Seen] = []
    for loaded in runs:
        result, run = loaded.result, loaded.run
        volume = _volume_of(result) if run.device == device else None
        if volume is not None:
            erased = isinstance(result, EraseResult) and result.status == "complete"
            found.append(_Seen(volume.volume_uuid or volume.describe(), volume.describe(), run.id, True, erased))
            continue
        ident = next((i for i in loaded.identities or () if i.device == device and i.ltfs), None)
        if ident is not None and ident.ltfs:
            found.append(_Seen(ident.ltfs_uuid or ident.ltfs, ident.ltfs, run.id, False))
    return found


def _ltfs_field(found: list[_Seen]) -> dict[str, str]:
    """The "LTFS volume" field beside the cartridge's barcode: each volume once, in the fullest words a run had for it,
    with the runs that saw it when there were several volumes, and the run that erased it."""
    values = []
    keys = list(dict.fromkeys(s.key for s in found))
    for key in keys:
        seen = [s for s in found if s.key == key]
        words = next((s.words for s in seen if s.read), seen[0].words)
        runs = f" (run {', '.join(str(s.run) for s in seen)})" if len(keys) > 1 else ""
        erased = [s.run for s in seen if s.erased]
        values.append(words + runs + (f"; erased by run {erased[0]}" if erased else ""))
    return {"LTFS volume": "; ".join(values)} if values else {}


def _touched(device: str, runs: list[Loaded[Any]]) -> str | None:
    """The role of ``device`` when a run touched it as a device of its own (a drive or a library), else None
    (a disk run's directory, several drives' joint name)."""
    for loaded in runs:
        if loaded.identities is not None:
            named = next((i for i in loaded.identities if i.device == device), None)
            if named is not None:
                return named.role
            continue
        run, kind = loaded.run, loaded.kind
        if run.device == device and kind is not None and kind.target is not Target.DRIVES:
            if kind.target is Target.LIBRARY:
                return LIBRARY
            if kind.drive:
                return TAPE_DRIVE
    return None


def _not_recorded(fields: dict[str, str], role: str | None, barcodes: list[tuple[str, int]]) -> None:
    """The cartridges the runs used (which run used which, when there were several), and what a support case
    needs that no run recorded, said as such; the cartridge's barcode too, for a tape drive."""
    seen = list(dict.fromkeys(b for b, _ in barcodes))
    if len(seen) > 1:
        fields["Cartridge barcode"] = ", ".join(
            f"{b} (run {', '.join(str(r) for bc, r in barcodes if bc == b)})" for b in seen)
    elif seen:
        fields["Cartridge barcode"] = seen[0]
    if role is None:
        return
    for name in _NAMED:
        if name not in fields and not (name in ("Vendor", "Product") and "Drive" in fields):
            fields[name] = NOT_RECORDED
    if role == TAPE_DRIVE and "Cartridge barcode" not in fields:
        fields["Cartridge barcode"] = NOT_RECORDED


def _from_other_runs(device: str, runs: list[Loaded[Any]], identity: dict[str, str], alerts: list[str]) -> None:
    """What runs of other kinds know: an assessment's firmware and serial, a tape run's drive and generation, the
    TapeAlert flags a test left set and a disk run's warnings (sentences)."""
    for loaded in runs:
        run, result = loaded.run, loaded.result
        if isinstance(result, AssessResult):
            for name, value in (("Vendor", result.vendor), ("Product", result.product), ("Serial", result.serial),
                                ("Firmware", result.firmware)):
                if value and name not in identity:
                    identity[name] = value
        if run.device != device:  # a run that only passed through this device (a library's drive)
            continue
        ctx = drive_from_run(loaded) if run.kind != "drive-info" else None
        if ctx and ctx.serial and "Serial" not in identity:
            identity["Serial"] = ctx.serial
        if ctx and ctx.description and not {"Vendor", "Product", "Drive"} & set(identity):
            identity["Drive"] = ctx.description
        if ctx and ctx.generation and "Generation" not in identity:
            identity["Generation"] = f"LTO-{ctx.generation}"
        # The results that carry sentences for the device: a tape test's flags, a disk run's warnings.
        for item in (getattr(result, "tapealert", None) or []) + (getattr(result, "warnings", None) or []):
            if isinstance(item, str) and item not in alerts:
                alerts.append(item)


def device_section(device: str, runs: list[Loaded[Any]]) -> DeviceSection:
    """Identity and health of one device; ``runs`` newest first, each read into its typed result."""
    identity: dict[str, str] = {}
    health, details, alerts = "", list[Field](), list[str]()
    snapshot = next((x for x in runs if isinstance(x.result, DriveInfo)), None)
    if snapshot is not None and isinstance(snapshot.result, DriveInfo):
        identity, health, details, alerts = _from_drive_info(snapshot.result)
    role, barcodes = _recorded(device, runs, identity)
    if snapshot is not None and "Cartridge barcode" in identity:  # one of the report's cartridges, by its run
        barcodes.append((identity.pop("Cartridge barcode"), snapshot.run.id))
        barcodes.sort(key=lambda b: -b[1])
    _from_other_runs(device, runs, identity, alerts)
    _not_recorded(identity, role or _touched(device, runs), barcodes)
    identity.update(_ltfs_field(_ltfs(device, runs)))
    order = ("Vendor", "Product", "Drive", "Serial", "Firmware", "Generation", "Cartridge barcode", "LTFS volume",
             "Cartridge density", "WWN")
    fields = tuple(Field(k, identity[k]) for k in order if k in identity)
    return DeviceSection(device, fields, health, tuple(details), tuple(alerts))
