"""Hostile-input sweep: every sub-command x a table of bad values (issue 14, "keep them fixed").

Where ``tests/test_cli_errors.py`` holds one hand-written case per known mistake, this
file generates the cross product a careful adversary would try: every option that
takes a value gets empty, negative, huge, non-numeric and non-UTF-8 values; every path
argument gets a FIFO, a device node, a directory, a symlink, a read-only directory and
(as root) a full file system. Each case must end the way ``app.cli`` promises:

* exit status 1, 2 or 3 (0 only where the value is legitimately accepted, listed per
  option in ``ACCEPTED``), never an escaped exception;
* exactly one line on stderr and no ``Traceback``;
* nothing written outside what the command owns: the work area unchanged (apart
  from what an accepted run creates in its own target), the virtual cartridge still
  blank after a refused tape command, no history run left ``incomplete``.

Everything runs in-process through ``app.cli.main`` so the few hundred cases stay
fast; a handful also run as a user would, through the installed console script,
with real non-UTF-8 bytes on argv.
"""
from __future__ import annotations

import os
import stat
import subprocess
import traceback
from dataclasses import dataclass
from pathlib import Path
from typing import Iterator

import pytest

from tests.helpers.kinds import read_data
from app.cli import EXIT_FAILED, EXIT_REFUSED, EXIT_USAGE, main
from app.drive import TapeDrive
from app.history import History

ROOT = Path(__file__).resolve().parents[1]
TAPEDIAG = ROOT / ".venv" / "bin" / "tapediag"
VIRTUAL = "virtual:lto9?realtime=0"
VLIB = "virtual:library?drives=1&slots=3&realtime=0"  # its state lives in the test's own data directory
NON_UTF8 = os.fsdecode(b"bad\xff\xfename")  # what argv holds for bytes that are not UTF-8
FAILURE_CODES = {EXIT_FAILED, EXIT_USAGE, EXIT_REFUSED}

# Bad values for an option that takes a number, a size, a rate or a name.
SCALAR_VALUES = {
    "empty": "",
    "negative": "-1",
    "huge": "9" * 20,
    "non-numeric": "abc",
    "non-utf8": NON_UTF8,
}
# Path arguments: placeholders resolved in the work area by ``Work.path``.
PATH_KINDS = ("fifo", "devnull", "directory", "file", "symlink-to-dir", "symlink-dangling", "read-only-dir",
              "non-utf8-missing")
ROOT_PATH_KINDS = ("full-fs",)


@dataclass(frozen=True)
class Command:
    """A sub-command, the argv that makes it valid, and where a bad value goes."""

    name: str
    base: tuple[str, ...]  # a valid invocation; "{target}" is a fresh path in the work area
    options: tuple[str, ...]  # options whose value is swept
    path_arg: str | None = None  # "positional" or an option whose value is a path
    tape: bool = False  # writes the virtual cartridge when accepted


COMMANDS = (
    Command("info", ("info", "{arg}"), (), path_arg="positional-device"),
    Command("tape-perf", ("tape-perf", VIRTUAL, "--size", "8M", "--io-size", "256K", "--block-size", "256K"),
            ("--pattern", "--block-size", "--io-size", "--blocks-per-io", "--repeats", "--size", "--filemarks-every",
             "--direction", "--history-size", "--seed", "--host-rate"), path_arg="--samples", tape=True),
    Command("create-data", ("create-data", "{target}", "--files", "4", "--size", "4K", "--streams", "1"),
            ("--depth", "--breadth", "--files-per-dir", "--min-size", "--max-size", "--size", "--streams",
             "--total-size", "--files", "--write-size", "--seed"), path_arg="positional"),
    Command("read-data", ("read-data", "{tree}"), ("--streams", "--buffer"), path_arg="positional"),
    Command("clean", ("clean", "{tree}"), (), path_arg="positional"),
    Command("troubleshoot", ("troubleshoot", "--tape-write", "100", "--backup", "40", "--no-interactive"),
            ("--tape-write", "--tape-read", "--disk-read", "--disk-read-parallel", "--disk-write",
             "--disk-write-parallel", "--backup", "--restore", "--streams", "--block-size", "--network",
             "--network-rate", "--file-count", "--drive", "--compression-ratio", "--tape-write-run", "--drive-run"),
            path_arg="--report"),
    Command("history", ("history",), ("--limit", "--device")),
    Command("show", ("show", "{arg}"), ()),
    Command("export", ("export", "{run}", "--csv", "-o", "{arg}"), (), path_arg="export-output"),
    Command("report", ("report", "{run}", "-o", "{arg}"), (), path_arg="report-output"),
    Command("devices", ("devices", "--no-probe", "--add-iscsi", "{arg}"), ()),
    Command("library-test", ("library-test", "{arg}", "--moves", "2"), ("--moves", "--slots", "--drives")),
    Command("library-run", ("library-run", "{arg}", "--barcode", "TD0000L9", "--run", "tape-perf", "--size", "4M",
                            "--io-size", "256K", "--block-size", "256K"), ("--barcode", "--drive")),
)

