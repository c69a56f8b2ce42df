"""The ``tapediag`` command line.

Each sub-command lives in its own module of this package and exposes
``register(subparsers)``, which adds its parser and sets ``func(args) -> int``.
``main`` turns every ``TapediagError`` into one clear line on stderr and an exit
status, never a traceback. Command-line mistakes argparse catches are one line too
(``_Parser.error``): a technician should not have to find the error under a screen
of usage text.
"""
from __future__ import annotations

import argparse
import contextlib
import importlib
import os
import sys
from typing import Any, Callable, Iterator, Sequence

from app import __version__, collector
from app.cli.commands import COMMANDS, HELP
from app.runs import registry
from app.runs.exits import EXIT_CANCELLED, EXIT_FAILED, EXIT_OK, EXIT_REFUSED, EXIT_USAGE
from native.errors import Cancelled, InvalidParameter, SafetyRefusal, TapediagError
from native.transport import set_notice_listener

# The sub-commands and their help: app/cli/commands.py (light: nothing else is imported for --help).
COMMAND_MODULES = tuple(module for module, _help in COMMANDS.values())

#: Commands that open an iSCSI device and so may need a CHAP secret.
CHAP_COMMANDS = ("devices", "info", "tape-perf", "troubleshoot", "gui")


class _Parser(argparse.ArgumentParser):
    """argparse with a one-line error: ``tapediag tape-perf: error: ... (see 'tapediag tape-perf --help')``,
    and an epilog that may be built when the help is shown (``epilog_from``)."""

    #: Builds the epilog when the help is formatted, for one too costly to build on every run of the command
    #: (``devices``: the virtual drive's options table loads every generation's specs; issue 32 §3).
    epilog_from: Callable[[], str] | None = None

    def format_help(self) -> str:
        if self.epilog_from is not None:
            self.epilog = self.epilog_from()
        return super().format_help()

    #: True while argparse checks a new argument (``add_argument``), when the formatter it asks for is thrown away
    _checking_argument = False

    def add_argument(self, *args: Any, **kwargs: Any) -> argparse.Action:
        self._checking_argument = True
        try:
            return super().add_argument(*args, **kwargs)
        finally:
            self._checking_argument = False

    def _get_formatter(self) -> argparse.HelpFormatter:
        """argparse formats every new argument once to check its metavar, with a formatter as wide as the
        terminal: asking for that width imports ``shutil`` (and its compressors) and asks the terminal, once per
        argument, about 1.5 ms of a command's start-up (issue 32 §3). The check does not depend on the width;
        the help and the usage, which do, still get the terminal's."""
        if self._checking_argument:
            formatter: Callable[..., argparse.HelpFormatter] = self.formatter_class  # typeshed names prog only
            return formatter(prog=self.prog, width=80)
        return super()._get_formatter()

    def error(self, message: str) -> "NoReturn":  # type: ignore[name-defined]  # noqa: F821
        from native.iscsi_url import scrub  # argparse quotes the command line: never a CHAP secret

        self.exit(EXIT_USAGE, f"{self.prog}: error: {scrub(message)} (see '{self.prog} --help')\n")


def _words(argv: Sequence[str]) -> Iterator[str]:
    """The command line's words but the value of ``--chap-secret-file``, the global option that takes one: what
    ``_command_in`` and ``_may_list_commands`` read the line by."""
    skip = False
    for arg in argv:
        if skip:
            skip = False
            continue
        skip = arg == "--chap-secret-file"
        yield arg


def _command_in(argv: Sequence[str]) -> str | None:
    """The sub-command named on the command line (the first word that is one: of ``COMMANDS``, or a registered
    kind's), or None."""
    for arg in _words(argv):
        if not arg.startswith("-"):
            return arg if arg in COMMANDS or arg in registry.commands() else None
    return None


#: The global options that may come before the command's name and never show the list of commands.
_QUIET_GLOBALS = ("--read-only", "--chap-secret-file")


