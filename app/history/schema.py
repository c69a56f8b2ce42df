"""The history database schema and its migrations.

The schema version lives in ``PRAGMA user_version``. Each migration is a function
that takes the schema from version ``n`` to ``n + 1``; they run in order, each in its
own transaction, so an interrupted upgrade leaves the database at the last version
that completed (SQLite DDL is transactional). A database written by a newer tapediag
(``user_version`` above what we know) is refused rather than guessed at.
"""
from __future__ import annotations

import sqlite3
from typing import Callable

from native.errors import TapediagError


def _m1_initial(conn: sqlite3.Connection) -> None:
    """Runs and their samples. JSON columns keep the engines' ``to_dict()`` forms."""
    conn.execute(
        """
        CREATE TABLE runs (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            kind TEXT NOT NULL,
            device TEXT NOT NULL DEFAULT '',
            status TEXT NOT NULL DEFAULT 'incomplete',
            started_at TEXT NOT NULL,
            finished_at TEXT,
            params TEXT NOT NULL DEFAULT '{}',
            results TEXT,
            error TEXT,
            version TEXT NOT NULL DEFAULT ''
        )
        """
    )
    conn.execute("CREATE INDEX runs_kind_device ON runs(kind, device)")
    conn.execute(
        """
        CREATE TABLE samples (
            run_id INTEGER NOT NULL REFERENCES runs(id) ON DELETE CASCADE,
            t REAL NOT NULL,
            nbytes INTEGER NOT NULL,
            latency REAL NOT NULL,
            phase TEXT NOT NULL,
            stream INTEGER NOT NULL DEFAULT 0
        )
        """
    )
    conn.execute("CREATE INDEX samples_run ON samples(run_id)")


def _m2_sample_count(conn: sqlite3.Connection) -> None:
    """A per-run sample count, so listing thousands of runs never scans the samples."""
    conn.execute("ALTER TABLE runs ADD COLUMN sample_count INTEGER NOT NULL DEFAULT 0")
    conn.execute("UPDATE runs SET sample_count = (SELECT COUNT(*) FROM samples WHERE samples.run_id = runs.id)")


def _m3_identity_keys(conn: sqlite3.Connection) -> None:
    """Drive serial, cartridge barcode and MAM serial per run (issue 25 §4), indexed, so the history can
    say "this cartridge erred in two drives" or "this drive erred on three cartridges". Existing runs get
    the keys their stored results carry (``keys_from_results``); a row whose results cannot be read
    keeps none and stays listed."""
    import json

    from .keys import keys_from_results

    for column in ("drive_serial", "barcode", "mam_serial"):
        conn.execute(f"ALTER TABLE runs ADD COLUMN {column} TEXT")
        conn.execute(f"CREATE INDEX runs_{column} ON runs({column})")
    rows = conn.execute("SELECT id, results FROM runs WHERE results IS NOT NULL").fetchall()
    for run_id, text in rows:
        try:
            keys = keys_from_results(json.loads(text))
        except ValueError:
            continue
        conn.execute("UPDATE runs SET drive_serial = ?, barcode = ?, mam_serial = ? WHERE id = ?",
                     (keys.drive_serial, keys.barcode, keys.mam_serial, run_id))


def _m4_visit_figures(conn: sqlite3.Connection) -> None:
    """What each run says about the cartridge it moved through its drive (``app.history.figures``), in columns
    written as a run is recorded, so that ``app.visits`` reads no stored result (issue 26). Existing runs of the
    visiting kinds get the figures their stored results carry (``legacy_figures``); a row whose results cannot be
    read keeps none and still counts as a visit (with no figures)."""
    import json

    from .figures import VisitFigures, legacy_figures

    for column, sql_type in zip(VisitFigures.COLUMNS, ("REAL", "INTEGER", "INTEGER", "INTEGER", "INTEGER", "TEXT")):
        conn.execute(f"ALTER TABLE runs ADD COLUMN {column} {sql_type}")
    placeholders = ", ".join(f"{column} = ?" for column in VisitFigures.COLUMNS)
    rows = conn.execute("SELECT id, kind, results FROM runs WHERE results IS NOT NULL").fetchall()
    for run_id, kind, text in rows:
        try:
            figures = legacy_figures(kind, json.loads(text))
        except ValueError:
            continue
        if figures is not None:
            conn.execute(f"UPDATE runs SET {placeholders} WHERE id = ?", (*figures.row(), run_id))


# Ordered: MIGRATIONS[n] upgrades version n to n + 1. Append only; never edit a shipped one.
MIGRATIONS: tuple[Callable[[sqlite3.Connection], None], ...] = (_m1_initial, _m2_sample_count, _m3_identity_keys,
                                                                _m4_visit_figures)
SCHEMA_VERSION = len(MIGRATIONS)


def migrate(conn: sqlite3.Connection, migrations: tuple[Callable[[sqlite3.Connection], None], ...] = MIGRATIONS) -> int:
    """Bring the database up to ``len(migrations)``; returns the version it started at.

    The version is read again inside each write transaction (``BEGIN IMMEDIATE``), not
    before it: two processes opening a new history at the same moment would otherwise
    both see version 0 and the second would fail on "table runs already exists". The
    one that waits for the lock finds the work done and does nothing.
    """
    start: int | None = None
    while True:
        conn.execute("BEGIN IMMEDIATE")
        try:
            version = conn.execute("PRAGMA user_version").fetchone()[0]
            if start is None:
                start = version
            if version > len(migrations):
                raise TapediagError(
                    f"the history database has schema version {version}, newer than this tapediag understands "
                    f"({len(migrations)})",
                    hint="upgrade tapediag, or point TAPEDIAG_DATA_DIR elsewhere",
                )
            if version == len(migrations):
                conn.execute("COMMIT")
                return start
            migrations[version](conn)
            conn.execute(f"PRAGMA user_version = {version + 1}")
        except BaseException:
            if conn.in_transaction:
                conn.execute("ROLLBACK")
            raise
        conn.execute("COMMIT")
