"""Entry point of the desktop app (``tapediag gui`` / ``tapediag-gui``)."""
from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path
from typing import Sequence


def build_app(argv: Sequence[str] | None = None):  # -> QApplication
    """A QApplication with tapediag's names (QSettings, window class)."""
    if not os.environ.get("DISPLAY") and not os.environ.get("WAYLAND_DISPLAY") and sys.platform.startswith("linux"):
        os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtWidgets import QApplication

    existing = QApplication.instance()
    if existing is not None and not isinstance(existing, QApplication):
        raise RuntimeError("a non-GUI QCoreApplication is already running: the window needs a QApplication")
    app = existing or QApplication(list(argv or sys.argv[:1]))
    app.setApplicationName("tapediag")
    app.setOrganizationName("tapediag")
    app.setApplicationDisplayName("tapediag")
    app.setDesktopFileName("tapediag")
    # resources/ sits beside ui/ both in the source tree and in the bundles (_internal/).
    icon = Path(__file__).resolve().parent.parent / "resources" / "icons" / "tapediag.svg"
    if icon.is_file():
        from PySide6.QtGui import QIcon

        app.setWindowIcon(QIcon(str(icon)))
    return app


def main(argv: Sequence[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="tapediag-gui", description="The tapediag desktop app.")
    parser.add_argument("--device", help="select this device at start")
    parser.add_argument("--self-test", action="store_true",
                        help="show the main window, list devices, then exit 0 (packaging smoke test)")
    args = parser.parse_args(argv)
    from app.claims import set_program

    set_program("the tapediag GUI")  # how a refused second run (app.claims) names a run started here
    app = build_app()
    from PySide6.QtCore import QTimer

    from ui.mainwindow import MainWindow

    window = MainWindow()
    if args.device:
        window.devices.refresh(select=args.device)
    window.show()
    if args.self_test:
        def finish() -> None:
            print(f"tapediag-gui self-test: window shown, {len(window.devices.devices())} devices listed")
            window.close()
            app.exit(0)

        QTimer.singleShot(1500, finish)
    return app.exec()


if __name__ == "__main__":
    sys.exit(main())
