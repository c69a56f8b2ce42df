"""Running Windows programs under Wine for the Windows bundle's tests.

The prefix is the one packaging/build-windows-wine.sh made (its Windows CPython and the
Wine-only workarounds live there, never in the bundle). Why the care:

* stdin, stdout and stderr are pipes (stdin closed at once): CPython under Wine 8 dies
  at start-up when its standard handles are files, and with /dev/null as stdin its
  subprocess module finds an invalid handle to pass on ([WinError 6]);
* paths handed to the Windows program are Windows paths (``C:\\...`` inside the prefix's
  drive_c, ``Z:\\...`` for the rest of the Linux file system);
* ``WINEDEBUG=-all`` keeps Wine's own chatter out of the program's stderr.
"""
from __future__ import annotations

import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path, PureWindowsPath

ROOT = Path(__file__).resolve().parents[2]
CACHE = Path(os.environ.get("TAPEDIAG_WINE_CACHE", "/var/cache/tapediag-wine"))
BUNDLE = ROOT / "dist" / "tapediag-windows" / "tapediag"
BUILD_SCRIPT = ROOT / "packaging" / "build-windows-wine.sh"


def wine_binary() -> str | None:
    return shutil.which("wine") or shutil.which("wine64")


@dataclass(frozen=True)
class Wine:
    """One Wine prefix; ``run`` starts a Windows program in it."""

    prefix: Path

    @property
    def drive_c(self) -> Path:
        return self.prefix / "drive_c"

    def windows_path(self, path: Path) -> str:
        """The Windows name of a Linux path (C: for the prefix's drive_c, Z: for the rest)."""
        path = path.resolve()
        if path == self.drive_c or self.drive_c in path.parents:
            return str(PureWindowsPath("C:\\", *path.relative_to(self.drive_c).parts))
        return str(PureWindowsPath("Z:\\", *path.parts[1:]))

    def env(self, extra: dict[str, str] | None = None) -> dict[str, str]:
        env = {
            "PATH": "/usr/local/bin:/usr/bin:/bin",
            "HOME": os.environ.get("HOME", "/root"),
            "WINEPREFIX": str(self.prefix),
            "WINEDEBUG": "-all",
            "WINEDLLOVERRIDES": "winemenubuilder.exe=d;mscoree=d;mshtml=d",
            "LANG": "C.UTF-8",
        }
        return env | (extra or {})

    def run(self, program: str, args: list[str], env: dict[str, str] | None = None,
            timeout: float = 300, cwd: Path | None = None) -> subprocess.CompletedProcess[str]:
        wine = wine_binary()
        assert wine, "wine is not installed"
        return subprocess.run(
            [wine, program, *args], env=self.env(env), cwd=cwd or self.drive_c,
            input="", capture_output=True, text=True, encoding="utf-8", errors="replace", timeout=timeout,
        )

    def wait_idle(self, timeout: float = 300) -> None:
        """Until no program runs in this prefix and its wineserver has ended (``wineserver -w``), so that the
        next program starts a fresh wineserver and desktop with its own environment (its DISPLAY)."""
        server = shutil.which("wineserver")
        if server is not None:
            subprocess.run([server, "-w"], env=self.env(), timeout=timeout, check=False)

    def popen(self, program: str, args: list[str], env: dict[str, str] | None = None) -> subprocess.Popen[str]:
        wine = wine_binary()
        assert wine, "wine is not installed"
        return subprocess.Popen(
            [wine, program, *args], env=self.env(env), cwd=self.drive_c, stdin=subprocess.PIPE,
            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, encoding="utf-8", errors="replace",
        )


def build_prefix() -> Wine | None:
    """The build's prefix, or None when there is none (the bundle was never built here)."""
    prefix = CACHE / "prefix"
    if wine_binary() is None or not (prefix / "system.reg").is_file():
        return None
    return Wine(prefix)


def build_if_asked() -> None:
    """TAPEDIAG_BUILD_WINDOWS=1: build the Windows bundle first (~5 min warm, more cold)."""
    if os.environ.get("TAPEDIAG_BUILD_WINDOWS") == "1" and not os.environ.get("TAPEDIAG_WINDOWS_BUILT"):
        subprocess.run(["bash", str(BUILD_SCRIPT)], check=True, timeout=3600, stdin=subprocess.DEVNULL)
        os.environ["TAPEDIAG_WINDOWS_BUILT"] = "1"  # once per pytest process


def under_wine() -> bool:
    """True in a Windows process that Wine runs (its ntdll exports wine_get_version)."""
    if sys.platform != "win32":
        return False
    import ctypes

    return hasattr(ctypes.WinDLL("ntdll"), "wine_get_version")
