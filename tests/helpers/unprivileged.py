"""Run a command as root *without* root's licence to ignore file modes.

The permission-denied tests need a process that the kernel refuses. Switching to
'nobody' does that, but only where 'nobody' can also reach the interpreter and the
source: a checkout under /root (mode 700 on Debian) cannot be imported by 'nobody' at
all, and the test would fail for the wrong reason. Dropping CAP_DAC_OVERRIDE,
CAP_DAC_READ_SEARCH and CAP_FOWNER from the bounding set instead leaves a uid-0 process
that file modes apply to like any owner: a root-owned file of mode 000 is unreadable
to it, a root-owned directory of mode 555 refuses new entries, and the checkout is
still its own.
"""
from __future__ import annotations

import os
import shutil
import subprocess
from typing import Sequence

import pytest

_DROP = "-dac_override,-dac_read_search,-fowner"


def run_unprivileged(argv: Sequence[str], **kwargs) -> subprocess.CompletedProcess:
    """``subprocess.run(argv)`` without the file-mode bypass; skips the test where that
    cannot be arranged (not root, no setpriv, no CAP_SETPCAP in a container)."""
    if os.geteuid() != 0:
        pytest.skip("needs root (it drops root's file-mode capabilities)")
    if shutil.which("setpriv") is None:
        pytest.skip("setpriv (util-linux) not installed")
    proc = subprocess.run(["setpriv", "--inh-caps=-all", f"--bounding-set={_DROP}", *argv], **kwargs)
    stderr = proc.stderr if isinstance(proc.stderr, str) else (proc.stderr or b"").decode(errors="replace")
    if stderr.startswith("setpriv:"):
        pytest.skip(f"setpriv cannot drop capabilities here: {stderr.strip()}")
    return proc
