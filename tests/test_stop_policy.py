"""The command line's one signal policy (``app.stop``) and the watch on outstanding commands
(``app.commandwatch``): what each decides, on their own (issue 27)."""
from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from app import stop
from app.commandwatch import ABORT_GRACE, CommandWatch
from app.events import CancelToken, Event, Message
from app.timeouts import NOTICE_DEFAULT, NOTICE_LONG, NOTICE_NOMINAL_FACTOR, nominal_times, notice_after
from native.scsi.opcodes import CommandDescriptor, CommandTimeouts, SupportedCommands
from tests.helpers.stopping import TAPEDIAG, policy_installed, wait_for

WRITE6, REWIND, MODE_SELECT6, SEND_DIAGNOSTIC = 0x0A, 0x01, 0x15, 0x1D


def _raise_in_this_process(sig: int) -> None:
    os.kill(os.getpid(), sig)
    time.sleep(0.05)  # a handler runs at the next bytecode of the main thread; give it a few


# -- app.stop --------------------------------------------------------------------------------------


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_outside_a_run_every_cancel_signal_interrupts_where_the_program_is(sig: int) -> None:
    before = signal.getsignal(sig)
    with stop.installed() as token:
        with pytest.raises(KeyboardInterrupt):
            _raise_in_this_process(sig)
        assert token.cancelled and stop.received() == (signal.Signals(sig).name,)
    assert signal.getsignal(sig) == before  # put back when the command ends


@pytest.mark.parametrize("sig", [signal.SIGINT, signal.SIGTERM, signal.SIGHUP])
def test_inside_a_run_a_signal_only_cancels_its_token(sig: int) -> None:
    with stop.installed(), stop.cancelling() as token:
        _raise_in_this_process(sig)
        assert token.cancelled and token.requested_at is not None


def test_a_run_entered_after_a_signal_does_not_start() -> None:
    with stop.installed():
        with pytest.raises(KeyboardInterrupt):
            _raise_in_this_process(signal.SIGTERM)
        with pytest.raises(KeyboardInterrupt), stop.cancelling():
            pytest.fail("a run began after the cancel")


def test_sighup_ignored_by_nohup_stays_ignored() -> None:
    previous = signal.signal(signal.SIGHUP, signal.SIG_IGN)
    try:
        with stop.installed() as token:
            _raise_in_this_process(signal.SIGHUP)
            assert not token.cancelled and signal.getsignal(signal.SIGHUP) == signal.SIG_IGN
    finally:
        signal.signal(signal.SIGHUP, previous)


def test_sigint_ignored_by_a_scripts_background_job_is_still_a_cancel(tmp_path: Path) -> None:
    """The issue's run: started in the background by a shell (SIGINT inherited ignored), a SIGINT was
    ignored until the command installed its own handler, and the test wrote the tape for 10 s, exit 0."""
    env = dict(os.environ, TAPEDIAG_DATA_DIR=str(tmp_path / "data"))
    proc = subprocess.Popen([TAPEDIAG, "tape-perf", f"virtual:lto9?cartridge={tmp_path / 'c.img'}", "--size", "10s",
                             "--direction", "write", "--force"], env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.PIPE, text=True,
                            preexec_fn=lambda: signal.signal(signal.SIGINT, signal.SIG_IGN))
    wait_for(lambda: policy_installed(proc.pid), proc, "tapediag's signal policy")  # tapediag is running
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    assert proc.returncode == 130, (out, err)


# -- app.commandwatch ---------------------------------------------------------------------------------


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


def _watch(cancel: CancelToken | None, clock: Clock, said: list[Event] | None = None) -> CommandWatch:
    return CommandWatch(cancel, (said if said is not None else []).append, device="iscsi://127.0.0.1/iqn/1",
                        notice_after=notice_after, timeout_of=lambda op: 900.0, clock=clock)


