"""Render every panel to PNG with REAL runs (``scripts/screenshots.sh``, under Xvfb).

Each picture shows what the app did in this very session: drive information read from
the virtual LTO-9 drive, a real tape performance run on it (caught mid-run and at the
end), create-data and read-data on a real temporary tree, a troubleshooting analysis
built from those runs, the history holding them, and a drive assessment and a media scan
of the cartridge the tape test wrote, and the virtual library's map after real moves and
its exerciser's run. Nothing is staged or typed in by hand except what a technician would
type (the backup application's own figure, the moves to make).

    python -m ui.screenshots docs/screenshots            # every picture
    python -m ui.screenshots docs/screenshots library    # only the library panel's

``TAPEDIAG_SHOT_SIZE=1366x768`` sets the window's size (default 1024x700, the smallest screen a technician's laptop
has: what is clipped there is clipped for someone; issue 31).
"""
from __future__ import annotations

import os
import shutil
import sys
import tempfile
import time
from pathlib import Path
from typing import TYPE_CHECKING, Callable, TypeVar

if TYPE_CHECKING:
    from ui.wizard import WizardPanel

P = TypeVar("P", bound="WizardPanel")

WIDTH, HEIGHT = (int(v) for v in os.environ.get("TAPEDIAG_SHOT_SIZE", "1024x700").split("x"))
DEVICE = "virtual:lto9"


def main(argv: list[str] | None = None) -> int:
    argv = sys.argv[1:] if argv is None else argv
    out = Path(argv[0] if argv else "docs/screenshots").resolve()
    only = set(argv[1:])
    if only - {"library"}:
        raise SystemExit(f"screenshots: unknown section(s) {', '.join(sorted(only - {'library'}))}; known: library")
    out.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="tapediag-shots-"))
    os.environ["TAPEDIAG_DATA_DIR"] = str(work / "data")  # a fresh history and cartridge
    try:
        return _render(out, work, library_only=bool(only))
    finally:
        shutil.rmtree(work, ignore_errors=True)  # the cartridge and test tree are gigabytes


