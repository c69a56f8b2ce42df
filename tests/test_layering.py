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
