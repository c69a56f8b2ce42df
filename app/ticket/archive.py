"""Writing the ticket: a zip whose first file is the summary, every answer raw beside tapediag's own decode
where no tool reads it, written beside its final name and renamed over it only when complete (``app.output``):
a full disk never leaves half a ticket nor costs an older one."""
from __future__ import annotations

import io
import json
import zipfile
from pathlib import Path

from app.output import check_target, replacing
from app.ticket.capture import Ticket
from app.ticket.decoded import decoded_text
from app.ticket.summary import SUMMARY, decodes, summary_text
from native.errors import InvalidParameter, TapediagError
from native.iscsi_url import scrub
from native.scsi.vendorlogs import vendor_family


def inhex(data: bytes, title: str) -> str:
    """Bytes as sg3_utils reads them with ``--inhex``: '#' comment lines, then 16 hex pairs a line."""
    lines = [f"# {title}"]
    lines += [" ".join(f"{b:02x}" for b in data[i:i + 16]) for i in range(0, len(data), 16)]
    return "\n".join(lines) + "\n"


def _captures_json(ticket: Ticket) -> str:
    table = {c.name: d for c, d in decodes(ticket)}
    rows = []
    for c in ticket.captures:
        d = table.get(c.name)
        rows.append({"file": c.file, "command": c.command, "bytes": len(c.data) if c.data else 0, "error": c.error,
                     "decode": d.command if d else "", "decode_shows": d.shows if d else "",
                     "decode_needs": d.needs if d else "", "tapediag_decode": d.tapediag if d else ""})
    return json.dumps(rows, indent=2)


def zip_bytes(ticket: Ticket) -> bytes:
    """The whole zip in memory; no secret in it (iSCSI device strings are shown without their CHAP secret)."""
    family = vendor_family(ticket.drive.vendor)
    buf = io.BytesIO()
    with zipfile.ZipFile(buf, "w", zipfile.ZIP_DEFLATED) as zf:
        zf.writestr(SUMMARY, scrub(summary_text(ticket)))
        for c, d in decodes(ticket):
            if c.data is None or c.file is None:  # decodes() lists captured files only
                continue
            zf.writestr(c.file, c.data if c.binary else inhex(c.data, scrub(f"{c.command} from {ticket.device}")))
            if d.tapediag:
                zf.writestr(d.tapediag, decoded_text(c.name, c.data, family))
        zf.writestr("captures.json", _captures_json(ticket))
        if ticket.info is not None:
            zf.writestr("decoded/info.json", scrub(json.dumps(ticket.info.to_dict(), indent=2, default=str)))
        zf.writestr("host.json", json.dumps(ticket.host, indent=2))
        zf.writestr("runs.json", scrub(json.dumps(ticket.runs, indent=2, default=str)))
    return buf.getvalue()


def check_output(path: Path) -> None:
    """Refuse an output path that cannot take the zip before the drive is even opened (exit 2): anything
    but a regular file or nothing (``app.output``)."""
    if path.is_dir() and not path.is_symlink():
        raise InvalidParameter(f"{path} is a directory: give a file name such as ticket.zip")
    check_target(path, "the ticket")
    parent = path.parent if str(path.parent) else Path(".")
    if not parent.is_dir():
        raise InvalidParameter(f"cannot write the ticket to {path}: the directory {parent} does not exist")


def write(ticket: Ticket, path: Path) -> Path:
    """Write the zip beside ``path`` and rename it over ``path`` once complete and checked."""
    check_output(path)
    data = zip_bytes(ticket)
    with replacing(path, "the ticket") as out:
        out.stream.write(data)
        out.stream.flush()
        out.stream.seek(0)
        try:
            with zipfile.ZipFile(out.stream) as check:
                bad = check.testzip()
        except (OSError, zipfile.BadZipFile) as err:
            raise TapediagError(f"cannot write the ticket to {path}: the written zip does not read back ({err}); "
                                "nothing was replaced") from err
        if bad is not None:
            raise TapediagError(f"cannot write the ticket to {path}: {bad} does not read back; nothing was replaced")
    ticket.path = path
    return path