def _may_list_commands(argv: Sequence[str], command: str | None) -> bool:
    """Whether this command line may show ``tapediag --help``'s list of the commands: with no command named,
    or with anything before the command's name but the global options that never do (``--help``, ``-h``,
    ``--he``, a mistyped option: the list is kept whenever in doubt)."""
    for arg in _words(argv):
        if not (arg in _QUIET_GLOBALS or arg.startswith("--chap-secret-file=")):
            return arg != command
    return True


def build_parser(argv: Sequence[str] | None = None) -> argparse.ArgumentParser:
    """The parser; with ``argv``, only the named command's module is imported (the others get a
    placeholder with their one-line help, for ``tapediag --help``'s list), so a command starts without
    loading what it does not use. When the command line cannot show that list (``_may_list_commands``),
    the others are left out: each placeholder is an ``ArgumentParser``, whose messages argparse looks up
    in the locale's catalogues on the disk, about a tenth of a millisecond each (issue 32 §3)."""
    wanted = _command_in(argv) if argv is not None else None
    placeholders = argv is None or _may_list_commands(argv, wanted)
    parser = _Parser(
        prog="tapediag",
        description="Diagnose tape drives and the disks that feed them.",
    )
    parser.add_argument("--version", action="version", version=f"tapediag {__version__}")
    # prog given: argparse would otherwise format the usage (terminal width and all) to find "tapediag"
    subparsers = parser.add_subparsers(dest="command", metavar="COMMAND", parser_class=_Parser, prog=parser.prog)
    for name, (module_name, help_text) in COMMANDS.items():
        if argv is None or name == wanted:
            importlib.import_module(f"app.cli.{module_name}").register(subparsers)
        elif placeholders:
            subparsers.add_parser(name, help=help_text)
    for name, kind in registry.commands().items():  # a registered kind without a module here: made from the kind
        if name not in COMMANDS:
            from app.cli._kind import register_kind

            register_kind(subparsers, kind)
    secret_help = "read the iSCSI CHAP secret from this file (first line), so it is not on the command line"
    parser.add_argument("--chap-secret-file", metavar="FILE", help=secret_help)
    read_only_help = ("read-only session: never send a command that writes to a tape or changes a drive's "
                      "state (WRITE, WRITE FILEMARKS, ERASE, MODE SELECT, LOAD/UNLOAD, LOG SELECT, ...); "
                      "also TAPEDIAG_READ_ONLY=1")
    parser.add_argument("--read-only", action="store_true", help=read_only_help)
    for name, sub in subparsers.choices.items():
        # "tapediag COMMAND --help" always says what the command does: its own description,
        # else the one line "tapediag --help" lists for it.
        if sub.description is None:
            sub.description = _sentence(HELP.get(name, ""))
    for name in subparsers.choices:  # also after the command name
        subparsers.choices[name].add_argument("--read-only", action="store_true", help=read_only_help,
                                              default=argparse.SUPPRESS)
    for name in CHAP_COMMANDS:  # also after the command name, where a technician types it
        if name in subparsers.choices:
            subparsers.choices[name].add_argument("--chap-secret-file", metavar="FILE", help=secret_help,
                                                  default=argparse.SUPPRESS)
    return parser


def _sentence(help_text: str) -> str:
    """A one-line command help as a description: 'list past runs' -> 'List past runs.'"""
    return help_text[:1].upper() + help_text[1:] + ("" if help_text.endswith(".") else ".")


def _printable_output() -> None:
    """Output that never dies on a character: UTF-8 into files and pipes (a log a technician
    attaches to a ticket), and on a terminal its own encoding with what it cannot show replaced.
    Seen on Windows: ``create-data C:\\tdtest\\данные > log.txt`` ended in a UnicodeEncodeError (cp1252)."""
    for stream in (sys.stdout, sys.stderr):
        reconfigure = getattr(stream, "reconfigure", None)
        if reconfigure is None:  # replaced by a test harness or an embedding program
            continue
        try:
            if stream.isatty():
                reconfigure(errors="replace")
            else:
                reconfigure(encoding="utf-8", errors="backslashreplace")
        except (OSError, ValueError):
            continue


