"""The "Watch a backup" panel (issue 28): the form from the kind's field table, the run through ``app.execute`` on the
drive's worker (recorded once, exactly as ``tapediag watch`` records it), the live curve and the drive's waiting share
while it runs, and the verdict page: the one number and its culprit, the evidence, the streaming floor and its source.

A watch cannot run on the virtual drive (the kernel keeps no statistics for it): the panel watches the fake kernel the
engine's tests use (``tests/helpers/fakesys``: the kernel's sysfs and /proc layout, moved on by simulated time as the
watch waits), with the virtual LTO-9 answering the queries before and after through watch's ``QueriesOnly``.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from tests.gui.conftest import wait_idle
from tests.helpers.fakesys import FakeKernel, Job, watched_kernel

pytestmark = pytest.mark.gui

DEVICE = "/dev/nst0"


@pytest.fixture
def kernel(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> FakeKernel:
    return watched_kernel(tmp_path, monkeypatch)


def _panel(qtbot, window, device: str):  # type: ignore[no-untyped-def]
    wait_idle(qtbot, window)  # the device pane's first discovery has chosen its drive: ours comes after
    panel = window.show_panel("watch")
    panel.set_device(device)
    panel.choose_next.click()
    assert panel.current_page() == "params"
    return panel


def test_a_watch_from_the_panel_is_recorded_once_and_shows_its_verdict(qtbot, window, kernel: FakeKernel) -> None:
    from app.history import History
    from app.watch.params import WatchParams

    kernel.jobs.append(Job(mb_s=40, busy=0.25, disk_busy=0.97, start=1.0))
    panel = _panel(qtbot, window, DEVICE)
    assert panel.fields["for_"].text() == "" and panel.fields["until_idle"].text() == "60s"  # the CLI's defaults
    panel.apply_values({"for_": "10s", "source": "sdb"})
    assert panel.params_next.isEnabled(), panel.params_error.text()
    panel.params_next.click()
    assert "Nothing is written and nothing is sent to the drive while the backup runs" in panel.confirm_label.text()
    panel.start_button.click()
    assert panel.current_page() == "run"
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=60000)
    wait_idle(qtbot, window)

    with History.open() as hist:
        (run,) = hist.list_runs()
    assert (run.kind, run.status, run.device) == ("backup-watch", "complete", DEVICE)
    given = WatchParams.from_values({"for_": "10s", "source": "sdb", "device": DEVICE})
    assert run.params == given.to_dict()  # what the CLI records for the same options
    assert panel.run_id == run.id and run.sample_count > 0

    view = panel.runview  # the live curve, and the one number live in place of an I/O count
    assert view.plot.sample_count == run.sample_count
    assert view.captions["samples"].text() == "Drive waiting (last 5 s):" and view.figures["samples"].text() == "75%"
    headline = panel.result_label.text()
    assert "The drive waited for data 75% of the time: the source is the bottleneck (source disk)" in headline
    assert "the job read /dev/sdb at 97% busy" in headline  # the evidence
    assert "Streaming floor:" in headline and "(speed steps: IBM Documentation" in headline
    rows = {panel.result_tree.topLevelItem(i).text(0): panel.result_tree.topLevelItem(i).text(1)
            for i in range(panel.result_tree.topLevelItemCount())}
    assert rows["Drive waiting for the host"] == "75%" and rows["Speed steps from"].startswith("IBM Documentation")
    assert panel.copy_text().startswith("Watch of /dev/nst0 (HPE Ultrium 9-SCSI serial ")  # the CLI's text


def test_a_drive_the_kernel_keeps_no_statistics_for_is_refused_on_the_form(qtbot, window, kernel: FakeKernel) -> None:
    from app.history import History

    panel = _panel(qtbot, window, "virtual:lto9")
    assert not panel.params_next.isEnabled()
    assert panel.params_error.text() == ("virtual:lto9 is tapediag's virtual drive: the kernel keeps no statistics for it "
                                         "(run tape-perf on it to see its figures)")
    with History.open() as hist:
        assert hist.list_runs() == []


def test_a_watch_that_sees_nothing_ends_complete_and_says_so(qtbot, window, kernel: FakeKernel) -> None:
    panel = _panel(qtbot, window, DEVICE)
    panel.apply_values({"for_": "", "until_idle": "2s"})
    panel.params_next.click()
    panel.start_button.click()
    qtbot.waitUntil(lambda: panel.current_page() == "results", timeout=60000)
    wait_idle(qtbot, window)
    assert panel.outcome == "complete" and panel.last_error is None  # no error dialog: nothing ran, and it says so
    assert "Nothing ran on /dev/nst0" in panel.result_label.text()
