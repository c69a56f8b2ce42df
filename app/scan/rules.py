"""The media scan's verdict rules: the cartridge's verdict, and what belongs to the drive, the host or the path.

A scan reads one cartridge in one drive, once. What it sees can be the tape, the drive's
head, the host that fed it, the connection, or chance, and a technician acts on whom the
line names (retire the cartridge, clean the drive, tune the host). So:

* only what the tape alone explains marks the cartridge at once: a read the drive could
  not correct (MEDIUM ERROR, uncorrected read errors) and TapeAlert's media flags: RETIRE;
* a slow stretch or repositions while the host kept up (the drive's own time, the host's
  and this machine's share removed: ``app.scan.results.slow_zones``, ``stall_cause``) may
  be the tape, a dirty head or chance: seen in one scan it is CHECK AGAIN; seen again in
  an earlier scan of the same cartridge (the history, by barcode) it is MONITOR;
* corrected read errors where zones could not be judged (the host or this machine hid the drive's
  own rate there) are CHECK AGAIN: "no slow stretch" is not known, so neither the head nor the tape is named;
* corrected read errors spread over the whole read with no slow stretch are the mark of a
  dirty or worn head, or of a cartridge worn all over: only another drive or another cartridge
  tells them apart, so the history's visits decide (``app.visits``, counts in the rules file):
  this cartridge erred in other drives too: the cartridge, MONITOR; this drive erred on other
  cartridges: its head, a drive finding and KEEP; neither known yet: a drive finding that says
  it may be either and what tells them apart, and the cartridge keeps its KEEP;
* TapeAlert's other flags are the drive's (judged by ``tapediag info``'s rule, ``app.alerts``);
* a scan that did not reach the end of the data (a lost connection, a drive error, a
  cancel) gives no cartridge verdict: it read only part of it, and the cause was not the tape.
"""
from __future__ import annotations

from typing import TYPE_CHECKING

from app.alerts import flag_code, judge_alerts
from app.scan.results import CartridgeVerdict, ScanFinding, ScanResult, record_size, where
from app.scan.thresholds import (CORRECTED_PER_GB_MONITOR, MEDIA_FLAGS_RETIRE, REPOSITIONS_MONITOR, SLOW_ZONE_MIN_SECONDS,
                                 SLOW_ZONE_MIN_ZONES)
from native.units import duration_text, plural, rate_text, size_text

if TYPE_CHECKING:
    from app.visits import Prior, Visit

KEEP, CHECK, MONITOR, RETIRE, NONE = (CartridgeVerdict.KEEP, CartridgeVerdict.CHECK_AGAIN, CartridgeVerdict.MONITOR,
                                      CartridgeVerdict.RETIRE, CartridgeVerdict.NOT_ASSESSED)


def judge(result: ScanResult, before: "Prior | None" = None) -> None:
    """The cartridge verdict with its reasons, and the drive's, host's and path's findings, into ``result``;
    ``before``: the visits of this cartridge and this drive recorded before the scan (``app.visits.prior``)."""
    from app.visits import Prior

    before = before or Prior()
    reasons: list[tuple[CartridgeVerdict, str]] = []
    stopped = _stopped(result, reasons)
    _tapealert(result, reasons)
    uncorrected = result.delta("read errors uncorrected")
    if uncorrected:
        reasons.append((RETIRE, f"{plural(uncorrected, 'uncorrected read error')} during the scan"))
    signals = _slow_signals(result)
    result.cartridge_signals = [name for name, _ in signals]
    _corrected(result, reasons, bool(signals), before)
    _host_notes(result)
    if signals and not stopped:
        reasons.append(_seen(result, signals, before.cartridge))
    if any(v is not KEEP for v, _ in reasons):
        worst = max((v for v, _ in reasons), key=_WEIGHT.__getitem__)
        result.verdict = worst
        result.reasons = [r for v, r in reasons if v is not KEEP or worst is KEEP]
        return
    result.verdict, result.reasons = KEEP, _keep_reasons(result) + [r for _, r in reasons]