def _warn_secret_on_command_line(args: Sequence[str]) -> None:
    """A CHAP secret in an iSCSI device string works, but every user of the machine reads it in ``ps``
    for the whole run: said in one line (the secret itself never)."""
    from native.iscsi_url import has_secret

    if any(has_secret(arg) for arg in args):
        print("tapediag: warning: the CHAP secret in the iSCSI device string can be read by every user of this "
              "machine (ps) while tapediag runs; give it with --chap-secret-file FILE, TAPEDIAG_CHAP_SECRET or at "
              "the prompt instead", file=sys.stderr)


def main(argv: Sequence[str] | None = None) -> int:
    _printable_output()
    args_in = list(sys.argv[1:] if argv is None else argv)
    if args_in == ["--version"]:
        # Answered before the sub-commands (and numpy, the history, ...) are imported:
        # a start-up probe should cost about the interpreter's own start-up (issue 13.4).
        print(f"tapediag {__version__}")
        return EXIT_OK
    _warn_secret_on_command_line(args_in)
    # A transport's notices (e.g. /dev/nst0 served through its sg node) as the run's own "info:" lines.
    set_notice_listener(lambda text: print(f"info: {text}", file=sys.stderr))
    from app import stop

    # SIGINT, SIGTERM and SIGHUP mean "cancel" from here on, before the command's module is even
    # imported (app.stop). The GUI keeps Python's defaults: its event loop runs no Python while idle.
    with stop.installed() if _command_in(args_in) != "gui" else contextlib.nullcontext():
        return _run(argv, args_in)


def _run(argv: Sequence[str] | None, args_in: list[str]) -> int:
    try:
        parser = build_parser(args_in)
        # Inside the try: an option's type= converter may raise InvalidParameter itself.
        args = parser.parse_args(argv)
        if not getattr(args, "func", None):
            parser.print_help()
            return EXIT_USAGE
        # Anywhere on the line: after the command, after its options, and after library-run's --run,
        # whose words go to the test it runs (they once lost it: a MOVE MEDIUM went out).
        if getattr(args, "read_only", False) or "--read-only" in args_in:
            from app.drive import set_read_only_session

            set_read_only_session(True)
        if getattr(args, "chap_secret_file", None):
            from app.targets import use_secret_file

            use_secret_file(args.chap_secret_file)
        collector.loaded()  # the command's modules are imported; its run collects as usual (app.collector)
        code = int(args.func(args) or EXIT_OK)
        sys.stdout.flush()  # here, where a reader that left is caught below, not by the interpreter at exit
        return code
    except BrokenPipeError:  # `tapediag history | head`: the reader left; a normal end, not an error
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return EXIT_OK
    except KeyboardInterrupt:
        print("tapediag: cancelled", file=sys.stderr)
        return EXIT_CANCELLED
    except Cancelled as err:  # a run stopped by a cancel before it had anything to report
        print(f"tapediag: cancelled: {err}", file=sys.stderr)
        return EXIT_CANCELLED
    except SafetyRefusal as err:
        print(f"tapediag: refused: {err}", file=sys.stderr)
        return EXIT_REFUSED
    except InvalidParameter as err:
        print(f"tapediag: error: {err}", file=sys.stderr)
        return EXIT_USAGE
    except TapediagError as err:
        print(f"tapediag: error: {err}", file=sys.stderr)
        return EXIT_FAILED
    except OSError as err:  # a file the command needed and could not use (a read-only data directory...)
        where = f" {err.filename}" if err.filename else ""
        print(f"tapediag: error: cannot use{where}: {err.strerror or err}", file=sys.stderr)
        return EXIT_FAILED
