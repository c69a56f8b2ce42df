"""What each command imports at start-up (issues 13.4 and 32 §3): structural checks, not timed ones (the timing is `benchmarks/bench_startup.py`)."""

from __future__ import annotations

import subprocess
import sys

HEAVY = ("numpy", "sqlite3", "PySide6")

#: What starting the command line and listing the devices never needs (issue 32 §3): the run model and the
#: events' dataclasses (``app.runs.kind``, ``app.events``: the signal policy needs only ``app.cancel``), the
#: command watch's timeouts table, the virtual drive's options table (``devices --help`` only), a changer's
#: codecs (a library's inventory only), nor the layouts of the commands that act (a probe only asks) or of the
#: queries a probe does not send.
NOT_AT_START = {"app.runs.kind", "app.events", "app.timeouts", "native.virtual.options", "native.virtual.specs",
                "native.scsi.smc", "native.scsi.cdb_actions", "native.scsi.cdb_more"}
#: ... and, while nothing is probed, the CDB layouts (a probe sends INQUIRY: ``native.scsi.cdb``).
CDB_LAYOUTS = {"native.scsi.cdb", "native.scsi.layout"}


def _imported(*args: str) -> set[str]:
    proc = subprocess.run([sys.executable, "-X", "importtime", "-m", "app", *args],
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr[-500:]
    return {line.split("|")[-1].strip() for line in proc.stderr.splitlines() if line.startswith("import time:")}


def test_version_imports_no_numpy_sqlite_or_qt() -> None:
    modules = _imported("--version")
    assert "app" in modules  # the check sees imports at all
    assert not [m for m in modules if m.split(".")[0] in HEAVY]


def test_help_and_devices_import_only_their_own_command() -> None:
    # Each command's module is imported only when it runs: --help lists them from app/cli/commands.py.
    for args in (("--help",), ("devices", "--no-probe")):
        modules = _imported(*args)
        assert not [m for m in modules if m.split(".")[0] in HEAVY], args
        assert not {"app.tapeperf", "app.history", "app.disk", "app.scan", "app.assess"} & modules, args
    assert "app.discovery" in _imported("devices", "--no-probe")  # the command's own module did run
    assert "app.discovery" not in _imported("--help")


def test_starting_and_listing_devices_load_neither_the_run_model_nor_the_cdb_layouts() -> None:
    for args in (("--help",), ("devices", "--no-probe")):
        modules = _imported(*args)
        assert "app.stop" in modules and "app.cancel" in modules  # the signal policy was installed
        assert not (NOT_AT_START | CDB_LAYOUTS) & modules, args
    assert "native.sgpt" in _imported("devices", "--no-probe")  # it said which transports work
    assert not NOT_AT_START & _imported("devices")  # probing: what a probe needs, no more


def test_devices_loads_neither_json_nor_textwrap_without_their_use(tmp_path, monkeypatch) -> None:
    """``json`` (six regular expressions compiled at import) only for ``--json`` or a remembered targets file;
    no ``textwrap`` (the description is wrapped in the source; issue 32 §3)."""
    monkeypatch.setenv("TAPEDIAG_DATA_DIR", str(tmp_path))  # no remembered iSCSI targets file
    modules = _imported("devices")
    assert "app.discovery" in modules and "app.targets" in modules  # the command ran and listed the targets
    assert not {"json", "textwrap"} & modules
    assert "json" in _imported("devices", "--json")


def test_devices_does_not_import_the_iscsi_transport_or_spawn_a_library_search() -> None:
    """Listing devices loads libsgutils2 and libiscsi to say which transports work, but needs neither
    the iSCSI transport module nor ``ctypes.util`` (its ``find_library`` runs ldconfig and a compiler)."""
    from native import _iscsi_lib, sgpt
    from native.errors import TransportUnavailable

    try:
        found_by_name = sgpt.load().path.startswith("libsgutils2") and _iscsi_lib.load().path in _iscsi_lib.LIBRARY_NAMES
    except TransportUnavailable:
        found_by_name = False  # a missing library is searched for with find_library: that is its job
    modules = _imported("devices")
    assert "app.discovery" in modules and "native.sgpt" in modules and "native._iscsi_lib" in modules
    assert not {"native.iscsi", "native.iscsi_discovery", "socket"} & modules
    if found_by_name:
        assert not {"ctypes.util", "subprocess"} & modules


def test_info_on_a_virtual_drive_loads_no_test_engine(tmp_path, monkeypatch) -> None:
    """``info`` reads a threshold of the media scan for the drive's earlier visits; that must not load the
    scan's results, the scan engine or the tape performance engine (issue 32 §3)."""
    monkeypatch.setenv("TAPEDIAG_DATA_DIR", str(tmp_path))
    _imported("info", "virtual:lto9")  # a first run records a snapshot: the second has an earlier visit to read
    modules = _imported("info", "virtual:lto9")
    assert "app.visits" in modules and "app.scan.thresholds" in modules  # the path that used to load them ran
    assert not {"app.scan.engine", "app.scan.results", "app.tapeperf", "app.tapeperf.engine"} & modules
    # ... nor what only an error, a label, a lock or a buffer needs: the sense decoder (no CHECK CONDITION came),
    # the XML parser (LTFS labels and indexes), OpenSSL's digests and tempfile (a claimed drive's lock file, a
    # drive buffer's bytes), a changer's codecs (issue 32 §3) ...
    assert "app.drive" in modules and "app.claims" in modules and "native.virtual.buffers" in modules
    assert not {"native.scsi.sense", "xml.etree.ElementTree", "hashlib", "tempfile", "native.scsi.smc"} & modules
    # ... nor LTFS's label parsers, nor app.ltfs (partition counting) when the cartridge memory names no LTFS volume
    assert "native.scsi.ltfs" in modules and not {"native.scsi.ltfs_labels", "app.ltfs"} & modules
    # ... nor the answers of the queries it does not send (READ POSITION, REPORT DENSITY SUPPORT), nor the ASC table
    # (a device statistics page names a kept error's sense by it, and the virtual drive kept none)
    assert "native.scsi.tape" in modules and "native.scsi.density" in modules and "native.scsi.devicelogs" in modules
    assert not {"native.scsi.position", "native.scsi.density_support", "native.scsi.asc", "native.scsi.asc_table"} & modules
    # ... nor the layouts of the commands that act (move the tape, write, change a state): info only asks, nor those
    # of the queries it does not send (REQUEST SENSE, MODE SENSE(6), READ POSITION, READ BUFFER, REPORT DENSITY SUPPORT)
    assert "native.scsi.cdb" in modules and not {"native.scsi.cdb_actions", "native.scsi.cdb_more"} & modules
    # ... nor shutil and its compressors, which argparse imported to ask the terminal's width for every option it
    # checked (``app.cli._Parser._get_formatter``): the help is not shown
    assert "argparse" in modules and not {"shutil", "bz2", "lzma"} & modules
    # ... nor the queue of the helper thread that watches a transport waiting in the OS (SG_IO, SPTI): the virtual
    # drive does not wait in the OS
    assert "native.waiting" in modules and "queue" not in modules
    # ... nor the events' classes (its run emits none; the history's recorder loads them with a run's first event),
    # nor ``string`` (the health rules' templates are filled by ``str.format_map``)
    assert "app.history.recorder" in modules and "app.sink" in modules and not {"app.events", "string"} & modules


def test_the_cdb_module_builds_only_the_layouts_of_the_queries_info_sends() -> None:
    """Each layout is a frozen dataclass built at import (about 0.3 ms of CPU each): ``native.scsi.cdb`` builds
    those of the queries ``info`` sends; the others (``cdb_actions``, ``cdb_more``) when first named (issue 32 §3)."""
    code = ("import native.scsi.cdb; from native.scsi.layout import Cdb; "
            "print(' '.join(sorted(c.__name__ for c in Cdb.__subclasses__())))")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True)
    assert proc.stdout.split() == sorted(["Inquiry", "LogSense", "ModeSense10", "ReadAttribute", "ReadBlockLimits",
                                          "ReportSupportedOpcodes", "SecurityProtocolIn", "TestUnitReady"])


