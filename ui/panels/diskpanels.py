"""Create test data and Read test data: the disk side of a backup, measured like
HPCreateData / HPReadData (the white paper's "Disk write" and "Disk read" steps)."""
from __future__ import annotations

import os
from typing import Any

from PySide6.QtWidgets import QFormLayout, QHBoxLayout, QLabel, QVBoxLayout

from app.disk import CleanResult, CreateDataParams, CreateDataResult, ReadDataParams, ReadDataResult
from ui import engines
from ui.form import add_fields, given
from ui.format import human_size
from ui.panels.testpanel import TestPanel, path_picker
from ui.widgets import ValidatedField
from ui.worker import Job

PAPER_TYPICAL = "White paper typical: 64 KB–64 MB files, 2:1, 10 GB"
PAPER_SMALL = "White paper small files 4–16 KB, 2:1, equal per directory, 1 GB"
QUICK_CREATE = "Quick check: 1 MB files, 2:1, 256 MB, 4 streams"


def _paper(name: str, total: str) -> dict[str, Any]:
    """A white-paper data set as the engine defines it (``app.disk.PRESETS``), as form values."""
    from app.disk.params import PRESETS
    from app.disk.sizes import format_size

    p = PRESETS[name]
    size = lambda n: format_size(n).replace(" KiB", "K").replace(" MiB", "M").replace(" GiB", "G")  # noqa: E731
    return {"depth": str(p["depth"]), "breadth": str(p["breadth"]), "files_per_dir": str(p["files_per_dir"]),
            "min_size": size(p["min_size"]), "max_size": size(p["max_size"]), "distribution": p["distribution"],
            "pattern": p["pattern"], "total_size": total, "streams": "4"}


def _check_dir(text: str) -> str:
    from native.errors import InvalidParameter

    if not text.strip():
        raise InvalidParameter("choose a directory")
    return os.path.abspath(os.path.expanduser(text.strip()))


class _DiskPanel(TestPanel):
    kind = ""
    uses_device = False

    def build_choose(self, layout: QVBoxLayout) -> None:
        self.dir_field = ValidatedField(_check_dir, "")
        self.dir_field.setObjectName("directory")
        row = QHBoxLayout()
        row.addWidget(self.dir_field, 1)
        row.addWidget(path_picker(self.dir_field, self, "Choose a directory"))
        form = QFormLayout()
        caption = QLabel("&Directory:")
        caption.setBuddy(self.dir_field)  # a label without a buddy shows its '&' as it is
        form.addRow(caption, row)
        layout.addWidget(QLabel(self.choose_help))
        layout.addLayout(form)

    choose_help = ""

    def target(self) -> str | None:
        return f"disk:{self.dir_field.value}" if self.dir_field.ok else None

    def directory(self) -> str:
        return self.dir_field.value

    def subject(self) -> str:
        return f"directory {self.directory()}" if self.dir_field.ok else ""

    def values(self) -> dict[str, Any]:
        out = super().values()
        out["directory"] = self.dir_field.text()
        out["directory_path"] = self.dir_field.value or ""
        out["target"] = out["directory_path"]  # the parameters' name for it
        return out

    def apply_values(self, values: dict[str, Any]) -> None:
        super().apply_values(values)
        if values.get("directory") and getattr(self, "dir_field", None) is not None:
            self.dir_field.setText(values["directory"])


