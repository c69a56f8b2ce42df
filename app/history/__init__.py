"""Run history: every test run with its parameters, results and samples, in SQLite.

Public API (JSON-safe dicts in, JSON-safe dicts out)::

    from app.history import History, record
    h = History.open()                       # data_dir()/history.sqlite
    run_id = h.start_run("tape-perf", "virtual:lto9", params)
    h.add_samples(run_id, samples)           # app.events.Sample, batched
    h.finish_run(run_id, "complete", result.to_dict())
    h.list_runs(kind="tape-perf"); h.get_run(run_id); h.delete_run(run_id)

or, for a whole run, the ``record(kind, device, params)`` context manager.
"""
from .keys import RunKeys, keys_from_results
from .recorder import Recorder, record, run_recorded
from .series import ThroughputPoint, throughput_series
from .store import STATUSES, History, HistoryError, Run, default_path

__all__ = [
    "History", "HistoryError", "Run", "Recorder", "record", "run_recorded", "default_path", "STATUSES",
    "ThroughputPoint", "throughput_series", "RunKeys", "keys_from_results",
]
