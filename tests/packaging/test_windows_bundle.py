"""Smoke test of the Windows bundle (packaging/build-windows-wine.sh) under Wine.

The frozen ``tapediag-cli.exe`` and ``tapediag.exe`` run from a copy of the bundle on
the Wine prefix's ``C:\\`` drive, with their data directory there too, the way a
technician unzips it on a server. Runs when the bundle exists (dist/tapediag-windows/),
or builds it first with TAPEDIAG_BUILD_WINDOWS=1 (``.ci/run`` sets it).

Wine-only, in the copy only: ``_internal\\_wmi.pyd`` is moved aside (Wine 8's
propsys.VariantToString, which it calls, is an aborting stub).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
import sys
import time
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

import app
from tests.helpers.wine import BUNDLE, Wine, build_if_asked, build_prefix

pytestmark = pytest.mark.slow



@pytest.fixture(scope="module")
def wine() -> Wine:
    build_if_asked()
    prefix = build_prefix()
    if prefix is None or not (BUNDLE / "tapediag-cli.exe").is_file():
        pytest.skip("no Windows bundle (build: packaging/build-windows-wine.sh, or set TAPEDIAG_BUILD_WINDOWS=1)")
    return prefix


@pytest.fixture(scope="module")
def place(wine: Wine) -> Iterator[Path]:
    """A folder of ours on C:\\ holding the bundle's copy and the data directory; removed after."""
    here = wine.drive_c / f"tdsmoke-{uuid.uuid4().hex[:8]}"
    shutil.copytree(BUNDLE, here / "tapediag")
    wmi = here / "tapediag" / "_internal" / "_wmi.pyd"
    if wmi.exists():  # Wine-only, see the module docstring
        wmi.rename(wmi.with_name("_wmi.pyd.wine-disabled"))
    (here / "data").mkdir()
    yield here
    shutil.rmtree(here, ignore_errors=True)


@pytest.fixture(scope="module")
def cli(wine: Wine, place: Path):
    exe = wine.windows_path(place / "tapediag" / "tapediag-cli.exe")
    env = {"TAPEDIAG_DATA_DIR": wine.windows_path(place / "data")}

    def run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
        result = wine.run(exe, list(args), env=env, timeout=timeout)
        assert "Traceback" not in result.stderr, result.stderr
        return result

    return run


def test_version_and_devices(cli) -> None:
    version = cli("--version")
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"tapediag {app.__version__}"
    devices = cli("devices")
    assert devices.returncode == 0, devices.stderr
    assert "virtual:lto9" in devices.stdout and "virtual:library" in devices.stdout


def test_info_on_a_virtual_drive(cli) -> None:
    info = cli("info", "virtual:lto9", "--json")
    assert info.returncode == 0, info.stderr
    assert "LTO-9" in json.dumps(json.loads(info.stdout))


def test_tape_perf_and_pdf_report(cli, wine: Wine, place: Path) -> None:
    perf = cli("tape-perf", "virtual:lto9", "--size", "64M", "--json")
    assert perf.returncode == 0, perf.stderr
    result = json.loads(perf.stdout)
    assert result["status"] == "complete" and result["generation"] == 9, result
    assert result["write_mb_s"] > 0 and result["sample_count"] > 0
    history = cli("history")
    assert history.returncode == 0 and "tape-perf" in history.stdout, history.stderr
    run_id = history.stdout.splitlines()[1].split()[0]
    pdf = place / "report.pdf"
    report = cli("report", run_id, "-o", wine.windows_path(pdf))
    assert report.returncode == 0, report.stderr
    assert pdf.read_bytes()[:5] == b"%PDF-"
    if shutil.which("pdftotext") is None:
        pytest.skip("pdftotext not installed (Debian package poppler-utils)")
    text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
    assert "virtual:lto9" in text


@pytest.mark.parametrize("name", ["tdtest", "данные"], ids=["ascii", "non-ascii"])
def test_create_read_clean_a_tree_on_c(cli, wine: Wine, place: Path, name: str) -> None:
    tree = place / "trees" / name
    tree.parent.mkdir(exist_ok=True)
    target = wine.windows_path(tree)
    created = cli("create-data", target, "--files", "200", "--size", "16K", "--json")
    assert created.returncode == 0, created.stderr
    assert json.loads(created.stdout)["total_files"] == 200
    assert sum(1 for p in tree.rglob("*") if p.is_file() and not p.name.startswith(".tapediag")) == 200
    read = cli("read-data", target, "--json")
    assert read.returncode == 0, read.stderr
    assert json.loads(read.stdout)["total_files"] == 200
    cleaned = cli("clean", target)
    assert cleaned.returncode == 0, cleaned.stderr
    assert not tree.exists() or not any(tree.iterdir())


def test_cli_works_without_qt(cli, place: Path) -> None:
    """Where Qt 6 cannot load (Windows Server 2016 has no icuuc.dll, which Qt6Core.dll
    imports), `info` and `tape-perf` still work: Qt6Core.dll hidden in the copy, as there."""
    qt_core = place / "tapediag" / "_internal" / "PySide6" / "Qt6Core.dll"
    hidden = qt_core.with_name("Qt6Core.dll.hidden")
    qt_core.rename(hidden)
    try:
        info = cli("info", "virtual:lto9", "--json")
        assert info.returncode == 0, info.stderr
        perf = cli("tape-perf", "virtual:lto9", "--size", "16M", "--force", "--json")  # the cartridge holds the 64 MiB run
        assert perf.returncode == 0, perf.stderr
        assert json.loads(perf.stdout)["status"] == "complete"
        gui = cli("gui", "--self-test")  # the GUI says it cannot start (no traceback: see cli)
        assert gui.returncode != 0
        assert "desktop app cannot start" in gui.stderr, gui.stderr
    finally:
        hidden.rename(qt_core)


