"""The methods ``dataclasses`` writes for tapediag's classes, compiled once and kept beside the bytecode.

Why (issue 32 §3): every ``@dataclass`` writes its ``__init__``, ``__repr__``, ``__eq__`` (and, frozen,
``__hash__``, ``__setattr__``, ``__delattr__``) as Python source and compiles it with ``exec`` each time
the class is built, at every start of every process. ``tapediag info virtual:lto9`` builds 134 classes:
778 compilations, about 40 ms of its ~120 ms of CPU, more than all its own work. Python caches a module's
bytecode but not these methods.

How: ``dataclasses`` calls ``exec`` once per method text (3.11, 3.12) or once per class (3.13), and nowhere
else. :func:`install` gives that module its own ``exec`` (a name in its namespace, found before the
builtin): for a class of ``app``, ``native`` or ``ui`` (which says so: ``keep_for``) it looks the text up
in a table stored beside the class's module's bytecode (``<module>.<tag>.dataclass-methods``, in the same
``__pycache__`` Python uses, so ``PYTHONPYCACHEPREFIX`` applies), compiling only a text it has not seen;
then runs the compiled code exactly as the builtin would have run the text. The text is the key, so a changed class is simply a
miss, and the same text always gives the same code: what ``==``, ``repr``, ``hash``, ``asdict`` and the
signatures of a class do cannot differ from what the stock ``dataclasses`` makes (``tests/test_classcache.py``
builds every class of ``app`` and ``native`` both ways and compares the methods' code).

What it writes, and when: only when Python itself may write bytecode (``sys.dont_write_bytecode`` false),
only for tapediag's own modules (never another package's ``__pycache__``), once at exit and only if a
text was compiled, each file replaced whole (written aside, then renamed), so two processes never leave
a half file; one that cannot be written (a read-only install) or read (damaged, another Python's) is
ignored, and the methods are compiled as without it. A table holds the texts this process used for its
module: tapediag builds every class of a module at the module's import, so any command that imports it uses
the same ones, and a text no class has any more (a class changed) is gone at the next write.
"""

from __future__ import annotations

import atexit
import builtins
import marshal
import os
import sys
from importlib.util import MAGIC_NUMBER
from types import CodeType
from typing import Any

#: the packages whose classes' methods are kept: tapediag's own, whose ``__pycache__`` it may write (``ui`` adds
#: itself with ``keep_for``: nothing in ``app`` names the desktop app's package)
OWN_PACKAGES = {"app", "native"}
#: what a file starts with: ours, and for this Python's bytecode only (marshal's format follows it)
HEADER = b"tapediag dataclass methods\n" + MAGIC_NUMBER
SUFFIX = ".dataclass-methods"


class _Table:
    """One module's compiled method texts: those read from its file, those used in this process."""

    __slots__ = ("path", "stored", "used", "compiled")

    def __init__(self, path: str | None) -> None:
        self.path = path
        self.stored: dict[str, CodeType] = _read(path) if path else {}
        self.used: dict[str, CodeType] = {}
        self.compiled = 0  # texts compiled in this process (not found in the stored table)

    def code_for(self, text: str) -> CodeType:
        code = self.used.get(text) or self.stored.get(text)
        if code is None:
            # flags 0 and no inheritance: the builtin ``exec`` called in ``dataclasses`` (which has no
            # ``from __future__``) compiles its text so, not with this module's ``annotations`` future
            code = compile(text, "<string>", "exec", dont_inherit=True)
            self.compiled += 1
        self.used[text] = code
        return code


#: by module name; None for a module not tapediag's (its methods are compiled as without this module)
_tables: dict[str | None, _Table | None] = {}


def _read(path: str) -> dict[str, CodeType]:
    try:
        with open(path, "rb") as file:
            data = file.read()
    except OSError:
        return {}
    if not data.startswith(HEADER):
        return {}
    try:
        table = marshal.loads(data[len(HEADER):])
    except (EOFError, ValueError, TypeError):
        return {}
    if not isinstance(table, dict) or not all(type(k) is str and type(v) is CodeType for k, v in table.items()):
        return {}
    return table


def _table_for(module_globals: dict[str, Any]) -> _Table | None:
    name = module_globals.get("__name__")
    try:
        return _tables[name]  # one lookup for all but a module's first class
    except KeyError:
        pass
    table = None
    if isinstance(name, str) and name.partition(".")[0] in OWN_PACKAGES:
        cached = module_globals.get("__cached__")
        path = cached[: -len(".pyc")] + SUFFIX if isinstance(cached, str) and cached.endswith(".pyc") else None
        table = _Table(path)
    _tables[name] = table
    return table


def _exec(source: Any, globals: Any = None, locals: Any = None, /) -> None:  # noqa: A002 (exec's own names)
    """``dataclasses``' ``exec``: a method text of one of tapediag's classes runs from its compiled code."""
    table = _table_for(globals) if type(source) is str and type(globals) is dict else None
    if table is None:
        builtins.exec(source, globals, locals)
        return
    builtins.exec(table.code_for(source), globals, locals)


def _save() -> None:
    """Write the table of each module whose methods had to be compiled (at exit, once per process)."""
    if sys.dont_write_bytecode:
        return
    for table in _tables.values():
        if table is not None and table.compiled and table.path:
            _write(table.path, table.used)


def _write(path: str, used: dict[str, CodeType]) -> None:
    """The table, written beside ``path`` then renamed over it. The new file is ``app.paths.create_beside``'s (never
    an existing file or a planted link); not synced: a table lost or cut short by a crash is read as none."""
    from pathlib import Path

    from app.paths import create_beside

    try:
        fd, aside = create_beside(Path(path))
    except OSError:
        return
    try:
        with os.fdopen(fd, "wb") as file:
            file.write(HEADER + marshal.dumps(used))
        os.replace(aside, path)
    except OSError:
        try:
            os.unlink(aside)
        except OSError:
            pass


def keep_for(package: str) -> None:
    """Keep the methods of ``package``'s classes too (a package of tapediag's, before its first class is built)."""
    OWN_PACKAGES.add(package)


def counts() -> tuple[int, int]:
    """How many of this process's method texts came from a stored table, and how many were compiled."""
    tables = [table for table in _tables.values() if table is not None]
    used = sum(len(table.used) for table in tables)
    compiled = sum(table.compiled for table in tables)
    return used - compiled, compiled


def install() -> None:
    """Give ``dataclasses`` the caching ``exec`` (once; before tapediag's first class is built)."""
    import dataclasses

    if getattr(sys, "frozen", False) or vars(dataclasses).get("exec") is _exec:
        return  # a bundle (PyInstaller) keeps its modules in an archive, with no bytecode directory to write beside
    dataclasses.exec = _exec  # type: ignore[attr-defined]
    atexit.register(_save)
