"""PyInstaller runtime hook: hand child processes the user's library path, not ours.

The bootloader may prepend the bundle's folder to LD_LIBRARY_PATH (keeping the user's
value in LD_LIBRARY_PATH_ORIG). A system program the app starts (fio, sg3_utils'
tools, tgtadm) must not inherit that, or it would load the bundle's copies of
libraries built for another version. The running process is unaffected: the dynamic
linker read the variable when the process started.
"""
import os
import sys

if sys.platform.startswith("linux"):
    _original = os.environ.pop("LD_LIBRARY_PATH_ORIG", None)
    _bundle = getattr(sys, "_MEIPASS", None)
    if _bundle and _bundle in os.environ.get("LD_LIBRARY_PATH", "").split(os.pathsep):
        if _original:
            os.environ["LD_LIBRARY_PATH"] = _original
        else:
            del os.environ["LD_LIBRARY_PATH"]
