"""Opening the drive, capturing, decoding, and what the ticket carries beside the drive's answers: the host's
facts and tapediag's own recorded runs of this drive (by its serial number, results only)."""
from __future__ import annotations

import datetime
import os
import platform
from pathlib import Path
from typing import Any

import app
from app.drive import TapeDrive
from app.info import gather
from app.ticket.capture import DriveId, OnceTransport, Ticket, capture
from app.ticket.dumps import capture_dump, capture_error_history
from native.errors import CheckCondition, ParseError, TapediagError, TransportError
from native.iscsi_url import scrub
from native.transport import Transport

#: The most recorded runs a ticket carries (the newest); the summary says when there were more.
MAX_RUNS = 200


def host_facts(device: str) -> dict[str, str]:
    """The OS, kernel and tapediag facts support asks next, and the node's driver where Linux says.
    Not the host's name: the ticket leaves the site, and support does not need it."""
    facts = {"tapediag": app.__version__, "python": platform.python_version(), "system": platform.system(),
             "release": platform.release(), "version": platform.version(), "machine": platform.machine()}
    node = Path(device).name if device.startswith("/dev/") else ""
    for key, path in (("st_driver", "/sys/module/st/version"), ("sg_driver", "/proc/scsi/sg/version"),
                      ("node_driver", f"/sys/class/scsi_generic/{node}/device/driver" if node.startswith("sg") else ""),
                      ("max_sectors_kb", f"/sys/class/scsi_generic/{node}/device/block/queue/max_sectors_kb"
                       if node.startswith("sg") else "")):
        if not path:
            continue
        try:
            p = Path(path)
            facts[key] = os.readlink(p) if p.is_symlink() else p.read_text(errors="replace").strip()
        except OSError:
            continue
    return facts


def drive_runs(serial: str | None) -> tuple[list[dict[str, Any]], str]:
    """tapediag's recorded runs on the drive with this serial (the history's drive key), oldest first, results
    without samples; and a line saying which runs these are or why there are none."""
    from app.history import History
    from app.history.keys import RunKeys

    if not serial:
        return [], "none: the drive reported no serial number, so its runs cannot be told from another drive's"
    try:
        with History.open() as hist:
            found = [run for run, keys in hist.keyed_runs(RunKeys(drive_serial=serial)) if keys.drive_serial == serial]
    except TapediagError as err:
        return [], f"none: the history could not be read ({err})"
    if not found:
        return [], f"none recorded on drive serial {serial}"
    kept = found[-MAX_RUNS:]
    more = f", the newest {len(kept)} of {len(found)}" if len(found) > len(kept) else ""
    return [run.to_dict(samples=False) for run in kept], f"{len(kept)} run(s) on drive serial {serial}{more}"


def _identify(drive: TapeDrive) -> DriveId:
    inquiry = drive.inquiry()
    try:
        serial: str | None = drive.serial_number() or None
    except (CheckCondition, ParseError):
        serial = None
    return DriveId(inquiry.vendor, inquiry.product, inquiry.revision, serial)


def collect(device: str) -> Ticket:
    """Open ``device`` and capture its ticket (``collect_from``)."""
    from app.targets import open_device

    return collect_from(open_device(device), device)


def collect_from(transport: Transport, device: str) -> Ticket:
    """Capture everything read-only behind the once-only cache, then decode it; closes ``transport``."""
    ticket = Ticket(device="", created=datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"))
    with TapeDrive(OnceTransport(transport), device=device, read_only=True) as drive:
        ticket.device = scrub(drive.device)
        drive.require_tape()  # a ticket is for a tape drive; nothing else is asked of anything else
        ticket.drive = _identify(drive)
        capture(drive, ticket)
        capture_error_history(drive, ticket)
        capture_dump(drive, ticket, ticket.drive.vendor, ticket.drive.product)
        try:
            ticket.info = gather(drive)  # decodes from the cached answers: TapeAlert 2Eh is not read twice
        except TransportError:
            raise
        except TapediagError as err:
            ticket.info_error = str(err)
    ticket.host = host_facts(device)
    ticket.runs, ticket.runs_note = drive_runs(ticket.drive.serial)
    return ticket
