"""A device's identity and health for the report: what a support case quotes.

Vendor, product, serial, firmware and the cartridge's barcode and density come from the
newest ``drive-info`` run and from the identities every run that touches a device records
(``app.identity``: newest first); runs of other kinds fill in what they know (an
assessment's firmware and serial, a tape-perf run's drive and the TapeAlert flags it saw).
What no run recorded (a run from before issue 25) is said: "not recorded", never left out,
so a support case sees that the serial is missing rather than that there is none.
"""
from __future__ import annotations

from app import runs as run_kinds
from app.identity import LIBRARY, TAPE_DRIVE, recorded
from app.history import Run
from app.runs.words import density
from app.troubleshoot.fromhistory import drive_from_run

from .model import DeviceSection, Field

NOT_RECORDED = "not recorded"
_NAMED = ("Vendor", "Product", "Serial", "Firmware")


def _from_drive_info(res: dict) -> tuple[dict[str, str], str, list[Field], list[str]]:
    """Identity, health verdict, health details and alerts from ``app.info.DriveInfo.to_dict()``."""
    ident = res.get("identity") or {}
    identity = {name: str(ident[key]) for name, key in (("Vendor", "vendor"), ("Product", "product"),
                                                        ("Serial", "serial"), ("Firmware", "revision"),
                                                        ("WWN", "wwn")) if ident.get(key)}
    if res.get("generation"):
        identity["Generation"] = f"LTO-{res['generation']}"
    cart, media = res.get("cartridge") or {}, res.get("media") or {}
    if cart.get("supported") and cart.get("barcode"):
        identity["Cartridge barcode"] = str(cart["barcode"])
    code = media.get("density_code") if media.get("supported") else cart.get("density_code")
    if code:
        identity["Cartridge density"] = density(code, media.get("density_name") if media.get("supported") else None)
    health = res.get("health") or {}
    findings = [f for f in health.get("findings") or [] if isinstance(f, dict)]
    said = {str(f.get("text")) for f in findings}
    details = [Field("Reason", str(r)) for r in health.get("reasons") or [] if str(r) not in said]
    details += [_finding_field(f) for f in findings]
    ta = res.get("tapealerts") or {}
    alerts: list[str] = []
    if ta.get("supported"):
        alerts = [f"TapeAlert {a['code']:02X}h {a['name']} ({a['severity']}): {a['text']}" for a in ta.get("value") or []]
        if not alerts:
            details.append(Field("TapeAlert", "no flags set"))
    elif ta:
        details.append(Field("TapeAlert", str(ta.get("reason", "not read"))))
    return identity, str(health.get("verdict", "")), details, alerts


def _finding_field(f: dict) -> Field:
    """A health finding (``app.health_rules.Finding``) as the support case quotes it: who, what, the
    evidence and the threshold with its source."""
    who = "Note (not judged)" if f.get("level") == "Note" else f"{f.get('level', '')}: {f.get('culprit', '')}"
    return Field(who, f"{f.get('text', '')}. Evidence: {f.get('page', '')}, {f.get('parameter', '')}: "
                      f"{f.get('value', '')}; threshold {f.get('threshold', '')} ({f.get('source', '')})")


def _recorded(device: str, runs: list[Run], fields: dict[str, str]) -> tuple[str | None, list[tuple[str, int]]]:
    """Fill ``fields`` from the identities the runs recorded for ``device`` (newest first); its role, and the
    cartridge barcodes with the run each was seen in."""
    role, barcodes = None, []
    for run in runs:
        for ident in recorded(run.results) or ():
            if ident.device != device:
                continue
            role = role or ident.role
            for name, value in zip(_NAMED, (ident.vendor, ident.product, ident.serial, ident.firmware)):
                if value and name not in fields:
                    fields[name] = value
            if ident.barcode:
                barcodes.append((ident.barcode, run.id))
    return role, barcodes


def _touched(device: str, runs: list[Run]) -> str | None:
    """The role of ``device`` when a run touched it as a device of its own (a drive or a library), else None
    (a disk run's directory, several drives' joint name)."""
    for run in runs:
        ids = recorded(run.results)
        if ids is not None:
            named = next((i for i in ids if i.device == device), None)
            if named is not None:
                return named.role
            continue
        if run.device == device and len(run.params.get("devices") or []) <= 1:
            if run.kind == "library-test":
                return LIBRARY
            if getattr(run_kinds.get(run.kind), "drive", False):
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


def device_section(device: str, runs: list[Run]) -> DeviceSection:
    """Identity and health of one device; ``runs`` newest first."""
    identity: dict[str, str] = {}
    health, details, alerts = "", list[Field](), list[str]()
    snapshot = next((r for r in runs if r.kind == "drive-info" and r.results), None)
    if snapshot is not None:
        identity, health, details, alerts = _from_drive_info(snapshot.results or {})
    role, barcodes = _recorded(device, runs, identity)
    if snapshot is not None and "Cartridge barcode" in identity:  # one of the report's cartridges, by its run
        barcodes.append((identity.pop("Cartridge barcode"), snapshot.id))
        barcodes.sort(key=lambda b: -b[1])
    for run in runs:
        res = run.results or {}
        if run.kind == "assessment":
            for name, key in (("Vendor", "vendor"), ("Product", "product"), ("Serial", "serial"),
                              ("Firmware", "firmware")):
                if res.get(key) and name not in identity:
                    identity[name] = str(res[key])
        if run.device != device:  # a run that only passed through this device (a library's drive)
            continue
        ctx = drive_from_run(run) if run.kind != "drive-info" else None
        if ctx and ctx.serial and "Serial" not in identity:
            identity["Serial"] = ctx.serial
        if ctx and ctx.description and not {"Vendor", "Product", "Drive"} & set(identity):
            identity["Drive"] = ctx.description
        if ctx and ctx.generation and "Generation" not in identity:
            identity["Generation"] = f"LTO-{ctx.generation}"
        for item in (res.get("tapealert") or []) + (res.get("warnings") or []):  # tape-perf / disk runs: sentences
            if isinstance(item, str) and item not in alerts:
                alerts.append(item)
    _not_recorded(identity, role or _touched(device, runs), barcodes)
    order = ("Vendor", "Product", "Drive", "Serial", "Firmware", "Generation", "Cartridge barcode",
             "Cartridge density", "WWN")
    fields = tuple(Field(k, identity[k]) for k in order if k in identity)
    return DeviceSection(device, fields, health, tuple(details), tuple(alerts))
