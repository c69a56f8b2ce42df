"""``History``: the run history kept in an embedded SQLite database.

Why SQLite in WAL mode: a run is inserted (status ``incomplete``) and committed before
the test starts, samples are committed batch by batch, and the final status is one
more small transaction. If the process dies at any point, SQLite's journal leaves the
file consistent and the run simply stays ``incomplete``: never a corrupt database,
never a run that silently vanished. WAL lets the GUI read the history while a worker
thread appends samples.

Everything stored is JSON-safe: engines hand over their results' ``to_dict()`` forms,
so history does not depend on (or break with) the engines' classes.
"""
from __future__ import annotations

import dataclasses
import enum
import json
import math
import os
import sqlite3
import threading
import time
from contextlib import contextmanager
from datetime import datetime, timezone
from pathlib import Path
from typing import TYPE_CHECKING, Any, Iterable, Iterator
from urllib.parse import quote

from app import __version__
from app.paths import data_dir
from native.errors import InvalidParameter, TapediagError

from app.runs import registry

from .figures import StoredVisit, VisitFigures
from .keys import RunKeys
from .schema import SCHEMA_VERSION, migrate

if TYPE_CHECKING:  # only ``iter_samples`` makes a Sample: recording a snapshot (info) does without the events' classes
    from app.events import Sample, SampleColumns

STATUSES = ("incomplete", "complete", "failed", "cancelled", "refused")
DB_NAME = "history.sqlite"
MAX_ID = 2**63 - 1  # the largest SQLite integer: no run id (or limit) can be above it


class HistoryError(TapediagError):
    """The history database cannot be used: damaged, busy, read-only, or its disk failed.

    One sentence naming the file; the advice to move it aside is given only when the
    file itself is damaged, never for a transient lock or a read-only directory.
    """


_MOVE_ASIDE = "move it aside to start a new history"


def history_error(err: sqlite3.Error, path: Path) -> HistoryError:
    """Translate an SQLite error into one line a technician can act on."""
    msg = str(err) or type(err).__name__
    low = msg.lower()
    if "locked" in low or "busy" in low:
        return HistoryError(f"the history database {path} is busy: another tapediag is using it",
                            hint="try again when it has finished")
    if "readonly" in low or "read-only" in low:
        return HistoryError(f"cannot write the history database {path}: it is read-only")
    if "disk is full" in low or "i/o error" in low or "unable to open" in low:
        return HistoryError(f"cannot use the history database {path}: {msg}")
    if type(err) is sqlite3.DatabaseError or "no such table" in low or "no such column" in low \
            or "malformed" in low or "not a database" in low:
        return HistoryError(f"the history database {path} is damaged ({msg})", hint=_MOVE_ASIDE)
    return HistoryError(f"the history database {path} failed: {msg}")


def _transient(err: sqlite3.Error) -> bool:
    low = str(err).lower()
    return isinstance(err, sqlite3.OperationalError) and ("locked" in low or "busy" in low)


def _writable(path: Path) -> bool:
    """Whether this process may write the database and create its WAL side files next to it."""
    if not os.access(path.parent, os.W_OK | os.X_OK):
        return False
    return all(not p.exists() or os.access(p, os.W_OK) for p in (path, Path(f"{path}-wal"), Path(f"{path}-shm")))


def printable(value: str) -> str:
    """A string SQLite can store and any UTF-8 output can print: bytes that were not UTF-8 in
    argv or a path (Python's surrogate escapes, ``'\\udcff'``) become a readable ``\\xff``,
    never an encoding error."""
    try:
        return value.encode("utf-8", "surrogateescape").decode("utf-8", "backslashreplace")
    except UnicodeEncodeError:  # a lone surrogate no file name produces
        return value.encode("utf-8", "backslashreplace").decode("utf-8")


def _check_id(run_id: int) -> None:
    """Ids outside SQLite's integers (``show 99999999999999999999``) name no run."""
    if isinstance(run_id, int) and not 0 < run_id <= MAX_ID:
        raise InvalidParameter(f"no run {run_id} in the history", hint="'tapediag history' lists the runs")


