"""Each built-in kind's verdicts in words (``Finding``): page 1 of a report.

The words are for the customer's manager: a verdict with its figure and unit, why, and
what to do. They are read from a stored result's dictionary, as every ``RunKind``
renderer is, so a run recorded by an older version still gets its page 1.
"""
from __future__ import annotations

from typing import Callable

from app.runs import Finding, Results
from app.runs.words import mb_s, volume
from native.units import plural

# What a technician does for each drive-health verdict of ``tapediag info`` (app.info.Verdict).
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


def drive_info(res: Results) -> list[Finding]:
    health = res.get("health") or {}
    verdict = str(health.get("verdict") or "")
    if not verdict:
        return []
    tone, action = HEALTH.get(verdict, ("none", ""))
    reasons = [str(r) for r in health.get("reasons") or []]
    # Each finding names its culprit, and the findings' own actions replace the generic one:
    # "clean the drive" is the wrong advice for a bad SAS cable (issue 25).
    culprits = {str(f.get("text")): str(f.get("culprit")) for f in health.get("findings") or []
                if isinstance(f, dict) and f.get("level") != "Note"}
    reasons = [f"{r} (culprit: {culprits[r]})" if r in culprits else r for r in reasons]
    judged = [f for f in health.get("findings") or [] if isinstance(f, dict) and f.get("level") != "Note"]
    actions = list(dict.fromkeys(str(f["action"]) for f in judged if f.get("action")))
    if actions:
        action = " ".join(actions)
    detail = "; ".join(reasons) if reasons else ("TapeAlert and the error counters are clean" if tone == "good" else "")
    return [Finding("Drive health", verdict, tone, detail, action)]


def _tape_action(who: str, pct: float | None, share: float | None) -> tuple[str, str]:
    """Tone and action for a phase from who limited it (``TapePerfResult.limiter``)."""
    if who in ("drive", "link") and pct is not None and pct >= 90:
        return "good", "None: the drive streams at what it can do with this data."
    if who == "link":
        return "warn", "The connection to the drive is the limit: use a faster HBA or link to reach the drive's rating."
    if who == "drive":
        return "warn", ("The drive itself is slow: clean it and repeat with another cartridge; if it stays slow, "
                        "open a support case quoting the serial and firmware.")
    if who == "host":
        lost = f" ({share:.0%} of the time was spent between commands)" if share is not None else ""
        return "warn", f"Feed the drive faster{lost}: check the data source, CPU and HBA, then repeat."
    if who == "emulator":
        return "none", "Repeat on a less loaded machine: this figure is the test machine's, not the drive's."
    return "none", "Repeat with a larger size (a minute of streaming or more) before judging the drive."


def tapealert(res: Results, topic: str) -> list[Finding]:
    """The TapeAlert flags a run left set, judged as ``tapediag info`` judges them (``app.runs.alerts``)."""
    from app.runs.alerts import judge_alerts

    alerts = judge_alerts(res.get("tapealert"))
    if alerts is None:
        return []
    return [Finding(topic, f"{alerts.verdict}: TapeAlert " + ", ".join(alerts.flags), alerts.tone,
                    "Flags set on the drive when the test ended (read once, after it).", " ".join(alerts.advice))]


def tape_perf(res: Results) -> list[Finding]:
    out = tapealert(res, "Drive alarms during the test")
    label = res.get("possible_label")
    for ph in res.get("phases") or []:
        rate = ph.get("streaming_mb_per_s")
        rate = rate if rate is not None else ph.get("mb_s")
        pct = ph.get("percent_of_possible")
        words = mb_s(rate) + (" streaming" if ph.get("streaming_mb_per_s") is not None else " overall")
        if pct is not None and label:
            words += f": {pct:.0f}% of the {label}"
        tone, action = _tape_action(str(ph.get("limited_by") or ""), pct, ph.get("host_share"))
        if ph.get("error"):
            tone, action = "bad", "The run failed: see the error in the run's section, fix it and repeat."
        why, who = str(ph.get("limited_why") or ""), ph.get("limited_by")
        detail = why if who == "not steady" or not why else f"limited by {why}"
        out.append(Finding(f"Tape {ph.get('phase', '')} rate", words, tone, detail, action))
    return out


_BOTTLENECK_TONES = {"tape": "good", "application": "warn", "disk": "warn", "network": "warn"}
_SEVERITY_TONES = {"high": "bad", "medium": "warn", "info": "good"}


def _bottleneck_detail(table: dict) -> str:
    """The session's figures behind a bottleneck, rounded as the rest of the report
    (the engine's own verdict sentence, word for word, is in the bottleneck section)."""
    parts = []
    direction = str(table.get("direction", "")).lower() or "the job"
    if table.get("achieved_mb_s") is not None:
        parts.append(f"The {direction} achieved {mb_s(table['achieved_mb_s'])}")
    components = [r for r in table.get("rows") or [] if r.get("component") != "application" and r.get("mb_s") is not None]
    if components:
        slowest = min(components, key=lambda r: r["mb_s"])
        parts.append(f"the slowest component, {str(slowest['test']).lower()}, measured {mb_s(slowest['mb_s'])}")
    return "; ".join(parts) + "." if parts else str(table.get("verdict", ""))


