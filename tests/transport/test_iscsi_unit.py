"""IscsiTransport pieces that need no target: URL syntax, the libiscsi binding, errors."""
from __future__ import annotations

import ctypes.util

import ctypes
import shutil
import subprocess
from pathlib import Path

import pytest

from native import _iscsi_lib
from native.errors import InvalidParameter, TransportUnavailable
from native.iscsi import IscsiTransport, IscsiUrl, display_device, initiator_name


@pytest.mark.parametrize(
    "url, expected",
    [
        ("iscsi://127.0.0.1:3261/iqn.2004-04.com.example:tape/1",
         IscsiUrl("127.0.0.1", 3261, "iqn.2004-04.com.example:tape", 1)),
        ("iscsi://nas.local/iqn.2004-04.com.example%3Atape/0",
         IscsiUrl("nas.local", 3260, "iqn.2004-04.com.example:tape", 0)),
        ("iscsi://bob%secret@127.0.0.5/iqn.x:y/2", IscsiUrl("127.0.0.5", 3260, "iqn.x:y", 2, "bob", "secret")),
        ("iscsi://bob%s@c@ret@127.0.0.5/iqn.x:y/2", IscsiUrl("127.0.0.5", 3260, "iqn.x:y", 2, "bob", "s@c@ret")),
        ("iscsi://[::1]:3262/iqn.x:y/3", IscsiUrl("::1", 3262, "iqn.x:y", 3)),
    ],
)
def test_url_parsing(url: str, expected: IscsiUrl) -> None:
    assert IscsiUrl.parse(url) == expected


def test_ipv6_portal_is_bracketed() -> None:
    assert IscsiUrl.parse("iscsi://[::1]:3262/iqn.x:y/3").portal == "[::1]:3262"


@pytest.mark.parametrize(
    "url",
    ["iscsi://host/iqn.x:y", "iscsi://host:port/iqn.x:y/1", "iscsi://host/iqn.x:y/lun", "iscsi:///iqn/1",
     "iscsi://host:70000/iqn.x:y/1", "http://host/iqn/1"],
)
def test_bad_urls_are_invalid_parameter(url: str) -> None:
    with pytest.raises(InvalidParameter):
        IscsiUrl.parse(url)


@pytest.mark.parametrize(
    "device, shown",
    [
        ("iscsi://bob%secret@127.0.0.1:3261/iqn.x:y/1", "iscsi://bob@127.0.0.1:3261/iqn.x:y/1"),
        ("iscsi://bob%s@cret%x@127.0.0.1/iqn.x:y/1", "iscsi://bob@127.0.0.1/iqn.x:y/1"),
        ("iscsi://bob@127.0.0.1/iqn.x:y/1", "iscsi://bob@127.0.0.1/iqn.x:y/1"),
        ("iscsi://%secret@127.0.0.1/iqn.x:y/1", "iscsi://127.0.0.1/iqn.x:y/1"),
        ("iscsi://bob%secret@", "iscsi://bob@"),  # not a valid device, still cleaned
        ("iscsi://127.0.0.1/iqn.x%3Ay/1", "iscsi://127.0.0.1/iqn.x%3Ay/1"),  # %-encoded IQN untouched
        ("virtual:lto9?cartridge=/tmp/a%40b@c", "virtual:lto9?cartridge=/tmp/a%40b@c"),
        ("/dev/sg3", "/dev/sg3"),
    ],
)
def test_display_device_drops_only_the_secret(device: str, shown: str) -> None:
    assert display_device(device) == shown


def test_secret_is_not_in_errors_or_reprs() -> None:
    url = IscsiUrl.parse("iscsi://bob%hush1234@127.0.0.1/iqn.x:y/1")
    assert "hush1234" not in repr(url)
    with pytest.raises(InvalidParameter) as err:
        IscsiUrl.parse("iscsi://bob%hush1234@127.0.0.1/iqn.x:y/notalun")
    assert "hush1234" not in str(err.value)


@pytest.mark.parametrize(
    "host, words",
    [("a" * 5000, "5000 characters"), ("a" * 64 + ".example", "not a valid host name"),
     ("bad host", "not a valid host name"), ("h\u00e9te", "not a valid host name"), ("a..b", "not a valid host name")],
)
def test_bad_host_names_are_one_line_before_any_lookup(host: str, words: str) -> None:
    with pytest.raises(InvalidParameter, match=words):
        IscsiUrl.parse(f"iscsi://{host}/iqn.x:y/1")