def test_a_command_outstanding_past_its_threshold_is_named_once_with_what_to_do() -> None:
    said: list[Event] = []
    watch = _watch(None, Clock(), said)
    for waited in (0.2, 5.0, NOTICE_DEFAULT - 0.1):
        assert watch(WRITE6, waited) is False
    assert said == []
    watch(WRITE6, NOTICE_DEFAULT)
    watch(WRITE6, NOTICE_DEFAULT + 10)
    assert len(said) == 1 and isinstance(said[0], Message) and said[0].level == "warning"
    text = said[0].text
    assert "not answered WRITE(6) for 20 s" in text and "15 min" in text and "Ctrl-C" in text, text
    watch(WRITE6, 0.2)  # the next command
    watch(WRITE6, NOTICE_DEFAULT)
    assert len(said) == 2


def test_a_rewind_is_not_called_stuck_while_a_full_wind_may_last() -> None:
    said: list[Event] = []
    watch = _watch(None, Clock(), said)
    watch(REWIND, 150.0)  # a full LTO-9 rewind is about two minutes
    assert said == [] and notice_after(REWIND) == NOTICE_LONG[REWIND]


def test_the_drive_s_nominal_time_moves_the_notice_later_never_earlier() -> None:
    report = SupportedCommands((CommandDescriptor(REWIND, None, 6, CommandTimeouts(nominal=200, recommended=1200)),
                                CommandDescriptor(WRITE6, None, 6, CommandTimeouts(nominal=1, recommended=1500)),
                                CommandDescriptor(MODE_SELECT6, None, 6, CommandTimeouts(nominal=0, recommended=60))),
                               needed=0)
    nominal = nominal_times(report)
    assert nominal == {REWIND: 200, WRITE6: 1}  # 0 is "not specified"
    assert notice_after(REWIND, nominal.get(REWIND)) == NOTICE_NOMINAL_FACTOR * 200
    assert notice_after(WRITE6, nominal.get(WRITE6)) == NOTICE_DEFAULT  # 3 x 1 s is shorter than the floor
    assert notice_after(MODE_SELECT6, nominal.get(MODE_SELECT6)) == NOTICE_DEFAULT


def test_a_drive_learns_the_notice_from_its_own_report() -> None:
    """The virtual drive states 120 s nominal for REWIND (native/virtual/opcodes.py): 6 min, not 4."""
    from app.drive import TapeDrive
    from native.virtual import open_virtual

    with TapeDrive(open_virtual("virtual:lto9?realtime=0")) as drive:
        drive.command_timeouts()
        assert drive._notice_after(REWIND) == NOTICE_NOMINAL_FACTOR * 120
        assert drive._notice_after(WRITE6) == NOTICE_DEFAULT


def test_without_a_cancel_nothing_is_given_up() -> None:
    assert _watch(CancelToken(), Clock())(WRITE6, 10_000.0) is False
    assert _watch(None, Clock())(WRITE6, 10_000.0) is False


def test_a_command_outstanding_at_the_cancel_is_given_up_after_the_grace() -> None:
    clock, cancel = Clock(), CancelToken()
    watch = _watch(cancel, clock)
    cancel._requested_at = clock.now - 1.0  # the cancel came 1 s ago, the command was sent 5 s ago
    assert watch(REWIND, 5.0) is False
    clock.now += ABORT_GRACE - 1.0
    assert watch(REWIND, 5.0 + ABORT_GRACE - 1.0) is True


def test_a_command_sent_after_the_cancel_to_put_something_back_gets_its_time() -> None:
    clock, cancel = Clock(), CancelToken()
    watch = _watch(cancel, clock)
    cancel._requested_at = clock.now - 30.0  # cancelled, then the run sent MODE SELECT to put the block mode back
    assert watch(MODE_SELECT6, 25.0) is False
    cancel._requested_at = clock.now  # a second cancel: that one too
    assert watch(MODE_SELECT6, 25.0) is False
    clock.now += ABORT_GRACE
    assert watch(MODE_SELECT6, 25.0 + ABORT_GRACE) is True


def test_a_write_sent_after_the_cancel_is_not_wanted() -> None:
    """The engine had not looked at the token yet: no run puts anything back with a WRITE."""
    clock, cancel = Clock(), CancelToken()
    watch = _watch(cancel, clock)
    cancel._requested_at = clock.now - 30.0
    assert watch(WRITE6, 1.0) is False  # still within the grace of its own start
    assert watch(WRITE6, ABORT_GRACE) is True


