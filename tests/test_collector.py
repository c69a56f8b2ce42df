"""When the garbage collector runs in a ``tapediag`` process (``app.collector``, issue 32 §3): paused while the
command loads, collecting as usual while it runs, what is left at exit frozen; a caller's own process untouched."""

from __future__ import annotations

import gc
import os
import subprocess
import sys
from pathlib import Path

import pytest

from app.cli import main

ROOT = Path(__file__).resolve().parents[1]

#: ``tapediag info virtual:lto9`` as the console script runs it, its command's ``run`` wrapped to say what the
#: collector was doing while the command ran, and the script's end to say what was left for the collector
WATCHED = r"""
import gc, sys
sys.argv = ["tapediag", "info", "virtual:lto9"]
import app.cli.info as info
command = info.run
def run(args):
    print("while running: enabled", gc.isenabled(), "frozen", gc.get_freeze_count() > 10000, file=sys.stderr)
    return command(args)
info.run = run
from app.__main__ import run as console_script
code = console_script()
print("at exit: enabled", gc.isenabled(), "left to collect", len(gc.get_objects()) < 100, file=sys.stderr)
sys.exit(code)
"""


def test_the_command_runs_with_the_collector_and_leaves_nothing_to_collect_at_exit(tmp_path) -> None:
    env = dict(os.environ, TAPEDIAG_DATA_DIR=str(tmp_path))
    proc = subprocess.run([sys.executable, "-c", WATCHED], cwd=ROOT, env=env, capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert "Healthy" in proc.stdout
    assert "while running: enabled True frozen True" in proc.stderr  # loaded: frozen, then collecting
    assert "at exit: enabled True left to collect True" in proc.stderr


def test_the_collector_is_paused_only_until_the_command_is_loaded() -> None:
    script = ("import gc\nfrom app import collector\n"
              "collector.pause_while_loading(); assert not gc.isenabled()\n"
              "collector.loaded(); assert gc.isenabled() and gc.get_freeze_count() > 0\n"
              "n = gc.get_freeze_count(); collector.loaded(); assert gc.get_freeze_count() == n  # once only\n"
              "print('ok')")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr


def test_a_caller_in_its_own_process_keeps_its_collector(capsys) -> None:
    """``app.cli.main`` called in a test's (or another program's) process neither pauses nor freezes."""
    enabled, frozen = gc.isenabled(), gc.get_freeze_count()
    with pytest.raises(SystemExit) as ended:  # argparse's help ends by SystemExit(0)
        main(["--help"])
    assert ended.value.code == 0
    assert "tapediag" in capsys.readouterr().out
    assert gc.isenabled() == enabled and gc.get_freeze_count() == frozen
