"""History store: runs, samples, statuses, migrations, crash safety."""
from __future__ import annotations

import json
import signal
import sqlite3
import subprocess
import sys
import textwrap
from pathlib import Path

import pytest

from app.events import Message, Sample, SampleBatch
from app.history import History, record, run_recorded, throughput_series
from app.history.schema import MIGRATIONS, SCHEMA_VERSION, migrate
from native.errors import Cancelled, InvalidParameter, SafetyRefusal, TapediagError

ROOT = Path(__file__).resolve().parents[2]


def _samples(n: int, nbytes: int = 262144, dt: float = 0.01, phase: str = "write") -> list[Sample]:
    return [Sample(t=(i + 1) * dt, nbytes=nbytes, latency=dt, phase=phase) for i in range(n)]


def test_default_path_is_in_the_data_dir(isolated_data_dir: Path) -> None:
    with History.open() as hist:
        assert hist.path == isolated_data_dir / "history.sqlite"
    assert (isolated_data_dir / "history.sqlite").exists()


def test_a_run_round_trips_with_params_results_and_samples(tmp_path: Path) -> None:
    with History.open(tmp_path / "h.sqlite") as hist:
        run_id = hist.start_run("tape-perf", "virtual:lto9", {"block_size": 262144, "pattern": "2:1"})
        assert hist.get_run(run_id).status == "incomplete"
        assert hist.add_samples(run_id, _samples(500)) == 500
        assert hist.add_samples(run_id, _samples(250, phase="read")) == 250
        hist.finish_run(run_id, "complete", {"write_mb_s": 26.2, "path": tmp_path})
        got = hist.get_run(run_id)
    assert (got.kind, got.device, got.status) == ("tape-perf", "virtual:lto9", "complete")
    assert got.params == {"block_size": 262144, "pattern": "2:1"}
    assert got.results == {"write_mb_s": 26.2, "path": str(tmp_path)}
    assert got.sample_count == 750 and len(got.samples) == 750
    assert got.samples[0] == _samples(1)[0] and got.samples[-1].phase == "read"
    assert got.finished_at is not None and got.version
    json.dumps(got.to_dict())  # JSON-safe as a whole


def test_list_filters_newest_first_and_delete(tmp_path: Path) -> None:
    with History.open(tmp_path / "h.sqlite") as hist:
        a = hist.start_run("drive-info", "virtual:lto5")
        b = hist.start_run("tape-perf", "virtual:lto5")
        c = hist.start_run("tape-perf", "virtual:lto9")
        hist.add_samples(b, _samples(10))
        assert [r.id for r in hist.list_runs()] == [c, b, a]
        assert [r.id for r in hist.list_runs(kind="tape-perf")] == [c, b]
        assert [r.id for r in hist.list_runs(device="virtual:lto5")] == [b, a]
        assert hist.list_runs()[1].samples == ()  # listing never loads samples
        hist.delete_run(b)
        assert [r.id for r in hist.list_runs()] == [c, a]
        assert list(hist.iter_samples(b)) == []
        with pytest.raises(InvalidParameter, match="no run"):
            hist.get_run(b)


def test_bad_kind_and_status_are_refused(tmp_path: Path) -> None:
    with History.open(tmp_path / "h.sqlite") as hist:
        with pytest.raises(InvalidParameter, match="unknown run kind"):
            hist.start_run("benchmark", "x")
        run_id = hist.start_run("read-data", "/data")
        with pytest.raises(InvalidParameter):
            hist.finish_run(run_id, "incomplete")
        with pytest.raises(InvalidParameter, match="no run 999"):
            hist.finish_run(999, "complete")
        with pytest.raises(InvalidParameter, match="no run 999"):
            hist.add_samples(999, _samples(3))
        assert hist._conn.execute("SELECT COUNT(*) FROM samples").fetchone()[0] == 0


def test_nan_results_are_stored_as_null(tmp_path: Path) -> None:
    with History.open(tmp_path / "h.sqlite") as hist:
        run_id = hist.start_run("create-data", "/tmp")
        hist.finish_run(run_id, "complete", {"eta_s": float("nan"), "mb_s": 12.5})
        assert hist.get_run(run_id).results == {"eta_s": None, "mb_s": 12.5}