class CreateDataPanel(_DiskPanel):
    key = "create"
    tab_title = "&Create data"
    title = "Create test data"
    description = ("Creates a tree of files with a known compression ratio — the restore side of a backup, and "
                   "the data set for the Read test. Each stream writes its own subtree; a manifest records what "
                   "was created so Clean up removes exactly that.")
    choose_help = "Where to create the test data (an empty directory, or one tapediag created before):"
    presets = [
        (PAPER_TYPICAL, _paper("typical", "10G")),
        (PAPER_SMALL, _paper("small", "1G")),
        (QUICK_CREATE, {"min_size": "1M", "max_size": "1M", "distribution": "fixed", "pattern": "2:1",
                        "total_size": "256M", "streams": "4", "depth": "2", "breadth": "4", "files_per_dir": "16"}),
    ]

    def build_fields(self, form) -> None:
        add_fields(self, CreateDataParams.FIELDS)  # create-data's options, declared once (app.disk.params)

    def make_params(self) -> CreateDataParams:
        return engines.create_params(given(self.values()))

    def confirm_text(self, params: Any) -> str:
        from app.disk.sizes import format_size
        from native.units import size_text

        # The engine's figures, not the typed text with a "B" glued on: "10G" + "B" read as 10 GB, but 10G is
        # 10 GiB (10.74 GB) by the one rule of native.units (issue 12).
        limit = f"up to {size_text(params.total_size, binary=True)}" if params.total_size else "the whole tree"
        return (f"<p>Creates {limit} of {params.pattern} files of {format_size(params.min_size)}–"
                f"{format_size(params.max_size)} in "
                f"<b>{self.directory()}</b> (depth {params.depth}, breadth {params.breadth}, {params.files_per_dir} "
                f"files per directory) with {params.streams} parallel streams.</p>"
                "<p>Only new files are written inside this directory; nothing outside it is touched. "
                "The free space is checked first.</p>")

    def run_engine(self, job: Job, params: Any, force: bool):
        return engines.run_create(job, params)

    def result_buttons(self):
        from PySide6.QtWidgets import QPushButton

        self.clean_button = QPushButton("C&lean up test data")
        self.clean_button.setToolTip("Remove exactly the files create-data made here (listed in its manifest); "
                                     "files of others are kept")
        self.clean_button.clicked.connect(self.clean_up)
        return [self.clean_button]

    def clean_up(self) -> Job | None:
        target = self.directory()
        if not target:
            return None
        self.clean_button.setEnabled(False)
        return self.workers.submit(Job(f"disk:{target}", "clean up", lambda job: engines.clean_disk(target),
                                       on_done=self._cleaned, on_error=lambda e: self.show_error(self.title, e)))

    def _cleaned(self, r: CleanResult) -> None:
        self.cleaned = r
        self.result_label.setText(self.result_label.text() + f"<br>Cleaned up: {r.files_removed:,} files, "
                                  f"{r.dirs_removed:,} directories, {r.bytes_removed / 1e6:,.1f} MB removed"
                                  + (f"; kept {len(r.kept_dirs)} directories holding others' files"
                                     if r.kept_dirs else ""))

    def result_headline(self, r: CreateDataResult) -> str:
        if hasattr(self, "clean_button"):
            self.clean_button.setEnabled(True)
        return engines.disk_headline(r, "Created")

    def result_sections(self, r: CreateDataResult):
        from ui.summaries import disk_sections

        return disk_sections(r)


class ReadDataPanel(_DiskPanel):
    key = "read"
    tab_title = "&Read data"
    title = "Read test data"
    description = ("Reads a tree of files the way a backup agent does: a timed tree walk, then whole-file reads "
                   "by 1–8 parallel streams. The page cache is bypassed so the figure is the disk's, not memory's. "
                   "Works on test data or on the customer's real file system; nothing is written.")
    choose_help = "The directory to read (test data, or real data to be backed up):"
    presets = [
        ("Backup agent, 1 stream, 1 MB buffer", {"streams": "1", "buffer_size": "1M", "direct": False}),
        ("Parallel streams: 4 × 1 MB buffer", {"streams": "4", "buffer_size": "1M", "direct": False}),
        ("Direct I/O: 8 streams × 1 MB (O_DIRECT)", {"streams": "8", "buffer_size": "1M", "direct": True}),
    ]

    def build_fields(self, form) -> None:
        add_fields(self, ReadDataParams.FIELDS)  # read-data's options, declared once (app.disk.params)

    def make_params(self) -> ReadDataParams:
        return engines.read_params(given(self.values()))

    def confirm_text(self, params: Any) -> str:
        return (f"<p>Walks and reads every file under <b>{self.directory()}</b> with {params.streams} streams "
                f"and a {human_size(params.buffer_size)} buffer.</p><p>Nothing is written.</p>")

    def run_engine(self, job: Job, params: Any, force: bool):
        return engines.run_read(job, params)

    def result_headline(self, r: ReadDataResult) -> str:
        return engines.disk_headline(r, "Read")

    def result_sections(self, r: ReadDataResult):
        from ui.summaries import disk_sections

        return disk_sections(r)
