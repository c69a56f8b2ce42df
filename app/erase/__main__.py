"""``python -m app.erase DEVICE --short|--long [--force] [--json]``: the developer's way in until the run model
wires ``erase`` as a command (no history record, no GUI yet). Exit codes as the CLI's: 0 done, 2 bad input,
3 refused (safety, read-only session), 1 a device failure, 130 cancelled (Ctrl-C)."""
from __future__ import annotations

import argparse
import json
import signal
import sys

from native.errors import DeviceError, SafetyRefusal, TapediagError

from app.claims import claimed
from app.drive import TapeDrive, set_read_only_session
from app.erase import Erase, EraseParams
from app.events import CancelToken, Event, Message, Progress


def _print(event: Event) -> None:
    if isinstance(event, Message):
        print(f"{event.level}: {event.text}", file=sys.stderr)
    elif isinstance(event, Progress):
        eta = f", about {event.eta_s:,.0f} s left" if event.eta_s is not None else ""
        print(f"erasing: {event.done_bytes / 10:.1f} %{eta}", file=sys.stderr)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m app.erase", description=__doc__)
    parser.add_argument("device")
    kind = parser.add_mutually_exclusive_group(required=True)
    kind.add_argument("--short", action="store_true", help="end of data at BOT (ERASE LONG=0)")
    kind.add_argument("--long", action="store_true", help="the whole tape (ERASE LONG=1): hours on a full cartridge")
    parser.add_argument("--force", action="store_true", help="erase a cartridge that holds data (LTFS included)")
    parser.add_argument("--poll", type=float, default=5.0, help="seconds between progress queries (default 5)")
    parser.add_argument("--read-only", action="store_true", help="a read-only session: the erase is refused")
    parser.add_argument("--json", action="store_true")
    args = parser.parse_args(argv)
    set_read_only_session(args.read_only)
    cancel = CancelToken()
    for sig in (signal.SIGINT, signal.SIGTERM):
        signal.signal(sig, lambda *_: cancel.cancel())
    try:
        params = EraseParams(long=args.long, force=args.force, poll_seconds=args.poll)
        with TapeDrive.open(args.device) as drive, claimed(drive, "erase"):
            result = Erase(drive, params).run(_print, cancel)
    except SafetyRefusal as err:
        print(f"tapediag: refused: {err}", file=sys.stderr)
        return 3
    except DeviceError as err:
        print(f"tapediag: {err}", file=sys.stderr)
        return 1
    except TapediagError as err:
        print(f"tapediag: {err}", file=sys.stderr)
        return 2
    if args.json:
        print(json.dumps(result.to_dict(), indent=2))
    else:
        print(f"{result.kind} erase of {result.device}: {result.status}; {'; '.join(result.method)}")
        print(f"the tape: {result.state_after}")
        for note in result.notes:
            print(f"  {note}")
    return 130 if result.status == "cancelled" else 0


if __name__ == "__main__":
    sys.exit(main())
