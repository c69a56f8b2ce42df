"""The network test as a run kind (``net-test``): recorded like the tape and disk tests, so the
troubleshooting's bottleneck table can take the network's figure from it.

Only the client's end is a run: it holds both directions' figures (the server counts a backup's
bytes and hands them over; the client counts a restore's). ``net-serve`` records nothing: it keeps
no state on the machine it runs on (no history, no file), which is part of what makes it safe to
leave listening for one session (``app.cli.net_serve``).

The run's device is the server as given (``127.0.0.1:5210``). The engine is built by connecting and
being admitted (``NetTest.open``): a server that is not there, or refuses the token, leaves no run,
only its one line. The token rides in the parameters, hidden (``app.nettest.token.Token``), and is
never in ``to_dict()``: not in the history, ``show``, ``--json`` or the PDF.
"""
from __future__ import annotations

from app.nettest.client import NetTest
from app.nettest.params import NetTestParams
from app.nettest.result import ARROWS, NetPhase, NetTestResult
from app.nettest.text import headline, kernel_words, render
from app.runs.kind import (EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, Command, Finding, RunContext, RunKind, Rows, Target)
from native.units import bit_rate_text, duration_text, plural, rate_text, size_text

HELP = ("measure the network between two machines: TCP throughput to a 'tapediag net-serve', 1-N streams, "
        "backup and/or restore direction")


def exit_code(result: NetTestResult) -> int:
    """0 the session ran complete, 1 it broke mid-test, 130 cancelled (``app.nettest``'s docstring)."""
    if result.status == "cancelled":
        return EXIT_CANCELLED
    return EXIT_OK if result.status == "complete" else EXIT_FAILED


def _direction(phase: NetPhase) -> str:
    return f"{phase.phase.capitalize()} ({ARROWS.get(phase.phase, phase.phase)})"


def _total(phase: NetPhase) -> str:
    return (f"{rate_text(phase.mb_s)} = {bit_rate_text(phase.mb_s)} in total, {plural(len(phase.streams), 'stream')}, "
            f"{size_text(phase.bytes)} in {duration_text(phase.seconds)}")


def sections(result: NetTestResult) -> list[tuple[str, Rows]]:
    """The result in titled parts (the GUI's results page): the ends and the pattern, then each direction with its
    total, each stream, and the kernel's round trip and retransmissions."""
    ratio = f" (compresses {result.predicted_ratio:.1f}:1 on tape)" if result.predicted_ratio else ""
    overview: Rows = [("Server", f"{result.server} ({result.server_info or 'server'})"),
                      ("Data pattern", f"{result.pattern}{ratio}")]
    if not result.native:
        overview.append(("Stream loops", "Python, not C: on a fast link the figure may be low"))
    if result.status != "complete":
        overview.append(("Ended", result.error or result.status))
    out = [("Network test", overview)]
    for p in result.phases:
        part: Rows = [("Total", _total(p) + (f"; {p.note}" if p.note else ""))]
        part += [(f"Stream {s.stream}", f"{rate_text(s.mb_s)}, {size_text(s.bytes)}") for s in p.streams]
        part.append(("Round trip, retransmissions", kernel_words(p) + (f" ({p.tcp_info_note})" if p.tcp_info_note
                                                                       else "")))
        out.append((_direction(p), part))
    return out


def rows(result: NetTestResult) -> Rows:
    """The report's rows: ``sections`` in one list, each direction's rows under its name."""
    out: Rows = []
    for title, part in sections(result):
        if title == "Network test":
            out += part
            continue
        total, *rest = part
        out.append((title, total[1]))
        way = title.split(" (")[0]  # "Backup": each row says which direction it is of, wherever it lands
        out += [(f"{way} {label[:1].lower()}{label[1:]}", value) for label, value in rest]
    return out


def findings(result: NetTestResult) -> list[Finding]:
    """Each direction's rate, a measurement with no verdict of its own: the troubleshooting compares it."""
    return [Finding(f"Network {p.phase} rate", f"{rate_text(p.mb_s)} ({bit_rate_text(p.mb_s)})", "none",
                    f"{_direction(p)}, {plural(len(p.streams), 'stream')}, pattern {result.pattern}; {kernel_words(p)}")
            for p in result.phases]


def _engine(ctx: RunContext[NetTestParams]) -> NetTest:
    return NetTest(ctx.params).open()


NET_TEST: RunKind[NetTestParams, NetTestResult] = RunKind(
    "net-test", "Network throughput", Target.NOTHING, NetTestParams, NetTestResult, _engine,
    headline=headline, text=render, rows=rows, findings=findings, exit_code=exit_code,
    command=Command("net-test", HELP))

__all__ = ["HELP", "NET_TEST", "exit_code", "findings", "rows", "sections"]
