"""The dataclass methods kept beside the bytecode (``app.classcache``, issue 32 §3): the same classes as
Python's own ``dataclasses`` makes, written only where and when Python writes bytecode, a bad table ignored.

Each check runs in fresh interpreters with their own ``PYTHONPYCACHEPREFIX`` (a temporary directory): the
first writes the tables, the next reads them, as a second start of tapediag does."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

from app.classcache import HEADER, SUFFIX

ROOT = Path(__file__).resolve().parents[1]

#: Imports every module of ``app`` and ``native`` (what the platform has: a Windows-only module is skipped), then
#: prints, for every dataclass, what its generated methods are: their code (bytes, constants, names), the
#: annotations ``__init__`` carries, the class's signature and match arguments, and whether it hashes; and how
#: many method texts came from stored tables and how many were compiled. With STOCK=1 the caching ``exec`` is
#: taken away before any of tapediag's classes is built, so the classes are the stock ``dataclasses``' own.
DESCRIBE = r"""
import dataclasses, importlib, inspect, json, os, pkgutil, re, sys, types
import app, native
from app import classcache
if os.environ.get("STOCK") == "1":
    del dataclasses.exec
names = []
for package in (app, native):
    for info in pkgutil.walk_packages(package.__path__, package.__name__ + "."):
        names.append(info.name)
described = {}
for name in sorted(names):
    try:
        module = importlib.import_module(name)
    except ImportError:
        continue
    for cls in vars(module).values():
        if not (isinstance(cls, type) and cls.__module__ == name and dataclasses.is_dataclass(cls)):
            continue
        methods = {}
        for attr in ("__init__", "__repr__", "__eq__", "__hash__", "__setattr__", "__delattr__"):
            fn = cls.__dict__.get(attr)
            code = getattr(inspect.unwrap(fn), "__code__", None) if fn is not None else None
            if code is None or code.co_filename != "<string>":
                continue
            methods[attr] = [code.co_code.hex(), repr(code.co_consts), code.co_names, code.co_varnames,
                             code.co_flags, repr(getattr(fn, "__annotations__", None))]
        described[f"{name}.{cls.__qualname__}"] = {
            "methods": methods, "signature": re.sub(" at 0x[0-9a-f]+", "", str(inspect.signature(cls))),  # a default function's address
            "match_args": repr(getattr(cls, "__match_args__", None)), "hashable": cls.__hash__ is not None}
print(json.dumps({"classes": described, "counts": classcache.counts() if os.environ.get("STOCK") != "1" else None}))
"""


def _env(prefix: Path, **extra: str) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env.update(PYTHONPYCACHEPREFIX=str(prefix), **extra)
    return env


def _describe(prefix: Path, **extra: str) -> dict:
    proc = subprocess.run([sys.executable, "-c", DESCRIBE], cwd=ROOT, env=_env(prefix, **extra),
                          capture_output=True, text=True, timeout=240)
    assert proc.returncode == 0, proc.stderr[-2000:]
    return json.loads(proc.stdout)


def _tables(prefix: Path) -> list[Path]:
    return sorted(prefix.rglob(f"*{SUFFIX}"))


def test_every_class_is_the_one_stock_dataclasses_makes(tmp_path) -> None:
    """Compiled in a first process, read in a second: every dataclass of ``app`` and ``native`` has the methods
    (code, constants, names, annotations), signature, match arguments and hashability the stock ``dataclasses``
    gives it, and the second process compiled none of them."""
    first = _describe(tmp_path / "pyc")
    used, compiled = first["counts"]
    assert compiled > 500 and used == 0  # nothing stored yet: every text compiled (and tables written at exit)
    assert len(_tables(tmp_path / "pyc")) > 50
    second = _describe(tmp_path / "pyc")
    used, compiled = second["counts"]
    assert compiled == 0 and used > 500  # all from the tables
    stock = _describe(tmp_path / "stock-pyc", STOCK="1")
    assert len(stock["classes"]) > 300
    assert second["classes"] == stock["classes"]
    assert first["classes"] == stock["classes"]
    some = stock["classes"]["app.info.model.DriveInfo"]
    assert some["methods"]["__init__"][5] != "None"  # the annotations are compared, not absent


def _info(prefix: Path, data_dir: Path, **extra: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "app", "info", "virtual:lto9"], cwd=ROOT,
                          env=_env(prefix, TAPEDIAG_DATA_DIR=str(data_dir), **extra),
                          capture_output=True, text=True, timeout=120)


def test_nothing_is_written_where_python_writes_no_bytecode(tmp_path) -> None:
    proc = _info(tmp_path / "pyc", tmp_path / "data", PYTHONDONTWRITEBYTECODE="1")
    assert proc.returncode == 0, proc.stderr
    assert "Healthy" in proc.stdout  # the command ran
    assert not _tables(tmp_path / "pyc")


def test_tables_only_for_tapediags_own_modules(tmp_path) -> None:
    proc = _info(tmp_path / "pyc", tmp_path / "data")
    assert proc.returncode == 0, proc.stderr
    tables = _tables(tmp_path / "pyc")
    assert tables  # written beside the bytecode
    own = {str(ROOT / package) for package in ("app", "native", "ui")}
    for table in tables:
        source_dir = "/" + str(table.parent.relative_to(tmp_path / "pyc"))  # the prefix mirrors the source tree
        assert any(source_dir == d or source_dir.startswith(d + "/") for d in own), table
        assert table.read_bytes().startswith(HEADER)


def test_a_damaged_or_foreign_table_is_ignored_and_replaced(tmp_path) -> None:
    assert _info(tmp_path / "pyc", tmp_path / "data").returncode == 0
    tables = _tables(tmp_path / "pyc")
    damaged, foreign, wrong_values = tables[0], tables[1], tables[2]
    damaged.write_bytes(HEADER + b"\x00garbage")
    foreign.write_bytes(b"tapediag dataclass methods\n\x00\x00\r\n" + foreign.read_bytes()[len(HEADER):])
    import marshal

    wrong_values.write_bytes(HEADER + marshal.dumps({"def f(): pass": "not code"}))
    proc = _info(tmp_path / "pyc", tmp_path / "data")
    assert proc.returncode == 0 and not proc.stderr, proc.stderr
    assert "Healthy" in proc.stdout  # the command ran to its verdict
    for table in (damaged, foreign, wrong_values):  # compiled again and written whole
        data = table.read_bytes()
        assert data.startswith(HEADER)
        assert isinstance(marshal.loads(data[len(HEADER):]), dict)



def test_a_bundle_compiles_its_classes_as_python_does(tmp_path) -> None:
    """A PyInstaller bundle (``sys.frozen``) keeps its modules in an archive: nothing is installed, nothing written."""
    script = ("import sys; sys.frozen = True\nimport dataclasses, app\n"
              "assert 'exec' not in vars(dataclasses), 'installed'\nimport app.info_kind\nprint('ok')")
    proc = subprocess.run([sys.executable, "-c", script], cwd=ROOT, env=_env(tmp_path / "pyc"),
                          capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0 and proc.stdout.strip() == "ok", proc.stderr
    assert not _tables(tmp_path / "pyc")
