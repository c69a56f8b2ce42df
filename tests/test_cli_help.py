"""Issue 12: every command's ``--help`` says what it does, and the virtual drive's options a
trainer needs are in ``tapediag devices --help``, printed from the options' own table."""
from __future__ import annotations

import argparse

import pytest

from app.cli import build_parser
from app.cli.commands import COMMANDS
from native.errors import InvalidParameter
from native.virtual.options import OPTIONS, parse_device


def _subparser(name: str) -> argparse.ArgumentParser:
    parser = build_parser([name])
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    sub = action.choices[name]
    assert isinstance(sub, argparse.ArgumentParser)
    return sub


@pytest.mark.parametrize("name", list(COMMANDS))
def test_every_command_help_has_a_description(name: str) -> None:
    sub = _subparser(name)
    assert sub.description and len(sub.description) > 15, f"tapediag {name} --help has no description"
    assert " ".join(sub.description.split()) in " ".join(sub.format_help().split())


def test_devices_help_lists_every_virtual_option_from_the_table() -> None:
    text = _subparser("devices").format_help()
    for opt in OPTIONS:
        assert f"{opt.key}={opt.value}" in text, opt.key
    assert "wp=0|1" in text and "tapealert=a,b" in text and "loaded=0|1" in text and "worm=0|1" in text


@pytest.mark.parametrize("opt", OPTIONS, ids=lambda o: o.key)
def test_every_documented_option_is_one_the_parser_takes(opt) -> None:  # type: ignore[no-untyped-def]
    """The table and the parser agree: each documented key with its example value parses (an option that
    needs a partner, library= with drive=, names it in its example)."""
    options = parse_device(f"virtual:lto9?{opt.key}={opt.example}")
    assert opt.key in options.explicit and len(options.explicit) == 1 + opt.example.count("&")


def test_an_unknown_option_names_exactly_the_documented_ones() -> None:
    with pytest.raises(InvalidParameter) as err:
        parse_device("virtual:lto9?writeprotect=1")
    assert err.value.hint == "known: " + ", ".join(opt.key for opt in OPTIONS)


def _commands_built(argv: list[str]) -> set[str]:
    parser = build_parser(argv)
    action = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return set(action.choices)


def test_a_named_command_builds_no_parser_for_the_others() -> None:
    """Running a command never shows the list of the others, so their placeholders are not built (each is an
    ArgumentParser that looks its messages up in the locale's catalogues; issue 32 §3) ..."""
    for command, argv in (("devices", ["devices"]), ("info", ["info", "virtual:lto9"]),
                          ("devices", ["--read-only", "devices"]), ("devices", ["--chap-secret-file", "info", "devices"]),
                          ("info", ["--chap-secret-file=f", "info", "--help"])):
        built = _commands_built(argv)
        assert command in built and not built & (set(COMMANDS) - {command}), argv


@pytest.mark.parametrize("argv", [[], ["--help"], ["-h", "devices"], ["--he", "devices"], ["--bogus", "info"],
                                  ["bogus"], ["--read-only", "--help", "info"]])
def test_every_command_is_listed_where_the_list_may_be_shown(argv: list[str]) -> None:
    """... but wherever ``tapediag --help`` may be what runs (an option before the command that is not one of the
    quiet global ones, or no command at all), every command is there."""
    assert set(COMMANDS) <= _commands_built(argv)
