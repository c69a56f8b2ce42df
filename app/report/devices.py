"""A device's identity and health for the report: what a support case quotes.

Vendor, product, serial, firmware and the cartridge's barcode and density come from the
newest ``drive-info`` run; runs of other kinds fill in what they know (an assessment's
firmware and serial, a tape-perf run's drive and the TapeAlert flags it saw).
"""
from __future__ import annotations

from app.history import Run
from app.runs.words import density
from app.troubleshoot.fromhistory import drive_from_run

from .model import DeviceSection, Field


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


def device_section(device: str, runs: list[Run]) -> DeviceSection:
    """Identity and health of one device; ``runs`` newest first."""
    identity: dict[str, str] = {}
    health, details, alerts = "", list[Field](), list[str]()
    snapshot = next((r for r in runs if r.kind == "drive-info" and r.results), None)
    if snapshot is not None:
        identity, health, details, alerts = _from_drive_info(snapshot.results or {})
    for run in runs:
        res = run.results or {}
        if run.kind == "assessment":
            for name, key in (("Vendor", "vendor"), ("Product", "product"), ("Serial", "serial"),
                              ("Firmware", "firmware")):
                if res.get(key) and name not in identity:
                    identity[name] = str(res[key])
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
    order = ("Vendor", "Product", "Drive", "Serial", "Firmware", "Generation", "Cartridge barcode",
             "Cartridge density", "WWN")
    fields = tuple(Field(k, identity[k]) for k in order if k in identity)
    return DeviceSection(device, fields, health, tuple(details), tuple(alerts))
