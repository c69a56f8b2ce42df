"""Suite-wide fixtures. Area fixtures live in tests/helpers/ and are loaded as plugins."""
from __future__ import annotations

import os
import shutil
import signal
from pathlib import Path
from typing import Iterator

import pytest

import app.catalog  # noqa: F401  (the run kinds, as every entry point installs them)
from app.__main__ import provide_front_ends

provide_front_ends()  # the PDF writer and the desktop app, as the tapediag command has them

pytest_plugins = ["tests.helpers.tgt", "tests.helpers.tgt_library", "tests.kernel.session"]

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")

# A shell without job control that starts the suite in the background (`bash scripts/test.sh &` from a script, a
# CI runner's step) ignores SIGINT for it, and every program a test starts inherits that: tapediag, started by a
# test that presses Ctrl-C at 0.1 s, before its own policy is installed, then ran to the end (rc 0, seen in a
# quiet run started so). Here each test's program gets SIGINT as a terminal's foreground program has it.
if signal.getsignal(signal.SIGINT) == signal.SIG_IGN:
    signal.signal(signal.SIGINT, signal.default_int_handler)
# Likewise a suite started under ``nohup`` ignores SIGHUP, which tapediag's policy rightly keeps ignored (``nohup
# tapediag ...``: the run outlives the terminal); the tests of that policy send SIGHUP as a terminal's program
# gets it (two failed so in a run started with nohup; the nohup case itself is a test of its own).
if hasattr(signal, "SIGHUP") and signal.getsignal(signal.SIGHUP) == signal.SIG_IGN:
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


#: Each test's reports (setup, call), for its own directories' teardown (``_tidy``).
_REPORTS = pytest.StashKey[dict[str, pytest.TestReport]]()


@pytest.hookimpl(wrapper=True, tryfirst=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]):
    report = yield
    item.stash.setdefault(_REPORTS, {})[report.when] = report
    return report


def _tidy(request: pytest.FixtureRequest, path: Path) -> None:
    """A test's own directory goes when the test passed, as pytest does with ``tmp_path`` under
    ``tmp_path_retention_policy`` ("failed" in pyproject.toml): the data directories hold the virtual
    cartridges, up to a GiB a test, and kept to the session's end they made a run take 5-7 GB of /tmp."""
    policy = request.config.getini("tmp_path_retention_policy")
    reports = request.node.stash.get(_REPORTS, {})
    passed = all(r.passed for r in reports.values()) and "call" in reports
    if policy == "none" or (policy == "failed" and passed):
        shutil.rmtree(path, ignore_errors=True)


@pytest.fixture(autouse=True)
def isolated_data_dir(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                      monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own data directory: history, virtual cartridges, settings."""
    path = tmp_path_factory.mktemp("tapediag-data")
    monkeypatch.setenv("TAPEDIAG_DATA_DIR", str(path))
    yield path
    _tidy(request, path)


@pytest.fixture(autouse=True)
def isolated_claims(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory,
                    monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """Every test gets its own directory of device claims (``app.claims``): every tgtd of every run on
    this machine serves the same WWN for target 1 LUN 1, so a shared directory would make tests of
    different runs refuse each other."""
    path = tmp_path_factory.mktemp("tapediag-claims")
    monkeypatch.setenv("TAPEDIAG_LOCK_DIR", str(path))
    yield path
    _tidy(request, path)