def troubleshoot(res: Results) -> list[Finding]:
    out = []
    for table in res.get("tables") or []:
        who = table.get("bottleneck")
        words = f"The {str(table.get('bottleneck_label') or who).lower()}" if who else "Not determined"
        if who and table.get("limit_mb_s") is not None and who != "application":
            words += f" ({mb_s(table['limit_mb_s'])})"
        detail = _bottleneck_detail(table)
        out.append(Finding(f"{str(table.get('direction', '')).capitalize()} bottleneck", words,
                           _BOTTLENECK_TONES.get(str(who), "none"), detail))
    recs = res.get("recommendations") or []
    if recs:
        first = recs[0]
        out.append(Finding("First recommendation", str(first["title"]), _SEVERITY_TONES.get(first.get("severity"), "none"),
                           str(first.get("reason", "")), str(first.get("advice", ""))))
    return out


#: The assessment's verdicts as a tone: the one place both the PDF and the GUI take it from (``verdict_tone``).
_ASSESS_TONES = {"PASS": "good", "PASS WITH WARNINGS": "warn", "ATTENTION": "warn", "FAIL": "bad"}


def assessment(res: Results) -> list[Finding]:
    """The verdict with the steps that did not pass (or what passed), then the host's notes on their own."""
    from app.assess.rules import words

    verdict = str(res.get("verdict") or "")
    if not verdict:
        return []
    steps = res.get("steps") or []
    bad = [f"{s['name']}: {s['reason']}" for s in steps if s.get("outcome") in ("fail", "warn")]
    unknown = [f"{s['name']}: {s['reason']}" for s in steps if s.get("outcome") in ("not assessed", "not run")]
    passed = sum(1 for s in steps if s.get("outcome") == "pass")
    detail = "; ".join(bad + unknown + ([plural(passed, "check") + " passed"] if passed else []))
    out = [Finding("Drive assessment", words(verdict, partial=bool(res.get("partial")), status=str(res.get("status") or "")),
                   _ASSESS_TONES.get(verdict, "none") if res.get("status") != "cancelled" else "none",
                   detail, str(res.get("next_action") or ""))]
    for s in steps:
        if s.get("outcome") == "host":
            note = str(s.get("reason", "")).split(" (", 1)[0]
            out.append(Finding("Host (during the assessment)", note[:1].upper() + note[1:],
                               "none", f"{s['name']}: {s['reason']}", str(s.get("action") or "")))
    return out


_SCAN_TONES = {"keep": "good", "check again": "warn", "monitor": "warn", "retire": "bad"}
_SCAN_ACTIONS = {"keep": "None: the cartridge reads cleanly.",
                 "check again": ("Clean the drive and scan the cartridge again, in another drive if there is one: "
                                 "seen in a second scan, it is the cartridge's."),
                 "monitor": "Keep the cartridge in rotation but scan it again after its next use.",
                 "retire": "Copy the data to another cartridge and retire this one.",
                 "not assessed": "Scan the whole cartridge, to the end of its data, to judge it."}
#: A scan finding's severity as a report's tone; the drive's and the path's findings and the host's notes.
_FINDING_TONES = {"critical": "bad", "warning": "warn", "information": "none"}
_CULPRITS = {"drive": "Drive (seen in the scan)", "path": "Connection to the drive", "host": "Host (during the scan)"}


def media_scan(res: Results) -> list[Finding]:
    """The cartridge's verdict, then what the scan found about the drive, the path and the host."""
    verdict = str(res.get("verdict") or "")
    if not verdict:
        return []
    out = [Finding("Cartridge", verdict.capitalize(), _SCAN_TONES.get(verdict, "none"), "; ".join(res.get("reasons") or []),
                   _SCAN_ACTIONS.get(verdict, ""))]
    for f in res.get("findings") or []:
        out.append(Finding(_CULPRITS.get(str(f.get("culprit")), "Finding"), str(f.get("words") or f.get("text") or ""),
                           _FINDING_TONES.get(str(f.get("severity")), "none"), str(f.get("text") or ""),
                           str(f.get("action") or "")))
    return out


def library_test(res: Results) -> list[Finding]:
    """The exerciser's PASS/FAIL with the robot's error and whether every cartridge went home."""
    verdict = str(res.get("verdict") or "")
    if not verdict:
        return []
    tone = {"PASS": "good", "FAIL": "bad"}.get(verdict.upper(), "none")
    action = {"good": "None: the robot moved every cartridge and put each back.",
              "bad": "Open a support case with the library's vendor, quoting the decoded robot error; check that every "
                     "cartridge is home before the next backup."}.get(tone, "Repeat with scratch cartridges in chosen slots.")
    return [Finding("Library robotics", verdict, tone, str(res.get("reason") or ""), action)]