_GENERATED_DOCS = """
import dataclasses, sys
from app.__main__ import run
sys.argv = ["tapediag", *sys.argv[1:]]
run()
generated = sorted(f"{name}.{obj.__qualname__}" for name, module in list(sys.modules.items())
                   if name.startswith(("app.", "native.")) and not name.startswith(SKIP)
                   for obj in vars(module).values()
                   if isinstance(obj, type) and obj.__module__ == name and dataclasses.is_dataclass(obj)
                   and (obj.__doc__ or "").startswith(obj.__name__ + "("))
print("generated:", *generated, file=sys.stderr)
"""


def test_the_dataclasses_info_and_devices_build_have_their_own_docstring(tmp_path, monkeypatch) -> None:
    """A dataclass without a docstring gets one at import from ``inspect.signature`` (about 0.05 ms of CPU each,
    issue 32 §3): each that ``info`` and ``devices`` build says what it is instead (the history's modules aside,
    worked on elsewhere)."""
    monkeypatch.setenv("TAPEDIAG_DATA_DIR", str(tmp_path))
    for args in (("info", "virtual:lto9"), ("devices",)):
        code = _GENERATED_DOCS.replace("SKIP", repr(("app.history",)))
        proc = subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True, timeout=60)
        said = [line for line in proc.stderr.splitlines() if line.startswith("generated:")]
        assert said == ["generated:"], (args, said, proc.stderr[-300:])
