"""The built-in run kinds. Each renderer imports its engine's classes when called, so the
history list (which imports ``app.runs``) stays light."""
from __future__ import annotations

from typing import Callable

from app.runs import Results, RunKind, register, rows, verdicts
from app.runs.typed import from_dict
from app.runs.words import block, count, volume
from native.units import plural, rate_text


def _drive_info_headline(res: Results) -> str:
    verdict = (res.get("health") or {}).get("verdict")
    serial = (res.get("identity") or {}).get("serial")
    return ", ".join(p for p in (verdict, f"serial {serial}" if serial else "") if p)


def _drive_info_text(res: Results) -> str:
    from app.info_view import render_text
    from app.info import DriveInfo

    return render_text(from_dict(DriveInfo, res)).rstrip("\n")


def _tape_headline(res: Results) -> str:
    from app.tapeperf.results import headline

    return headline(res) if res.get("phases") and "possible_label" in res else ""


def _tape_text(res: Results) -> str:
    from app.cli.tape_perf import summary_lines
    from app.tapeperf.results import TapePerfResult

    return "\n".join(summary_lines(from_dict(TapePerfResult, res)))


def _tape_multi_headline(res: Results) -> str:
    from app.tapeperf.multiresult import headline

    return headline(res)


def _tape_multi_text(res: Results) -> str:
    from app.tapeperf.multiresult import MultiTapePerfResult, summary_lines

    return "\n".join(summary_lines(from_dict(MultiTapePerfResult, res)))


def _tape_multi_series(res: Results) -> list[tuple[str, list[tuple[float, float]]]]:
    return [(str(c["label"]), list(zip(c["t"], c["mb_s"]))) for c in res.get("curves") or []]


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
    return f"cartridge {str(res.get('verdict', '?')).upper()}: {figures}" + (" (partial)" if res.get("partial") else "")


def _scan_text(res: Results) -> str:
    from app.cli.scan import summary_lines
    from app.scan.results import ScanResult

    return "\n".join(summary_lines(from_dict(ScanResult, res)))


def _assess_headline(res: Results) -> str:
    from app.assess.rules import words

    return words(str(res.get("verdict", "")), partial=bool(res.get("partial")), status=str(res.get("status") or ""))


def _assess_text(res: Results) -> str:
    from app.assess.engine import AssessResult
    from app.cli.assess import summary_lines

    return "\n".join(summary_lines(from_dict(AssessResult, res)))


def _scan_fields(res: Results) -> list[tuple[str, str]]:
    from app.scan.results import ScanResult, where

    r = from_dict(ScanResult, res)
    ph = r.read
    rows = [("LTFS volume", str(r.ltfs.get("description", "")) + ": holds data")] if r.ltfs else []
    rows += [("Cartridge verdict", r.verdict.value.upper())] + [("Why", reason) for reason in r.reasons]
    rate = f", {rate_text(ph.streaming_mb_per_s)} streaming" if ph.streaming_mb_per_s is not None else ""
    rows += [("Read", f"{ph.bytes / 1e9:,.2f} GB in {ph.elapsed:,.1f} s{rate}; ended: {r.end_reason}"
                      + (" (partial scan)" if r.partial else "")),
             ("Layout", f"{count(len(r.files), 'file')}, {count(ph.filemarks, 'filemark')}, "
                        f"{ph.ios:,} blocks"),
             ("Slow zones", ", ".join(f"{where(z)} at {z.drive_mb_s:,.1f} MB/s" for z in r.slow_zones[:6])
                            + (f" (typical zone {r.typical_zone_mb_s:,.1f} MB/s)" if r.typical_zone_mb_s else "")
                            if r.slow_zones else "none"),
             ("Repositions while the host kept up",
              f"{len(ph.drive_stalls)} (total {sum(s.latency for s in ph.drive_stalls):,.1f} s)" if ph.drive_stalls
              else "none")]
    rows += [(f"{f.culprit.capitalize()} finding", f.text + (f" (what to do: {f.action})" if f.action else ""))
             for f in r.findings]
    for f in r.files[:12]:
        size = block(f.min_block) if f.min_block == f.max_block else f"{block(f.min_block)} to {block(f.max_block)}"
        rows.append((f"File {f.index}", f"{count(f.blocks, 'block')} of {size}, {volume(f.bytes)}"
                                        + (f", {f.mb_s:,.1f} MB/s" if f.mb_s else "")))
    rows += [(d.name.capitalize(), f"+{d.delta}") for d in r.log_deltas if d.delta is not None and "read error" in d.name]
    if r.tapealert is not None:
        rows.append(("TapeAlert after the scan", ", ".join(r.tapealert) or "no flags"))
    rows.append(("Drive settings", r.settings))
    return rows