def disk(topic: str) -> Callable[[Results], list[Finding]]:
    """A disk run's rate: a measurement the troubleshooting compares, no verdict of its own."""
    def findings(res: Results) -> list[Finding]:
        if not isinstance(res.get("mb_s"), (int, float)):
            return []
        files = res.get("total_files") or 0
        words = f"{mb_s(res['mb_s'])}, {res.get('files_s') or 0:,.0f} files/s"
        streams = len(res.get("streams") or []) or 1
        detail = f"{plural(files, 'file')}, {volume(res.get('total_bytes') or 0)}, {plural(streams, 'stream')}"
        return [Finding(topic, words, "none", detail)]
    return findings


_SHARED_TONES = {"scales": "good", "shared path": "warn", "not judged": "none"}
_SHARED_ACTIONS = {
    "scales": "None: the path the drives share carries them all at their own rates.",
    "shared path": ("Spread the drives over more HBAs or HBA ports (or target portals), check the link rate each "
                    "port negotiated, and on an iSCSI target its CPU and network; then repeat."),
    "not judged": "Measure each drive alone for at least a few seconds and run the drives together longer.",
}


def tape_perf_multi(res: Results) -> list[Finding]:
    """Several drives at once: per phase, whether the aggregate scales with the drives."""
    out = []
    n = len(res.get("devices") or [])
    for ph in res.get("phases") or []:
        verdict = str(ph.get("verdict") or "not judged")
        words = (f"{mb_s(ph['mb_s'])} from {plural(n, 'drive')} together" if ph.get("mb_s") is not None
                 else "Not measured")
        if ph.get("ratio") is not None:
            words += f": {ph['ratio']:.0%} of the sum of their rates alone ({mb_s(ph.get('sum_alone_mb_s'))})"
        out.append(Finding(f"Drives together ({ph.get('phase', '')})", words, _SHARED_TONES.get(verdict, "none"),
                           str(ph.get("why") or ""), _SHARED_ACTIONS.get(verdict, "")))
    return out


#: A read more than this many times the raw figure did not come from the disk alone: above the
#: run-to-run spread of one disk (this VM's disk: ±30 % between runs), far below what a cache gives.
CACHE_FACTOR = 1.3


def cache_assisted(read_mb_s: float, raw_mb_s: float) -> bool:
    """The rule: a read figure above ``CACHE_FACTOR`` times what the device delivers raw was
    served (in part) from a cache between the disk and this machine."""
    return raw_mb_s > 0 and read_mb_s > CACHE_FACTOR * raw_mb_s


def read_cache(res: Results) -> Finding | None:
    """Whether a read-data figure was probably served from a cache, with both figures.

    The raw references: the run's O_DIRECT probe of the same files (``app.disk.probe``) and
    the device's rate when the user gave it; the lower one is the device's. None when the
    run has neither (an old run, a tree without a file big enough to probe)."""
    rate = res.get("mb_s")
    if not isinstance(rate, (int, float)) or rate <= 0:
        return None
    probe = res.get("raw_probe") or {}
    refs: list[tuple[float, str]] = []
    if isinstance(probe.get("mb_s"), (int, float)) and probe["mb_s"] > 0:
        refs.append((float(probe["mb_s"]), f"an O_DIRECT probe of {plural(int(probe.get('files') or 0), 'file')} "
                                           f"of the same data ({plural(int(probe.get('streams') or 1), 'stream')})"))
    device = res.get("device_mb_s")
    if isinstance(device, (int, float)) and device > 0:
        refs.append((float(device), "the device's own rate, as given"))
    if not refs:
        return None
    raw, source = min(refs)
    both = f"The run read {mb_s(rate)}; {source}: {mb_s(raw)}."
    others = [f"{s}: {mb_s(r)}" for r, s in refs if (r, s) != (raw, source)]
    if others:
        both += " (" + "; ".join(others) + ")"
    if cache_assisted(rate, raw):
        local = res.get("evict") is False and not res.get("direct")
        where = ("this machine's page cache (eviction was off), or a cache below it" if local else
                 "a cache between the disk and this machine (a SAN controller's, or a hypervisor's)")
        return Finding("Disk read cache", f"Probably served from a cache: {mb_s(rate)} read, {mb_s(raw)} raw", "warn",
                       both + f" The difference came from {where}, not from the disk.",
                       "Judge the disk by the raw figure; to measure the disk itself, read a data set larger than that "
                       "cache, or one not read or written recently.")
    caveat = ("" if device else " A cache that O_DIRECT cannot bypass (a hypervisor's) would flatter both figures: "
              "give the device's rate to check against it.")
    return Finding("Disk read cache", f"No sign of a cache: {mb_s(rate)} read, {mb_s(raw)} raw", "good", both + caveat)


def read_data(res: Results) -> list[Finding]:
    """The read rate, and whether a cache served it (``read_cache``)."""
    cache = read_cache(res)
    return disk("Disk read rate")(res) + ([cache] if cache else [])
