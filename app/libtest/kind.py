"""The library exerciser as a run kind (``library-test``): parameters, engine, typed result, renderers."""
from __future__ import annotations

from app.libtest.engine import LibraryTest
from app.libtest.params import LibraryTestParams
from app.libtest.results import LibraryTestResult, Verdict, headline, summary_lines
from app.runs.kind import EXIT_CANCELLED, Command, Finding, RunContext, RunKind, Rows, Target

_ACTIONS = {"good": "None: the robot moved every cartridge and put each back.",
            "bad": "Open a support case with the library's vendor, quoting the decoded robot error; check that every "
                   "cartridge is home before the next backup."}


def exit_code(result: LibraryTestResult) -> int:
    """0 PASS, 11 FAIL, 12 NOT ASSESSED (``app.libtest.results.EXIT_CODES``); 130 cancelled."""
    return EXIT_CANCELLED if result.status == "cancelled" else result.exit_code


def findings(result: LibraryTestResult) -> list[Finding]:
    """The exerciser's PASS/FAIL with the robot's error and whether every cartridge went home."""
    tone = {Verdict.PASS: "good", Verdict.FAIL: "bad"}.get(result.verdict, "none")
    return [Finding("Library robotics", result.verdict.value, tone, result.reason,
                    _ACTIONS.get(tone, "Repeat with scratch cartridges in chosen slots."))]


def rows(r: LibraryTestResult) -> Rows:
    out = [("Verdict", r.verdict.value), ("Why", r.reason), ("Library", f"{r.vendor} {r.product}".strip()),
           ("Elements", f"{', '.join(r.slots)} <-> {', '.join(r.drives)}")]
    stats = r.stats()
    if stats:
        out.append(("Move time", f"min {stats['min']:.2f} s, median {stats['median']:.2f} s, max {stats['max']:.2f} s "
                                 f"({len(r.timings())} moves)"))
    out += [("Skipped", s) for s in r.skipped]
    out += [("Move error", m.error) for m in r.moves if m.error]
    out.append(("Cartridges home", "yes, by the final inventory" if r.restored else
                "could not be checked" if r.restored is None else
                "; ".join(f"{p.barcode} in {p.where}, home {p.home}" for p in r.misplaced)))
    return out


def _engine(ctx: RunContext[LibraryTestParams]) -> LibraryTest:
    """The exerciser, prepared: bad input (a name that is no element, an empty slot, a full drive) is refused
    here, before the run is recorded."""
    test = LibraryTest(ctx.changer, ctx.params)
    test.prepare()
    return test


LIBRARY_TEST: RunKind[LibraryTestParams, LibraryTestResult] = RunKind(
    "library-test", "Library exerciser", Target.LIBRARY, LibraryTestParams, LibraryTestResult, _engine,
    headline=headline, text=lambda r: "\n".join(summary_lines(r)), rows=rows, findings=findings, exit_code=exit_code,
    command=Command("library-test", "exercise a library's robot: timed moves among slots and drives, everything "
                                    "put back -> PASS/FAIL"))

__all__ = ["LIBRARY_TEST", "exit_code", "findings", "rows"]
