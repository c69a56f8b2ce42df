"""What the Linux and Windows spec files share: the analysis of tapediag's code.

The spec files are executed by PyInstaller with ``SPECPATH`` set; they put this folder
on ``sys.path`` and call ``analysis(...)``. Everything tapediag loads by name at run
time (the CLI's sub-command modules, the transports, the C helpers ``native._*``) is
invisible to PyInstaller's import scan, so whole packages are collected here.
"""
from __future__ import annotations

import fnmatch
from pathlib import Path

from PyInstaller.building.build_main import Analysis
from PyInstaller.utils.hooks import collect_data_files, collect_submodules

PACKAGING = Path(__file__).resolve().parent
ROOT = PACKAGING.parent
PACKAGES = ("app", "native", "ui")

# Never bundled: the GUI toolkits we do not use and the test tools.
EXCLUDES = [
    "tkinter", "PyQt5", "PyQt6", "PySide2", "matplotlib", "IPython",
    "pytest", "_pytest", "hypothesis", "pytestqt",
]

# Libraries the Linux bundle must take from the system, never from the build machine:
# the transports load them with ctypes when present, and say which transport is
# unavailable when not. (PyInstaller would otherwise bundle any library it sees named
# in a ctypes call.)
SYSTEM_ONLY_LINUX = ["libsgutils2*", "libiscsi*"]

# Qt's GTK3 theme plugin would load the machine's GTK 3 against the bundle's own (older
# or newer) GLib: a known crash at start-up. Qt's built-in style is used instead.
UNWANTED_LINUX = ["libqgtk3.so"]


def hidden_imports() -> list[str]:
    """Every module of tapediag's packages, including the compiled ``native._*``."""
    names: list[str] = []
    for package in PACKAGES:
        names += collect_submodules(package)
    return names


def data_files() -> list[tuple[str, str]]:
    """``resources/`` (next to the packages, as in the source tree) and package data."""
    datas: list[tuple[str, str]] = []
    resources = ROOT / "resources"
    if resources.is_dir():
        datas.append((str(resources), "resources"))
    for package in PACKAGES:
        datas += collect_data_files(package, excludes=["**/*.c", "**/*.h", "**/__pycache__/**"])
    return datas


def analysis(*, extra_binaries: list[tuple[str, str]] | None = None) -> Analysis:
    return Analysis(
        [str(PACKAGING / "launcher.py")],
        pathex=[str(ROOT)],
        binaries=extra_binaries or [],
        datas=data_files(),
        hiddenimports=hidden_imports(),
        hookspath=[],
        runtime_hooks=[str(PACKAGING / "rthooks" / "restore_library_path.py")],
        excludes=EXCLUDES,
        noarchive=False,
    )


def drop_binaries(toc, patterns: list[str]):
    """``toc`` without the binaries whose file name matches one of ``patterns``."""
    kept = []
    for entry in toc:
        name = Path(entry[0]).name
        if any(fnmatch.fnmatch(name, pattern) for pattern in patterns):
            continue
        kept.append(entry)
    return kept