# (command, option) -> value kinds that are legitimately accepted (exit 0 allowed).
ACCEPTED: dict[tuple[str, str], set[str]] = {
    ("history", "--limit"): {"huge"},
    ("history", "--device"): {"empty", "negative", "huge", "non-numeric", "non-utf8"},  # a filter that matches nothing
    # An empty directory is a fine target for a new tree (a symbolic link is refused: issue 14.4), and so is
    # a new name that is not UTF-8 (Linux file names are bytes).
    ("create-data", "positional"): {"directory", "non-utf8-missing"},
    # Reading is read-only: a full file system holding a file is a fine tree to read.
    ("read-data", "positional"): {"full-fs"},
    # An output path the user named (app.output): an existing regular file is replaced, a new name (even one
    # that is not UTF-8) is created. A device, a FIFO, a directory or a symbolic link (even a dangling one) is
    # refused and left as it was (issue 27 §2); --samples streams into a FIFO that a program reads, on purpose.
    ("tape-perf", "--samples"): {"file", "non-utf8-missing"},
    # For directory kinds the case writes r.pdf inside the directory: a fine new file.
    ("export", "export-output"): {"file", "non-utf8-missing", "directory", "symlink-to-dir"},
    ("report", "report-output"): {"file", "directory", "symlink-to-dir"},
    ("troubleshoot", "--report"): {"file"},
}


@dataclass(frozen=True)
class Case:
    command: Command
    option: str  # the swept option, "positional", or a path option
    kind: str  # a SCALAR_VALUES key or a PATH_KINDS entry

    @property
    def id(self) -> str:
        return f"{self.command.name}-{self.option.lstrip('-')}-{self.kind}"


def _cases() -> Iterator[Case]:
    for command in COMMANDS:
        for option in command.options:
            for kind in SCALAR_VALUES:
                yield Case(command, option, kind)
        if "{arg}" in " ".join(command.base) and command.path_arg is None:
            for kind in SCALAR_VALUES:
                yield Case(command, "positional", kind)
        if command.path_arg:
            for kind in PATH_KINDS + ROOT_PATH_KINDS:
                yield Case(command, command.path_arg, kind)
            if command.path_arg == "positional-device":
                for kind in SCALAR_VALUES:
                    yield Case(command, "positional", kind)
    # Virtual cartridges that are not regular files, and an absurd iSCSI host.
    for kind in ("fifo", "devnull", "directory", "symlink-dangling"):
        yield Case(COMMANDS[0], "cartridge", kind)
        yield Case(COMMANDS[1], "cartridge", kind)


CASES = tuple(_cases())


