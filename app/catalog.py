"""The run kinds tapediag knows: the one list (Django's ``INSTALLED_APPS``).

Each kind is its own package's (``app/scan/kind.py`` ...: parameters, engine, typed result, renderers);
this module only lists them and installs them in the registry (``app.runs.registry``), in the order
the history's ``--kind`` and the reports list them. Adding a kind is one line here. Whatever reads
stored runs of every kind (``history``, ``show``, ``report``, the GUI) imports this module first;
nothing below the kinds does.
"""
from __future__ import annotations

from typing import Any

from app.assess.kind import ASSESSMENT
from app.disk.kind import CREATE_DATA, READ_DATA
from app.erase.kind import ERASE
from app.info_kind import DRIVE_INFO
from app.libtest.kind import LIBRARY_TEST
from app.nettest.kind import NET_TEST
from app.runs import registry
from app.runs.kind import RunKind
from app.scan.kind import MEDIA_SCAN
from app.tapeperf.kind import TAPE_PERF, TAPE_PERF_MULTI
from app.troubleshoot.kind import TROUBLESHOOT

KINDS: tuple[RunKind[Any, Any], ...] = (
    DRIVE_INFO,
    TAPE_PERF,
    TAPE_PERF_MULTI,
    CREATE_DATA,
    READ_DATA,
    TROUBLESHOOT,
    MEDIA_SCAN,
    ASSESSMENT,
    LIBRARY_TEST,
    ERASE,
    NET_TEST,
)

registry.install(KINDS)

__all__ = ["KINDS"]
