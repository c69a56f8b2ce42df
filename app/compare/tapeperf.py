"""The figures of two tape performance runs, side by side and judged (``app.compare.noise``).

Per phase (write, read): the streaming rate (the figure each run's verdict judges), the back-hitches the drive
made while the host kept up (``Stall.cause``: the host's own are named, not judged), and the drive's error
counters read before and after (log pages 02h and 03h), compared per GB moved; then the TapeAlert flags the
drive left set. A rate is compared only for the same data (pattern and compression): a 2:1 rate against an
incompressible one is no before and after.
"""
from __future__ import annotations

from typing import Callable

from app.compare.model import Row
from app.compare.noise import NOT_COMPARABLE, SAME, IMPROVED, WORSE, judge_count, judge_must_not_happen, judge_rate, rate_band
from app.tapeperf.results import LogDelta, PhaseResult, TapePerfResult, headline_rate
from native.units import change_text, per_gb_text, percent, rate_text

#: Who limited a phase, by ``TapePerfResult.judged``, when the figure is not the drive's own: the rate band widens.
NOT_THE_DRIVES = {"host": "the host held it back", "emulator": "this machine slowed the virtual drive",
                  "not steady": "too short to judge"}
#: Which phase's data a counter counts over (``app.tapeperf.logs.COUNTERS`` names).
COUNTER_PHASE = {"write": "write", "read": "read"}

#: The measured relative spread (σ / mean) of a phase's rate over repeated runs, or None (``app.compare.spread``).
Spread = Callable[[str], "float | None"]


def _data(result: TapePerfResult) -> tuple[str, str]:
    return result.pattern, str(result.params.get("compression", "leave"))


def _rate_row(a: TapePerfResult, b: TapePerfResult, name: str, spread: Spread) -> Row | None:
    pa, pb = a.phase(name), b.phase(name)
    if pa is None and pb is None:
        return None
    ra, rb = (headline_rate(pa) if pa else None), (headline_rate(pb) if pb else None)
    figure = f"{name.capitalize()} rate"
    before, after = rate_text(ra) if ra is not None else "not measured", rate_text(rb) if rb is not None else "not measured"
    if _data(a) != _data(b):
        return Row(figure, before, after, "", NOT_COMPARABLE, f"different data: pattern {a.pattern} and {b.pattern}, "
                                                              f"compression {_data(a)[1]} and {_data(b)[1]}")
    why = [f"{side}: {NOT_THE_DRIVES[who]}" for side, r, ph in (("before", a, pa), ("after", b, pb))
           if ph is not None and (who := r.judged(ph)[0].who) in NOT_THE_DRIVES]
    band, kind = rate_band(bool(why), spread(name))
    judgement = judge_rate(ra, rb, band)
    change = change_text(rb / ra - 1) if ra and rb is not None else ""
    basis = f"±{percent(band)}, {kind}" + (f" ({'; '.join(why)})" if why else "")
    return Row(figure, before, after, change, judgement, basis)


def _stall_row(a: TapePerfResult, b: TapePerfResult, name: str) -> Row | None:
    pa, pb = a.phase(name), b.phase(name)
    if pa is None or pb is None:
        return None
    na, nb = len(pa.drive_stalls), len(pb.drive_stalls)
    host = [f"{side}: {len(p.host_stalls)} more the host caused" for side, p in (("before", pa), ("after", pb))
            if p.host_stalls]
    judgement = judge_count(na, pa.bytes / 1e9, nb, pb.bytes / 1e9)
    return Row(f"{name.capitalize()} back-hitches (the drive's own)", per_gb_text(na, pa.bytes),
               per_gb_text(nb, pb.bytes), _count_change(na, nb), judgement,
               "counted while the host kept up" + (f"; {', '.join(host)}" if host else ""))


def _count_change(before: int, after: int) -> str:
    if before == after:
        return ""
    return f"{after - before:+,}"


def _moved(result: TapePerfResult, counter: str) -> float:
    """The bytes the phase a counter counts over moved ("write errors corrected": the write phase's)."""
    phase: PhaseResult | None = next((result.phase(p) for word, p in COUNTER_PHASE.items() if counter.startswith(word)),
                                     None)
    return float(phase.bytes) if phase is not None else float(sum(p.bytes for p in result.phases))


def _counter_rows(a: TapePerfResult, b: TapePerfResult) -> list[Row]:
    """The error counters both runs read (names with "error"), per GB of the phase they count over."""
    by_a: dict[str, LogDelta] = {d.name: d for d in a.log_deltas}
    out = []
    for db in b.log_deltas:
        da = by_a.get(db.name)
        if "error" not in db.name or da is None or da.delta is None or db.delta is None:
            continue
        ga, gb = _moved(a, db.name), _moved(b, db.name)
        if "uncorrected" in db.name:
            judgement, basis = judge_must_not_happen(da.delta, db.delta), "an uncorrected error is never noise"
        else:
            judgement, basis = judge_count(da.delta, ga / 1e9, db.delta, gb / 1e9), "per GB moved"
        out.append(Row(db.name.capitalize(), per_gb_text(da.delta, ga), per_gb_text(db.delta, gb),
                       _count_change(da.delta, db.delta), judgement, basis))
    return out


def _alert_row(a: TapePerfResult, b: TapePerfResult) -> Row:
    before, after = set(a.tapealert), set(b.tapealert)
    gone, new = sorted(before - after), sorted(after - before)
    judgement = WORSE if new else IMPROVED if gone else SAME
    change = "; ".join([f"new: {', '.join(new)}"] * bool(new) + [f"cleared: {', '.join(gone)}"] * bool(gone))
    return Row("TapeAlert flags after the test", ", ".join(a.tapealert) or "none", ", ".join(b.tapealert) or "none",
               change, judgement, "a flag is never noise")


def rows(a: TapePerfResult, b: TapePerfResult, spread: Spread) -> list[Row]:
    """Every figure of two tape performance runs, judged: rates, back-hitches, error counters, TapeAlert."""
    out: list[Row] = []
    for name in ("write", "read"):
        out += [r for r in (_rate_row(a, b, name, spread), _stall_row(a, b, name)) if r is not None]
    return out + _counter_rows(a, b) + [_alert_row(a, b)]


def rate_of(phase: str) -> Callable[[object], "float | None"]:
    """A tape performance result's headline rate of ``phase`` (None for any other result): what a spread measures."""
    def figure(result: object) -> float | None:
        found = result.phase(phase) if isinstance(result, TapePerfResult) else None
        return headline_rate(found) if found is not None else None

    return figure


__all__ = ["rate_of", "rows"]
