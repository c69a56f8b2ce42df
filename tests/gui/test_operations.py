"""Issue 12: the GUI's operations (``ui/engines.py``) are thin: one call into ``app/`` each, no
import-by-name indirection, and the GUI turns its fields into the same parameters, and records
the same ``params.to_dict()``, as the CLI does for the same inputs."""
from __future__ import annotations

import ast
import json
from pathlib import Path
from typing import Any

import pytest

from app.cli import build_parser, main
from app.history import History

ROOT = Path(__file__).resolve().parents[2]


def _calls(node: ast.AST) -> set[str]:
    names = set()
    for sub in ast.walk(node):
        if isinstance(sub, ast.Call):
            f = sub.func
            names.add(f.id if isinstance(f, ast.Name) else ast.unparse(f))
    return names


def test_operations_call_app_directly_not_by_module_name() -> None:
    tree = ast.parse((ROOT / "ui" / "engines.py").read_text())
    offenders = []
    for fn in tree.body:
        if isinstance(fn, ast.FunctionDef):
            bad = {c for c in _calls(fn) if c in ("engine", "available") or c.startswith("importlib.")}
            offenders += [f"{fn.name}: {c}" for c in sorted(bad)]
    assert offenders == []
    for path in sorted((ROOT / "ui").rglob("*.py")):  # nor do the panels ask whether an engine exists
        text = path.read_text()
        assert "engines.engine(" not in text and "engines.available(" not in text, path


def _cli_args(argv: list[str]) -> Any:
    return build_parser(argv).parse_args(argv)


def test_tape_perf_gui_and_cli_make_equal_params(qtbot, window) -> None:  # type: ignore[no-untyped-def]
    from app.cli.tape_perf import params_from_args

    cli = params_from_args(_cli_args(["tape-perf", "virtual:lto9", "--pattern", "3:1", "--block-size", "128K",
                                      "--io-size", "512K", "--size", "90s", "--filemarks-every", "64M",
                                      "--compression", "on", "--direction", "write,read", "--start", "eod",
                                      "--verify", "--host-rate", "50MB", "--seed", "7", "--history-size", "1K"]))
    panel = window.show_panel("tapeperf")
    panel.apply_values({"direction": "write+read", "pattern": "3:1", "block_size": "128K", "mode": "fixed",
                        "io_size": "512K", "size": "90s", "filemarks_every": "64M", "compression": "on",
                        "start": "eod", "verify": True, "host_rate": "50MB", "seed": "7", "history": "1K"})
    assert panel.make_params().to_dict() == cli.to_dict()
    assert cli.host_rate_limit == 50e6 and cli.seed == 7 and cli.history == 1024  # none dropped on the way
    # variable mode: the disabled I/O size is the block size, as without --io-size on the CLI
    cli = params_from_args(_cli_args(["tape-perf", "virtual:lto9", "--mode", "variable", "--block-size", "64K",
                                      "--direction", "write"]))
    panel.apply_values({"direction": "write", "pattern": "2:1", "mode": "variable", "block_size": "64K",
                        "io_size": "1M", "size": "auto", "filemarks_every": "0", "compression": "leave", "start": "bot",
                        "verify": False, "host_rate": "", "seed": "", "history": ""})  # blank / auto: the defaults
    assert panel.make_params().to_dict() == cli.to_dict()


