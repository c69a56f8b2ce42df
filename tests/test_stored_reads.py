"""Issue 26 §1: a stored run is read into its kind's typed result by the one loader (``app.runs.stored.load``);
nothing else in app/ reads a stored run's ``results`` or ``params`` by string key, where a renamed field would
silently read as nothing.

The scan is by syntax, so it goes by the code base's names for a stored run: ``run``, ``*_run``, ``<x>.run``
(``Loaded.run``) and ``runs[i]``. A typed result's own ``params`` field (``result.params``) is not a stored run's,
and handing ``run.results`` whole to a function (``show --json``, the report's listing of a kind it has no rows
for) is no read by key.
"""
from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
#: The one loader: reading the stored dictionary is its job.
LOADER = "app/runs/stored.py"
#: Readers by key not yet moved to typed results, each with why; a file leaves this list once it reads none.
NOT_YET: dict[str, str] = {}
_DICTS = ("results", "params")
_READS = ("get", "setdefault", "pop")


def _is_run(node: ast.AST) -> bool:
    """An expression naming a stored run: ``run``, ``tape_run``, ``loaded.run``, ``runs[0]``."""
    if isinstance(node, ast.Name):
        return node.id == "run" or node.id.endswith("_run")
    if isinstance(node, ast.Attribute):
        return node.attr == "run"
    return isinstance(node, ast.Subscript) and isinstance(node.value, ast.Name) and node.value.id == "runs"


def _stored_dict(node: ast.AST, aliases: set[str]) -> bool:
    """``run.results``/``run.params``, also as ``(run.results or {})``, ``run.results if ... else {}``, in a list or
    tuple, or a name bound to one of those (``aliases``)."""
    if isinstance(node, ast.Attribute) and node.attr in _DICTS:
        return _is_run(node.value)
    if isinstance(node, ast.Name):
        return node.id in aliases
    if isinstance(node, ast.BoolOp):
        return any(_stored_dict(v, aliases) for v in node.values)
    if isinstance(node, ast.IfExp):
        return _stored_dict(node.body, aliases) or _stored_dict(node.orelse, aliases)
    if isinstance(node, (ast.List, ast.Tuple)):
        return any(_stored_dict(e, aliases) for e in node.elts)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in ("list", "tuple"):
        return any(_stored_dict(a, aliases) for a in node.args)
    return False


def _bound(scope: ast.AST, aliases: set[str]) -> set[str]:
    """The names ``scope`` binds to a stored dictionary (assigned, or a loop over such dictionaries)."""
    names: set[str] = set()
    for node in ast.walk(scope):
        if isinstance(node, ast.Assign) and _stored_dict(node.value, aliases):
            names.update(t.id for t in node.targets if isinstance(t, ast.Name))
        elif isinstance(node, (ast.AnnAssign, ast.NamedExpr)) and node.value is not None \
                and _stored_dict(node.value, aliases) and isinstance(node.target, ast.Name):
            names.add(node.target.id)
        elif isinstance(node, (ast.For, ast.comprehension)) and _stored_dict(node.iter, aliases) \
                and isinstance(node.target, ast.Name):
            names.add(node.target.id)
    return names


def _handed(scope: ast.AST, aliases: set[str], funcs: dict[str, ast.FunctionDef]) -> dict[str, set[str]]:
    """The parameters of the module's own functions that ``scope`` hands a stored dictionary to."""
    out: dict[str, set[str]] = {}
    for node in ast.walk(scope):
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name) and node.func.id in funcs:
            params = [a.arg for a in funcs[node.func.id].args.args]
            given = [(params[i], a) for i, a in enumerate(node.args) if i < len(params)]
            given += [(k.arg, k.value) for k in node.keywords if k.arg in params]
            out.setdefault(node.func.id, set()).update(name for name, a in given if _stored_dict(a, aliases))
    return out


def _read_by_key(node: ast.AST, aliases: set[str]) -> bool:
    if isinstance(node, ast.Subscript):
        return _stored_dict(node.value, aliases)
    if isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr in _READS:
        return _stored_dict(node.func.value, aliases)
    if isinstance(node, ast.Compare) and any(isinstance(op, (ast.In, ast.NotIn)) for op in node.ops):
        return any(_stored_dict(c, aliases) for c in node.comparators)
    return False