_WEIGHT = {KEEP: 0, NONE: 1, CHECK: 2, MONITOR: 3, RETIRE: 4}


def _gb(result: ScanResult) -> str:
    done = result.read.bytes
    return size_text(done)


def _stopped(result: ScanResult, reasons: list[tuple[CartridgeVerdict, str]]) -> bool:
    """A read that did not reach the end of the data: why, and whose it is. True when it stopped early
    for a reason that says nothing about the tape (then there is no cartridge verdict)."""
    end, kind, err = result.end_reason, result.error_kind, result.error or ""
    if end == "blank cartridge":
        reasons.append((NONE, "the cartridge holds no data to read"))
    elif end == "cancelled":
        reasons.append((NONE, f"the scan was cancelled after {_gb(result)}, before the end of the data: "
                              "no verdict on the cartridge"))
    elif end == "lost":
        reasons.append((NONE, f"the scan was cut off after {_gb(result)}: the connection to the drive was lost. It did "
                              "not reach the end of the data and the tape did not stop it: no verdict on the cartridge"))
        result.findings.append(ScanFinding("path", "warning", f"the connection to the drive was lost mid-scan: {err}",
                                           "Check the cable, HBA or network and the target, then scan again.",
                                           "Connection lost mid-scan"))
    elif end == "error" and kind == "medium":
        reasons.append((RETIRE, f"the read stopped with an error after {_gb(result)}: {err} (copy what can be read "
                                "to another cartridge first)"))
        return False
    elif end == "error" and kind == "hardware":
        reasons.append((NONE, f"the read stopped on a drive fault after {_gb(result)}: no verdict on the cartridge"))
        result.findings.append(ScanFinding("drive", "critical", f"the drive failed while reading: {err}",
                                           "Open a support case with the drive's vendor, quoting its serial and "
                                           "firmware, and the support ticket ('tapediag ticket').",
                                           "Drive fault while reading"))
    elif end == "error":
        reasons.append((NONE, f"the read stopped after {_gb(result)}: {err}. The scan did not reach the end of the "
                              "data: no verdict on the cartridge"))
    else:
        return False
    return True


def _tapealert(result: ScanResult, reasons: list[tuple[CartridgeVerdict, str]]) -> None:
    """Media flags retire the cartridge; every other flag is the drive's, judged as ``info`` judges it."""
    media = [f for f in result.tapealert or [] if flag_code(f) in MEDIA_FLAGS_RETIRE]
    reasons += [(RETIRE, f"TapeAlert {flag}") for flag in media]
    drive = judge_alerts([f for f in result.tapealert or [] if f not in media])
    if drive is not None:
        result.findings.append(ScanFinding("drive", drive.severity, "TapeAlert set when the scan ended: "
                                           + ", ".join(drive.flags) + f" ({drive.verdict}, as 'tapediag info' "
                                           "judges it)", " ".join(drive.advice),
                                           f"{drive.verdict}: TapeAlert " + ", ".join(drive.flags)))


def _slow_signals(result: ScanResult) -> list[tuple[str, str]]:
    """What pointed at the tape in this scan, each with its evidence: slow zones and repositions (drive's own)."""
    out: list[tuple[str, str]] = []
    slow = result.slow_zones
    if slow:
        at = ", ".join(f"{where(z)} at {rate_text(z.drive_mb_s)} (typical {rate_text(z.typical_mb_s or 0)} for "
                       f"{_records(z.record_size)})" for z in slow[:6]) + (" ..." if len(slow) > 6 else "")
        out.append(("slow zones", f"{plural(len(slow), 'slow zone')}: the drive read {at}, on its own time with the "
                                  "host's share removed"))
    stalls = result.read.drive_stalls
    if len(stalls) > REPOSITIONS_MONITOR:
        out.append(("repositions", f"the drive repositioned {plural(len(stalls), 'time')} while the host kept up "
                                   f"(total {duration_text(sum(s.latency for s in stalls))})"))
    return out


