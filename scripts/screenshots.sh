#!/usr/bin/env bash
# Renders every panel of the desktop app to PNG in a real X window (Xvfb), each showing
# a real run on the virtual LTO-9 drive and a real temporary tree, into docs/screenshots/.
# scripts/screenshots.sh docs/screenshots library  renders only the library panel's pictures.
set -euo pipefail
cd "$(dirname "$0")/.."
OUT="${1:-docs/screenshots}"
shift || true
unset QT_QPA_PLATFORM  # a real (virtual-display) window, not the offscreen plugin
exec xvfb-run -a -s "-screen 0 1600x1000x24 -dpi 96" .venv/bin/python -m ui.screenshots "$OUT" "$@"
