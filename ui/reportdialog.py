""""Save report…": the cover page's details, whether to name this machine, and where to write the PDF."""
from __future__ import annotations

from pathlib import Path

from PySide6.QtWidgets import (
    QCheckBox,
    QDialog,
    QDialogButtonBox,
    QFileDialog,
    QFormLayout,
    QHBoxLayout,
    QLabel,
    QLineEdit,
    QPushButton,
    QWidget,
)

from ui.settings import load_json, save_json


class ReportDialog(QDialog):
    """Customer, site, technician, ticket (remembered), naming this machine (off unless ticked) and the file."""

    def __init__(self, default_name: str, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.setWindowTitle("Save report")
        form = QFormLayout(self)
        saved = load_json("report/meta", {}) or {}
        self.edits: dict[str, QLineEdit] = {}
        for key, label in (("customer", "C&ustomer:"), ("site", "S&ite:"), ("technician", "&Technician:"),
                           ("ticket", "Tic&ket number:")):
            edit = QLineEdit(str(saved.get(key, "")) if key != "ticket" else "")
            self.edits[key] = edit
            form.addRow(label, edit)
        # Off every time the dialog opens: a host name can be the customer's to keep (never remembered on).
        self.host_name = QCheckBox("Name this &machine (where the tests ran) in the sign-off")
        form.addRow("", self.host_name)
        self.path = QLineEdit(str(Path(saved.get("dir") or Path.home()) / default_name))
        browse = QPushButton("&Browse…")
        browse.clicked.connect(self._browse)
        row = QHBoxLayout()
        row.addWidget(self.path, 1)
        row.addWidget(browse)
        caption = QLabel("&File:")
        caption.setBuddy(self.path)  # a label without a buddy shows its '&' as it is
        form.addRow(caption, row)
        buttons = QDialogButtonBox(QDialogButtonBox.StandardButton.Save | QDialogButtonBox.StandardButton.Cancel)
        buttons.accepted.connect(self.accept)
        buttons.rejected.connect(self.reject)
        form.addRow(buttons)
        self.resize(560, self.sizeHint().height())

    def _browse(self) -> None:
        path, _ = QFileDialog.getSaveFileName(self, "Save report", self.path.text(), "PDF (*.pdf)")
        if path:
            self.path.setText(path if path.lower().endswith(".pdf") else path + ".pdf")

    def meta(self) -> dict:
        return {**{k: e.text().strip() for k, e in self.edits.items()}, "host_name": self.host_name.isChecked()}

    def accept(self) -> None:
        meta = self.meta()
        save_json("report/meta", {**{k: v for k, v in meta.items() if k not in ("ticket", "host_name")},
                                  "dir": str(Path(self.path.text()).parent)})
        super().accept()


def ask_report(parent: QWidget, default_name: str) -> tuple[Path, dict] | None:
    dialog = ReportDialog(default_name, parent)
    if dialog.exec() != QDialog.DialogCode.Accepted:
        return None
    return Path(dialog.path.text()), dialog.meta()
