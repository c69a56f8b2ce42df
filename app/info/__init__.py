"""``tapediag info``: everything a technician wants to know about a drive, in one object.

``gather(drive)`` (``gather.py``) asks the drive for identity, limits, modes, cartridge memory,
TapeAlert flags, error counters, volume statistics and the drive-wide pages, read-only; ``assess``
(``judge.py``) turns what was read into the health verdict by the rules of
``resources/rules/drive-health.json``. "Healthy" needs TapeAlert or the error counters read and
clean; without either the verdict is "Not assessed". ``DriveInfo`` (``model.py``) holds each section
as the parser type of ``native.scsi`` that decoded it, and is shared by the CLI (text and ``--json``),
the GUI and PDF reports; rendering lives with them (``app.info_view``), ``to_dict()`` gives the stored,
JSON-safe form, whose field names ``stored.py`` declares once per section.
"""
from __future__ import annotations

from app.health_rules import Verdict
from app.info.gather import EMPTY_TAPEALERT, HP_VENDORS, NO_PATH_LIMIT, VENDOR_PAGE_CODES, gather
from app.info.judge import EXIT_CODES, NOT_REPORTED, Evidence, Health, assess
from app.info.model import NO_CARTRIDGE, NOT_A_TAPE, DriveInfo, Encryption, Identity

__all__ = ["DriveInfo", "EMPTY_TAPEALERT", "EXIT_CODES", "Encryption", "Evidence", "HP_VENDORS", "Health", "Identity",
           "NOT_A_TAPE", "NOT_REPORTED", "NO_CARTRIDGE", "NO_PATH_LIMIT", "VENDOR_PAGE_CODES", "Verdict", "assess",
           "gather"]
