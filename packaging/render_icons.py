"""Renders resources/icons/tapediag.svg to the raster icons the bundles need.

Linux desktops want a PNG next to the .desktop file; Windows executables embed an ICO
(several sizes in one file). Both are made at build time with Qt's own SVG renderer
and image writers, so only the SVG source is kept in the repository.

    python packaging/render_icons.py OUTDIR   ->  OUTDIR/tapediag.png, OUTDIR/tapediag.ico
"""
from __future__ import annotations

import os
import sys
from pathlib import Path

SVG = Path(__file__).resolve().parent.parent / "resources" / "icons" / "tapediag.svg"
PNG_SIZE = 256
ICO_SIZE = 256  # Qt's ICO writer stores one image; Windows scales it down.


def render(size: int):
    from PySide6.QtCore import Qt
    from PySide6.QtGui import QImage, QPainter
    from PySide6.QtSvg import QSvgRenderer

    renderer = QSvgRenderer(str(SVG))
    if not renderer.isValid():
        raise SystemExit(f"render_icons: cannot read {SVG}")
    image = QImage(size, size, QImage.Format.Format_ARGB32)
    image.fill(Qt.GlobalColor.transparent)
    painter = QPainter(image)
    renderer.render(painter)
    painter.end()
    return image


def main(argv: list[str]) -> int:
    if len(argv) != 1:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    os.environ.setdefault("QT_QPA_PLATFORM", "offscreen")
    from PySide6.QtGui import QGuiApplication

    app = QGuiApplication([])  # image plugins (ICO) need an application object
    out = Path(argv[0])
    out.mkdir(parents=True, exist_ok=True)
    for name, size, fmt in (("tapediag.png", PNG_SIZE, "PNG"), ("tapediag.ico", ICO_SIZE, "ICO")):
        if not render(size).save(str(out / name), fmt):
            print(f"render_icons: Qt could not write {fmt} ({out / name})", file=sys.stderr)
            return 1
    del app
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
