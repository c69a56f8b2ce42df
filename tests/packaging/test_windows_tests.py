"""The part of the test suite that applies to Windows, run by the Windows Python under Wine.

packaging/build-windows-wine.sh leaves a Windows CPython 3.12 in its Wine prefix with
the project importable (the C helpers cross-built in native/) and pytest installed.
This runs the platform-neutral areas there -- units, patterns, the virtual drive, the
disk tests (including tests/disk/test_winio.py, Windows only) and the SCSI parsers --
so a Windows regression fails CI. Tests that need tgtd, a Linux kernel or the GUI
are deselected by marker; the rest skip themselves where they need Linux.
Runs when the prefix exists, or builds it first with TAPEDIAG_BUILD_WINDOWS=1.
"""
from __future__ import annotations

import re

import pytest

from tests.helpers.wine import ROOT, build_if_asked, build_prefix

pytestmark = pytest.mark.slow

# Areas whose code runs on Windows (paths relative to the repository root).
WINDOWS_AREAS = [
    "tests/test_units.py", "tests/test_patterns.py", "tests/virtual", "tests/disk", "tests/scsi",
    "tests/transport/test_winstorage.py", "tests/transport/test_iscsi_windows_advice.py", "tests/test_paths.py",
]


def test_windows_subset_passes_under_the_windows_python() -> None:
    build_if_asked()
    wine = build_prefix()
    python = wine.drive_c / "python312" / "python.exe" if wine else None
    if wine is None or python is None or not (python.parent / "Lib" / "site-packages" / "pytest").is_dir():
        pytest.skip("no Windows Python with pytest in the Wine prefix (packaging/build-windows-wine.sh)")
    # The prefix is shared by every checkout on this machine; the C helpers it imports are this
    # checkout's own, cross-built into native/ by the same script (a clean clone has none yet).
    missing = [c.stem for c in sorted((ROOT / "native" / "src").glob("_*.c"))
               if not (ROOT / "native" / f"{c.stem}.cp312-win_amd64.pyd").is_file()]
    if missing:
        pytest.skip(f"the C helpers {', '.join(missing)} are not cross-built for Windows in this checkout "
                    "(bash packaging/build-windows-wine.sh, or TAPEDIAG_BUILD_WINDOWS=1; .ci/run does it)")
    result = wine.run(
        "C:\\python312\\python.exe",
        ["-m", "pytest", "-q", "-p", "no:cacheprovider", "--timeout", "300", "-m", "not tgt and not gui and not kernel",
         *WINDOWS_AREAS],
        # The Windows process's environment: none of this Linux run's (TAPEDIAG_DATA_DIR is set per test).
        env={"QT_QPA_PLATFORM": "offscreen"}, cwd=ROOT, timeout=2400,
    )
    output = result.stdout + result.stderr
    print(output[-6000:])
    assert result.returncode == 0, output[-6000:]
    summary = re.search(r"(\d+) passed", output)
    assert summary and int(summary.group(1)) > 100, output[-2000:]
