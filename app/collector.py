"""When the garbage collector runs in the life of a ``tapediag`` process: not while it loads, not at its exit.

Why (issue 32 §3): loading a command builds some 20,000 objects (modules, classes, functions, the parser)
that all live as long as the process; the collector, triggered every 700 new objects, walked them 58 times
while ``tapediag info virtual:lto9`` loaded (about 4 ms of its CPU) and found almost nothing to free. At
exit the interpreter collects every cycle still alive (each class, module and function) only to free
memory the operating system takes back anyway: about 13 ms of that command's ~95 ms.

The pattern is the one ``gc.freeze``'s documentation gives: the collector disabled early, what exists then
frozen (moved where no collection looks again), the collector enabled for the rest. The command itself runs
with the collector as usual (a long tape run's cycles are collected as before, and its full collections
no longer walk the objects frozen at start-up).

What freezing at exit leaves undone: the finalisers of objects in reference cycles (an object held only by
itself or a cycle is not closed by the interpreter). Nothing of tapediag's leans on that: a file is closed
by its ``with``, the history's connection commits and closes before the command returns, and what must run at
exit runs from ``atexit``, which the freeze does not touch (``app.classcache`` writes its tables so); objects
outside cycles are released by their reference counts as before.

Only the process's entry points (``app.__main__.run``, the bundles' launcher through it) pause and freeze; a
test or a program that calls ``app.cli.main`` in its own process keeps its collector as it was.
"""

from __future__ import annotations

import gc

_paused = False


def pause_while_loading() -> None:
    """Disable the collector until :func:`loaded` (at a process's start, before the command is imported)."""
    global _paused
    if gc.isenabled():
        gc.disable()
        _paused = True


def loaded() -> None:
    """The command is loaded: freeze what exists (it lives as long as the process) and collect as usual from
    here. Does nothing unless :func:`pause_while_loading` paused the collector (an in-process caller's is left
    alone); called again, nothing more."""
    global _paused
    if _paused:
        _paused = False
        gc.freeze()
        gc.enable()


def leaving() -> None:
    """The process is about to end: what is still alive is left to the operating system, not collected."""
    loaded()
    gc.freeze()
