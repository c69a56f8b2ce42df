"""``tapediag library-run LIBRARY --barcode BC [--drive drive:N] --run tape-perf|assess [ARGS...]``.

Loads a scratch cartridge chosen by barcode into a library drive, runs the test there
through the tape drive the drive element names (the same ``tape-perf`` / ``assess`` the
technician would run, with their own safety rules: a cartridge holding data is refused
without ``--force``, which goes after the test's name), unloads and returns the cartridge
home, and compares a final inventory with the first (``app.library_run``). The cartridge
goes back whatever the test's outcome, a refusal or a cancel included.

Exit status: the test's own, unless a step of the cycle failed (1, the line says where
the cartridge is) or the final inventory differs from the first (1).
"""
from __future__ import annotations

import argparse
import sys
import textwrap
from typing import NoReturn

from app.cli.commands import HELP

TESTS = ("tape-perf", "assess")
EPILOG = ("exit status: the test's own (0 done, 3 refused, ...); 1 when loading, returning or the final inventory "
          "failed (the line says where the cartridge is); 2 bad input, nothing moved")


def _fill(text: str) -> str:
    return textwrap.fill(text, 79, break_on_hyphens=False, break_long_words=False)


def register(subparsers: argparse._SubParsersAction) -> None:
    parser = subparsers.add_parser(
        "library-run", help=HELP["library-run"],
        # Pre-wrapped without breaking at hyphens: the example command must stay copyable.
        description=_fill("Moves the cartridge BARCODE from its slot into an empty drive (--drive, default the first "
                          "empty drive whose tape drive is known), runs the test given after --run on that drive, "
                          "then unloads the drive, returns the cartridge to its slot and checks by a second inventory "
                          "that everything is where it was. Example: tapediag library-run virtual:library --barcode "
                          "TD0001L9 --run tape-perf --size 4G"),
        epilog=_fill(EPILOG), formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("device", metavar="LIBRARY", help="/dev/sgN (a changer), iscsi://host/iqn/lun or virtual:library")
    parser.add_argument("--barcode", required=True, metavar="BC", help="the scratch cartridge to load")
    parser.add_argument("--drive", metavar="drive:N", help="the drive to use (default: the first empty, known drive)")
    parser.add_argument("--run", dest="test", nargs=argparse.REMAINDER, required=True, metavar="TEST",
                        help=f"last: the test and its options, without a device ({' or '.join(TESTS)}), "
                             "e.g. --run tape-perf --size 4G")
    parser.set_defaults(func=run)


def _check_test_words(test: list[str]) -> argparse.Namespace:
    """The test's words as the test will read them, checked before anything moves: bad options are its own
    one-line error, and a device among them is refused (it would be tested too, quietly, beside the drive
    the cartridge went into). Returns them parsed."""
    from app.cli import build_parser
    from native.errors import InvalidParameter
    from native.iscsi_url import display_device, scrub

    def refuse(message: str) -> NoReturn:  # argparse's words, as this command's one line (exit 2)
        raise InvalidParameter(f"--run {test[0]}: {scrub(message)}")

    words = [test[0], "LOADED-DRIVE", *test[1:]]
    parser = build_parser(words)
    parser.error = refuse  # type: ignore[method-assign]
    for action in parser._actions:
        if isinstance(action, argparse._SubParsersAction):
            for sub in action.choices.values():
                sub.error = refuse
    parsed = parser.parse_args(words)
    devices = getattr(parsed, "device", None)
    extra = devices[1:] if isinstance(devices, list) else []
    if extra:
        raise InvalidParameter(f"--run {test[0]}: {', '.join(display_device(d) for d in extra)} is not the drive the "
                               "cartridge goes into; library-run tests only that drive, so name no device after --run",
                               hint="test another drive with its own 'tapediag tape-perf DEVICE'")
    return parsed


def _writes(test: str, parsed: argparse.Namespace) -> bool:
    """Whether the test after --run writes (then a cartridge the drive can only read is refused before the
    load): assess unless --no-write, tape-perf unless its direction is read; read from the test's own
    parameters, by the conversion the test itself will make, so it is what the test will do."""
    if test == "assess":
        return not parsed.no_write
    from app.cli.tape_perf import params_from_args

    return params_from_args(parsed).writes


def run(args: argparse.Namespace) -> int:
    from app.claims import claimed
    from app.cli import main
    from app.library import Changer
    from app.library_run import LibraryRunError, load, misplaced, put_back
    from app.stop import cancelling
    from native.errors import Cancelled, InvalidParameter

    test = list(args.test)
    if test[:1] == ["--"]:
        test = test[1:]
    if not test or test[0] not in TESTS:
        raise InvalidParameter(f"name the test after --run: {' or '.join(TESTS)}",
                               hint="e.g. tapediag library-run LIB --barcode BC --run tape-perf --size 4G")
    writes = _writes(test[0], _check_test_words(test))
    # With --json the test's JSON is stdout; the cycle's steps then go to stderr.
    steps = sys.stderr if "--json" in test else sys.stdout
    # One run from the load to the final inventory: a cancel (app.stop) never interrupts a move, it ends
    # the test (its own run sees the same token) and the cartridge still goes home.
    with cancelling() as cancel, Changer.open(args.device) as changer, claimed(changer, "library-run"):
        loaded, before = load(changer, args.barcode, args.drive, writes=writes)
        print(f"loaded {loaded.barcode} from {loaded.slot} into {loaded.drive} ({loaded.device})", file=steps,
              flush=True)
        try:
            code = main([test[0], loaded.device, *test[1:]])
        finally:  # the cartridge goes home whatever the test did (a refusal, an error, a cancel)
            put_back(changer, loaded)
            print(f"returned {loaded.barcode} from {loaded.drive} to {loaded.slot}", file=steps, flush=True)
        differs = misplaced(before, changer.inventory())
        if cancel.cancelled and not differs:
            raise Cancelled(f"the test was cancelled; {loaded.barcode} is back in {loaded.slot}")
    if differs:
        raise LibraryRunError(f"the final inventory differs from the first: {'; '.join(differs)}",
                              device=args.device)
    print("final inventory: every cartridge where it was", file=steps)
    return code
