"""The catalog of run kinds (issue 26): one list, each kind whole, its command's help and its parameters declared once."""
from __future__ import annotations

import argparse

import pytest

from app.catalog import KINDS
from app.cli import build_parser
from app.cli.commands import COMMANDS
from app.runs import registry
from app.runs.kind import Target


def test_the_catalog_installs_each_kind_once_and_the_history_knows_exactly_them() -> None:
    names = [k.name for k in KINDS]
    assert len(names) == len(set(names))
    assert all(registry.get(name) is kind for name, kind in zip(names, KINDS))
    for kind in KINDS:  # each kind is whole: what a reader needs of it, and its engine
        assert kind.title and callable(kind.engine) and callable(kind.headline) and isinstance(kind.target, Target)
        assert callable(getattr(kind.result, "to_dict", None)), kind.name


def test_the_light_command_table_says_what_the_kinds_say() -> None:
    """``tapediag --help`` lists the commands without importing any kind (start-up): its table is held to the
    catalog's commands here, so the one-line help is one declaration in effect."""
    for kind in KINDS:
        if kind.command is not None:
            assert COMMANDS[kind.command.name][1] == kind.command.help, kind.name


def _options(command: str) -> dict[str, argparse.Action]:
    parser = build_parser([command])
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction)).choices[command]
    return {a.dest: a for a in sub._actions}


@pytest.mark.parametrize("kind", [k for k in KINDS if k.command is not None and k.fields], ids=lambda k: k.name)
def test_every_option_is_its_field_with_the_default_it_declares(kind) -> None:  # type: ignore[no-untyped-def]
    """The option left out is absent (``from_values`` applies the declared default, so a preset's figures can stand),
    and its help says the default; a yes/no on by default is a ``--no-...`` option."""
    options = _options(kind.command.name)
    for field in kind.fields:
        if field.cli is None:
            continue
        action = options[field.name]
        assert field.cli in action.option_strings, (kind.name, field.name)
        if field.flag:
            assert action.default is bool(field.default) and (field.cli.startswith("--no-") or not field.default)
        else:
            assert action.default is None, (kind.name, field.name)
            assert field.default == "" or "default" in (action.help or ""), (kind.name, field.name)


def test_the_tape_size_default_is_auto_in_one_declaration() -> None:
    """Issue 26 §5: the GUI's tape size default and the CLI's once differed (32G, 1G); both are the field's."""
    from app.tapeperf.params import FIELDS, TapePerfParams
    from app.tapeperf.sizing import AUTO

    (size,) = [f for f in FIELDS if f.name == "size"]
    assert size.default == AUTO and f"{AUTO} (the default)" in (_options("tape-perf")["size"].help or "")
    left_out = TapePerfParams.from_values({})
    assert (left_out.size, left_out.duration) == (None, None)  # auto: sized on the drive (app.tapeperf.sizing)
