"""What a technician reads: the network test's summary lines and the server's start-up text.

One line per direction says it all (``phase_line``): total MB/s and Mbit/s, the streams,
round-trip time, retransmissions, direction and pattern. ``render`` adds a line per
stream; ``listening_lines`` is what ``net-serve`` prints when it starts.
"""
from __future__ import annotations

import sys

from app.nettest.result import ARROWS, NetPhase, NetTestResult
from app.nettest.server import Listening
from app.nettest.token import ENV
from native.units import bit_rate_text, plural, rate_text, size_text


def _rtt(ms: float | None) -> str:
    if ms is None:
        return "-"
    if ms < 1:
        return f"{ms:.3f} ms"
    return f"{ms:.2f} ms" if ms < 10 else f"{ms:.1f} ms"


def kernel_words(phase: NetPhase) -> str:
    """'RTT 10.4 ms (min 10.1 ms), 0 retransmits', or why they are not known."""
    if phase.rtt_ms is None and phase.retransmits is None:
        return "RTT and retransmits not reported"
    min_rtt = f" (min {_rtt(phase.min_rtt_ms)})" if phase.min_rtt_ms is not None else ""
    retrans = plural(phase.retransmits, "retransmit") if phase.retransmits is not None else "retransmits not reported"
    return f"RTT {_rtt(phase.rtt_ms)}{min_rtt}, {retrans}"


def phase_line(phase: NetPhase, pattern: str) -> str:
    """'backup (client -> server): 112.4 MB/s = 899 Mbit/s, 4 streams (28.1 / 28.1 / 28.0 / 28.2 MB/s),
    RTT 0.45 ms (min 0.12 ms), 0 retransmits, 10.0 s, pattern 2:1'."""
    n = len(phase.streams)
    each = f" ({' / '.join(rate_text(s.mb_s).removesuffix(' MB/s') for s in phase.streams)} MB/s)" if n > 1 else ""
    line = (f"{phase.phase} ({ARROWS.get(phase.phase, phase.phase)}): {rate_text(phase.mb_s)} = {bit_rate_text(phase.mb_s)}, "
            f"{plural(n, 'stream')}{each}, {kernel_words(phase)}, {phase.seconds:.1f} s, pattern {pattern}")
    return f"{line}; {phase.note}" if phase.note else line


def headline(result: NetTestResult) -> str:
    """One short line for a history list: each direction's rate."""
    parts = [f"{p.phase} {rate_text(p.mb_s)} ({bit_rate_text(p.mb_s)})" for p in result.phases]
    streams = max((len(p.streams) for p in result.phases), default=0)
    text = f"{', '.join(parts) or 'no figure'}, {plural(streams, 'stream')}, {result.pattern}"
    return text if result.status == "complete" else f"{text} ({result.status})"


def render(result: NetTestResult) -> str:
    """The result as the run prints it."""
    ratio = f" (compresses {result.predicted_ratio:.1f}:1 on tape)" if result.predicted_ratio else ""
    lines = [f"Network test to {result.server} ({result.server_info or 'server'}), pattern {result.pattern}{ratio}"]
    for p in result.phases:
        lines.append("  " + phase_line(p, result.pattern))
        for s in p.streams:
            kernel = ""
            if s.rtt_ms is not None or s.retransmits is not None:
                retrans = plural(s.retransmits, "retransmit") if s.retransmits is not None else "-"
                kernel = f", RTT {_rtt(s.rtt_ms)}, {retrans}"
            lines.append(f"    stream {s.stream}: {rate_text(s.mb_s)}, {size_text(s.bytes)} in {s.seconds:.2f} s{kernel}")
        who = f"bytes counted by the {p.receiver}" if p.receiver else ""
        if p.tcp_info_note:
            who += f"; {p.tcp_info_note}"
        if who:
            lines.append(f"    ({who})")
    if not result.native:
        lines.append("  (the Python stream loops ran, not the C ones: on a fast link the figure may be low)")
    if result.status != "complete":
        lines.append(f"  {result.status}: {result.error}" if result.error else f"  {result.status}")
    return "\n".join(lines)


def _address(host: str) -> str:
    return f"[{host}]" if ":" in host else host


def listening_lines(ev: Listening) -> list[str]:
    """What net-serve prints when it starts: where it listens, the token, how long it waits, its limits."""
    p = ev.params
    where = f"{ev.address} port {ev.port}"
    lines = [f"tapediag net-serve: listening on {where} (TCP) for one network test session"]
    if p.all_interfaces:
        lines.append(f"  on EVERY interface of this machine ({ev.address}): any machine that reaches it may try the token")
    lines += [
        f"  token: {ev.token}   (net-test asks for it; it opens one session only)",
        f"  waits up to {p.wait_seconds:g} s for the client; then each direction may run up to {p.max_seconds:g} s "
        f"with up to {p.max_streams} streams, {size_text(p.max_bytes)} in all; it exits when the session ends",
        f"  on the client: tapediag net-test {_address(ev.address) if not p.all_interfaces else 'THIS-MACHINE'}:{ev.port} "
        f"--token-file FILE (or {ENV}=TOKEN, or type it when asked)",
    ]
    if sys.platform == "win32":
        lines.append("  Windows Firewall may now ask whether tapediag may accept connections: allow it on the network "
                     "the client uses (it is asked once per program)")
    else:
        lines.append(f"  a firewall on this machine must let TCP port {ev.port} in from the client")
    return lines
