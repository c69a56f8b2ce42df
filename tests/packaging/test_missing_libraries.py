"""Without libsgutils2 and libiscsi, `tapediag devices` says which transports are closed.

The bundles take both libraries from the machine they run on; this checks the message
from the source tree (the frozen bundle gets the same check in test_bundle.py). The
libraries are hidden in a private mount namespace: an empty file bound over each.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from tests.packaging.test_bundle import SYSTEM_LIBRARIES, library_file

ROOT = Path(__file__).resolve().parents[2]


def hidden_libraries_command(*argv: str) -> list[str]:
    files = [library_file(soname) for soname in SYSTEM_LIBRARIES.values()]
    if None in files or shutil.which("unshare") is None:
        pytest.skip("needs libsgutils2 and libiscsi installed, and unshare")
    if subprocess.run(["unshare", "-m", "true"], capture_output=True).returncode != 0:
        pytest.skip("cannot create a mount namespace here (needs root)")
    hide = " && ".join(f"mount --bind /dev/null {f}" for f in files)
    return ["unshare", "-m", "sh", "-c", f'{hide} && exec "$0" "$@"', *argv]


def test_devices_names_each_missing_library() -> None:
    cmd = hidden_libraries_command(sys.executable, "-m", "app", "devices", "--json")
    result = subprocess.run(cmd, capture_output=True, text=True, cwd=ROOT, env=dict(os.environ), timeout=120)
    assert result.returncode == 0, result.stderr
    assert result.stdout.lstrip().startswith("[")  # --json stays a plain list
    notes = [line for line in result.stderr.splitlines() if line.startswith("unavailable: ")]
    assert len(notes) == 2, result.stderr
    assert any("libsgutils2" in n and "apt-get install" in n for n in notes)
    assert any("libiscsi" in n and "iSCSI" in n for n in notes)


def test_devices_is_quiet_when_both_libraries_are_present() -> None:
    if None in (library_file(s) for s in SYSTEM_LIBRARIES.values()):
        pytest.skip("needs libsgutils2 and libiscsi installed")
    result = subprocess.run([sys.executable, "-m", "app", "devices"], capture_output=True, text=True,
                            cwd=ROOT, timeout=120)
    assert result.returncode == 0, result.stderr
    assert "unavailable:" not in result.stderr