def test_tape_perf_gui_and_cli_record_equal_params(qtbot, window, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    from ui import engines
    from ui.worker import Job

    device = f"virtual:lto9?realtime=0&cartridge={tmp_path / 'c.img'}"
    assert main(["tape-perf", device, "--size", "4M", "--direction", "write", "--block-size", "64K",
                 "--force", "--json"]) == 0
    cli_run = json.loads(capsys.readouterr().out)["run_id"]
    panel = window.show_panel("tapeperf")
    panel.apply_values({"direction": "write", "pattern": "2:1", "mode": "fixed", "block_size": "64K", "io_size": "1M",
                        "size": "4M", "filemarks_every": "0", "compression": "leave", "start": "bot", "verify": False})
    job: Job[Any] = Job(device, "tape", lambda j: None)
    _, _, gui_run = engines.run_tapeperf(job, device, panel.make_params(), force=True)
    with History.open() as h:
        assert h.get_run(gui_run, samples=False).params == h.get_run(cli_run, samples=False).params


def test_create_data_gui_and_cli_make_equal_params(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from app.cli.create_data import params_from_args

    target = str(tmp_path / "tree")
    cli = params_from_args(_cli_args(["create-data", target, "--depth", "2", "--breadth", "4", "--files-per-dir", "16",
                                      "--min-size", "1M", "--max-size", "1M", "--distribution", "fixed",
                                      "--pattern", "2:1", "--total-size", "256M", "--streams", "4"]))
    panel = window.show_panel("create")
    panel.dir_field.setText(target)
    panel.apply_preset("Quick check")
    assert panel.make_params().to_dict() == cli.to_dict()
    cli = params_from_args(_cli_args(["create-data", target, "--preset", "small", "--streams", "2",
                                      "--allow-non-empty"]))
    panel.apply_preset("White paper small")
    panel.apply_values({"total_size": "0", "streams": "2", "allow_non_empty": True})  # 0: fill the tree
    assert panel.make_params().to_dict() == cli.to_dict()


def test_read_data_gui_and_cli_make_equal_params(qtbot, window, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from app.cli.read_data import params_from_args

    target = str(tmp_path)
    cli = params_from_args(_cli_args(["read-data", target, "--streams", "8", "--buffer", "1M", "--direct"]))
    panel = window.show_panel("read")
    panel.dir_field.setText(target)
    panel.apply_preset("Direct I/O")
    assert panel.make_params().to_dict() == cli.to_dict()


def test_troubleshoot_gui_and_cli_record_equal_input(qtbot, window, tmp_path: Path, capsys) -> None:  # type: ignore[no-untyped-def]
    """Typed figures, a tape run's id (its drive and device come with it) and the workload."""
    from ui import engines

    device = f"virtual:lto6?realtime=0&cartridge={tmp_path / 'c.img'}"
    assert main(["tape-perf", device, "--size", "4M", "--direction", "write", "--json"]) == 0
    tape_run = json.loads(capsys.readouterr().out)["run_id"]
    assert main(["troubleshoot", "--no-interactive", "--tape-write-run", str(tape_run), "--disk-read", "10.59",
                 "--disk-read-parallel", "40", "--backup", "22.98", "--restore", "30", "--streams", "2",
                 "--block-size", "256K", "--network", "1GbE", "--network-rate", "100", "--software-compression",
                 "off", "--small-files", "--file-count", "1000", "--os", "linux", "--application", "Data Protector",
                 "--json"]) == 0
    cli_run = json.loads(capsys.readouterr().out)["run_id"]
    panel = window.show_panel("troubleshoot")
    texts = {"tape_write": f"run {tape_run}", "disk_read": "10.59", "disk_read_parallel": "40", "backup": "22.98",
             "restore": "30", "streams": "2", "block_size": "256K", "network": "1GbE", "network_rate": "100",
             "file_count": "1000", "application": "Data Protector"}
    for key, field in panel.fields.items():
        field.setText(texts.get(key, ""))
    panel.sw_compression.setCurrentIndex(panel.sw_compression.findData(False))
    panel.small_files.setCurrentIndex(panel.small_files.findData(True))
    panel.os.setCurrentIndex(panel.os.findData("linux"))
    _, gui_run = engines.run_troubleshoot(panel.values())
    with History.open() as h:
        gui, cli = h.get_run(gui_run, samples=False), h.get_run(cli_run, samples=False)
    assert gui.params == cli.params and gui.device == cli.device != ""
    assert gui.params["drive"]["generation"] == 6 and gui.params["workload"]["streams"] == 2


@pytest.mark.parametrize("text", ["fast", "run x", "-3"])
def test_a_bad_figure_is_refused_alike_by_gui_and_cli(text: str) -> None:
    from native.errors import InvalidParameter
    from ui import engines

    with pytest.raises(InvalidParameter):
        engines.check_figure(text)
    with pytest.raises(SystemExit):
        _cli_args(["troubleshoot", "--tape-write", text])


@pytest.mark.parametrize(("key", "fields"), [
    ("tapeperf", "app.tapeperf.params:FIELDS"), ("create", "app.disk.params:CreateDataParams.FIELDS"),
    ("read", "app.disk.params:ReadDataParams.FIELDS"), ("scan", "app.scan.params:ScanParams.FIELDS"),
    ("assess", "app.assess.engine:AssessParams.FIELDS")])
def test_each_panels_form_is_its_kinds_field_table(qtbot, window, key: str, fields: str) -> None:  # type: ignore[no-untyped-def]
    """Issue 26 §4: the form is built from the field table the CLI's options come from: its labels, tooltips and
    starting values are the table's (so the GUI's defaults are the CLI's), in the table's order."""
    import importlib

    from PySide6.QtWidgets import QCheckBox, QComboBox

    from ui.widgets import ValidatedField

    module, _, path = fields.partition(":")
    table = importlib.import_module(module)
    for part in path.split("."):
        table = getattr(table, part)
    panel = window.show_panel(key)
    shown = [f for f in table if f.gui]
    assert [name for name in panel.fields if name in {f.name for f in table}] == [f.name for f in shown]
    for f in shown:
        widget = panel.fields[f.name]
        assert widget.toolTip() == f.help, f.name
        if isinstance(widget, QCheckBox):
            assert widget.text() == f.label and widget.isChecked() is bool(f.default)
        elif isinstance(widget, QComboBox):
            assert widget.currentData() == f.default
        else:
            assert isinstance(widget, ValidatedField) and widget.text() == f.default, f.name
            assert widget.edit.placeholderText() == f.placeholder


@pytest.mark.parametrize(("key", "argv"), [("tapeperf", ["tape-perf", "virtual:lto9"]), ("scan", ["scan", "virtual:lto9"]),
                                           ("assess", ["assess", "virtual:lto9"]), ("create", ["create-data", "{dir}"]),
                                           ("read", ["read-data", "{dir}"])])
def test_an_untouched_form_is_the_command_with_no_option(qtbot, window, tmp_path: Path, key: str,  # type: ignore[no-untyped-def]
                                                           argv: list[str]) -> None:
    """The GUI's defaults are the CLI's (issue 26 §4: the tape size's were 32G and 1G): one declaration."""
    import importlib

    from app.assess.engine import AssessParams
    from app.cli._kind import params_of
    from app.runs import registry
    from app.runs.fields import values

    target = str(tmp_path)
    words = [a.format(dir=target) for a in argv]
    module = {"tape-perf": "tape_perf", "create-data": "create_data", "read-data": "read_data"}.get(words[0])
    args = _cli_args(words)
    if module is not None:
        cli = importlib.import_module(f"app.cli.{module}").params_from_args(args)
    else:
        kind = next(k for k in registry.commands().values() if k.command is not None and k.command.name == words[0])
        cli = params_of(kind, values(args, kind.fields))
    panel = window.show_panel(key)
    if hasattr(panel, "dir_field"):
        panel.dir_field.setText(target)
    gui = panel.make_params()
    if isinstance(gui, AssessParams):
        assert gui.force is False  # the GUI asks for it on its confirmation page
    assert gui.to_dict() == cli.to_dict()