def _xvfb() -> tuple[subprocess.Popen[bytes], str]:
    """Our own Xvfb on a free display number (its -displayfd tells which)."""
    read_end, write_end = os.pipe()
    server = subprocess.Popen(
        ["Xvfb", "-displayfd", str(write_end), "-screen", "0", "1400x900x24", "-nolisten", "tcp"],
        pass_fds=(write_end,), stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
    )
    os.close(write_end)
    with os.fdopen(read_end) as pipe:
        number = pipe.readline().strip()
    assert number, "Xvfb did not start"
    return server, f":{number}"


#: CPU seconds tapediag.exe and Wine's own processes may use before a missing window is a failure (a quiet
#: start-up, the self-test's window included, takes about 10).
WINDOW_CPU_S = 120
WINDOW_WALL_S = 900


def _prefix_processes(wine: Wine) -> list[Path]:
    """/proc entries of the processes running in ``wine``'s prefix (by their WINEPREFIX)."""
    found = []
    for entry in Path("/proc").iterdir():
        try:
            if entry.name.isdigit() and f"WINEPREFIX={wine.prefix}".encode() in (entry / "environ").read_bytes().split(b"\0"):
                found.append(entry)
        except OSError:
            continue
    return found


def _cpu_seconds(wine: Wine) -> float:
    total = 0
    for entry in _prefix_processes(wine):
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
        except (OSError, IndexError):
            continue
        total += int(fields[11]) + int(fields[12])  # utime, stime
    return total / os.sysconf("SC_CLK_TCK")


def _programs(wine: Wine) -> str:
    names = []
    for entry in _prefix_processes(wine):
        try:
            names.append((entry / "cmdline").read_bytes().replace(b"\0", b" ").decode(errors="replace").strip())
        except OSError:
            continue
    return "; ".join(names) or "none"


def _window_names(display: str) -> str:
    # LANG: the main window's title has an em dash, which xwininfo prints only in a UTF-8 locale.
    tree = subprocess.run(["xwininfo", "-root", "-tree"], env={"DISPLAY": display, "PATH": "/usr/bin:/bin", "LANG": "C.UTF-8"},
                          capture_output=True, text=True)
    return tree.stdout


def _grab(display: str, out: Path) -> None:
    """The whole screen to PNG, by Qt on the build machine (an X client like any other)."""
    code = ("import sys; from PySide6.QtGui import QGuiApplication; a = QGuiApplication(sys.argv); "
            f"sys.exit(0 if a.primaryScreen().grabWindow(0).save({str(out)!r}) else 1)")
    subprocess.run([sys.executable, "-c", code], env=dict(os.environ, DISPLAY=display, QT_QPA_PLATFORM="xcb"),
                   check=True, timeout=60)


@pytest.mark.gui
def test_gui_under_xvfb(wine: Wine, place: Path, cli, tmp_path: Path) -> None:
    """The GUI executable opens its main window on an X server; a screenshot is saved (in the test's own
    directory: a test run changes no file of the checkout)."""
    screenshot = tmp_path / "windows-gui.png"
    if shutil.which("Xvfb") is None or shutil.which("xwininfo") is None:
        pytest.skip("needs Xvfb and xwininfo (Debian packages xvfb, x11-utils)")
    server, display = _xvfb()
    env = {"TAPEDIAG_DATA_DIR": wine.windows_path(place / "data"), "DISPLAY": display}
    wine.wait_idle()  # the programs of the tests before have ended: ours start a desktop on this X server
    try:
        # The console executable's `gui --self-test`: the window is shown, devices listed, exit 0.
        selftest = wine.run(wine.windows_path(place / "tapediag" / "tapediag-cli.exe"), ["gui", "--self-test"],
                            env=env, timeout=300)
        assert selftest.returncode == 0, selftest.stderr
        assert "window shown" in selftest.stdout and "Traceback" not in selftest.stderr

        # tapediag.exe (windowed: no console to print to): wait for its main window, then look.
        gui = wine.popen(wine.windows_path(place / "tapediag" / "tapediag.exe"), ["--device", "virtual:lto9"], env=env)
        try:
            # Ended by the program's progress, not the clock: on a loaded machine its start-up takes longer,
            # and only a program that has used WINDOW_CPU_S of CPU (several times a quiet start-up's) without
            # showing its window has failed. The wall-clock limit is the backstop for one that hangs idle.
            deadline = time.monotonic() + WINDOW_WALL_S
            while f"tapediag {app.__version__}" not in (names := _window_names(display)):
                assert gui.poll() is None, f"tapediag.exe exited {gui.returncode}: {gui.communicate()[1]}"
                used = _cpu_seconds(wine)
                if used > WINDOW_CPU_S or time.monotonic() > deadline:
                    _grab(display, screenshot.with_name("windows-gui-failed.png"))
                    pytest.fail(f"no main window after {used:.0f} CPU seconds of the prefix's programs; "
                                f"programs: {_programs(wine)}; windows: {names}")
                time.sleep(1)
            time.sleep(5)  # first paint of the panels
            _grab(display, screenshot)
            assert screenshot.stat().st_size > 10_000
            print(f"Windows GUI screenshot: {screenshot}")
        finally:
            gui.kill()
            gui.communicate(timeout=30)
    finally:
        server.terminate()
        server.wait(timeout=30)