def test_the_process_default_watch_is_the_cli_s_while_its_policy_is_installed(capsys) -> None:
    from app.commandwatch import default_watch

    assert default_watch("x") is None
    with stop.installed() as token:
        watch = default_watch("iscsi://127.0.0.1/iqn/1")
        assert watch is not None and watch.cancel is token
        watch(WRITE6, NOTICE_DEFAULT)
    assert "not answered WRITE(6)" in capsys.readouterr().err
    assert default_watch("x") is None


def test_stop_is_imported_cheaply() -> None:
    """Installed before the command's module is imported: it must not pull the engines in, nor the events'
    dataclasses (its token is ``app.cancel``'s; issue 32 §3). (``app.classcache`` is the package's first line.)"""
    got = subprocess.run([sys.executable, "-c", "import app.stop, sys; print(sorted(m for m in sys.modules "
                          "if m.startswith(('app.', 'native.'))))"], capture_output=True, text=True, timeout=60)
    assert got.returncode == 0, got.stderr
    assert eval(got.stdout) == ["app.cancel", "app.classcache", "app.stop"]


def test_a_ctrl_c_while_tapediag_is_still_importing_is_one_line_and_130() -> None:
    """The window before ``app.__main__.run`` can catch it (seen once under load: a SIGINT 0.1 s after start landed
    in ``typing``'s import and printed a traceback through ``app/__main__.py``). The interrupt is raised here where
    a signal would land, right after ``app`` is imported and before the command line is."""
    code = "import app\nraise KeyboardInterrupt"
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         cwd=Path(__file__).resolve().parents[1])
    assert (got.returncode, got.stderr, got.stdout) == (130, "tapediag: cancelled\n", "")


def test_a_ctrl_c_a_finaliser_swallowed_still_cancels_and_prints_no_traceback() -> None:
    """A Ctrl-C raised while Python runs a finaliser cannot propagate (Python says "Exception ignored" and goes on):
    tapediag keeps it, prints no traceback, and its policy then cancels as for any Ctrl-C: before the command (the
    policy's install) and at a run's start. Here a real finaliser raises the interrupt, in a child interpreter."""
    code = """if True:
        import gc, sys
        import app
        from app import stop

        class Finalised:
            def __del__(self):
                raise KeyboardInterrupt  # where a signal's handler would raise it

        Finalised()
        gc.collect()
        try:
            with stop.installed():
                print("the command ran")
        except KeyboardInterrupt:
            print("cancelled before the command")
    """
    got = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60,
                         cwd=Path(__file__).resolve().parents[1])
    assert got.returncode == 0 and got.stdout == "cancelled before the command\n", got
    assert "Traceback" not in got.stderr and "Exception ignored" not in got.stderr, got.stderr


def test_a_program_a_test_starts_gets_ctrl_c_as_a_terminal_gives_it() -> None:
    """However the suite was started (a background job of a script ignores SIGINT, and its children inherit that),
    a program a test starts takes SIGINT as a terminal's foreground program does (``tests/conftest.py``): the
    stopping tests press Ctrl-C before tapediag's own policy is installed too."""
    import subprocess
    import sys

    shown = subprocess.run([sys.executable, "-c", "import signal; print(signal.getsignal(signal.SIGINT).__name__)"],
                           capture_output=True, text=True, check=True, timeout=60).stdout.strip()
    assert shown == "default_int_handler"


def test_a_ctrl_c_python_printed_and_ran_past_in_its_own_start_up_still_cancels(tmp_path: Path) -> None:
    """CPython prints a KeyboardInterrupt that lands while it checks whether the script is a zip archive, then runs
    the script (seen once under load: a write test interrupted at 0.1 s ran to its end). It keeps the exception as
    ``sys.last_value``; the console script's first line sees it: one line, 130, nothing run."""
    script = ("import sys\nsys.last_type, sys.last_value = KeyboardInterrupt, KeyboardInterrupt()\n"
              "sys.argv = ['tapediag', 'info', 'virtual:lto9']\nfrom app.__main__ import run\nsys.exit(run())")
    got = subprocess.run([sys.executable, "-c", script], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "TAPEDIAG_DATA_DIR": str(tmp_path)})
    assert (got.returncode, got.stdout, got.stderr) == (130, "", "tapediag: cancelled\n")
    assert not list(tmp_path.iterdir())  # no history, no cartridge: nothing of the command ran