def test_record_completes_and_stores_samples_from_events(tmp_path: Path) -> None:
    seen = []
    with History.open(tmp_path / "h.sqlite") as hist:
        with record("tape-perf", "virtual:lto9", {"mb": 1}, history=hist, flush_samples=100) as rec:
            sink = rec.sink(seen.append)
            for _ in range(5):
                sink(SampleBatch(tuple(_samples(60))))
            sink(Message("info", "done"))
            rec.results = {"write_mb_s": 26.2}
        got = hist.get_run(rec.run_id)
    assert got.status == "complete" and got.results == {"write_mb_s": 26.2}
    assert got.sample_count == 300
    assert len(seen) == 6  # every event still reaches the inner sink


@pytest.mark.parametrize(("exc", "status"), [(Cancelled("stopped by user"), "cancelled"),
                                             (TapediagError("drive went away"), "failed"),
                                             (SafetyRefusal("the cartridge holds data", reason="data at BOT",
                                                            overridable=True, hint="use --force to overwrite it"),
                                              "refused")])
def test_record_marks_failures_and_reraises(tmp_path: Path, exc: Exception, status: str) -> None:
    with History.open(tmp_path / "h.sqlite") as hist:
        with pytest.raises(type(exc)):
            with record("tape-perf", "virtual:lto9", {}, history=hist) as rec:
                rec.add(_samples(7))
                raise exc
        got = hist.get_run(rec.run_id)
    # The sentence is kept; the command line's hint was said when the run ended, and never reaches a PDF.
    assert got.status == status and got.error == getattr(exc, "message", str(exc)) and got.sample_count == 7
    assert "--" not in (got.error or "")


def test_bad_input_leaves_no_run(tmp_path: Path) -> None:
    with History.open(tmp_path / "h.sqlite") as hist:
        with pytest.raises(InvalidParameter):
            with record("tape-perf", "virtual:lto9", {"block_size": 0}, history=hist):
                raise InvalidParameter("block size must be at least 1 byte")
        assert hist.list_runs() == []


def test_run_recorded_stores_the_results_to_dict(tmp_path: Path) -> None:
    class Result:
        def to_dict(self) -> dict:
            return {"mb_s": 99.5}

    def engine(sink):
        sink(SampleBatch(tuple(_samples(3))))
        return Result()

    with History.open(tmp_path / "h.sqlite") as hist:
        run_id, result = run_recorded("read-data", "/data", {"threads": 2}, engine, history=hist)
        got = hist.get_run(run_id)
    assert isinstance(result, Result)
    assert got.results == {"mb_s": 99.5} and got.sample_count == 3 and got.params == {"threads": 2}


@pytest.mark.parametrize(("engine_status", "error", "stored"), [("failed", "MEDIUM ERROR", "failed"),
                                                               ("stopped", "disk full", "failed"),
                                                               ("cancelled", None, "cancelled")])
def test_run_recorded_keeps_an_engines_own_ending_with_its_partial_results(
        tmp_path: Path, engine_status: str, error: str | None, stored: str) -> None:
    """Engines return partial results instead of raising; the run ends as they say."""
    class Result:
        def __init__(self, status: str, error: str | None) -> None:
            self.status, self.error = status, error

        def to_dict(self) -> dict:
            return {"mb_s": 12.0, "status": self.status}

    with History.open(tmp_path / "h.sqlite") as hist:
        run_id, _ = run_recorded("tape-perf", "virtual:lto9", {}, lambda sink: Result(engine_status, error),
                                 history=hist)
        got = hist.get_run(run_id)
    assert got.status == stored and got.error == error and got.results == {"mb_s": 12.0, "status": engine_status}


def test_migrations_run_once_in_order_and_newer_schema_is_refused(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    History.open(path).close()
    conn = sqlite3.connect(path, isolation_level=None)
    assert conn.execute("PRAGMA user_version").fetchone()[0] == SCHEMA_VERSION == len(MIGRATIONS)
    assert migrate(conn) == SCHEMA_VERSION  # nothing left to do
    conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION + 1}")
    conn.close()
    with pytest.raises(TapediagError, match="newer than this tapediag"):
        History.open(path)


