"""The streaming floor: did the job feed the drive fast enough to keep its tape moving?

A drive streams only while the host delivers at least its lowest speed-matching step times the
data's compression ratio (``app.tapeperf.speedmatch``); below that it stops and repositions
(shoe-shining), which shows in the kernel's figures as the busy share collapsing: each WRITE is
taken at once into an emptying buffer and the drive then waits. The ratio is the one the drive
reported over the watch (Data Compression log page 1Bh); without it the floor is the native one
(1:1), said so.
"""
from __future__ import annotations

import math

from app.tapeperf.speedmatch import Match, speed_steps
from app.watch.result import StreamingFloor
from native.units import percent, rate_text


def _ratio_words(ratio: float | None) -> tuple[float, str]:
    if ratio is None or ratio <= 0:
        return 1.0, "the drive reported no compression ratio, so at 1:1 (native)"
    effective = max(ratio, 1.0)
    return effective, f"at this data's {effective:.1f}:1".replace(".0:1", ":1")


#: More streams than this at once is no practical advice (backup applications multiplex a handful; the white
#: paper's HPReadData reads eight at a time): beyond it the advice is a faster source.
MAX_STREAMS = 8


def _advice(floor: float, delivered: float) -> tuple[int | None, str]:
    streams = max(2, math.ceil(floor / delivered)) if delivered > 0 else None
    if streams is not None and streams <= MAX_STREAMS:
        return streams, f"use {streams} streams at once (multiplexing), or a faster source"
    times = f"{floor / delivered:.0f} times " if delivered > 0 else ""
    return None, f"a source {times}faster is needed (more than {MAX_STREAMS} streams at this rate)"


def streaming_floor(generation: int | None, *, vendor: str, form: str | None, ratio: float | None,
                    delivered_mb_s: float, busy_share: float, drive_bound: bool = False) -> StreamingFloor:
    """The floor line for a job that delivered ``delivered_mb_s`` from the host. When the drive itself was the
    limit (``drive_bound``), a rate below the floor is the drive's or its path's, and feeding it faster is no
    advice: the line says so instead."""
    match = speed_steps(generation, vendor=vendor, form=form)
    if not isinstance(match, Match):
        return StreamingFloor(line=f"not judged: {match}", generation=generation,
                              delivered_mb_s=delivered_mb_s)
    table = match.table
    effective, ratio_words = _ratio_words(ratio)
    floor = table.lowest_mb_s * effective
    drive = f"LTO-{table.generation} {table.form}"
    matches = f"{drive} matches down to about {table.lowest_mb_s:g} MB/s native; {ratio_words} that is " \
              f"{rate_text(floor)} from the host"
    below = delivered_mb_s < floor
    streams = None
    if below and drive_bound:
        line = (f"{matches}; the job delivered {rate_text(delivered_mb_s)}, below that, yet the drive was busy "
                f"{percent(busy_share)} of the time: not a slow feed but a slow drive or path (see the verdict)")
    elif below:
        streams, how = _advice(floor, delivered_mb_s)
        line = (f"{matches}; the job delivered {rate_text(delivered_mb_s)}, below the drive's slowest speed: it stops and "
                f"repositions (shoe-shining; its busy share fell to {percent(busy_share)}): {how}")
    else:
        line = f"{matches}; the job delivered {rate_text(delivered_mb_s)}: enough to keep it streaming"
    return StreamingFloor(line=line, generation=table.generation, lowest_native_mb_s=table.lowest_mb_s,
                          ratio=ratio, host_floor_mb_s=floor, delivered_mb_s=delivered_mb_s, below=below,
                          streams_needed=streams, source=table.source, fit=match.fit)