def _render(out: Path, work: Path, *, library_only: bool = False) -> int:

    from ui.main import build_app

    app = build_app()
    from PySide6.QtCore import QTimer

    from ui.mainwindow import MainWindow
    from ui.panels.assess import AssessPanel
    from ui.panels.diskpanels import CreateDataPanel, ReadDataPanel
    from ui.panels.history import HistoryPanel
    from ui.panels.info import InfoPanel
    from ui.panels.library import LibraryPanel
    from ui.panels.scan import ScanPanel
    from ui.panels.tapeperf import TapePerfPanel
    from ui.panels.troubleshoot import TroubleshootPanel

    window = MainWindow()
    window.resize(WIDTH, HEIGHT)
    window.show()

    def wait(cond: Callable[[], bool], timeout: float = 120.0) -> None:
        end = time.monotonic() + timeout
        while not cond():
            if time.monotonic() > end:
                errors = [p.last_error for p in window.panels.values() if p.last_error]
                raise SystemExit(f"screenshots: timed out at line {sys._getframe(1).f_lineno}; errors: {errors}")
            app.processEvents()
            time.sleep(0.01)

    def settle(seconds: float = 0.4) -> None:
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            app.processEvents()
            time.sleep(0.01)

    def panel(key: str, kind: type[P]) -> P:
        """Show a panel and hand it back as its own class (the script drives its API)."""
        shown = window.show_panel(key)
        if not isinstance(shown, kind):
            raise SystemExit(f"screenshots: panel {key!r} is a {type(shown).__name__}, not a {kind.__name__}")
        return shown

    def shot(name: str) -> None:
        settle()
        image = window.grab().toImage()
        path = out / f"{name}.png"
        image.save(str(path), quality=9)  # PNG from the suffix
        print(f"screenshots: {path} ({path.stat().st_size // 1024} KiB)")

    idle = lambda: not window.workers.active_jobs()  # noqa: E731
    wait(lambda: DEVICE.replace("9", "5") in window.devices.devices())
    wait(idle)
    window.devices.select(DEVICE)
    wait(lambda: window.devices.identity["vendor"].text() not in ("–", ""))

    def library_shots() -> None:
        """The virtual library after real moves (a cartridge in a drive, one in the mail slot), then its exerciser."""
        lib = panel("library", LibraryPanel)
        wait(idle)
        lib.library.setEditText("virtual:library")
        lib.read()
        wait(lambda: lib.view is not None and idle())
        for source, destination in (("slot:4", "drive:1"), ("slot:7", "ie:0")):
            lib.source.setCurrentText(source)
            lib.destination.setCurrentText(destination)
            lib.status.setText("")
            lib.move_button.click()
            wait(lambda: idle() and (lib.last_error is not None or "moved" in lib.status.text()))
            if lib.last_error:
                raise SystemExit(f"screenshots: the move {source} -> {destination} failed: {lib.last_error}")
        shot("13-library-inventory")
        lib.moves.setText("12")
        lib.exercise_button.click()
        wait(lambda: lib.current_page() == "results", 300)
        wait(idle)
        shot("14-library-exerciser-results")
        for source, destination in (("drive:1", "slot:4"), ("ie:0", "slot:7")):  # everything home again
            lib.source.setCurrentText(source)
            lib.destination.setCurrentText(destination)
            lib.move_cartridge()
            wait(idle)

    def close() -> int:
        wait(idle)
        window.close()
        QTimer.singleShot(0, app.quit)
        app.exec()
        return 0

    if library_only:
        library_shots()
        return close()

    # 1. Drive information (a cleaning request raised by the drive shows the severity colours).
    info = panel("info", InfoPanel)
    info.set_device(DEVICE + "?tapealert=20")
    info.start()
    wait(lambda: info.current_page() == "results")
    shot("01-drive-information")
    info.set_device(DEVICE)

    # 2. Tape performance: the parameters page with a preset, the run live, the results.
    tape = panel("tapeperf", TapePerfPanel)
    tape.choose_next.click()
    tape.apply_preset("L&TT Windows default")
    shot("02-tape-performance-parameters")
    tape.apply_values({"size": "3G"})  # 32 GB would take a minute on the virtual LTO-9
    tape.params_next.click()
    wait(lambda: "blank" in tape.found_label.text())
    tape.start_button.click()
    wait(lambda: tape.runview.plot.t_max > 2.5)
    shot("03-tape-performance-running")
    wait(lambda: tape.current_page() == "results", 300)
    tape.result_tree.collapseAll()
    for i in range(min(3, tape.result_tree.topLevelItemCount())):
        if (item := tape.result_tree.topLevelItem(i)) is not None:
            item.setExpanded(True)
    shot("04-tape-performance-results")
    # A second run on the same cartridge: the confirm page says what the engine found.
    tape.new_button.click()
    tape.params_next.click()
    wait(lambda: "Found on the cartridge" in tape.found_label.text())
    shot("05-tape-performance-confirm-overwrite")
    window.show_panel("info")
    tape.show_page("params")

    # 3. Create test data on a real temporary tree, then read it back.
    tree = work / "testdata"
    create = panel("create", CreateDataPanel)
    create.dir_field.setText(str(tree))
    create.choose_next.click()
    create.apply_preset("Quick check")
    create.apply_values({"total_size": "1G", "streams": "4", "min_size": "256K", "max_size": "4M",
                         "distribution": "log-uniform", "depth": "2", "breadth": "6", "files_per_dir": "40"})
    create.params_next.click()
    create.start_button.click()
    wait(lambda: create.current_page() == "results", 300)
    shot("06-create-test-data-results")
    read = panel("read", ReadDataPanel)
    read.dir_field.setText(str(tree))
    read.choose_next.click()
    read.apply_preset("Parallel streams")
    read.params_next.click()
    read.start_button.click()
    wait(lambda: read.current_page() == "results", 300)
    shot("07-read-test-data-results")

    # 4. Troubleshooting from the recorded runs; the backup job's own figures as typed in.
    ts = panel("troubleshoot", TroubleshootPanel)
    ts.fill_from_history()
    wait(lambda: ts.fields["tape_write"].text().startswith("run"))
    ts.fields["backup"].setText("95")
    ts.show_page("workload")
    ts.fields["streams"].setText("1")
    ts.fields["block_size"].setText("64K")
    ts.fields["network"].setText("1GbE")
    ts.analyse()
    wait(lambda: ts.current_page() == "results")
    shot("08-troubleshooting")

    # 5. History: every run above, the tape run's curve redrawn from stored samples.
    tape_run = tape.run_id
    if tape_run is None:
        raise SystemExit("screenshots: the tape run was not recorded")
    history = panel("history", HistoryPanel)
    history.refresh()
    wait(lambda: any(r.id == tape_run for r in history.runs))
    history.select_run(tape_run)
    wait(lambda: history.current_run is not None and history.current_run.id == tape_run)
    shot("09-history-and-reports")

    # 6. Adding an iSCSI target: the fields, the device string they make (nothing is contacted).
    dialog = window.devices.ask_add_target()
    dialog.host.setText("127.0.0.1")
    dialog.iqn.setEditText("iqn.2004-04.com.example:vtl.drive1")
    dialog.lun.setValue(1)
    settle()
    path = out / "10-add-iscsi-target.png"
    dialog.grab().toImage().save(str(path), quality=9)
    print(f"screenshots: {path} ({path.stat().st_size // 1024} KiB)")
    dialog.reject()

    # 7. The drive assessment on the cartridge the tape test wrote: the engine's finding, confirmed, the verdict.
    assess = panel("assess", AssessPanel)
    assess.choose_next.click()
    assess.apply_preset("Full assessment")
    assess.params_next.click()
    wait(lambda: "Found on the cartridge" in assess.found_label.text())
    assess.confirm_box.setChecked(True)
    assess.start_button.click()
    wait(lambda: assess.current_page() == "results", 300)
    shot("11-drive-assessment-results")

    # 8. The media scan of what the assessment left on the cartridge: read only, a cartridge verdict.
    scan = panel("scan", ScanPanel)
    scan.choose_next.click()
    scan.apply_preset("Whole cartridge")
    scan.apply_values({"zone": "256MB"})
    scan.params_next.click()
    scan.start_button.click()
    wait(lambda: scan.current_page() == "results", 300)
    shot("12-media-scan-results")

    # 9. The library panel: the virtual library's map after real moves, and the exerciser's verdict.
    library_shots()
    return close()


if __name__ == "__main__":
    sys.exit(main())
