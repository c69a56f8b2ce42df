#!/usr/bin/env bash
# Sets everything up, then starts tapediag. With a display: the desktop app, with the
# virtual LTO drive preselected when no real drive is attached. Without one (a headless
# server): the drive list and the virtual drive's information, and how to go on.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh
if [ -n "${DISPLAY:-}${WAYLAND_DISPLAY:-}" ]; then
  exec .venv/bin/tapediag gui "$@"
fi
echo "No display: showing the command line instead (tapediag --help for all commands)."
.venv/bin/tapediag devices
.venv/bin/tapediag info virtual:lto9
echo
echo "Try: .venv/bin/tapediag tape-perf virtual:lto9 --size 2G --pattern 2:1"
