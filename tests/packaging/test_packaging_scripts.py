"""Fast checks of the packaging helpers that run on every machine (no bundle needed)."""
from __future__ import annotations

import importlib.util
import shutil
import subprocess
from pathlib import Path
from types import ModuleType

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGING = ROOT / "packaging"
WINDOWS_DLL_DIR = ROOT / "dist" / "windows-dll"


def load(path: Path) -> ModuleType:
    spec = importlib.util.spec_from_file_location(path.stem, path)
    assert spec and spec.loader
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


@pytest.mark.parametrize(
    ("executable", "platform", "gui"),
    [
        ("/opt/tapediag/tapediag-gui", "linux", True),
        ("/opt/tapediag/tapediag", "linux", False),
        (r"C:\Program Files\tapediag\tapediag.exe", "win32", True),
        (r"C:\Program Files\tapediag\TAPEDIAG.EXE", "win32", True),
        (r"C:\Program Files\tapediag\tapediag-cli.exe", "win32", False),
    ],
)
def test_launcher_picks_gui_by_executable_name(executable: str, platform: str, gui: bool) -> None:
    launcher = load(PACKAGING / "launcher.py")
    executable = executable.replace("\\", "/")  # os.path.basename here is POSIX
    assert launcher.wants_gui(executable, platform) is gui


def test_deb_src_entries_from_both_apt_formats() -> None:
    deb_src = load(PACKAGING / "windows" / "deb_src_sources.py")
    deb822 = (
        "Types: deb\nURIs: http://mirror.invalid/debian\nSuites: bookworm bookworm-updates\n"
        "Components: main\nSigned-By: /usr/share/keyrings/debian-archive-keyring.gpg\n\n"
        "# a comment\nTypes: deb-src\nURIs: http://other.invalid/debian\nSuites: bookworm\n"
    )
    assert list(deb_src.deb822_entries(deb822)) == [
        (["http://mirror.invalid/debian"], ["bookworm", "bookworm-updates"], "/usr/share/keyrings/debian-archive-keyring.gpg")
    ]
    one_line = (
        "deb [arch=amd64 signed-by=/etc/keys/a.gpg] http://mirror.invalid/debian bookworm main\n"
        "# deb http://commented.invalid/debian bookworm main\n"
        "deb http://plain.invalid/debian bookworm-security main\n"
    )
    assert list(deb_src.one_line_entries(one_line)) == [
        (["http://mirror.invalid/debian"], ["bookworm"], "/etc/keys/a.gpg"),
        (["http://plain.invalid/debian"], ["bookworm-security"], ""),
    ]


def test_deb_src_for_this_machine() -> None:
    if not Path("/etc/os-release").exists() or not Path("/etc/apt").is_dir():
        pytest.skip("not a Debian machine")
    out = subprocess.run(["python3", str(PACKAGING / "windows" / "deb_src_sources.py")], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("Types: deb-src\nURIs: ")


@pytest.mark.slow
def test_windows_dll_exports_the_pass_through_api() -> None:
    """The DLL from build-windows-dll.sh exports sg_pt.h's API and needs only Windows' own DLLs."""
    dlls = sorted(WINDOWS_DLL_DIR.glob("libsgutils2-*.dll"))
    objdump = shutil.which("x86_64-w64-mingw32-objdump")
    if not dlls or not objdump:
        pytest.skip("no DLL in dist/windows-dll (build: packaging/build-windows-dll.sh)")
    dump = subprocess.run([objdump, "-p", str(dlls[0])], capture_output=True, text=True, check=True).stdout
    assert "file format pei-x86-64" in subprocess.run([objdump, "-f", str(dlls[0])], capture_output=True, text=True).stdout
    names = dump.split("[Ordinal/Name Pointer] Table", 1)[1]
    exported = {line.split()[-1] for line in names.splitlines() if line.strip().startswith("[")}
    assert {"construct_scsi_pt_obj", "do_scsi_pt", "scsi_pt_win32_direct", "set_scsi_pt_data_in",
            "get_scsi_pt_resid", "get_scsi_pt_sense_len", "destruct_scsi_pt_obj"} <= exported
    imported = {line.split(":", 1)[1].strip().lower() for line in dump.splitlines() if "DLL Name:" in line}
    assert imported <= {"kernel32.dll", "msvcrt.dll", "advapi32.dll"}, imported
    assert (WINDOWS_DLL_DIR / "sg3_utils-BSD_LICENSE.txt").read_text().count("Redistribution") >= 1


@pytest.mark.slow
def test_windows_dll_loads_and_answers_under_wine(tmp_path: Path) -> None:
    """Windows' loader (Wine's) maps the DLL and its pass-through calls behave without a drive."""
    dlls = sorted(WINDOWS_DLL_DIR.glob("libsgutils2-*.dll"))
    gcc = shutil.which("x86_64-w64-mingw32-gcc")
    wine = shutil.which("wine64") or shutil.which("wine") or next(iter(Path("/usr/lib/wine").glob("wine64")), None)
    if not dlls or not gcc or not wine:
        pytest.skip("needs dist/windows-dll (packaging/build-windows-dll.sh), mingw-w64 and Wine")
    probe = tmp_path / "dll_probe.exe"
    subprocess.run([gcc, "-O2", "-o", str(probe), str(PACKAGING / "windows" / "dll_probe.c")], check=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "WINEPREFIX": str(tmp_path / "wine"), "WINEDEBUG": "-all"}
    result = subprocess.run([str(wine), str(probe), "Z:" + str(dlls[0]).replace("/", "\\")],
                            env=env, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SPTI direct: on=1 off=0" in result.stdout
    assert "probe: ok" in result.stdout
