"""The report dialog's 'name this machine' box (issue 31): off each time the dialog opens, never remembered on,
and when ticked the sign-off names the machine the tests ran on; unticked it never does."""
from __future__ import annotations

import socket
import subprocess
from pathlib import Path

from app.cli import main
from app.history import History


def test_the_machine_is_named_only_when_the_box_is_ticked(qtbot, tmp_path: Path) -> None:  # type: ignore[no-untyped-def]
    from ui import engines
    from ui.reportdialog import ReportDialog

    dialog = ReportDialog("r.pdf")
    qtbot.addWidget(dialog)
    assert not dialog.host_name.isChecked() and dialog.meta()["host_name"] is False
    dialog.host_name.setChecked(True)
    dialog.edits["customer"].setText("ACME")
    dialog.path.setText(str(tmp_path / "r.pdf"))
    dialog.accept()
    again = ReportDialog("r.pdf")  # the customer is remembered, the box is not
    qtbot.addWidget(again)
    assert again.edits["customer"].text() == "ACME" and not again.host_name.isChecked()

    assert main(["info", "virtual:lto9?realtime=0"]) == 0
    with History.open() as hist:
        run_id = hist.list_runs()[0].id
    host = socket.gethostname()
    for ticked in (True, False):
        pdf = tmp_path / f"named-{ticked}.pdf"
        engines.save_report([run_id], pdf, {**dialog.meta(), "host_name": ticked})
        text = " ".join(subprocess.run(["pdftotext", str(pdf), "-"], capture_output=True, text=True,
                                       check=True).stdout.split())
        assert "Sign-off" in text and "Made with tapediag" in text
        assert (f"the tests ran on {host}" in text) is ticked