@dataclass
class Work:
    root: Path
    cwd: Path
    run_id: int
    tree: Path
    mounts: list[Path]

    def path(self, kind: str) -> str:
        """A path of the given hostile kind, made on first use inside the work area."""
        hostile = self.root / "hostile"
        hostile.mkdir(exist_ok=True)
        p = hostile / kind
        if kind == "fifo":
            if not p.exists():
                os.mkfifo(p)
        elif kind == "devnull":
            return os.devnull
        elif kind == "directory":
            p.mkdir(exist_ok=True)
        elif kind == "file":
            if not p.exists():
                p.write_text("a user's file\n")
        elif kind == "symlink-to-dir":
            (hostile / "link-target").mkdir(exist_ok=True)
            if not p.is_symlink():
                p.symlink_to(hostile / "link-target")
        elif kind == "symlink-dangling":
            if not p.is_symlink():
                p.symlink_to(hostile / "nowhere")
        elif kind == "read-only-dir":
            if not p.exists():
                p.mkdir()
                _mount(["-t", "tmpfs", "-o", "ro,size=64k", "tmpfs", str(p)], self, fallback=lambda: p.chmod(0o555))
        elif kind == "non-utf8-missing":
            return str(hostile / NON_UTF8)
        elif kind == "full-fs":
            if not p.exists():
                p.mkdir()
                _mount(["-t", "tmpfs", "-o", "size=64k", "tmpfs", str(p)], self, fallback=None)
                filler = p / "filler"
                try:  # fill it up; the last write (or the close) says ENOSPC
                    with open(filler, "wb", buffering=0) as f:
                        while True:
                            f.write(b"\0" * 4096)
                except OSError:
                    pass
        else:
            raise AssertionError(kind)
        return str(p)

    def snapshot(self) -> dict[str, tuple[bool, int, int]]:
        """Every path under the work area with (is_dir, size, mtime_ns): any change shows."""
        out = {}
        for dirpath, dirnames, filenames in os.walk(self.root):
            for name in dirnames + filenames:
                p = Path(dirpath) / name
                st = p.lstat()
                is_dir = stat.S_ISDIR(st.st_mode)
                out[str(p.relative_to(self.root))] = (is_dir, 0 if is_dir else st.st_size,
                                                      0 if is_dir else st.st_mtime_ns)
        return out


def _mount(args: list[str], work: Work, fallback: object) -> None:
    if os.geteuid() == 0 and subprocess.run(["mount", *args], capture_output=True).returncode == 0:
        work.mounts.append(Path(args[-1]))
        return
    if fallback is None:
        pytest.skip("needs root to mount a small tmpfs")
    fallback()  # type: ignore[operator]


@pytest.fixture
def work(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Work]:
    cwd = tmp_path / "cwd"
    cwd.mkdir()
    monkeypatch.chdir(cwd)
    tree = tmp_path / "tree"
    assert main(["create-data", str(tree), "--files", "3", "--size", "4K", "--streams", "1"]) == 0
    with History.open() as hist:
        run_id = hist.start_run("read-data", str(tree), {"streams": 1})
        hist.finish_run(run_id, "complete", read_data(50.0, target=str(tree)))
    w = Work(tmp_path, cwd, run_id, tree, [])
    yield w
    for m in reversed(w.mounts):
        subprocess.run(["umount", "-l", str(m)], capture_output=True)


def _argv(case: Case, work: Work) -> list[str]:
    cmd = case.command
    value = SCALAR_VALUES.get(case.kind)
    target = str(work.root / "new-target")
    arg = VLIB if cmd.name in ("library-test", "library-run") else "999"
    argv = list(cmd.base)
    if case.option == "cartridge":
        cartridge = work.path(case.kind)
        device = f"virtual:lto9?realtime=0&cartridge={cartridge}"
        argv = [device if a in ("{arg}", VIRTUAL) else a for a in argv]
    elif case.option in ("positional", "positional-device"):
        if value is None:
            path = work.path(case.kind)
            if cmd.name == "info":
                arg = path
            else:
                target = path
                argv = [a.replace("{tree}", "{target}") for a in argv]
        elif cmd.name in ("info", "show", "devices", "library-test", "library-run"):
            arg = value
        else:
            target = value
            argv = [a.replace("{tree}", "{target}") for a in argv]
    elif case.option in ("export-output", "report-output"):
        arg = work.path(case.kind) + ("/r.pdf" if case.kind in ("directory", "read-only-dir", "full-fs") else "")
    elif value is None:  # a path option
        argv += [case.option, work.path(case.kind)]
    else:  # before library-run's --run, which takes the rest of the line
        at = argv.index("--run") if "--run" in argv else len(argv)
        argv[at:at] = [case.option, value]
    return [a.replace("{target}", target).replace("{tree}", str(work.tree)).replace("{run}", str(work.run_id))
            .replace("{arg}", arg) for a in argv]


