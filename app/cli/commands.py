"""The sub-commands: name -> (module under app.cli, one-line help), in --help order.

Kept apart and light so that the CLI imports only the module of the command it runs
(``tapediag devices`` does not load numpy, the history or the tape engine), and
``tapediag --help`` lists every command without importing any (issue 13.4).
"""
from __future__ import annotations

COMMANDS: dict[str, tuple[str, str]] = {
    "devices": ("devices", 'list tape drives (local, remembered iSCSI, virtual)'),
    "info": ("info", "show a drive's identity, cartridge, TapeAlert flags, error counters, drive statistics and health"),
    "ticket": ("ticket", 'capture a support ticket (zip): every page the drive reports, raw and decoded, read-only'),
    "scan": ("scan", "read a cartridge from BOT to end of data, read-only: layout, read rate per zone, "
                     "repositions, verdict"),
    "assess": ("assess", "drive assessment: evidence, self-test and a write/read/verify on a scratch cartridge "
                         "-> PASS/WARN/FAIL"),
    "library": ("library", "a tape library's inventory (slots, drives, mail slots, barcodes) and moves (--move)"),
    "library-test": ("library_test", "exercise a library's robot: timed moves among slots and drives, everything "
                                     "put back -> PASS/FAIL"),
    "library-run": ("library_run", "test a library drive: load a scratch cartridge by barcode, run tape-perf or "
                                   "assess there, return it home, check by a second inventory"),
    "erase": ("erase", "erase a cartridge: --short ends the data at the start of the tape, --long overwrites the "
                       "whole tape; never a cartridge holding data without --force"),
    "tape-perf": ("tape_perf", "measure a tape drive's write/read rate"),
    "create-data": ("create_data", "create a test tree and measure the disk's write rate (restore side)"),
    "read-data": ("read_data", "read a tree like a backup agent and measure the disk's read rate (backup side)"),
    "clean": ("clean", 'remove the test data create-data made (and nothing else)'),
    "net-serve": ("net_serve", "wait for one network test session (net-test) on the address given, then exit; "
                               "prints the one-time token"),
    "net-test": ("net_test", "measure the network between two machines: TCP throughput to a 'tapediag net-serve', "
                             "1-N streams, backup and/or restore direction"),
    "troubleshoot": ("troubleshoot", 'find the bottleneck of a slow backup or restore'),
    "history": ("history", 'list past test runs'),
    "show": ("show", 'show one past run'),
    "compare": ("compare", "compare two past runs (before and after): what differs, each figure improved, worse or "
                           "within noise"),
    "export": ("export", 'export a past run as CSV (samples) or JSON'),
    "report": ("report", 'write a PDF report from past runs'),
    "gui": ("gui", 'start the desktop app (drive info, tests, live plots, reports)'),
}
HELP: dict[str, str] = {name: help for name, (_module, help) in COMMANDS.items()}
