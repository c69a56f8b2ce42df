"""``python -m app`` and the ``tapediag`` command.

A Ctrl-C while Python is still loading the command line, before ``app.cli.main`` has installed the
signal policy (``app.stop``), is answered as any other cancel: one line and exit 130, no traceback.
(Only one in the interpreter's own start-up, before this module runs, is Python's: it exits by the
signal, which a shell reports as 130 too.)
"""
import sys


def run() -> int:
    try:
        from app.cli import main

        return main()
    except KeyboardInterrupt:
        print("tapediag: cancelled", file=sys.stderr)
        return 130


if __name__ == "__main__":
    sys.exit(run())