def _run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[object, str, str]:
    try:
        code: object = main(argv)
        tb = ""
    except SystemExit as exc:
        code, tb = exc.code, ""
    except BaseException as exc:  # noqa: BLE001 - an escaped exception is exactly what this test looks for
        code, tb = f"uncaught {type(exc).__name__}", traceback.format_exc()
    captured = capsys.readouterr()
    return code, captured.out, captured.err + tb


def _cartridge_is_blank(device: str) -> bool:
    with TapeDrive.open(device) as drive:
        drive.wait_ready(timeout=10, poll=0.05)
        drive.rewind()
        got = drive.read(bytearray(1 << 20))
    return got.nbytes == 0 and got.eod and not got.filemark


def _owned_by_accepted_run(path: str, case: Case) -> bool:
    """What an accepted run may create: its own target tree, its own output file."""
    return path.startswith("new-target") or path.startswith("hostile/") or path.startswith("tree")


@pytest.mark.timeout(20)
@pytest.mark.parametrize("case", CASES, ids=[c.id for c in CASES])
def test_hostile_value(case: Case, work: Work, capsys: pytest.CaptureFixture[str]) -> None:
    argv = _argv(case, work)
    before = work.snapshot()
    code, out, err = _run(argv, capsys)
    assert "Traceback" not in err, f"{argv}: {err}"
    accepted = case.kind in ACCEPTED.get((case.command.name, case.option), set())
    if code == 0:
        assert accepted, f"{argv} was accepted (exit 0); stderr {err!r}"
    else:
        assert code in FAILURE_CODES, f"{argv}: exit {code!r}; stderr {err!r}"
        assert err.count("\n") == 1 and err.endswith("\n"), f"{argv}: not one line on stderr: {err!r}"
        changed = {k for k in set(before) | set(work.snapshot()) if before.get(k) != work.snapshot().get(k)}
        leaked = {k for k in changed if not k.startswith("hostile/")}
        assert not leaked, f"{argv}: refused but changed {sorted(leaked)}"
        if case.command.tape and case.option != "cartridge":
            assert _cartridge_is_blank(VIRTUAL), f"{argv}: refused but the cartridge was written"
    with History.open() as hist:
        left = [(r.id, r.kind) for r in hist.list_runs() if r.status == "incomplete"]
    assert not left, f"{argv}: runs left incomplete: {left}"


AS_A_USER = (
    ["info", b"virtual:lto9?cartridge=/dev/null"],
    ["show", b"\xff\xfe"],
    ["create-data", b"{work}/\xff\xfe", b"--seed", b"-1"],
    ["history", b"--limit", b"9" * 20],
    ["tape-perf", VIRTUAL.encode(), b"--direction", b""],
)


@pytest.mark.parametrize("argv", AS_A_USER, ids=[" ".join(os.fsdecode(a) for a in a) for a in AS_A_USER])
def test_hostile_as_a_user(argv: list[bytes | str], work: Work) -> None:
    """Real bytes on argv (not UTF-8), through the console script, with stdout a pipe."""
    real = [a.replace(b"{work}", os.fsencode(work.root)) if isinstance(a, bytes) else a.encode() for a in argv]
    env = {k: v for k, v in os.environ.items() if k not in ("DISPLAY", "WAYLAND_DISPLAY")}
    got = subprocess.run([os.fsencode(TAPEDIAG), *real], cwd=work.cwd, env=env, capture_output=True, timeout=120,
                         stdin=subprocess.DEVNULL)
    err = got.stderr.decode(errors="replace")
    assert "Traceback" not in err, err
    assert got.returncode in FAILURE_CODES, f"exit {got.returncode}: {err!r}"
    assert err.count("\n") == 1, f"not one line: {err!r}"
