"""A TapeAlert flag that is set when a test ends is part of that test's verdict (issue 25 §3).

Every drive test (tape-perf, scan, assess, library-run) reads TapeAlert once after it ran
(``app.tapeperf.logs.DriveLogs.finish``) and keeps the flags as "14h Cleaning required".
How bad they are is not re-derived here: the flags go through ``app.info.assess``, the
rule ``tapediag info`` judges a drive's TapeAlert page by (Critical flags are Failing,
Warning flags and the cleaning flags Attention), and its exit codes (10, 11). The words a
technician acts on are each flag's own advice from the TapeAlert table.
"""
from __future__ import annotations

from dataclasses import dataclass

from native.scsi.logpages import TapeAlertFlag
from native.scsi.tapealert import definition

#: What a technician does for each drive-health verdict of ``tapediag info`` (``app.info.Verdict``), and its tone
#: (``app.runs.TONES``): the one table page 1, the GUI and the assessment's health step take them from.
HEALTH = {
    "Healthy": ("good", "None: keep the drive on its cleaning schedule."),
    "Attention": ("warn", "Clean the drive and repeat with another cartridge; if the reasons stay, open a support "
                          "case with the drive's vendor."),
    "Failing": ("bad", "Stop using the drive for backups and open a support case with the drive's vendor, quoting "
                       "its serial and firmware."),
    "Not assessed": ("none", "Nothing could be read to judge the drive: load a cartridge and run 'tapediag info' "
                             "again on a path that passes log pages."),
    "Not a tape drive": ("none", "Check the device path: this device is not a tape drive."),
}


@dataclass(frozen=True)
class AlertVerdict:
    """What the flags left set by a run say: ``verdict`` (``app.info.Verdict`` value: Healthy, Attention,
    Failing), its exit code, each flag with its severity, and the flags' own advice."""

    verdict: str
    exit_code: int
    flags: tuple[str, ...]  # "14h Cleaning required (Critical)"
    advice: tuple[str, ...]

    @property
    def tone(self) -> str:
        """The report's tone (``app.runs.TONES``) for this verdict (``HEALTH``)."""
        return HEALTH.get(self.verdict, ("none", ""))[0] if self.verdict != "Healthy" else "none"

    @property
    def severity(self) -> str:
        """As a scan finding's severity: critical, warning or information."""
        return {"Failing": "critical", "Attention": "warning"}.get(self.verdict, "information")


def flag_code(flag: str) -> int | None:
    """'14h Cleaning required' -> 0x14 (None for anything else)."""
    head = flag.split(" ", 1)[0].removesuffix("h")
    try:
        return int(head, 16)
    except ValueError:
        return None


def judge_alerts(flags: list[str] | tuple[str, ...] | None) -> AlertVerdict | None:
    """The verdict of the flags a run left set, by ``tapediag info``'s rule; None when there are none."""
    from app.drive import Supported, Unsupported
    from app.info import EXIT_CODES
    from app.info import assess as info_assess

    codes = [c for c in (flag_code(f) for f in flags or ()) if c is not None]
    if not codes:
        return None
    defs = [definition(c) for c in codes]
    alerts = tuple(TapeAlertFlag(d.code, True, d) for d in defs)
    health = info_assess(Supported(alerts), Unsupported(), Unsupported(), Unsupported())
    return AlertVerdict(health.verdict.value, EXIT_CODES[health.verdict],
                        tuple(f"{d.code:02X}h {d.name} ({d.severity.value})" for d in defs),
                        tuple(dict.fromkeys(d.text for d in defs)))


def worst_exit(code: int, alerts: AlertVerdict | None) -> int:
    """A run's exit status with the flags it left set taken in: a clean run (0) becomes the flags' 10 or 11;
    a failed or cancelled run keeps its own code."""
    return alerts.exit_code if alerts is not None and code == 0 else code