def key_reads(source: str) -> list[str]:
    """Each read by string key of a stored run's results or parameters in ``source``: 'line N: the code'. A
    dictionary is followed through the names it is bound to and into the module's own functions it is handed to
    (``rate_from_results(run.results, ...)`` reads by key inside)."""
    tree = ast.parse(source)
    funcs = {n.name: n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef)}
    aliases: dict[str, set[str]] = {name: set() for name in funcs}
    changed = True
    while changed:  # until no function learns of another name bound to a stored dictionary
        changed = False
        for name, fn in funcs.items():
            for target, params in [(name, _bound(fn, aliases[name])), *_handed(fn, aliases[name], funcs).items()]:
                if not params <= aliases[target]:
                    aliases[target] |= params
                    changed = True
    for target, params in _handed(tree, set(), funcs).items():
        aliases[target] |= params
    lines = {n.lineno for n in ast.walk(tree) if _read_by_key(n, set())}
    for name, fn in funcs.items():
        lines.update(n.lineno for n in ast.walk(fn) if _read_by_key(n, aliases[name]))
    text = source.splitlines()
    return [f"line {n}: {text[n - 1].strip()}" for n in sorted(lines)]


def _app_reads() -> dict[str, list[str]]:
    found = {}
    for path in sorted((ROOT / "app").rglob("*.py")):
        name = str(path.relative_to(ROOT))
        if name != LOADER and (reads := key_reads(path.read_text())):
            found[name] = reads
    return found


def test_no_stored_run_is_read_by_key_outside_the_loader() -> None:
    found = _app_reads()
    assert {k: v for k, v in found.items() if k not in NOT_YET} == {}
    assert set(NOT_YET) <= set(found), "a file that reads by key no more leaves NOT_YET"


@pytest.mark.parametrize("code", [
    'def f(run):\n    return run.results.get("phases")\n',
    'def f(run):\n    return (run.results or {}).get("direction")\n',
    'def f(run):\n    return len(run.params.get("devices") or []) > 1\n',
    'def f(run):\n    return run.params["devices"]\n',
    'def f(loaded):\n    return loaded.run.results["phases"]\n',
    'def f(tape_run):\n    return tape_run.results.get("write_mb_s")\n',
    'def f(runs):\n    return runs[0].results["phases"]\n',
    'def f(run):\n    return "limited_by" in run.results\n',
    'def f(run):\n    res = run.results if isinstance(run.results, dict) else {}\n    return res.get("end_reason")\n',
    'def f(run):\n    if (res := run.results or {}):\n        return res["serial"]\n',
    'def f(run):\n    return g(run.results or {})\n\ndef g(results):\n    return results.get("total_files")\n',
    'def f(run):\n    return g(1, results=run.results)\n\ndef g(n, results):\n    return h(results)\n\n'
    'def h(d):\n    return d["phases"]\n',
    'def f(run):\n    for where in (run.params, run.results or {}):\n        if where.get("streams"):\n            return 1\n',
    'def f(run):\n    blobs = [run.results or {}, run.params]\n    return [b["serial"] for b in blobs]\n',
])
def test_a_planted_read_by_key_is_caught(code: str) -> None:
    assert len(key_reads(code)) == 1, code


@pytest.mark.parametrize("code", [
    'def f(result):\n    return result.params.get("pattern")\n',  # a typed result's own field
    'def f(self):\n    return self.params.get("verify")\n',
    'def f(run):\n    return flatten(run.results or {})\n',  # the whole dictionary, handed on
    'def f(run):\n    return load(run).result.phase("write")\n',
    'def f(run, res):\n    return res.get("x")\n',  # a name not bound to a stored run here
    'def f(run):\n    return g(run.kind)\n\ndef g(results):\n    return results.get("x")\n',
    'def f(run):\n    return run.results is None or bool(runs[0].results)\n',
])
def test_what_is_no_read_by_key_is_not_caught(code: str) -> None:
    assert key_reads(code) == [], code
