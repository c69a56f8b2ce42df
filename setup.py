"""Builds the C helpers in native/src as CPython extension modules.

Every file native/src/_NAME.c becomes the module ``native._NAME``; hot loops that the
interpreter cannot run fast enough live there (pattern generation, SLDC cost model,
small-file create/read loops, POSIX and Win32). Everything else is declared in
pyproject.toml.
"""
import sys
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).parent
# MSVC does not know -O3 (it warns and ignores it); setuptools already asks it for /O2.
OPTIMIZE = [] if sys.platform == "win32" else ["-O3"]
ext_modules = [
    Extension(f"native.{src.stem}", [str(src.relative_to(HERE))], extra_compile_args=OPTIMIZE)
    for src in sorted((HERE / "native" / "src").glob("_*.c"))
]

setup(ext_modules=ext_modules)
