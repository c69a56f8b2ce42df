"""Create test data and Read test data end to end on real files in tmp_path: set
parameters, confirm, watch samples reach the plot, finish, cancel, read back."""
from __future__ import annotations

from dataclasses import replace

import pytest

from tests.gui.conftest import as_read, wait_idle

pytestmark = pytest.mark.gui


def _to_confirm(panel, directory, values: dict) -> None:
    panel.dir_field.setText(str(directory))
    panel.choose_next.click()
    assert panel.current_page() == "params"
    panel.apply_preset("Quick check")
    panel.apply_values(values)
    assert panel.params_next.isEnabled(), panel.params_error.text()
    panel.params_next.click()
    assert panel.current_page() == "confirm"


def test_create_then_read_the_same_tree(qtbot, window, tmp_path):
    target = tmp_path / "data"
    create = window.show_panel("create")
    _to_confirm(create, target, {"total_size": "48M", "streams": "2"})
    assert str(target) in create.confirm_label.text()
    create.start_button.click()
    qtbot.waitUntil(lambda: create.current_page() == "results", timeout=60000)
    assert create.outcome == "complete", create.result_dict
    r = create.result_dict
    assert r["total_bytes"] >= 48 << 20 and r["total_files"] >= 48
    assert create.runview.plot.sample_count > 0 and "create" in create.runview.plot.phases()
    assert "Created" in as_read(create.result_label.text()) and "MB/s" in as_read(create.result_label.text())
    assert create.result_tree.find_value("streams") == "2"
    on_disk = [p for p in target.rglob("*") if p.is_file() and not p.name.startswith(".tapediag")]
    assert len(on_disk) == r["total_files"]

    read = window.show_panel("read")
    read.dir_field.setText(str(target))
    read.choose_next.click()
    read.apply_preset("Parallel streams")
    read.apply_values({"device_rate": "400MB"})  # the device's raw rate, as read-data --device-rate takes it
    read.params_next.click()
    assert "Nothing is written" in read.confirm_label.text()
    read.start_button.click()
    qtbot.waitUntil(lambda: read.current_page() == "results", timeout=60000)
    assert read.outcome == "complete", read.result_dict
    assert (target / ".tapediag-manifest.json").is_file()  # create-data's bookkeeping: not counted as data
    assert read.result_dict["total_files"] == r["total_files"]
    assert read.result_dict["total_bytes"] == r["total_bytes"]
    assert read.result_tree.find_value("files") is not None  # the tree walk section
    # issue 19: the raw figure and the cache finding, in app.disk.cache.read_cache's words
    assert read.result_dict["device_mb_s"] == 400.0
    assert read.result_tree.find_value("device's rate (as given)") == "400.0 MB/s"
    assert "raw" in (read.result_tree.find_value("cache") or "")
    assert read.runview.plot.sample_count > 0

    (target / "s01" / "customer.doc").write_text("not ours")  # someone else's file in the tree
    create.clean_button.click()
    qtbot.waitUntil(lambda: getattr(create, "cleaned", None) is not None, timeout=30000)
    assert create.cleaned.files_removed == r["total_files"]
    left = [p for p in target.rglob("*") if p.is_file()]
    assert left == [target / "s01" / "customer.doc"]
    wait_idle(qtbot, window)


def test_cancel_a_create_run_keeps_partial_results(qtbot, window, tmp_path):
    create = window.show_panel("create")
    _to_confirm(create, tmp_path / "big", {"total_size": "4G", "streams": "1", "depth": "3", "breadth": "8", "files_per_dir": "64"})
    create.start_button.click()
    qtbot.waitUntil(lambda: create.runview.plot.sample_count > 5, timeout=30000)
    create.runview.cancel_button.click()
    qtbot.waitUntil(lambda: create.current_page() == "results", timeout=30000)
    assert create.outcome == "cancelled"
    assert 0 < create.result_dict["total_bytes"] < 4 << 30
    wait_idle(qtbot, window)


def test_disk_parameters_are_checked_by_the_engine(qtbot, window, tmp_path):
    create = window.show_panel("create")
    create.dir_field.setText(str(tmp_path / "x"))
    create.choose_next.click()
    create.apply_preset("White paper small files")
    assert create.values()["min_size"] == "4K" and create.values()["max_size"] == "16K"
    create.apply_values({"min_size": "64K"})  # above the maximum
    assert "min size must not exceed max size" in create.params_error.text()
    assert not create.params_next.isEnabled()
    create.apply_values({"streams": "9"})
    assert "between 1 and 8" in create.fields["streams"].error.text()
    wait_idle(qtbot, window)


def test_a_non_empty_directory_is_refused_with_a_dialog(qtbot, window, tmp_path):
    (tmp_path / "customer.doc").write_text("not ours")
    create = window.show_panel("create")
    _to_confirm(create, tmp_path, {"total_size": "8M"})
    create.start_button.click()
    qtbot.waitUntil(lambda: create.last_error is not None, timeout=30000)
    assert "customer.doc" in create.last_error or "not empty" in create.last_error
    assert (tmp_path / "customer.doc").read_text() == "not ours"
    wait_idle(qtbot, window)


def test_the_disk_headline_counts_in_words():
    """Issue 12: plurals right ("1 stream", never "stream(s)")."""
    from tests.helpers.kinds import read_data, typed
    from ui.engines import disk_headline

    one = disk_headline(typed("read-data", read_data(1.0, files=1)), "Created")
    assert "1 file," in one and "with 1 stream" in one and "(s)" not in one
    four = typed("read-data", read_data(1.0, files=783))
    four.streams = [replace(four.streams[0], files=n) for n in (196, 196, 196, 195)]
    four = disk_headline(four, "Read")
    assert "783 files," in four and "with 4 streams" in four


def test_confirm_states_the_sizes_the_engine_will_use(qtbot, window, tmp_path):
    """'4M' is 4 MiB: the confirmation says 4.19 MB (4.00 MiB), never '4MB' (issue 12: MB is decimal)."""
    create = window.show_panel("create")
    _to_confirm(create, tmp_path / "data", {"total_size": "4M", "min_size": "4K", "max_size": "16K"})
    text = create.confirm_label.text()
    assert "up to 4.19 MB (4.00 MiB)" in text and "4 KiB–16 KiB" in text and "4MB" not in text
    wait_idle(qtbot, window)
