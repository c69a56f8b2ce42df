"""The architecture's one-way data flow, checked: app/ and native/ never import Qt."""
from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
QT_MODULES = ("PySide6", "PyQt5", "PyQt6", "pyqtgraph", "shiboken6")


def _imports(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(), filename=str(path))
    names: set[str] = set()
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.update(alias.name.split(".")[0] for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.add(node.module.split(".")[0])
    return names


def test_core_and_native_sources_import_no_qt() -> None:
    offenders = []
    for package in ("app", "native"):
        for path in sorted((ROOT / package).rglob("*.py")):
            bad = _imports(path) & set(QT_MODULES)
            if bad:
                offenders.append(f"{path.relative_to(ROOT)}: {sorted(bad)}")
    assert offenders == []


def test_native_never_imports_app_or_ui() -> None:
    offenders = [
        str(path.relative_to(ROOT))
        for path in sorted((ROOT / "native").rglob("*.py"))
        if _imports(path) & {"app", "ui"}
    ]
    assert offenders == []


def test_importing_the_whole_core_loads_no_qt() -> None:
    code = (
        "import sys, pkgutil, importlib, app, native\n"
        "for pkg in (app, native):\n"
        "    for m in pkgutil.walk_packages(pkg.__path__, pkg.__name__ + '.'):\n"
        "        if not m.name.endswith('__main__'):\n"
        "            importlib.import_module(m.name)\n"
        f"leaked = [m for m in sys.modules if m.split('.')[0] in {QT_MODULES!r}]\n"
        "print(','.join(leaked))\n"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, cwd=ROOT, check=True)
    assert out.stdout.strip() == ""


def _module_name(path: Path) -> str:
    parts = list(path.relative_to(ROOT).with_suffix("").parts)
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _imported_modules(path: Path) -> list[tuple[str, str]]:
    """Every module ``path`` imports, at module level or inside a function (relative imports resolved), each with
    the function it is in; ``from package import name`` names ``package.name`` when that is a module."""
    tree = ast.parse(path.read_text(), filename=str(path))
    here = _module_name(path)
    package = here if path.name == "__init__.py" else here.rpartition(".")[0]
    found: list[tuple[str, str]] = []

    def module(name: str) -> str:
        return name if (ROOT / name.replace(".", "/")).with_suffix(".py").exists() or \
            (ROOT / name.replace(".", "/") / "__init__.py").exists() else ""

    def visit(node: ast.AST, func: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else func
            if isinstance(child, ast.Import):
                found.extend((a.name, name) for a in child.names)
            elif isinstance(child, ast.ImportFrom):
                base = child.module or ""
                if child.level:
                    anchor = package.split(".")[:len(package.split(".")) - child.level + 1]
                    base = ".".join(anchor + ([base] if base else []))
                subs = [module(f"{base}.{a.name}") for a in child.names]
                found.extend((sub, name) for sub in subs if sub)
                if not all(subs):
                    found.append((base, name))
            elif isinstance(child, ast.Constant) and isinstance(child.value, str) and \
                    (child.value == "ui" or child.value.startswith(("ui.", "app.cli"))):
                found.append((child.value, name))  # a module named as text (import_module("ui.pdf"))
            visit(child, name)

    visit(tree, "<module>")
    return found


def _app_sources() -> list[Path]:
    return sorted((ROOT / "app").rglob("*.py"))


def test_app_names_ui_only_in_its_composition_root() -> None:
    """Nothing in app/ imports ui/ (not even inside a function, not even by name as text) but ``app/__main__.py``,
    the ``tapediag`` command's composition root, which provides the CLI with Qt's PDF writer and the desktop app
    (``app.frontends``)."""
    refs = {(str(path.relative_to(ROOT)), func) for path in _app_sources()
            for mod, func in _imported_modules(path) if mod.split(".")[0] == "ui"}
    assert refs == {("app/__main__.py", "_pdf_writer"), ("app/__main__.py", "_desktop")}


def test_nothing_below_the_command_line_imports_it() -> None:
    """app/cli is the command line, a front end: only it and the composition root import it (issue 26 §3: the run
    kinds' text renderers used to reach up into app/cli)."""
    refs = sorted(f"{path.relative_to(ROOT)} ({func})" for path in _app_sources()
                  for mod, func in _imported_modules(path)
                  if mod.startswith("app.cli") and not path.is_relative_to(ROOT / "app" / "cli")
                  and path != ROOT / "app" / "__main__.py")
    assert refs == []


def _cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), or of one that imports itself."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def strong(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in graph.get(v, ()):
            if w not in index:
                strong(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            component = []
            while True:
                w = stack.pop()
                on.discard(w)
                component.append(w)
                if w == v:
                    break
            if len(component) > 1:
                out.append(sorted(component))

    for v in sorted(graph):
        if v not in index:
            strong(v)
    return out


def test_app_has_no_import_circle_counting_imports_inside_functions() -> None:
    """Issue 26 §3: a 28-module knot in app/ is what made every change touch the run registry. Each module's imports
    of app/ modules, wherever in the module they are, form no circle (``farm-studio look app`` draws the same)."""
    graph: dict[str, set[str]] = {}
    for path in _app_sources():
        graph[_module_name(path)] = {mod for mod, _func in _imported_modules(path)
                                     if mod.split(".")[0] == "app" and mod != _module_name(path)}
    assert _cycles(graph) == []


def test_the_layering_test_sees_a_circle_made_inside_a_function(tmp_path: Path) -> None:
    """The check above would see an import a function makes (the kind of knot it is there for)."""
    graph = {"app.a": {"app.b"}, "app.b": {"app.c"}, "app.c": {"app.a"}, "app.d": {"app.a"}}
    assert _cycles(graph) == [["app.a", "app.b", "app.c"]]
    source = tmp_path / "m.py"
    source.write_text("def f():\n    from app.runs import registry\n")
    assert ("app.runs.registry", "f") in [(m, fn) for m, fn in _visit_file(source)]


def _visit_file(path: Path) -> list[tuple[str, str]]:
    """``_imported_modules`` of a file outside the tree (its own name does not matter)."""
    copy = ROOT / "app" / "_layering_probe.py"
    copy.write_text(path.read_text())
    try:
        return _imported_modules(copy)
    finally:
        copy.unlink()


def test_ui_builds_reports_from_the_core_not_through_the_cli() -> None:
    """ui -> app.report -> ui.pdf, never ui -> app.cli.report -> ui.pdf (a loop through the layers)."""
    offenders = [str(path.relative_to(ROOT)) for path in sorted((ROOT / "ui").rglob("*.py"))
                 if "app.cli.report" in path.read_text()]
    assert offenders == []


def test_front_ends_record_no_run_of_their_own() -> None:
    """Issue 26 §2: a run is recorded once, by ``app.execute``; the CLI and the GUI build parameters and render."""
    offenders = [f"{path.relative_to(ROOT)}: {call}" for folder in ("ui", "app/cli")
                 for path in sorted((ROOT / folder).rglob("*.py"))
                 for call in ("record(", "run_recorded(", "record_on_drive(") if call in path.read_text()]
    assert offenders == []
