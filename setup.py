"""Builds the C helpers in native/src as CPython extension modules.

Every file native/src/_NAME.c becomes the module ``native._NAME``; hot loops that the
interpreter cannot run fast enough live there (pattern generation, SLDC cost model,
small-file create/read loops). Everything else is declared in pyproject.toml.
"""
from pathlib import Path

from setuptools import Extension, setup

HERE = Path(__file__).parent
ext_modules = [
    Extension(f"native.{src.stem}", [str(src.relative_to(HERE))], extra_compile_args=["-O3"])
    for src in sorted((HERE / "native" / "src").glob("_*.c"))
]

setup(ext_modules=ext_modules)
