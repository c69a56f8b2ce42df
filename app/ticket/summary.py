"""SUMMARY.txt, the zip's first file: the drive, when and by what, what was collected and what could not be
(each query's outcome), how to decode each file, then tapediag's own decode of the drive's state."""
from __future__ import annotations

import app
from app.ticket.capture import Capture, Ticket
from app.ticket.decode import Decode, decode_for
from native.scsi.vendorlogs import vendor_family

SUMMARY = "SUMMARY.txt"


def decodes(ticket: Ticket) -> list[tuple[Capture, Decode]]:
    """Each captured file with its decode (the table the summary prints and captures.json holds)."""
    family = vendor_family(ticket.drive.vendor)
    return [(c, decode_for(c.name, file, family)) for c in ticket.captures if (file := c.file) is not None]


def _header(ticket: Ticket) -> list[str]:
    return ["tapediag support ticket", "=======================",
            f"Drive:    {ticket.drive.line}", f"Device:   {ticket.device}",
            f"Created:  {ticket.created} (UTC) by tapediag {app.__version__}",
            "Read-only: nothing was written to the drive, the tape was not moved, no log page or error history was",
            "cleared (TapeAlert is read from page 12h, never 2Eh) and no dump was forced.", ""]


def _outcomes(ticket: Ticket) -> list[str]:
    """What was collected, and every query that was not, with the drive's answer or tapediag's reason."""
    missing = [c for c in ticket.captures if c.data is None]
    lines = [f"Collected: {ticket.captured} of {len(ticket.captures)} queries answered "
             f"(captures.json lists every query, its file and its decode).", ""]
    if not missing:
        return lines + ["Not collected: nothing; every query was answered.", ""]
    lines.append("Not collected, and why:")
    for cap in missing:
        lines += [f"  {cap.name}", f"      {cap.command}: {cap.error}"]
    return lines + [""]


def _decode_table(ticket: Ticket) -> list[str]:
    """One table: each file and the command that decodes it (run in the folder the zip was unpacked into), or
    '-' and tapediag's own decode; what each command shows and what it needs, as numbered notes below."""
    rows, notes = [], []  # type: list[tuple[str, str, int]], list[str]
    for cap, dec in decodes(ticket):
        note = "; ".join([dec.shows] + ([f"needs {dec.needs}"] if dec.needs else []))
        if note not in notes:
            notes.append(note)
        command = dec.command or "-"
        if dec.tapediag:
            command += f"  (tapediag's decode: {dec.tapediag})" if dec.command else f" (tapediag's decode: {dec.tapediag})"
        rows.append((cap.file or "", command, notes.index(note) + 1))
    width = max((len(f) for f, _, _ in rows), default=4) + 2
    lines = ["How to decode each file: run the command in the folder this zip was unpacked into; '-' where no tool",
             "reads the file, with tapediag's own decode named beside it. Notes below the table.", "",
             f"  {'file':<{width}}command  [note]"]
    lines += [f"  {f:<{width}}{c}  [{n}]" for f, c, n in rows]
    lines += ["", "  Notes:"] + [f"  [{i}] {text}" for i, text in enumerate(notes, 1)]
    return lines + [""]


def summary_text(ticket: Ticket) -> str:
    """The page a person reads first."""
    from app.info_view import render_text

    lines = _header(ticket) + _outcomes(ticket) + _decode_table(ticket)
    lines += [f"tapediag's recorded runs of this drive: {ticket.runs_note or 'none'} (runs.json: results, no samples)",
              "", "Host (no host name):"] + [f"  {k}: {v}" for k, v in ticket.host.items()] + [""]
    lines += ["tapediag's decode of the drive's state", "--------------------------------------"]
    if ticket.info is not None:
        lines.append(render_text(ticket.info).rstrip())
    else:
        lines.append(f"decoding failed: {ticket.info_error}")
    return "\n".join(lines) + "\n"
