"""Smoke test of the frozen Linux bundle (packaging/build-linux.sh -> dist/tapediag/).

The bundle is copied to a directory outside the source tree and run with a clean
environment (no virtualenv, no PYTHONPATH, a minimal PATH), the way a technician runs
it on a customer's server. Runs only when a bundle exists in dist/, or builds one
first when TAPEDIAG_BUILD_BUNDLE=1 (about a minute on this machine).
"""
from __future__ import annotations

import json
import os
import shutil
import subprocess
from pathlib import Path

import pytest

import app

pytestmark = pytest.mark.slow

ROOT = Path(__file__).resolve().parents[2]
DIST = ROOT / "dist" / "tapediag"
CLEAN_PATH = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
# The transports' libraries, which the bundle must take from the system.
SYSTEM_LIBRARIES = {"libsgutils2": "libsgutils2-1.46.so.2", "libiscsi": "libiscsi.so.7"}


@pytest.fixture(scope="module")
def bundle(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The bundle as a technician gets it: the tarball unpacked outside the source tree.

    (A copy of dist/tapediag/ when only the folder was built.)
    """
    if os.environ.get("TAPEDIAG_BUILD_BUNDLE") == "1":
        subprocess.run(["bash", str(ROOT / "packaging" / "build-linux.sh")], check=True, timeout=1800)
    if not (DIST / "tapediag").is_file():
        pytest.skip("no bundle in dist/tapediag (build: packaging/build-linux.sh, or set TAPEDIAG_BUILD_BUNDLE=1)")
    outside = tmp_path_factory.mktemp("outside-tree")
    assert ROOT not in outside.parents
    tarball = ROOT / "dist" / f"tapediag-{app.__version__}-linux-{os.uname().machine}.tar.gz"
    if tarball.is_file() and tarball.stat().st_mtime >= (DIST / "tapediag").stat().st_mtime:
        subprocess.run(["tar", "-xzf", str(tarball), "-C", str(outside)], check=True)
    else:
        shutil.copytree(DIST, outside / "tapediag", symlinks=True)
    return outside / "tapediag"


@pytest.fixture
def clean_env(tmp_path: Path, isolated_data_dir: Path) -> dict[str, str]:
    """What a fresh login shell on a server has: no venv, no Python variables."""
    return {
        "PATH": CLEAN_PATH,
        "HOME": str(tmp_path),
        "LANG": "C.UTF-8",
        "TAPEDIAG_DATA_DIR": str(isolated_data_dir),
        "QT_QPA_PLATFORM": "offscreen",
    }


def run(cmd: list[str], env: dict[str, str], cwd: Path, timeout: float = 120) -> subprocess.CompletedProcess[str]:
    return subprocess.run(cmd, env=env, cwd=cwd, capture_output=True, text=True, timeout=timeout)


def library_file(soname: str) -> Path | None:
    """Where the dynamic linker finds ``soname`` on this machine (ldconfig's cache)."""
    listing = subprocess.run(["/sbin/ldconfig", "-p"], capture_output=True, text=True).stdout
    for line in listing.splitlines():
        if line.strip().startswith(soname + " ") and "x86-64" in line:
            return Path(line.rsplit("=>", 1)[1].strip())
    return None


def test_bundle_layout(bundle: Path) -> None:
    internal = bundle / "_internal"
    for name in ("tapediag", "tapediag-gui", "install.sh"):
        assert os.access(bundle / name, os.X_OK), name
    assert (bundle / "share" / "tapediag.desktop").read_text().count("Exec=tapediag-gui") == 1
    assert (bundle / "share" / "tapediag.png").read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    assert (internal / "resources" / "icons" / "tapediag.svg").is_file()  # the window icon (ui/main.py)
    assert (internal / "PySide6" / "Qt" / "plugins" / "iconengines" / "libqsvgicon.so").is_file()
    platforms = {p.name for p in (internal / "PySide6" / "Qt" / "plugins" / "platforms").iterdir()}
    assert {"libqoffscreen.so", "libqxcb.so"} <= platforms
    compiled = {p.name.split(".")[0] for p in (internal / "native").glob("_*.so")}
    sources = {p.stem for p in (ROOT / "native" / "src").glob("_*.c")}
    assert sources <= compiled, f"C helpers missing from the bundle: {sources - compiled}"
    bundled = [p.name for p in internal.rglob("*") if p.name.startswith(tuple(SYSTEM_LIBRARIES))]
    assert bundled == [], "libsgutils2/libiscsi must come from the system, not the bundle"


def test_install_script_links_executables_and_menu_entry(bundle: Path, clean_env: dict[str, str], tmp_path: Path) -> None:
    prefix = tmp_path / "prefix"
    env = dict(clean_env, PREFIX=str(prefix))
    installed = run(["sh", str(bundle / "install.sh")], env, tmp_path)
    assert installed.returncode == 0, installed.stderr
    version = run([str(prefix / "bin" / "tapediag"), "--version"], clean_env, tmp_path)  # through the link
    assert version.stdout.strip() == f"tapediag {app.__version__}", version.stderr
    entry = (prefix / "share" / "applications" / "tapediag.desktop").read_text()
    assert f"Exec={bundle / 'tapediag-gui'}\n" in entry
    if shutil.which("desktop-file-validate"):
        check = run(["desktop-file-validate", str(prefix / "share" / "applications" / "tapediag.desktop")], env, tmp_path)
        assert check.returncode == 0 and check.stdout == "", check.stdout
    assert (prefix / "share" / "icons" / "hicolor" / "256x256" / "apps" / "tapediag.png").is_file()

    removed = run(["sh", str(bundle / "install.sh"), "--uninstall"], env, tmp_path)
    assert removed.returncode == 0, removed.stderr
    assert not (prefix / "bin" / "tapediag").exists()
    assert not (prefix / "share" / "applications" / "tapediag.desktop").exists()


def test_cli_runs_outside_the_tree_without_a_venv(bundle: Path, clean_env: dict[str, str], tmp_path: Path) -> None:
    version = run([str(bundle / "tapediag"), "--version"], clean_env, tmp_path)
    assert version.returncode == 0, version.stderr
    assert version.stdout.strip() == f"tapediag {app.__version__}"

    info = run([str(bundle / "tapediag"), "info", "virtual:lto6", "--json"], clean_env, tmp_path)
    assert info.returncode == 0, info.stderr
    report = json.loads(info.stdout)
    assert "LTO-6" in json.dumps(report), report


def test_tape_test_and_pdf_report_from_the_bundle(bundle: Path, clean_env: dict[str, str], tmp_path: Path) -> None:
    """The C helpers, the history database and Qt's PDF writer (with fonts) work frozen."""
    tapediag = str(bundle / "tapediag")
    perf = run([tapediag, "tape-perf", "virtual:lto6", "--size", "64M", "--json"], clean_env, tmp_path)
    assert perf.returncode == 0, perf.stderr
    assert json.loads(perf.stdout)["generation"] == 6
    history = run([tapediag, "history"], clean_env, tmp_path)
    assert history.returncode == 0 and "tape-perf" in history.stdout, history.stderr
    run_id = history.stdout.splitlines()[1].split()[0]

    pdf = tmp_path / "report.pdf"
    report = run([tapediag, "report", run_id, "-o", str(pdf)], clean_env, tmp_path)
    assert report.returncode == 0, report.stderr
    assert pdf.read_bytes()[:5] == b"%PDF-"
    if shutil.which("pdftotext"):
        text = subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True, check=True).stdout
        assert "virtual:lto6" in text


@pytest.mark.gui
@pytest.mark.parametrize("command", [["tapediag-gui"], ["tapediag", "gui"]], ids=["tapediag-gui", "tapediag gui"])
def test_gui_shows_main_window_offscreen(
    bundle: Path, clean_env: dict[str, str], tmp_path: Path, command: list[str]
) -> None:
    result = run([str(bundle / command[0]), *command[1:], "--self-test"], clean_env, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "window shown" in result.stdout
    assert "Traceback" not in result.stderr


@pytest.mark.gui
def test_gui_starts_on_a_real_x_server(bundle: Path, clean_env: dict[str, str], tmp_path: Path) -> None:
    """The xcb platform plugin and the X libraries it needs load from the bundle."""
    if not shutil.which("xvfb-run"):
        pytest.skip("xvfb-run not installed (Debian package xvfb)")
    env = dict(clean_env, QT_QPA_PLATFORM="xcb")
    result = run(["xvfb-run", "-a", str(bundle / "tapediag-gui"), "--self-test"], env, tmp_path)
    assert result.returncode == 0, result.stderr
    assert "window shown" in result.stdout


def test_missing_system_libraries_are_named(bundle: Path, clean_env: dict[str, str], tmp_path: Path) -> None:
    """Without libiscsi and libsgutils2 the bundle still runs and names what is missing.

    The libraries are hidden in a private mount namespace (an empty file bound over
    each), so the rest of the machine never notices.
    """
    files = [library_file(soname) for soname in SYSTEM_LIBRARIES.values()]
    if None in files or shutil.which("unshare") is None:
        pytest.skip("needs libsgutils2 and libiscsi installed, and unshare")
    hide = " && ".join(f"mount --bind /dev/null {f}" for f in files)
    probe = subprocess.run(["unshare", "-m", "sh", "-c", "true"], capture_output=True)
    if probe.returncode != 0:
        pytest.skip("cannot create a mount namespace here (needs root)")

    def without_libraries(*args: str) -> subprocess.CompletedProcess[str]:
        script = f'{hide} && exec "$0" "$@"'
        return run(["unshare", "-m", "sh", "-c", script, str(bundle / "tapediag"), *args], clean_env, tmp_path)

    devices = without_libraries("devices")
    assert devices.returncode == 0, devices.stderr
    assert "virtual:lto" in devices.stdout
    listing = devices.stdout + devices.stderr
    assert "libiscsi" in listing and "libsgutils2" in listing, listing

    for device, library in (("iscsi://127.0.0.1:3260/iqn.2000-01.org.example:none/1", "libiscsi"),
                            ("/dev/sg0", "libsgutils2")):
        info = without_libraries("info", device)
        assert info.returncode == 1, info.stderr
        assert library in info.stderr and "install" in info.stderr
        assert "Traceback" not in info.stderr and len(info.stderr.strip().splitlines()) == 1


@pytest.mark.tgt
def test_iscsi_drive_through_the_system_libiscsi(bundle: Path, clean_env: dict[str, str], tmp_path: Path, tgt_target) -> None:
    """The frozen CLI loads the machine's libiscsi and talks to a real tgtd tape LUN."""
    result = run([str(bundle / "tapediag"), "info", tgt_target.url, "--json"], clean_env, tmp_path)
    # tgt reports no TapeAlert and no error counters: the honest verdict is Not assessed (exit 12).
    assert result.returncode == 12, result.stderr
    assert json.loads(result.stdout)["health"]["verdict"] == "Not assessed"
    text = json.dumps(json.loads(result.stdout))
    assert "IET" in text and "VIRTUAL-TAPE" in text, text[:500]
