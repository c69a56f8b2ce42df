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


def _ui_references(path: Path) -> list[str]:
    """Where a module names ``ui``: imports, and module names given as strings (``import_module("ui.pdf")``),
    each with the function it is in."""
    tree = ast.parse(path.read_text(), filename=str(path))
    found: list[str] = []

    def visit(node: ast.AST, func: str) -> None:
        for child in ast.iter_child_nodes(node):
            name = child.name if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef)) else func
            if isinstance(child, ast.Import) and any(a.name.split(".")[0] == "ui" for a in child.names):
                found.append(name)
            elif isinstance(child, ast.ImportFrom) and child.level == 0 and (child.module or "").split(".")[0] == "ui":
                found.append(name)
            elif isinstance(child, ast.Constant) and isinstance(child.value, str) and \
                    (child.value == "ui" or child.value.startswith("ui.")):
                found.append(name)
            visit(child, name)

    visit(tree, "<module>")
    return found


def test_app_reaches_ui_only_through_two_named_doors() -> None:
    """At call time only: ``tapediag gui`` starting the desktop app, and the CLI's PDF writer
    (Qt's, ``pdf_renderer``). Nothing else in app/ may name ui/."""
    refs = {(str(path.relative_to(ROOT)), func) for path in sorted((ROOT / "app").rglob("*.py"))
            for func in _ui_references(path)}
    assert refs == {("app/cli/gui.py", "run"), ("app/cli/report.py", "pdf_renderer")}


def test_ui_builds_reports_from_the_core_not_through_the_cli() -> None:
    """ui -> app.report -> ui.pdf, never ui -> app.cli.report -> ui.pdf (a loop through the layers)."""
    offenders = [str(path.relative_to(ROOT)) for path in sorted((ROOT / "ui").rglob("*.py"))
                 if "app.cli.report" in path.read_text()]
    assert offenders == []
