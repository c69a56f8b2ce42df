"""tapediag's Qt-free core: SCSI command set, drive model, tests, rules, reports, CLI."""

import os
import sys

__version__ = "0.1.0"


def _cancelled_while_loading(kind: type[BaseException], value: BaseException, tb: object) -> None:
    """A Ctrl-C while Python is still importing tapediag (before ``app.__main__.run`` can catch it): one line
    and exit 130, as any other cancel, not a traceback through ``typing``. Installed first thing, so only an
    interrupt in the interpreter's own start-up, before any line of tapediag runs, is left to Python; nothing
    has been opened or written at import time, so ending the process here leaves nothing half done."""
    if issubclass(kind, KeyboardInterrupt):
        sys.stderr.write("tapediag: cancelled\n")
        sys.stderr.flush()
        os._exit(130)
    sys.__excepthook__(kind, value, tb)  # type: ignore[arg-type]


if sys.excepthook is sys.__excepthook__:  # a host that set its own (a test runner, an IDE) keeps it
    sys.excepthook = _cancelled_while_loading

#: Ctrl-Cs (and the other cancelling signals, once ``app.stop``'s policy raises them) that landed while Python
#: ran a finaliser and so could not propagate. ``app.stop`` cancels on them at its next check.
INTERRUPTS_IN_FINALISERS: list[str] = []


def _interrupt_in_finaliser(unraisable: "sys.UnraisableHookArgs") -> None:
    """A signal's ``KeyboardInterrupt`` raised while Python runs a finaliser (an object's ``__del__``, a generator
    the garbage collector closes, mid-import as anywhere) cannot propagate: Python prints "Exception ignored" with
    a traceback and goes on as if no Ctrl-C had come (seen once under load, in a write test that then had to be
    stopped by its token). Remembered instead, and not printed: ``app.stop`` treats it as the cancel it was, so
    the run stops before anything is written. Anything else is reported as Python reports it."""
    if isinstance(unraisable.exc_value, KeyboardInterrupt):
        INTERRUPTS_IN_FINALISERS.append(repr(unraisable.object))
        return
    sys.__unraisablehook__(unraisable)


if sys.unraisablehook is sys.__unraisablehook__:  # a host that set its own (a test runner) keeps it
    sys.unraisablehook = _interrupt_in_finaliser

# numpy (the engines' sample arrays, pyqtgraph) starts OpenBLAS's worker threads at import, one
# per core, and they spin when woken: on a two-core box that is the core a local target or the
# disk under test needs. tapediag does no BLAS work (a whole-run profile of a tape write found
# 4 % of its samples in blas_thread_server); set before numpy is imported, a user's setting kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")

# Before any of tapediag's classes is built: their dataclass methods come compiled from beside the
# bytecode instead of being compiled again at every start (``app.classcache``, issue 32 §3).
from app import classcache as _classcache  # noqa: E402

_classcache.install()
