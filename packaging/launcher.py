"""Entry point of the frozen bundles: one program, two executables.

PyInstaller builds this one script into two executables that share one folder (one
analysis, so Qt, numpy and the C helpers are collected once). The executable's own
name chooses what runs: the desktop app for ``tapediag-gui`` (Linux) and
``tapediag.exe`` (Windows, where the double-clicked program must be the GUI), the
command line for every other name (``tapediag``, ``tapediag-cli.exe``). The command
line's own ``tapediag gui`` works in both.
"""
from __future__ import annotations

import multiprocessing
import os
import sys

# Executable stems that start the desktop app, per platform.
GUI_NAMES = {"win32": {"tapediag"}}
DEFAULT_GUI_NAMES = {"tapediag-gui"}


def wants_gui(executable: str, platform: str = sys.platform) -> bool:
    """True when ``executable`` (a path) is one of the bundle's GUI executables."""
    stem = os.path.splitext(os.path.basename(executable))[0].lower()
    return stem in GUI_NAMES.get(platform, DEFAULT_GUI_NAMES)


def give_windowed_streams_a_sink() -> None:
    """A windowed Windows executable has no console: sys.stdout/stderr are None.

    Code that writes to them (logging's default handler, faulthandler, a stray print
    to stderr) would then fail inside the GUI; give them a sink that drops the text.
    """
    for name in ("stdout", "stderr"):
        if getattr(sys, name) is None:
            setattr(sys, name, open(os.devnull, "w", encoding="utf-8"))


def main() -> int:
    give_windowed_streams_a_sink()
    # A frozen program that uses multiprocessing must say so before anything else, or
    # each worker process would start a second copy of the application.
    multiprocessing.freeze_support()
    if wants_gui(sys.executable):
        from ui.main import main as gui_main

        return int(gui_main() or 0)
    # The command line's composition root: it gives the CLI Qt's PDF writer and the desktop app (app.frontends).
    from app.__main__ import run as cli_main

    return cli_main()


if __name__ == "__main__":
    sys.exit(main())
