"""A support ticket: everything a vendor's support desk asks for, captured read-only.

HPE and IBM support ask for the drive's pages *before* anyone cleans, updates firmware or
writes: a clean or a test changes the counters, and reading the TapeAlert log page (2Eh)
clears its flags. So the ticket

* opens the drive read-only (``TapeDrive.read_only``: nothing that writes or changes state
  can be sent, ``app.drive.state_changing``) and never moves the tape;
* sends every query once (``capture.OnceTransport``): decoding the pages (``app.info.gather``)
  after the raw capture cannot read TapeAlert 2Eh a second time;
* reads every log, VPD and mode page (current, changeable, default and saved values), the
  encryption status of the drive and of the next block with their key descriptors, the error
  history directory and every buffer it lists, and a vendor dump where the vendor documents a
  read-only way (``dumps.py``);
* stores each answer raw (sg3_utils' ``--inhex`` format, buffers as sent) with, for each file,
  the exact command that decodes it (``decode.py``) or tapediag's own decode beside it
  (``decoded.py``), and a summary a person reads first (``summary.py``): the drive, when, what
  was collected and what was not and why;
* adds the host's facts (not its name) and tapediag's own recorded runs of the drive, by its
  serial number (results, no samples; ``collect.py``).
"""
from __future__ import annotations

from app.ticket.archive import check_output, inhex, write, zip_bytes
from app.ticket.capture import Capture, DriveId, OnceTransport, Ticket, capture
from app.ticket.collect import collect, collect_from, host_facts
from app.ticket.summary import summary_text

__all__ = ["Capture", "DriveId", "OnceTransport", "Ticket", "capture", "check_output", "collect", "collect_from",
           "host_facts", "inhex", "summary_text", "write", "zip_bytes"]