def test_long_host_through_the_cli_is_one_line_exit_2() -> None:
    tapediag = Path(__file__).resolve().parents[2] / ".venv" / "bin" / "tapediag"
    got = subprocess.run([str(tapediag), "info", f"iscsi://{'a' * 5000}/iqn.x:y/1"], capture_output=True, text=True,
                         timeout=60, stdin=subprocess.DEVNULL)
    assert got.returncode == 2, got.stderr
    assert len(got.stderr.strip().splitlines()) == 1 and "Traceback" not in got.stderr


def test_initiator_name_is_a_valid_iqn() -> None:
    name = initiator_name()
    assert name.startswith("iqn.2026-11.org.tapediag:")
    assert name == name.lower() and " " not in name


def test_every_bound_function_has_restype_and_argtypes() -> None:
    binding = _iscsi_lib.load()
    for name in _iscsi_lib.PROTOTYPES:
        func = getattr(binding.lib, name)
        assert func.argtypes is not None, name
        # pointer-returning functions must not be left at ctypes' default c_int
        if name in ("iscsi_create_context", "scsi_create_task", "iscsi_scsi_command_sync"):
            assert func.restype is ctypes.c_void_p, name


def test_layout_chosen_by_symbols() -> None:
    binding = _iscsi_lib.load()
    newer = any(hasattr(binding.lib, s) for s in _iscsi_lib.SYMBOLS_1_20)
    assert binding.layout == ("1.20+" if newer else "1.19")


@pytest.mark.skipif(not (shutil.which("gcc") and Path("/usr/include/iscsi/scsi-lowlevel.h").exists()),
                    reason="needs gcc and libiscsi-dev headers")
def test_task_layout_matches_installed_headers(tmp_path: Path) -> None:
    """The ctypes struct the binding chose has the offsets the C compiler sees."""
    fields = ["status", "residual_status", "residual", "sense", "datain", "mem", "itt", "lun",
              "iovector_in", "iovector_out"]
    src = tmp_path / "offsets.c"
    src.write_text(
        "#include <stdio.h>\n#include <stddef.h>\n#include <stdint.h>\n"
        "#include <iscsi/iscsi.h>\n#include <iscsi/scsi-lowlevel.h>\nint main(void){\n"
        + "".join(f'printf("{f} %zu\\n", offsetof(struct scsi_task, {f}));\n' for f in fields)
        + 'printf("sizeof %zu\\n", sizeof(struct scsi_task));\nreturn 0;}\n'
    )
    exe = tmp_path / "offsets"
    subprocess.run(["gcc", "-o", str(exe), str(src)], check=True, capture_output=True)
    seen = dict(line.split() for line in subprocess.run([str(exe)], capture_output=True, text=True).stdout.splitlines())
    task = _iscsi_lib.load().task_struct
    for f in fields:
        assert getattr(task, f).offset == int(seen[f]), f
    assert ctypes.sizeof(task) == int(seen["sizeof"])


def test_missing_library_is_transport_unavailable(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(ctypes.util, "find_library", lambda name: None)
    monkeypatch.setattr(_iscsi_lib, "LIBRARY_NAMES", ("libiscsi-not-here.so.99",))
    _iscsi_lib.load.cache_clear()
    try:
        with pytest.raises(TransportUnavailable) as info:
            IscsiTransport("iscsi://127.0.0.1/iqn.x:y/1")
        assert "apt-get install libiscsi7" in str(info.value)
    finally:
        _iscsi_lib.load.cache_clear()


def test_silent_listener_times_out_at_login() -> None:
    """A port that accepts TCP but never speaks iSCSI must not hang the login."""
    import socket
    import time

    from native.errors import DeviceNotFound

    with socket.socket() as server:
        server.bind(("127.0.0.1", 0))
        server.listen(1)
        port = server.getsockname()[1]
        started = time.monotonic()
        with pytest.raises(DeviceNotFound, match="no iSCSI answer"):
            IscsiTransport(f"iscsi://127.0.0.1:{port}/iqn.x:y/1", login_timeout=2)
        assert time.monotonic() - started < 30
