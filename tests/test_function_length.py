"""No function over 80 lines in ``app/`` and ``native/`` (the house rule: small functions whose names say
what they do). Counted with ``ast``, from the ``def`` line to the function's last line, docstring and
comments included; nested functions count on their own and inside their parent.

Exceptions are named here, one by one, with why: tables a tool writes (none today: the generated tables,
``native/scsi/asc_table.py`` and the like, are module-level data, not functions) and functions known to
be rewritten right now by another piece of work (none today; ``app/runs/`` and ``app/cli/``'s renderers
are being rewritten by the run-model work, issue 26 items 1-3: a long renderer it leaves is listed here
with that reason until it is split). The C helpers (``native/src``) are held to the same limit by a plainer
count: from a definition's first line at column 0 to its closing brace at column 0, the layout every file
there keeps.
"""
from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
LIMIT = 80

#: "path:function" -> why it may be longer, for now.
KNOWN: dict[str, str] = {}


def _long_in(tree: ast.AST) -> dict[str, int]:
    """The functions of a module longer than ``LIMIT`` lines, by name."""
    found: dict[str, int] = {}
    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            assert node.end_lineno is not None
            lines = node.end_lineno - node.lineno + 1
            if lines > LIMIT:
                found[node.name] = lines
    return found


def _long_functions() -> dict[str, int]:
    found: dict[str, int] = {}
    for package in ("app", "native"):
        for path in sorted((ROOT / package).rglob("*.py")):
            tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
            found.update({f"{path.relative_to(ROOT).as_posix()}:{name}": n for name, n in _long_in(tree).items()})
    return found


#: A C function definition's first line: a return type and a name, an opening parenthesis, no semicolon.
_C_DEFINITION = re.compile(r"^(?!typedef|struct |#)[A-Za-z_][\w \*]*\b(\w+)\([^;]*$")


def _long_c(source: str) -> dict[str, int]:
    """The C functions of ``source`` longer than ``LIMIT`` lines, by name."""
    found: dict[str, int] = {}
    start: tuple[int, str] | None = None
    for i, line in enumerate(source.splitlines()):
        match = _C_DEFINITION.match(line)
        if start is None and match:
            start = (i, match.group(1))
        elif start is not None and line.startswith("}"):
            if i - start[0] + 1 > LIMIT:
                found[start[1]] = i - start[0] + 1
            start = None
    return found


def test_no_c_helper_function_is_longer_than_80_lines() -> None:
    long = {f"{p.name}:{name}": n for p in sorted((ROOT / "native" / "src").glob("*.c"))
            for name, n in _long_c(p.read_text(encoding="utf-8")).items()}
    assert not long, f"C functions over {LIMIT} lines (split them along what they do): {long}"


def test_no_function_is_longer_than_80_lines() -> None:
    long = {name: lines for name, lines in _long_functions().items() if name not in KNOWN}
    assert not long, f"functions over {LIMIT} lines (split them along what they do): {long}"


def test_every_known_exception_is_still_long() -> None:
    """An exception whose function was split (or renamed) goes from the list, so the list stays true."""
    stale = set(KNOWN) - set(_long_functions())
    assert not stale, f"no longer over {LIMIT} lines, remove from KNOWN: {sorted(stale)}"


def test_the_count_sees_a_long_function() -> None:
    """The check itself: a 90-line function in a module is found (the test would pass on nothing otherwise)."""
    def source(lines: int) -> str:
        return "class A:\n    def f(self):\n" + "\n".join(f"        x{i} = {i}" for i in range(lines - 1)) + "\n"

    assert _long_in(ast.parse(source(90))) == {"f": 90}
    assert _long_in(ast.parse(source(LIMIT))) == {}

    def c_source(lines: int) -> str:
        return "static int f(int a)\n{\n" + "    a++;\n" * (lines - 4) + "    return a;\n}\n"

    assert _long_c(c_source(90)) == {"f": 90}
    assert _long_c("struct s {\n    int a;\n};\n" + c_source(LIMIT)) == {}
