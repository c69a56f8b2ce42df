"""Judging a drive from what ``gather`` read: the one health rule of tapediag, ``assess``.

The sections are the parser types of ``native.scsi`` (TapeAlert flags, error counter pages, the
drive-wide pages); every fact a rule reads is taken from them into a ``Subject`` here, and the rules
themselves are data (``resources/rules/drive-health.json``, evaluated by ``app.health_rules``). So
this module holds no threshold: it says which facts a page gives and how findings become a verdict.
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from app.drive import NOT_SUPPORTED, Maybe, Supported, Unsupported
from app.health_rules import EVIDENCE, Finding, Level, Subject, Verdict, classify, evaluate, tapealert_culprit
from native.scsi.devicelogs import DeviceStatistics, DiagnosticEntry, DtStatus, PortStatus, Temperature
from native.scsi.logpages import ErrorCounters, TapeAlertFlag
from native.scsi.tapealert import CLEANING_FLAGS

# Exit status of ``tapediag info`` per verdict (documented in ``--help`` and the README).
# Chosen clear of 1 (device failure), 2 (bad input / not a tape), 3 (refused) and 130 (cancelled).
EXIT_CODES: dict[Verdict, int] = {
    Verdict.HEALTHY: 0,
    Verdict.ATTENTION: 10,
    Verdict.FAILING: 11,
    Verdict.NOT_ASSESSED: 12,
    Verdict.NOT_A_TAPE: 2,
}

#: The default of the optional sections (an immutable marker, shared).
NOT_REPORTED = Unsupported(NOT_SUPPORTED)


@dataclass(frozen=True)
class Health:
    """The verdict, the sentences behind it (``reasons``: what every front end prints) and the
    findings they come from, each with its evidence and culprit (``app.health_rules.Finding``)."""

    verdict: Verdict
    reasons: tuple[str, ...] = ()
    findings: tuple[Finding, ...] = ()

    @property
    def exit_code(self) -> int:
        return EXIT_CODES[self.verdict]


@dataclass(frozen=True)
class Evidence:
    """An error a drive gave while answering a query, classified by its sense (``app.health_rules.classify``).

    ``kind`` is "evidence" (it says something about the drive, cartridge, path or host: ``level``
    and ``culprit`` say what) or "informational" (shown, not judged: NO SENSE with a filemark,
    RECOVERED ERROR, UNIT ATTENTION). ``query`` names the command ("LOG SENSE page 2Eh"),
    ``sense`` the decoded sense ("HARDWARE ERROR: Diagnostic failure on component 81h (40/81)").
    """

    level: Level | None
    query: str
    sense: str
    culprit: str = "drive"
    why: str = ""
    kind: str = EVIDENCE
    code: tuple[int, int, int] = (0, 0, 0)  # sense key, ASC, ASCQ


def assess(tapealerts: Maybe[tuple[TapeAlertFlag, ...]], write_errors: Maybe[ErrorCounters],
           read_errors: Maybe[ErrorCounters], cleaning: Maybe[bool], *,
           evidence: "list[Evidence] | tuple[Evidence, ...]" = (), temperature: Maybe[Temperature] = NOT_REPORTED,
           device_status: Maybe[DtStatus] = NOT_REPORTED, device_statistics: Maybe[DeviceStatistics] = NOT_REPORTED,
           ports: Maybe[tuple[PortStatus, ...]] = NOT_REPORTED,
           diagnostics: Maybe[tuple[DiagnosticEntry, ...]] = NOT_REPORTED, non_medium_errors: Maybe[int] = NOT_REPORTED,
           tapealert_page: str = "") -> Health:
    """The verdict a technician acts on: the one health rule of tapediag (``info``, the assessment's health step).

    Every page that can signal trouble is turned into facts (``_subjects``) and judged by the
    rules of ``resources/rules/drive-health.json`` (``app.health_rules.evaluate``): TapeAlert
    flags, the error counters, cleaning required/requested (0Ch, 11h), temperature against the
    drive's own reference (0Dh), the device statistics' hard errors and temperature flag (14h),
    the kept diagnostic entries (16h), non-medium errors (06h), the SAS phy counters (18h), and
    every error a query got (``evidence``, classified by sense). Any Failing finding makes the
    verdict Failing, any Attention finding Attention; Notes are shown and do not move it.

    Healthy needs evidence of health: TapeAlert or the error counters read and clean. Without
    either (and nothing wrong found) the verdict is Not assessed, naming what the drive did not
    report. The positional parameters are the sections every drive may have; the keyword ones
    the drive-wide pages, which older callers may leave out.
    """
    subjects = _subjects(tapealerts, write_errors, read_errors, cleaning, evidence, temperature, device_status,
                         device_statistics, ports, diagnostics, non_medium_errors, tapealert_page)
    findings = evaluate(subjects)
    by_level = {level: [f for f in findings if f.level is level] for level in Level}
    judged = by_level[Level.FAILING] + by_level[Level.ATTENTION]
    notes = by_level[Level.NOTE]
    ordered = tuple(judged + notes)
    if by_level[Level.FAILING]:
        return Health(Verdict.FAILING, tuple(f.text for f in ordered), ordered)
    if judged:
        return Health(Verdict.ATTENTION, tuple(f.text for f in ordered), ordered)
    basis = _healthy_basis(tapealerts, write_errors, read_errors,
                           (("temperature", temperature), ("device status", device_status),
                            ("device statistics", device_statistics), ("SAS port", ports),
                            ("tape diagnostic data", diagnostics), ("non-medium errors", non_medium_errors)))
    if basis is None:
        by_reason: dict[str, list[str]] = {}
        for name, sec in (("TapeAlert", tapealerts), ("write error counters", write_errors),
                          ("read error counters", read_errors)):
            by_reason.setdefault(sec.reason if isinstance(sec, Unsupported) else "", []).append(name)
        missing = "; ".join(f"{_and(names)} ({reason})" for reason, names in by_reason.items())
        return Health(Verdict.NOT_ASSESSED, (f"the drive did not report {missing}",) + tuple(f.text for f in notes), ordered)
    return Health(Verdict.HEALTHY, (basis,) + tuple(f.text for f in notes), ordered)


def _healthy_basis(tapealerts: Maybe[Any], write_errors: Maybe[Any], read_errors: Maybe[Any],
                   drive_pages: tuple[tuple[str, Maybe[Any]], ...]) -> str | None:
    """What a Healthy verdict rests on, as the other verdicts name theirs (a ticket that says "Healthy"
    must say what was read: a drive may give only its write counters); None when nothing was read."""
    clean = ["TapeAlert: no warning or critical flag"] if isinstance(tapealerts, Supported) else []
    counted = [d for d, sec in (("write", write_errors), ("read", read_errors)) if isinstance(sec, Supported)]
    if counted:
        clean.append(f"{' and '.join(counted)} error counters: no uncorrected error")
    if not clean:
        return None
    read = [name for name, sec in drive_pages if isinstance(sec, Supported)]
    if read:
        clean.append(f"{_and_all(read)}: nothing past a threshold")
    return "; ".join(clean)


def _and_all(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " and " + names[-1]


def _and(names: list[str]) -> str:
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + " or " + names[-1]


def _subjects(tapealerts: Maybe[tuple[TapeAlertFlag, ...]], write_errors: Maybe[ErrorCounters],
              read_errors: Maybe[ErrorCounters], cleaning: Maybe[bool], evidence: "list[Evidence] | tuple[Evidence, ...]",
              temperature: Maybe[Temperature], device_status: Maybe[DtStatus], statistics: Maybe[DeviceStatistics],
              ports: Maybe[tuple[PortStatus, ...]], diagnostics: Maybe[tuple[DiagnosticEntry, ...]],
              non_medium: Maybe[int], tapealert_page: str) -> list[Subject]:
    """The facts the drive-health rules read, one subject per thing a rule judges (``app.health_rules``)."""
    alerts = tapealerts.value if isinstance(tapealerts, Supported) else ()
    page = tapealert_page or "TapeAlert log page"
    out = [Subject("tapealert", {"code": a.code, "name": a.name, "severity": a.severity.value,
                                 "advice": a.definition.text, "cleaning_flag": a.code in CLEANING_FLAGS,
                                 "culprit": tapealert_culprit(a.code), "tapealert_page": page}) for a in alerts]
    for code, direction, counts in ((0x02, "write", write_errors), (0x03, "read", read_errors)):
        if isinstance(counts, Supported):
            n = counts.value.total_uncorrected
            out.append(Subject("counters", {"page": code, "direction": direction, "uncorrected": n,
                                            "plural": "" if n == 1 else "s", "corrected": counts.value.total_corrected}))
    out.append(Subject("drive", _drive_facts(cleaning, alerts, temperature, device_status, statistics, ports, non_medium)))
    if isinstance(ports, Supported):
        out += [Subject("phy", {"port": port.port, "phy": p.phy_id, "invalid_dwords": p.invalid_dwords,
                                "disparity_errors": p.disparity_errors, "loss_of_sync": p.loss_of_sync,
                                "phy_reset_problems": p.phy_reset_problems, "errors": p.error_total})
                for port in ports.value for p in port.phys]
    if isinstance(diagnostics, Supported):
        out += [_diagnostic_subject(i, d) for i, d in enumerate(diagnostics.value)]
    return out + _query_subjects(evidence)


def _drive_facts(cleaning: Maybe[bool], alerts: tuple[TapeAlertFlag, ...], temperature: Maybe[Temperature],
                 device_status: Maybe[DtStatus], statistics: Maybe[DeviceStatistics],
                 ports: Maybe[tuple[PortStatus, ...]], non_medium: Maybe[int]) -> dict[str, Any]:
    """The drive-wide facts: None where the drive did not report one (a rule on it then does not fire)."""
    status = device_status.value if isinstance(device_status, Supported) else None
    figures = statistics.value.stats() if isinstance(statistics, Supported) else {}
    temp = temperature.value if isinstance(temperature, Supported) else None
    by_status = status is not None and status.cleaning_required
    return {
        "cleaning_required": cleaning.value if isinstance(cleaning, Supported) else None,
        "cleaning_page": "log page 11h (DT device status)" if by_status else "log page 0Ch (sequential access)",
        "cleaning_parameter": "CRQRD" if by_status else "0100h cleaning required",
        "cleaning_requested": status.cleaning_requested if status is not None else None,
        "cleaning_flag_set": any(a.code in CLEANING_FLAGS for a in alerts),
        "temperature_c": temp.celsius if temp is not None else None,
        "reference_temperature_c": temp.reference_celsius if temp is not None else None,
        "max_temperature_exceeded": figures.get("max_mechanism_temperature_exceeded"),
        "hard_write_errors": figures.get("hard_write_errors"),
        "hard_read_errors": figures.get("hard_read_errors"),
        "power_on_hours": figures.get("lifetime_power_on_hours"),
        "non_medium_errors": non_medium.value if isinstance(non_medium, Supported) else None,
        "phy_errors": (sum(p.error_total for port in ports.value for p in port.phys)
                       if isinstance(ports, Supported) else None),
    }


def _diagnostic_subject(index: int, entry: DiagnosticEntry) -> Subject:
    """A kept error, classified by its own sense as a query's would be (a MEDIUM ERROR is the cartridge's)."""
    from native.scsi.sense import Sense

    key, asc, ascq = entry.sense_key, entry.asc, entry.ascq
    found = classify(Sense(response_code=0x70, key=key, asc=asc, ascq=ascq))
    return Subject("diagnostic", {"code": index, "head_hours": entry.head_hours, "sense": entry.sense_text,
                                  "opcode": entry.opcode, "medium": entry.medium_id or "-",
                                  "repeated": " (repeated)" if entry.repeat else "", "key": key, "asc": asc,
                                  "ascq": ascq, "class": found.kind, "culprit": found.culprit, "why": found.why})


def _query_subjects(evidence: "list[Evidence] | tuple[Evidence, ...]") -> list[Subject]:
    """One subject per distinct error, naming every query that got it: a drive failing every
    command reads as one diagnosis, not twelve copies of it."""
    grouped: dict[tuple[str, str], list[Evidence]] = {}
    for item in evidence:
        grouped.setdefault((item.kind, item.sense), []).append(item)
    out = []
    for (kind, sense), items in grouped.items():
        first = items[0]
        key, asc, ascq = first.code
        out.append(Subject("query", {"queries": ", ".join(i.query for i in items), "sense": sense, "class": kind,
                                     "verdict": first.level.value if first.level is not None else "Note",
                                     "culprit": first.culprit, "why": first.why, "key": key, "asc": asc, "ascq": ascq,
                                     "tur": any(i.query == "TEST UNIT READY" for i in items)}))
    return out


__all__ = ["EXIT_CODES", "Evidence", "Health", "NOT_REPORTED", "assess"]
