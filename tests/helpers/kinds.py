"""Stored (or ``--json``) results read the way every reader reads them: through the one loader, into the kind's
typed result (``app.runs.stored``), then worded by the kind's renderers."""
from __future__ import annotations

from typing import Any

from app import catalog  # noqa: F401  (installs the run kinds)
from app.runs import Finding, registry
from app.runs.stored import result_of


def typed(kind: str, data: dict[str, Any]) -> Any:
    """``data`` (a stored result, or a command's ``--json``) as ``kind``'s typed result, strictly."""
    found = registry.get(kind)
    assert found is not None, kind
    return result_of(found, data)


def findings(kind: str, data: dict[str, Any]) -> list[Finding]:
    """``kind``'s page-1 findings for ``data``."""
    found = registry.get(kind)
    assert found is not None and found.findings is not None, kind
    return found.findings(typed(kind, data))


def tape_perf(device: str = "virtual:lto9", rates: dict[str, float] | None = None, **fields: Any) -> dict[str, Any]:
    """A stored tape-perf result (as its ``to_dict`` writes it) with these overall rates per phase, e.g.
    ``{"write": 100.0}``: a run that never streamed, so no verdict is drawn from it."""
    from app.tapeperf.results import PhaseResult, TapePerfResult

    phases = [PhaseResult(name, bytes=int(rate * 1e6), ios=10, elapsed=1.0, mb_s=rate)
              for name, rate in (rates or {}).items()]
    fields.setdefault("params", {"pattern": "2:1"})
    return TapePerfResult(device, phases=phases, **fields).to_dict()


def read_data(mb_s: float, target: str = "/srv/data", files: int = 8, seconds: float = 1.0, streams: int = 1,
              **fields: Any) -> dict[str, Any]:
    """A stored read-data result whose ``streams`` streams read ``mb_s`` together for ``seconds``, ``files`` in all."""
    from app.disk.results import LatencyStats, ReadDataResult, StreamResult

    each = [StreamResult(n + 1, files // streams + (n < files % streams), round(mb_s * 1e6 * seconds / streams), seconds)
            for n in range(streams)]
    return ReadDataResult("read-data", target, "complete", each, LatencyStats(), fields.pop("params", {}), True,
                          **fields).to_dict()


def drive_info(serial: str = "HU1234ABCD", verdict: str = "Healthy", reasons: tuple[str, ...] = (),
               alerts: tuple[dict[str, Any], ...] = (), device: str = "/dev/sg3", **sections: Any) -> dict[str, Any]:
    """A stored drive-info result (``DriveInfo.to_dict()``) of an HP LTO-4 with this health; every section the drive
    did not answer, unless given in its stored form (``media={"supported": True, "density_code": 0x46, ...}``).
    The result is read back through ``DriveInfo.from_dict`` and written again, so it is exactly what ``info``
    would store: a section given in a shape the loader does not read fails here, not in the code under test."""
    from app.drive import Unsupported
    from app.info import DriveInfo, Health, Identity, Verdict

    none = Unsupported("not supported by this device")
    info = DriveInfo(device, Identity("HP", "Ultrium 4-SCSI", "B63W", serial, None, "tape"), 4, none, none, none,
                     Unsupported("no cartridge loaded"), none, none, none, none, none, none,
                     Health(Verdict(verdict), tuple(reasons)))
    stored = info.to_dict()
    stored["tapealerts"] = {"supported": True, "value": [dict(a) for a in alerts]}
    stored.update(sections)
    return DriveInfo.from_dict(stored).to_dict()


def cartridge(**given: Any) -> dict[str, Any]:
    """A cartridge memory as ``info`` stores it: these figures, the others not reported."""
    return {"supported": True, **given}


def short_write(hist: Any, flush: float = 0.9) -> int:
    """A recorded tape-perf run on an LTO-9 with 2:1 data whose write fitted in the drive's buffer (issue 31): 2 s of
    12 MB WRITEs every 10 ms (1,200 MB/s, the link's pace, the samples' curve), then a closing filemark that took
    ``flush`` s to write out the buffer (the streaming figure counts it). Its samples are stored as the engine
    publishes them; the phase is summarised by the engine's own ``summarize``. Returns the run's id."""
    from app.events import Sample
    from app.tapeperf.results import PhaseResult, SampleLog, TapePerfResult, summarize

    log, samples = SampleLog("write"), []
    for i in range(200):
        log.add(0.01 * (i + 1), 0.009, 12_000_000)
        samples.append(Sample(0.01 * (i + 1), 12_000_000, 0.009, "write"))
    ph = PhaseResult("write", bytes=200 * 12_000_000, ios=200, blocks=800, filemarks=1, end_reason="size reached")
    summarize(ph, log, 0.0, 2.0 + flush, flush_seconds=flush)
    result = TapePerfResult("virtual:lto9", {"pattern": "2:1", "direction": "write"}, vendor="HPE",
                            product="Ultrium 9-SCSI", generation=9, phases=[ph], predicted_ratio=2.0,
                            rated_native_mb_s=400.0, rated_compressed_mb_s=1000.0, buffer_bytes=1_073_741_824,
                            compression="on")
    run_id = hist.start_run("tape-perf", "virtual:lto9", {"pattern": "2:1", "direction": "write"})
    hist.add_samples(run_id, samples)
    hist.finish_run(run_id, "complete", result.to_dict())
    return int(run_id)
