"""Suite-wide fixtures. Area fixtures live in tests/helpers/ and are loaded as plugins."""
from __future__ import annotations

import os

import pytest

import app.catalog  # noqa: F401  (the run kinds, as every entry point installs them)
from app.__main__ import provide_front_ends

provide_front_ends()  # the PDF writer and the desktop app, as the tapediag command has them

pytest_plugins = ["tests.helpers.tgt", "tests.helpers.tgt_library", "tests.kernel.session"]

os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")


@pytest.fixture(autouse=True)
def isolated_data_dir(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Every test gets its own data directory: history, virtual cartridges, settings."""
    path = tmp_path_factory.mktemp("tapediag-data")
    monkeypatch.setenv("TAPEDIAG_DATA_DIR", str(path))
    return path


@pytest.fixture(autouse=True)
def isolated_claims(tmp_path_factory: pytest.TempPathFactory, monkeypatch: pytest.MonkeyPatch):
    """Every test gets its own directory of device claims (``app.claims``): every tgtd of every run on
    this machine serves the same WWN for target 1 LUN 1, so a shared directory would make tests of
    different runs refuse each other."""
    path = tmp_path_factory.mktemp("tapediag-claims")
    monkeypatch.setenv("TAPEDIAG_LOCK_DIR", str(path))
    return path