def _records(size: int) -> str:
    return f"{size // (1 << 20)} MiB records" if size >= 1 << 20 else f"{max(1, size >> 10)} KiB records"


def _seen(result: ScanResult, signals: list[tuple[str, str]], cartridge: "tuple[Visit, ...]"
          ) -> tuple[CartridgeVerdict, str]:
    """Seen once: check again. Seen in an earlier scan of this cartridge too: monitor, naming the runs and drives."""
    what = "; ".join(text for _, text in signals)
    names = {name for name, _ in signals}
    seen = [v for v in cartridge if v.kind == "media-scan" and names & set(v.signals)]
    if not seen:
        return CHECK, (f"seen once: {what}. A stretch of worn tape, a dirty head or chance: clean the drive and scan "
                       "again (in another drive if there is one) to confirm")
    result.earlier = [_run_named(v) for v in seen]
    drives = {v.drive_serial for v in seen if v.drive_serial} | ({result.serial} if result.serial else set())
    where_seen = (f"in {len(drives)} different drives: it is the cartridge" if len(drives) > 1 else
                  "in the same drive each time: scan it in another drive to rule out the drive")
    return MONITOR, (f"{what}; seen before in {', '.join(result.earlier)}, {where_seen}. If it stays, copy the data "
                     "to another cartridge")


def _run_named(v: "Visit") -> str:
    return f"run {v.run_id} ({v.started_at[:10]}" + (f", drive {v.drive_serial})" if v.drive_serial else ")")


def _corrected(result: ScanResult, reasons: list[tuple[CartridgeVerdict, str]], slow: bool,
               before: "Prior") -> None:
    """Corrected errors with a slow stretch go with it (the tape); on their own, spread evenly, to the head or
    to a cartridge worn all over, which the history's visits tell apart."""
    from app.visits import needed

    corrected = result.delta("read errors corrected")
    gb = result.read.bytes / 1e9
    if not corrected or gb <= 0 or corrected / gb <= CORRECTED_PER_GB_MONITOR:
        return
    figure = f"{corrected:,} corrected read errors in {size_text(gb * 1e9)} ({corrected / gb:,.1f} per GB)"
    if slow:
        reasons.append((CHECK, figure + ", together with the slow stretch"))
        return
    unjudged = [z for z in result.zones if z.left_out in ("machine", "host")]
    if unjudged:  # "no slow stretch" is not known where the host or this machine hid the drive's own rate
        reasons.append((CHECK, f"{figure}; whether a slow stretch of tape came with them is not known: "
                               f"{plural(len(unjudged), 'zone')} could not be judged (the host or this machine, "
                               "see below). Scan again on a less loaded host to tell the tape from the drive's head"))
        return
    elsewhere = before.cartridge_erred_elsewhere(result.serial or None)
    if len(elsewhere) + 1 >= needed("cartridge_erred_in_drives"):
        runs = ", ".join(_run_named(v) for v in before.cartridge if v.erred and v.drive_serial in elsewhere)
        reasons.append((MONITOR, f"{figure}, spread over the whole read; this cartridge erred in "
                                 f"{plural(len(elsewhere), 'other drive')} too ({runs}): the cartridge, not this "
                                 "drive's head. Copy the data to another cartridge and retire this one if it stays"))
        return
    others = before.drive_erred_on_others()
    confirmed = len(others) + 1 >= needed("drive_erred_on_cartridges")
    result.findings.append(ScanFinding(
        "drive", "warning",
        f"the drive counted {figure}, spread over the whole read with no slow stretch: "
        + (f"this drive erred on {plural(len(others), 'other cartridge')} too ({', '.join(others)}): its head"
           if confirmed else
           "the mark of a dirty or worn head, or of a cartridge worn all over (seen once: its scans in other "
           "drives, or a good cartridge in this one, tell them apart)"),
        "Clean the drive with a cleaning cartridge and scan again; if the errors stay, "
        + ("open a case with the drive's vendor, quoting its serial and firmware." if confirmed else
           "scan a cartridge known to be good in this drive: errors on it too mean the drive's head (open a case "
           "with the drive's vendor), none mean this cartridge."),
        f"{'Worn' if confirmed else 'Dirty or worn'} head: {corrected / gb:,.0f} corrected read errors per GB"))
    reasons.append((KEEP, f"the {corrected:,} corrected read errors point at the drive's head"
                          + ("" if confirmed else " rather than this tape, seen once") + " (see the drive finding)"))