def test_upgrade_from_version_1_counts_existing_samples(tmp_path: Path) -> None:
    conn = sqlite3.connect(tmp_path / "h.sqlite", isolation_level=None)
    migrate(conn, MIGRATIONS[:1])
    conn.execute("INSERT INTO runs (kind, started_at) VALUES ('tape-perf', '2026-01-01T00:00:00+00:00')")
    conn.executemany("INSERT INTO samples VALUES (1, ?, 10, 0.1, 'write', 0)", [(i,) for i in range(4)])
    conn.close()
    with History.open(tmp_path / "h.sqlite") as hist:
        assert hist.get_run(1).sample_count == 4


def test_a_file_that_is_not_a_database_gives_one_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    path.write_bytes(b"this is not sqlite" * 100)
    with pytest.raises(TapediagError, match="history database .* is damaged .*move it aside"):
        History.open(path)


def test_killed_mid_run_leaves_an_incomplete_run_and_a_sound_database(tmp_path: Path) -> None:
    path = tmp_path / "h.sqlite"
    script = textwrap.dedent(f"""
        import sys, time
        import app.catalog
        from app.events import Sample
        from app.history import History, record
        hist = History.open({str(path)!r})
        with record("tape-perf", "virtual:lto9", {{"x": 1}}, history=hist, flush_samples=50) as rec:
            i = 0
            while True:
                rec.add([Sample(t=i * 0.001, nbytes=4096, latency=0.001, phase="write")])
                i += 1
                if i == 200:
                    print("flushed", flush=True)
                time.sleep(0.0005)
    """)
    proc = subprocess.Popen([sys.executable, "-c", script], cwd=ROOT, stdout=subprocess.PIPE, text=True)
    try:
        assert proc.stdout.readline().strip() == "flushed"
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=30)
    finally:
        proc.kill()
    with History.open(path) as hist:
        runs = hist.list_runs()
        assert len(runs) == 1 and runs[0].status == "incomplete" and runs[0].finished_at is None
        assert runs[0].sample_count >= 150
        assert len(list(hist.iter_samples(runs[0].id))) == runs[0].sample_count
        assert hist._conn.execute("PRAGMA integrity_check").fetchone()[0] == "ok"


def test_throughput_series_bins_bytes_over_time() -> None:
    # 100 I/Os of 1 MB every 10 ms = 100 MB/s steadily, then a phase at half the rate.
    samples = _samples(100, nbytes=1_000_000) + [
        Sample(t=1.0 + (i + 1) * 0.02, nbytes=1_000_000, latency=0.02, phase="read") for i in range(100)
    ]
    series = throughput_series(samples, interval=0.1)
    assert set(series) == {"write", "read"}
    assert [round(p.mb_s) for p in series["write"]] == [100] * 10
    assert [round(p.mb_s) for p in series["read"]] == [50] * 20


def test_throughput_series_does_not_alias_when_ios_and_bins_disagree() -> None:
    # 1 MB every 8.33 ms (120 MB/s) in 10 ms bins: counting by end time would read 100 or 200.
    samples = [Sample(t=(i + 1) / 120, nbytes=1_000_000, latency=1 / 120, phase="write") for i in range(240)]
    points = throughput_series(samples, interval=0.01)["write"]
    assert all(p.mb_s == pytest.approx(120.0) for p in points)


def test_throughput_series_sums_parallel_streams() -> None:
    samples = [Sample(t=(i + 1) * 0.01, nbytes=500_000, latency=0.01, phase="read-data", stream=s)
               for s in range(4) for i in range(100)]
    points = throughput_series(samples, interval=0.1)["read-data"]
    assert [round(p.mb_s) for p in points] == [200] * 10


def test_history_throughput_matches_the_sample_path(tmp_path: Path) -> None:
    samples = [Sample(t=(i + 1) * 0.01, nbytes=500_000 + 1000 * (i % 7), latency=0.01, phase=ph, stream=s)
               for ph in ("write", "read") for s in range(2) for i in range(150)]
    with History.open(tmp_path / "h.sqlite") as hist:
        run_id = hist.start_run("tape-perf", "virtual:lto9")
        hist.add_samples(run_id, samples)
        assert hist.throughput(run_id) == throughput_series(samples)
        stats = hist.sample_stats(run_id)
    assert stats["count"] == 600 and stats["bytes"] == sum(s.nbytes for s in samples)
    assert stats["seconds"] == pytest.approx(1.5)
