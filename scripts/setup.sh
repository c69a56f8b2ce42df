#!/usr/bin/env bash
# Installs everything tapediag needs on a Debian machine: system packages (tape target,
# SCSI libraries, fio, poppler, Xvfb, Qt runtime libraries), a virtualenv at .venv in
# the repository root, and the project itself (editable, with the C helpers built).
# Idempotent: a second run only checks. Run as root or with sudo available.
set -euo pipefail
cd "$(dirname "$0")/.."

APT_PACKAGES=(
  # build: C helpers and the venv
  gcc python3-dev python3-venv
  # transports and the real tape target used by the tests
  libsgutils2-1.46-2 sg3-utils libiscsi7 libiscsi-bin libiscsi-dev tgt
  # disk benchmarks, PDF checks, GUI under Xvfb
  fio poppler-utils xvfb xauth
  # Qt (PySide6) runtime libraries
  libegl1 libgl1 libglib2.0-0 libfontconfig1 libdbus-1-3 libxkbcommon0 libxkbcommon-x11-0
  libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0 libxcb-randr0
  libxcb-render-util0 libxcb-image0 libxcb-xkb1 libxrender1 libxi6 fonts-dejavu-core
)

as_root() {
  if [ "$(id -u)" -eq 0 ]; then "$@"; elif command -v sudo >/dev/null; then sudo "$@"; else
    echo "setup: need root (or sudo) to install: ${APT_PACKAGES[*]}" >&2; exit 1; fi
}

missing=()
for pkg in "${APT_PACKAGES[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || missing+=("$pkg")
done
if [ "${#missing[@]}" -gt 0 ]; then
  echo "setup: installing system packages: ${missing[*]}"
  as_root apt-get update -qq
  as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
.venv/bin/python -m pip install -q -e ".[dev]"
echo "setup: ready ($(.venv/bin/python --version), $(.venv/bin/tapediag --version))"