def default_path() -> Path:
    """Where the history lives: ``data_dir()/history.sqlite``."""
    return data_dir() / DB_NAME


def _utc_now() -> str:
    return datetime.now(timezone.utc).isoformat(timespec="seconds")


def _json_default(value: Any) -> Any:
    """Make the usual non-JSON values of result dicts storable (paths, enums, numpy)."""
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        to_dict = getattr(value, "to_dict", None)
        return to_dict() if callable(to_dict) else dataclasses.asdict(value)
    if isinstance(value, Path):
        return str(value)
    if isinstance(value, enum.Enum):
        return value.value
    if isinstance(value, datetime):
        return value.isoformat()
    if isinstance(value, (set, frozenset, tuple)):
        return list(value)
    if isinstance(value, bytes):
        return value.hex()
    item = getattr(value, "item", None)  # numpy scalars
    if callable(item):
        return item()
    tolist = getattr(value, "tolist", None)  # numpy arrays
    if callable(tolist):
        return tolist()
    raise TypeError(f"{type(value).__name__} is not JSON-safe")


def _dumps(value: Any) -> str:
    try:
        return json.dumps(value, default=_json_default, allow_nan=False, sort_keys=True)
    except ValueError:
        # NaN/inf are legal floats in results (e.g. an ETA never reached); store them as null.
        return json.dumps(_scrub_nan(value), default=_json_default, sort_keys=True)
    except TypeError as err:
        raise InvalidParameter(f"cannot store in history: {err}") from err


