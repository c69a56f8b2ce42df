"""Whether a read-data figure came from a cache: the one rule, and the finding the CLI, the GUI and the PDF show.

The raw references are the run's O_DIRECT probe of the same files (``app.disk.probe``) and the device's
rate when the user gave it; the lower one is the device's.
"""
from __future__ import annotations

from app.disk.results import ReadDataResult
from app.runs.kind import Finding
from app.runs.words import mb_s
from native.units import plural

#: A read more than this many times the raw figure did not come from the disk alone: above the
#: run-to-run spread of one disk (this VM's disk: ±30 % between runs), far below what a cache gives.
CACHE_FACTOR = 1.3


def cache_assisted(read_mb_s: float, raw_mb_s: float) -> bool:
    """The rule: a read figure above ``CACHE_FACTOR`` times what the device delivers raw was
    served (in part) from a cache between the disk and this machine."""
    return raw_mb_s > 0 and read_mb_s > CACHE_FACTOR * raw_mb_s


def _references(result: ReadDataResult) -> list[tuple[float, str]]:
    refs: list[tuple[float, str]] = []
    probe = result.raw_probe
    if probe is not None and probe.mb_s > 0:
        refs.append((probe.mb_s, f"an O_DIRECT probe of {plural(probe.files, 'file')} "
                                 f"of the same data ({plural(probe.streams or 1, 'stream')})"))
    if result.device_mb_s is not None and result.device_mb_s > 0:
        refs.append((result.device_mb_s, "the device's own rate, as given"))
    return refs


def read_cache(result: ReadDataResult) -> Finding | None:
    """Whether the run's figure was probably served from a cache, with both figures (module docstring). None
    when the run has no reference (an old run, a tree without a file big enough to probe)."""
    rate = result.mb_s
    refs = _references(result)
    if rate <= 0 or not refs:
        return None
    raw, source = min(refs)
    both = f"The run read {mb_s(rate)}; {source}: {mb_s(raw)}."
    others = [f"{s}: {mb_s(r)}" for r, s in refs if (r, s) != (raw, source)]
    if others:
        both += " (" + "; ".join(others) + ")"
    if cache_assisted(rate, raw):
        local = result.evict is False and not result.direct
        where = ("this machine's page cache (eviction was off), or a cache below it" if local else
                 "a cache between the disk and this machine (a SAN controller's, or a hypervisor's)")
        return Finding("Disk read cache", f"Probably served from a cache: {mb_s(rate)} read, {mb_s(raw)} raw", "warn",
                       both + f" The difference came from {where}, not from the disk.",
                       "Judge the disk by the raw figure; to measure the disk itself, read a data set larger than that "
                       "cache, or one not read or written recently.")
    caveat = ("" if result.device_mb_s else " A cache that O_DIRECT cannot bypass (a hypervisor's) would flatter both "
              "figures: give the device's rate to check against it.")
    return Finding("Disk read cache", f"No sign of a cache: {mb_s(rate)} read, {mb_s(raw)} raw", "good", both + caveat)


__all__ = ["CACHE_FACTOR", "cache_assisted", "read_cache"]
