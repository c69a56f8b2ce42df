"""Checks of the packaging helpers that need no Linux bundle (the slow ones build or load small things)."""
from __future__ import annotations

import importlib.util
import os
import shutil
import subprocess
import sys
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


@pytest.fixture(scope="module")
def windows_dll() -> Path:
    """dist/windows-dll's DLL; built first when TAPEDIAG_BUILD_WINDOWS_DLL=1 (~15 s plus mingw-w64)."""
    if os.environ.get("TAPEDIAG_BUILD_WINDOWS_DLL") == "1":
        subprocess.run(["bash", str(PACKAGING / "build-windows-dll.sh")], check=True, timeout=1800)
    dlls = sorted(WINDOWS_DLL_DIR.glob("libsgutils2-*.dll"))
    if not dlls:
        pytest.skip("no DLL in dist/windows-dll (build: packaging/build-windows-dll.sh, or TAPEDIAG_BUILD_WINDOWS_DLL=1)")
    return dlls[0]


@pytest.mark.slow
def test_windows_dll_exports_the_pass_through_api(windows_dll: Path) -> None:
    """The DLL from build-windows-dll.sh exports sg_pt.h's API and needs only Windows' own DLLs."""
    objdump = shutil.which("x86_64-w64-mingw32-objdump")
    if not objdump:
        pytest.skip("needs x86_64-w64-mingw32-objdump (Debian package mingw-w64)")
    dump = subprocess.run([objdump, "-p", str(windows_dll)], capture_output=True, text=True, check=True).stdout
    header = subprocess.run([objdump, "-f", str(windows_dll)], capture_output=True, text=True, check=True).stdout
    assert "file format pei-x86-64" in header
    names = dump.split("[Ordinal/Name Pointer] Table", 1)[1]
    exported = {line.split()[-1] for line in names.splitlines() if line.strip().startswith("[")}
    assert {"construct_scsi_pt_obj", "do_scsi_pt", "scsi_pt_win32_direct", "set_scsi_pt_data_in",
            "get_scsi_pt_resid", "get_scsi_pt_sense_len", "destruct_scsi_pt_obj"} <= exported
    imported = {line.split(":", 1)[1].strip().lower() for line in dump.splitlines() if "DLL Name:" in line}
    assert imported <= {"kernel32.dll", "msvcrt.dll", "advapi32.dll"}, imported
    assert (WINDOWS_DLL_DIR / "sg3_utils-BSD_LICENSE.txt").read_text().count("Redistribution") >= 1


@pytest.mark.slow
def test_windows_dll_loads_and_answers_under_wine(windows_dll: Path, tmp_path: Path) -> None:
    """Windows' loader (Wine's) maps the DLL and its pass-through calls behave without a drive."""
    gcc = shutil.which("x86_64-w64-mingw32-gcc")
    wine = shutil.which("wine64") or shutil.which("wine") or next(iter(Path("/usr/lib/wine").glob("wine64")), None)
    if not gcc or not wine:
        pytest.skip("needs mingw-w64 and Wine (Debian packages mingw-w64, wine64)")
    probe = tmp_path / "dll_probe.exe"
    subprocess.run([gcc, "-O2", "-o", str(probe), str(PACKAGING / "windows" / "dll_probe.c")], check=True)
    env = {"PATH": "/usr/bin:/bin", "HOME": str(tmp_path), "WINEPREFIX": str(tmp_path / "wine"), "WINEDEBUG": "-all"}
    result = subprocess.run([str(wine), str(probe), "Z:" + str(windows_dll).replace("/", "\\")],
                            env=env, capture_output=True, text=True, timeout=240)
    assert result.returncode == 0, result.stdout + result.stderr
    assert "SPTI direct: on=1 off=0" in result.stdout
    assert "probe: ok" in result.stdout


@pytest.mark.slow
def test_runtime_hook_gives_children_the_users_library_path(tmp_path: Path) -> None:
    """A frozen program's child processes see the user's LD_LIBRARY_PATH, not the bundle's.

    Builds a one-line program with the bundles' runtime hook (a few seconds) and has it
    start a shell, as the app would start a PDF viewer or a system tool.
    """
    pytest.importorskip("PyInstaller")
    script = tmp_path / "child_env.py"
    script.write_text(
        "import subprocess\n"
        "print(subprocess.run(['sh', '-c', 'echo \"[$LD_LIBRARY_PATH]\"'], capture_output=True, text=True).stdout, end='')\n"
    )
    subprocess.run(
        [sys.executable, "-m", "PyInstaller", "--noconfirm", "--log-level", "ERROR", "--onedir",
         "--distpath", str(tmp_path / "dist"), "--workpath", str(tmp_path / "build"), "--specpath", str(tmp_path),
         "--runtime-hook", str(PACKAGING / "rthooks" / "restore_library_path.py"), str(script)],
        check=True, timeout=600,
    )
    program = tmp_path / "dist" / "child_env" / "child_env"
    for user_value, expected in (("/opt/vendor/lib", "[/opt/vendor/lib]"), (None, "[]")):
        env = {"PATH": "/usr/bin:/bin"} | ({"LD_LIBRARY_PATH": user_value} if user_value else {})
        out = subprocess.run([str(program)], env=env, capture_output=True, text=True, check=True).stdout
        assert out.strip() == expected