def _scrub_nan(value: Any) -> Any:
    if isinstance(value, float) and not math.isfinite(value):
        return None
    if isinstance(value, dict):
        return {k: _scrub_nan(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [_scrub_nan(v) for v in value]
    return value


@dataclasses.dataclass(frozen=True)
class Run:
    """One stored run. ``samples`` is empty unless asked for (``get_run(id)``)."""

    id: int
    kind: str
    device: str
    status: str
    started_at: str
    finished_at: str | None
    params: dict
    results: dict | None
    error: str | None
    version: str
    sample_count: int
    samples: tuple[Sample, ...] = ()
    #: What is wrong with the stored record ("its results are not valid JSON"), "" when it is whole. A damaged
    #: row is listed (with the others) and named, never read as if it held results.
    damaged: str = ""

    def to_dict(self, *, samples: bool = True) -> dict:
        """The JSON form (``tapediag show --json``, ``export --json``, reports)."""
        out = dataclasses.asdict(self)
        out["samples"] = [dataclasses.asdict(s) for s in self.samples] if samples else []
        return out


class History:
    """The run history. Thread-safe: one connection, serialised by a lock.

    ``History.open()`` uses the user's data directory; pass ``path`` for another file
    (tests, a technician's exported database).
    """

    def __init__(self, conn: sqlite3.Connection, path: Path) -> None:
        self._conn = conn
        self._lock = threading.RLock()
        self.path = path
        #: Opened read-only (the file or its directory cannot be written): runs cannot be recorded.
        self.readonly = False

    @contextmanager
    def _db(self, *, write: bool = False) -> Iterator[sqlite3.Connection]:
        """The connection, under the lock, with every SQLite error turned into one line."""
        if write and self.readonly:
            raise HistoryError(f"cannot record in the history database {self.path}: "
                               f"it or its directory {self.path.parent} cannot be written")
        with self._lock:
            try:
                yield self._conn
            except sqlite3.Error as err:
                raise history_error(err, self.path) from err

    @classmethod
    def open(cls, path: str | Path | None = None, *, timeout: float = 10.0) -> "History":
        """Open (creating and migrating when needed) the history at ``path``.

        Two processes may open a new history at the same moment: the schema version is
        read inside the write transaction (``migrate``) and a lock is waited for, up to
        ``timeout`` seconds, so neither is refused. When the file or its directory cannot
        be written (a read-only data directory, where WAL cannot make its side files),
        the history is opened read-only: listing, showing and reporting still work, and
        recording a run says why it cannot.
        """
        path = Path(path) if path is not None else default_path()
        if path.is_dir():
            raise HistoryError(f"the history database {path} is a directory")
        try:
            path.parent.mkdir(parents=True, exist_ok=True)
        except OSError as err:
            raise HistoryError(f"cannot create the directory of the history database {path}: "
                               f"{err.strerror or err}") from err
        readonly = not _writable(path)
        deadline = time.monotonic() + timeout
        while True:
            try:
                conn = cls._connect_readonly(path) if readonly else cls._connect(path, timeout)
                break
            except sqlite3.Error as err:
                if _transient(err) and time.monotonic() < deadline:
                    time.sleep(0.02)  # e.g. the other process is switching a new file to WAL
                    continue
                raise history_error(err, path) from err
            except OSError as err:  # creating the file (a directory that changed under us)
                raise HistoryError(f"cannot create the history database {path}: {err.strerror or err}") from err
        hist = cls(conn, path)
        hist.readonly = readonly
        return hist

    @staticmethod
    def _connect(path: Path, timeout: float) -> sqlite3.Connection:
        new = not path.exists()
        if new:  # private from the first byte: runs name devices, hosts and targets
            os.close(os.open(path, os.O_WRONLY | os.O_CREAT, 0o600))
        conn = sqlite3.connect(str(path), isolation_level=None, check_same_thread=False, timeout=timeout)
        try:
            conn.execute("PRAGMA journal_mode=WAL")
            conn.execute("PRAGMA synchronous=NORMAL")  # WAL + NORMAL: durable commits, consistent after a crash
            # No foreign_keys pragma: checking the run of every sample row halves the insert rate;
            # samples are only ever added to a run just started, and delete_run removes them itself.
            migrate(conn)
        except BaseException:
            conn.close()
            raise
        return conn

    @staticmethod
    def _connect_readonly(path: Path) -> sqlite3.Connection:
        """``mode=ro``; where WAL's side files cannot be made either, ``immutable=1`` (nothing
        can write there); a history that does not exist yet is an empty one, in memory."""
        if not path.exists():
            empty = sqlite3.connect(":memory:", isolation_level=None, check_same_thread=False)
            migrate(empty)
            return empty
        conn: sqlite3.Connection | None = None
        version = 0
        for flags in ("mode=ro", "mode=ro&immutable=1"):
            conn = sqlite3.connect(f"file:{quote(str(path.absolute()))}?{flags}", uri=True, isolation_level=None,
                                   check_same_thread=False)
            try:
                version = conn.execute("PRAGMA user_version").fetchone()[0]
                break
            except sqlite3.OperationalError as err:
                # WAL without its -shm, which cannot be made here ("attempt to write a readonly
                # database", "unable to open"): nothing can write here either, so immutable is
                # safe, unless a -wal file holds runs not yet in the main file (immutable would
                # silently skip them).
                conn.close()
                if flags.endswith("immutable=1") or _transient(err):
                    raise
                wal = Path(f"{path}-wal")
                if wal.exists() and wal.stat().st_size > 0:
                    raise HistoryError(f"cannot read the history database {path} read-only: its newest runs are "
                                       f"in {wal}, which SQLite can only read where it may write",
                                       hint="make the directory writable once") from err
        assert conn is not None
        if version > SCHEMA_VERSION:
            conn.close()
            raise HistoryError(f"the history database {path} has schema version {version}, newer than this "
                               f"tapediag understands ({SCHEMA_VERSION})", hint="upgrade tapediag")
        if version < SCHEMA_VERSION:
            conn.close()
            raise HistoryError(f"the history database {path} needs an upgrade this tapediag cannot write: "
                               "its directory is read-only")
        return conn

    def close(self) -> None:
        with self._lock:
            self._conn.close()

    def __enter__(self) -> "History":
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- writing ---------------------------------------------------------------------

    def start_run(self, kind: str, device: str, params: dict | None = None) -> int:
        """Insert a run as ``incomplete`` and commit it before the test touches anything."""
        if not registry.known(kind):  # the kinds are the registry's (``app.runs``): one place says what a run is
            raise InvalidParameter(f"unknown run kind {kind!r}", hint="a run kind is registered in app/catalog.py")
        with self._db(write=True):
            cur = self._conn.execute(
                "INSERT INTO runs (kind, device, status, started_at, params, version) VALUES (?, ?, 'incomplete', ?, ?, ?)",
                (kind, printable(device) or "", _utc_now(), _dumps(params or {}), __version__),
            )
            assert cur.lastrowid is not None  # an INSERT always sets it
            return int(cur.lastrowid)

    def add_samples(self, run_id: int, samples: Iterable[Sample], columns: Iterable[SampleColumns] = ()) -> int:
        """Append samples (objects, or an engine's arrays) in one transaction; returns how many were stored."""
        _check_id(run_id)
        rows = [(run_id, s.t, s.nbytes, s.latency, s.phase, s.stream) for s in samples]
        for cols in columns:
            rows.extend(cols.rows(run_id))
        if not rows:
            return 0
        with self._db(write=True):
            self._conn.execute("BEGIN IMMEDIATE")
            try:
                cur = self._conn.execute("UPDATE runs SET sample_count = sample_count + ? WHERE id = ?",
                                         (len(rows), run_id))
                if cur.rowcount != 1:
                    raise InvalidParameter(f"no run {run_id} in the history")
                self._conn.executemany(
                    "INSERT INTO samples (run_id, t, nbytes, latency, phase, stream) VALUES (?, ?, ?, ?, ?, ?)", rows
                )
            except BaseException:
                self._conn.execute("ROLLBACK")
                raise
            self._conn.execute("COMMIT")
        return len(rows)

    def finish_run(self, run_id: int, status: str, results: dict | None = None, error: str | None = None) -> None:
        """Record how the run ended: ``complete``, ``failed`` or ``cancelled``."""
        if status not in STATUSES or status == "incomplete":
            raise InvalidParameter(f"a run cannot finish as {status!r}")
        _check_id(run_id)
        with self._db(write=True):
            cur = self._conn.execute(
                "UPDATE runs SET status = ?, finished_at = ?, results = ?, error = ? WHERE id = ?",
                (status, _utc_now(), None if results is None else _dumps(results), None if error is None else printable(error), run_id),
            )
            if cur.rowcount != 1:
                raise InvalidParameter(f"no run {run_id} in the history")

    def set_keys(self, run_id: int, keys: RunKeys) -> None:
        """Which drive and cartridge the run was on (``app.history.keys``): the visits' index."""
        _check_id(run_id)
        with self._db(write=True):
            self._conn.execute("UPDATE runs SET drive_serial = ?, barcode = ?, mam_serial = ? WHERE id = ?",
                               (keys.drive_serial, keys.barcode, keys.mam_serial, run_id))

    def set_visit(self, run_id: int, figures: VisitFigures) -> None:
        """What the run says about the cartridge it moved through its drive (``app.history.figures``): written as
        the run is recorded, from its kind's typed result, and read by ``app.visits`` instead of the results."""
        _check_id(run_id)
        columns = ", ".join(f"{column} = ?" for column in VisitFigures.COLUMNS)
        with self._db(write=True):
            self._conn.execute(f"UPDATE runs SET {columns} WHERE id = ?", (*figures.row(), run_id))

    def keys(self, run_id: int) -> RunKeys:
        _check_id(run_id)
        with self._db():
            row = self._conn.execute("SELECT drive_serial, barcode, mam_serial FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise InvalidParameter(f"no run {run_id} in the history", hint="'tapediag history' lists the runs")
        return RunKeys(*row)

    @staticmethod
    def _keyed(keys: RunKeys) -> tuple[str, list[str | int]]:
        """The SQL condition (and its arguments) for runs on this drive or this cartridge: by MAM serial, or by
        barcode where the MAM serial is unknown; "" when the keys name neither."""
        where: list[str] = []
        args: list[str | int] = []
        for column, value in (("drive_serial", keys.drive_serial), ("mam_serial", keys.mam_serial),
                              ("barcode", None if keys.mam_serial else keys.barcode)):
            if value:
                where.append(f"{column} = ?")
                args.append(value)
        return " OR ".join(where), args

    def keyed_runs(self, keys: RunKeys, *, before: int | None = None) -> list[tuple[Run, RunKeys]]:
        """Runs on this drive or this cartridge (by MAM serial, or barcode where the MAM serial is unknown),
        oldest first, each with its keys; only runs before ``before`` when given. A row whose stored JSON
        cannot be read is left out: it cannot say what happened on that visit."""
        where, args = self._keyed(keys)
        if not where:
            return []
        sql = f"SELECT {self._COLUMNS}, drive_serial, barcode, mam_serial FROM runs WHERE ({where})"
        if before is not None:
            sql += " AND id < ?"
            args.append(before)
        with self._db():
            rows = self._conn.execute(sql + " ORDER BY id", args).fetchall()
        out = []
        for row in rows:
            try:
                out.append((self._row_to_run(row[:11]), RunKeys(*row[11:])))
            except ValueError:
                continue
        return out

    _VISIT_COLUMNS = "id, kind, started_at, status, drive_serial, barcode, mam_serial, " + ", ".join(VisitFigures.COLUMNS)

    def visit_rows(self, keys: RunKeys, kinds: Iterable[str], *, before: int | None = None) -> list[StoredVisit]:
        """The runs of ``kinds`` on this drive or this cartridge (as ``keyed_runs`` finds them), oldest first, as
        the index keeps them: keys and visit figures, no stored result read."""
        where, args = self._keyed(keys)
        if not where:
            return []
        wanted = list(kinds)
        sql = (f"SELECT {self._VISIT_COLUMNS} FROM runs WHERE ({where}) "
               f"AND kind IN ({', '.join('?' * len(wanted))})")
        args += wanted
        if before is not None:
            sql += " AND id < ?"
            args.append(before)
        with self._db():
            rows = self._conn.execute(sql + " ORDER BY id", args).fetchall()
        return [self._stored_visit(row) for row in rows]

    def visit_row(self, run_id: int) -> StoredVisit:
        """Run ``run_id`` as the visits' index keeps it."""
        _check_id(run_id)
        with self._db():
            row = self._conn.execute(f"SELECT {self._VISIT_COLUMNS} FROM runs WHERE id = ?", (run_id,)).fetchone()
        if row is None:
            raise InvalidParameter(f"no run {run_id} in the history", hint="'tapediag history' lists the runs")
        return self._stored_visit(row)

    @staticmethod
    def _stored_visit(row: tuple[Any, ...]) -> StoredVisit:
        return StoredVisit(row[0], row[1], row[2], row[3], RunKeys(*row[4:7]), VisitFigures.from_row(row[7:]))

    def save_progress(self, run_id: int, results: dict) -> None:
        """Keep what a run still going has done so far: if the process dies before ``finish_run``
        (SIGKILL, a crash), the run stays ``incomplete`` with these results instead of none."""
        _check_id(run_id)
        with self._db(write=True):
            self._conn.execute("UPDATE runs SET results = ? WHERE id = ? AND status = 'incomplete'",
                               (_dumps(results), run_id))

    def delete_run(self, run_id: int) -> None:
        _check_id(run_id)
        with self._db(write=True):
            self._conn.execute("BEGIN IMMEDIATE")
            self._conn.execute("DELETE FROM samples WHERE run_id = ?", (run_id,))
            cur = self._conn.execute("DELETE FROM runs WHERE id = ?", (run_id,))
            self._conn.execute("COMMIT")
        if cur.rowcount != 1:
            raise InvalidParameter(f"no run {run_id} in the history")

    # -- reading ---------------------------------------------------------------------

    _COLUMNS = "id, kind, device, status, started_at, finished_at, params, results, error, version, sample_count"

    @staticmethod
    def _row_to_run(row: tuple, samples: tuple[Sample, ...] = ()) -> Run:
        """One row as a ``Run``; a row whose JSON does not parse (a damaged page, a hand edit) comes back
        with ``damaged`` saying so, so that one bad row never hides the others."""
        wrong: list[str] = []

        def parsed(text: object, what: str, default: object) -> Any:
            if text is None:
                return default if what == "parameters" else None
            try:
                value = json.loads(text)  # type: ignore[arg-type]
            except (TypeError, ValueError):
                value = None
            if not isinstance(value, dict):
                wrong.append(what)
                return default
            return value

        params = parsed(row[6], "parameters", {})
        results = parsed(row[7], "results", None)
        damaged = f"its {' and '.join(wrong)} are not valid JSON" if wrong else ""
        return Run(
            id=row[0], kind=str(row[1]), device=str(row[2]), status=str(row[3]), started_at=str(row[4]),
            finished_at=row[5], params=params, results=results, error=row[8], version=str(row[9]),
            sample_count=int(row[10] or 0), samples=samples, damaged=damaged,
        )

    def list_runs(self, kind: str | None = None, device: str | None = None, limit: int | None = None) -> list[Run]:
        """Runs newest first, without samples."""
        where, args = [], []
        if kind:
            where.append("kind = ?")
            args.append(kind)
        if device:
            where.append("device = ?")
            args.append(printable(device))
        sql = f"SELECT {self._COLUMNS} FROM runs"
        if where:
            sql += " WHERE " + " AND ".join(where)
        sql += " ORDER BY id DESC"
        if limit:
            if not 0 < int(limit) <= MAX_ID:
                raise InvalidParameter(f"a limit of {limit} runs is out of range (1 to {MAX_ID})")
            sql += f" LIMIT {int(limit)}"
        with self._db():
            rows = self._conn.execute(sql, args).fetchall()
        return [self._row_to_run(r) for r in rows]

    def get_run(self, run_id: int, *, samples: bool = True) -> Run:
        """One run (with its samples unless ``samples=False``); InvalidParameter if unknown."""
        _check_id(run_id)
        with self._db():
            row = self._conn.execute(f"SELECT {self._COLUMNS} FROM runs WHERE id = ?", (run_id,)).fetchone()
            if row is None:
                raise InvalidParameter(f"no run {run_id} in the history", hint="'tapediag history' lists the runs")
            got = tuple(self.iter_samples(run_id)) if samples else ()
        run = self._row_to_run(row, got)
        if run.damaged:
            raise HistoryError(f"run {run_id} in the history {self.path} is damaged: {run.damaged}",
                               hint="'tapediag history' lists the other runs")
        return run

    def throughput(self, run_id: int, interval: float | None = None, max_points: int = 600) -> dict:
        """``{phase: [ThroughputPoint]}`` for a stored run: one query per (phase, stream), straight
        into numpy, so an hour of samples is binned without a Python object per I/O."""
        _check_id(run_id)
        import numpy as np

        from .series import series_from_arrays

        groups: dict[str, list] = {}
        with self._db():
            keys = self._conn.execute("SELECT DISTINCT phase, stream FROM samples WHERE run_id = ?", (run_id,)).fetchall()
            for phase, stream in keys:
                rows = self._conn.execute(
                    "SELECT t, nbytes, latency FROM samples WHERE run_id = ? AND phase = ? AND stream = ? ORDER BY rowid",
                    (run_id, phase, stream)).fetchall()
                groups.setdefault(phase, []).append(np.array(rows, dtype=np.float64).reshape(-1, 3))
        return series_from_arrays(groups, interval, max_points)

    def sample_stats(self, run_id: int) -> dict:
        """Count, bytes and the time span the samples cover (for summaries and appendices)."""
        _check_id(run_id)
        with self._db():
            n, total, first, last = self._conn.execute(
                "SELECT COUNT(*), COALESCE(SUM(nbytes), 0), MIN(t - latency), MAX(t) FROM samples WHERE run_id = ?",
                (run_id,),
            ).fetchone()
        return {"count": n, "bytes": total, "seconds": (last - max(first, 0.0)) if n else 0.0}

    def iter_samples(self, run_id: int) -> Iterator[Sample]:
        """Samples in insertion order (the order the engine published them)."""
        _check_id(run_id)
        with self._db():
            rows = self._conn.execute(
                "SELECT t, nbytes, latency, phase, stream FROM samples WHERE run_id = ? ORDER BY rowid", (run_id,)
            ).fetchall()
        from app.events import Sample

        for t, nbytes, latency, phase, stream in rows:
            yield Sample(t=t, nbytes=nbytes, latency=latency, phase=phase, stream=stream)