def _host_notes(result: ScanResult) -> None:
    """What the host or this machine did: zones left out of the slow-zone rule and pauses it caused."""
    machine = [z for z in result.zones if z.left_out == "machine"]
    host = [z for z in result.zones if z.left_out == "host"]
    if machine:
        lag = sum(z.lag_seconds for z in machine)
        result.findings.append(ScanFinding("host", "information", f"{plural(len(machine), 'zone')} not judged: this "
                                           f"machine slowed the virtual drive there ({duration_text(lag)} behind its own "
                                           "model): the machine's, not the cartridge's",
                                           "None for the cartridge; to judge those stretches, scan on a less loaded "
                                           "machine.", "This machine slowed the virtual drive"))
    if host:
        share = max(z.host_share for z in host)
        managed = min(z.mb_s for z in host)
        result.findings.append(ScanFinding("host", "information", f"{plural(len(host), 'zone')} not judged: the host "
                                           f"did not keep up there (up to {share:.0%} of the time between READs; it "
                                           f"managed {rate_text(managed)})", "None for the cartridge; a restore from "
                                           "this host would be held back the same way: check its CPU and target "
                                           "disk.", f"The host did not keep up: it managed {rate_text(managed)}"))
    caused = result.read.host_stalls
    if caused:
        rates = [s.host_mb_s for s in caused if s.host_mb_s is not None]
        managed_text = f"; it moved {rate_text(min(rates))} before the slowest" if rates else ""
        who = "this machine (the virtual drive behind its model)" if all(s.cause == "emulator" for s in caused) \
            else "the host, which did not keep up"
        result.findings.append(ScanFinding("host", "information", f"{plural(len(caused), 'pause')} of the drive caused "
                                           f"by {who}{managed_text}: not counted against the cartridge",
                                           "None for the cartridge.", f"{plural(len(caused), 'pause')} caused by "
                                           + ("this machine" if who.startswith("this") else "the host")))


def _keep_reasons(result: ScanResult) -> list[str]:
    corrected, uncorrected = result.delta("read errors corrected"), result.delta("read errors uncorrected")
    what = ("everything up to end of data" if not result.partial
            else f"the first {size_text(result.read.bytes)} (partial scan)")
    sizes = sorted({record_size(f.max_block) for f in result.files if f.blocks})
    out = [f"read {what} without a read error the drive could not correct"]
    if result.typical_zone_mb_s is None and result.read.bytes:
        out.append(f"the read rate per zone was not judged: that takes {SLOW_ZONE_MIN_ZONES} zones of one record size, "
                   f"each read in {duration_text(SLOW_ZONE_MIN_SECONDS)} or more")
    elif len(sizes) > 1:
        out.append("each zone compared only with zones of its own record size (" + ", ".join(_records(s) for s in sizes)
                   + ")")
    gb = result.read.bytes / 1e9
    if corrected is None and uncorrected is None:
        out.append("the drive reports no read error counters: corrected errors are unknown")
    elif not corrected:
        out.append("no corrected or uncorrected read errors counted")
    elif gb > 0 and corrected / gb <= CORRECTED_PER_GB_MONITOR:
        out.append(f"{corrected:,} corrected read errors ({corrected / gb:,.2f} per GB, within the "
                   f"{CORRECTED_PER_GB_MONITOR:g} per GB worth a look)")
    return out