def _assess_fields(res: Results) -> list[tuple[str, str]]:
    from app.assess.engine import AssessResult

    from app.assess.rules import words

    r = from_dict(AssessResult, res)
    rows = [("Verdict", words(r.verdict.value, partial=r.partial, status=r.status)), ("Next action", r.next_action)]
    rows += [("Drive", f"{r.vendor} {r.product}, firmware {r.firmware}" + (f", serial {r.serial}" if r.serial else ""))]
    rows += [(f"{s.outcome.value.upper()}: {s.name}", s.reason) for s in r.steps]
    return rows


register(RunKind("drive-info", "Drive information and health", _drive_info_headline, _drive_info_text,
                 fields=rows.drive_info, findings=verdicts.drive_info))
register(RunKind("tape-perf", "Tape performance", _tape_headline, _tape_text, fields=rows.tape_perf,
                 findings=verdicts.tape_perf))
register(RunKind("tape-perf-multi", "Tape performance, several drives", _tape_multi_headline, _tape_multi_text,
                 fields=rows.tape_perf_multi, findings=verdicts.tape_perf_multi, series=_tape_multi_series))
register(RunKind("create-data", "Disk write (create data)", _disk_headline, _disk_text("CreateDataResult"), drive=False,
                 fields=rows.disk, findings=verdicts.disk("Disk write rate")))
register(RunKind("read-data", "Disk read (read data)", _disk_headline, _disk_text("ReadDataResult"), drive=False,
                 fields=rows.disk, findings=verdicts.read_data))
register(RunKind("troubleshoot", "Troubleshooting session", lambda res: str(res.get("verdict", "")), _troubleshoot_text,
                 drive=False, findings=verdicts.troubleshoot))
register(RunKind("media-scan", "Media scan", _scan_headline, _scan_text, fields=_scan_fields,
                 findings=verdicts.media_scan))
register(RunKind("assessment", "Drive assessment", _assess_headline, _assess_text, fields=_assess_fields,
                 findings=verdicts.assessment))


def _library_test_headline(res: Results) -> str:
    from app.libtest.results import LibraryTestResult, headline

    return headline(from_dict(LibraryTestResult, res)) if "verdict" in res else ""


def _library_test_text(res: Results) -> str:
    from app.libtest.results import LibraryTestResult, summary_lines

    return "\n".join(summary_lines(from_dict(LibraryTestResult, res)))


def _library_test_fields(res: Results) -> list[tuple[str, str]]:
    from app.libtest.results import LibraryTestResult

    r = from_dict(LibraryTestResult, res)
    rows = [("Verdict", r.verdict.value), ("Why", r.reason), ("Library", f"{r.vendor} {r.product}".strip()),
            ("Elements", f"{', '.join(r.slots)} <-> {', '.join(r.drives)}")]
    stats = r.stats()
    if stats:
        rows.append(("Move time", f"min {stats['min']:.2f} s, median {stats['median']:.2f} s, max {stats['max']:.2f} s "
                                  f"({len(r.timings())} moves)"))
    rows += [("Skipped", s) for s in r.skipped]
    rows += [("Move error", m.error) for m in r.moves if m.error]
    rows.append(("Cartridges home", "yes, by the final inventory" if r.restored else
                 "could not be checked" if r.restored is None else
                 "; ".join(f"{p.barcode} in {p.where}, home {p.home}" for p in r.misplaced)))
    return rows


register(RunKind("library-test", "Library exerciser", _library_test_headline, _library_test_text, drive=False,
                 fields=_library_test_fields, findings=verdicts.library_test))
