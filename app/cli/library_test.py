"""``tapediag library-test DEVICE [--moves N] [--slots ...] [--drives ...] [--json]``: the library exerciser.

Bad input (a name that is no element, an empty slot or a full drive named, a device that
is not a changer) is refused before a run is recorded; a read-only session is refused
before the robot is asked. The run is in the history like every test (``show``, the PDF).
"""
from __future__ import annotations

import argparse

from app.cli._kind import register_kind

EPILOG = ("exit status: 0 PASS, 11 FAIL (a robotics error, or a cartridge not back home), 12 NOT ASSESSED "
          "(nothing to move, no empty drive, cancelled); 1 the library could not be read, 2 bad input or not a "
          "changer, 3 refused in a read-only session, 130 cancelled")


def register(subparsers: argparse._SubParsersAction) -> None:
    """The kind's own command (``app.cli._kind``: target, options from its field table, run, text or JSON, exit
    status), with what it does and its exit statuses in words."""
    from app.libtest.kind import LIBRARY_TEST

    register_kind(
        subparsers, LIBRARY_TEST, epilog=EPILOG,
        description="Moves cartridges between their home slots and empty drives, times every move, stops at the "
                    "first robotics error and puts every cartridge back (checked by a final inventory). Cleaning "
                    "(CLN...) and unlabelled cartridges are never moved, loaded drives never used. Elements are "
                    "named as in 'tapediag library': slot:N (from 1), drive:N (from 0) or an element address.")
