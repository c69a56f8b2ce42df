"""The built-in run kinds. Each renderer imports its engine's classes when called, so the
history list (which imports ``app.runs``) stays light."""
from __future__ import annotations

from typing import Callable

from app.runs import Results, RunKind, register
from app.runs.typed import from_dict
from native.units import plural, rate_text


def _drive_info_headline(res: Results) -> str:
    verdict = (res.get("health") or {}).get("verdict")
    serial = (res.get("identity") or {}).get("serial")
    return ", ".join(p for p in (verdict, f"serial {serial}" if serial else "") if p)


def _drive_info_text(res: Results) -> str:
    from app.cli.info import render_text
    from app.info import DriveInfo

    return render_text(from_dict(DriveInfo, res)).rstrip("\n")


def _tape_headline(res: Results) -> str:
    from app.tapeperf.results import headline

    return headline(res) if res.get("phases") and "possible_label" in res else ""


def _tape_text(res: Results) -> str:
    from app.cli.tape_perf import summary_lines
    from app.tapeperf.results import TapePerfResult

    return "\n".join(summary_lines(from_dict(TapePerfResult, res)))


def _disk_headline(res: Results) -> str:
    if not isinstance(res.get("mb_s"), (int, float)):
        return ""
    files = res.get("total_files") or 0
    return f"{rate_text(res['mb_s'])}, {res.get('files_s') or 0:,.0f} files/s, {plural(files, 'file')}"


def _disk_text(cls_name: str) -> Callable[[Results], str]:
    def text(res: Results) -> str:
        from app.disk import results as disk_results
        from app.disk.text import render

        return render(from_dict(getattr(disk_results, cls_name), res))
    return text


def _troubleshoot_text(res: Results) -> str:
    from app.cli.troubleshoot import format_text

    return format_text(res)


def _scan_headline(res: Results) -> str:
    read = res.get("read") or {}
    rate = read.get("streaming_mb_per_s") or read.get("mb_s")
    figures = f"{(read.get('bytes') or 0) / 1e9:,.2f} GB read" + (f" at {rate_text(rate)}" if rate else "")
    return f"cartridge {res.get('verdict', '?')}: {figures}" + (" (partial)" if res.get("partial") else "")


def _scan_text(res: Results) -> str:
    from app.cli.scan import summary_lines
    from app.scan.results import ScanResult

    return "\n".join(summary_lines(from_dict(ScanResult, res)))


def _assess_headline(res: Results) -> str:
    verdict = str(res.get("verdict", ""))
    return verdict + (" (partial)" if res.get("partial") and verdict != "FAIL" else "")


def _assess_text(res: Results) -> str:
    from app.assess.engine import AssessResult
    from app.cli.assess import summary_lines

    return "\n".join(summary_lines(from_dict(AssessResult, res)))


def _scan_fields(res: Results) -> list[tuple[str, str]]:
    from app.scan.results import ScanResult

    r = from_dict(ScanResult, res)
    ph = r.read
    rows = [("Cartridge verdict", r.verdict.value.upper())] + [("Why", reason) for reason in r.reasons]
    rate = f", {rate_text(ph.streaming_mb_per_s)} streaming" if ph.streaming_mb_per_s is not None else ""
    rows += [("Read", f"{ph.bytes / 1e9:,.2f} GB in {ph.elapsed:,.1f} s{rate}; ended: {r.end_reason}"
                      + (" (partial scan)" if r.partial else "")),
             ("Layout", f"{plural(len(r.files), 'file')}, {plural(ph.filemarks, 'filemark')}, {plural(ph.ios, 'block')}"),
             ("Repositions while the host kept up",
              f"{len(ph.stalls)} (total {sum(s.latency for s in ph.stalls):,.1f} s)" if ph.stalls else "none")]
    for f in r.files[:12]:
        size = f"{f.min_block:,} bytes" if f.min_block == f.max_block else f"{f.min_block:,}-{f.max_block:,} bytes"
        rows.append((f"File {f.index}", f"{plural(f.blocks, 'block')} of {size}, {f.bytes / 1e6:,.1f} MB"
                                        + (f", {rate_text(f.mb_s)}" if f.mb_s else "")))
    rows += [(d.name.capitalize(), f"+{d.delta}") for d in r.log_deltas if d.delta is not None and "read error" in d.name]
    if r.tapealert is not None:
        rows.append(("TapeAlert after the scan", ", ".join(r.tapealert) or "no flags"))
    rows.append(("Drive settings", r.settings))
    return rows


def _assess_fields(res: Results) -> list[tuple[str, str]]:
    from app.assess.engine import AssessResult

    r = from_dict(AssessResult, res)
    verdict = r.verdict.value + (" (partial)" if r.partial and r.verdict.value != "FAIL" else "")
    rows = [("Verdict", verdict), ("Next action", r.next_action)]
    rows += [("Drive", f"{r.vendor} {r.product}, firmware {r.firmware}" + (f", serial {r.serial}" if r.serial else ""))]
    rows += [(f"{s.outcome.value.upper()}: {s.name}", s.reason) for s in r.steps]
    return rows


register(RunKind("drive-info", "Drive information and health", _drive_info_headline, _drive_info_text))
register(RunKind("tape-perf", "Tape performance", _tape_headline, _tape_text))
register(RunKind("create-data", "Disk write (create data)", _disk_headline, _disk_text("CreateDataResult"), drive=False))
register(RunKind("read-data", "Disk read (read data)", _disk_headline, _disk_text("ReadDataResult"), drive=False))
register(RunKind("troubleshoot", "Troubleshooting session", lambda res: str(res.get("verdict", "")), _troubleshoot_text,
                 drive=False))
register(RunKind("media-scan", "Media scan", _scan_headline, _scan_text, fields=_scan_fields))
register(RunKind("assessment", "Drive assessment", _assess_headline, _assess_text, fields=_assess_fields))
