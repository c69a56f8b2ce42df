#!/usr/bin/env bash
# Installs what tapediag needs on a Debian machine: system packages (SCSI and iSCSI
# libraries, the Qt runtime libraries), a virtualenv at .venv in the repository root,
# and the project itself (editable, with the C helpers built).
#   bash scripts/setup.sh           the app (what scripts/start.sh runs)
#   bash scripts/setup.sh --tests   also what the test suite uses: the tgt iSCSI target,
#                                   sg3_utils' tools, fio, poppler, Xvfb, pytest
# Idempotent: a second run only checks. Run as root or with sudo available.
set -euo pipefail
cd "$(dirname "$0")/.."

FOR_TESTS=0
[ "${1:-}" = "--tests" ] && FOR_TESTS=1

APT_PACKAGES=(
  # build: C helpers and the venv (libiscsi-dev: the iSCSI helper is compiled against its headers)
  gcc python3-dev python3-venv libiscsi-dev
  # transports
  libsgutils2-1.46-2 libiscsi7
  # Qt (PySide6) runtime libraries
  libegl1 libgl1 libglib2.0-0 libfontconfig1 libdbus-1-3 libxkbcommon0 libxkbcommon-x11-0
  libxcb-cursor0 libxcb-icccm4 libxcb-keysyms1 libxcb-shape0 libxcb-xinerama0 libxcb-randr0
  libxcb-render-util0 libxcb-image0 libxcb-xkb1 libxrender1 libxi6 fonts-dejavu-core
)
TEST_PACKAGES=(
  # the real tape target the tests start on 127.0.0.1, and the tools they cross-check with
  tgt libiscsi-bin sg3-utils
  # sdparm: the oracle for the ticket's mode pages (sdparm --pdt=1 --inhex)
  sdparm
  # mtx: the oracle for tgt's changer through the kernel's sg node (tests/kernel)
  mtx
  # disk benchmarks, PDF checks, the GUI in a real X window
  fio poppler-utils xvfb xauth
  # the real-kernel tests (tests/kernel): a Debian kernel under qemu (software emulation), a busybox
  # initramfs, the kernel's iSCSI initiator tools inside the guest
  qemu-system-x86 busybox-static open-iscsi cpio kmod
  # the watch's real-kernel test (tests/kernel/test_watch_kernel.py): sysstat's tapestat as its oracle, and
  # dmsetup for the guest's device-mapper sources (a zero device, and a delay device over it)
  sysstat dmsetup
  # the network test's anchor (benchmarks/bench_net.py) and its shaped path in a private namespace (ip, tc)
  iperf3 iproute2
)
[ "$FOR_TESTS" = 1 ] && APT_PACKAGES+=("${TEST_PACKAGES[@]}")

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
  # Debian starts the tgt package's own iSCSI target on every interface (port 3260). The
  # tests run their own tgtd on 127.0.0.1 only, so a service installed just now for
  # them is stopped and disabled again; one that was already here is left alone.
  if [[ " ${missing[*]} " == *" tgt "* ]] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    as_root systemctl disable --now tgt.service >/dev/null 2>&1 || true
    echo "setup: the system iSCSI target service (tgt.service) was stopped and disabled; the tests start their own on 127.0.0.1"
  fi
  # Likewise open-iscsi's initiator daemon: the tests run it only inside their guest.
  if [[ " ${missing[*]} " == *" open-iscsi "* ]] && command -v systemctl >/dev/null && [ -d /run/systemd/system ]; then
    as_root systemctl disable --now iscsid.service iscsid.socket open-iscsi.service >/dev/null 2>&1 || true
  fi
fi

PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "setup: creating .venv"
  "$PYTHON" -m venv .venv
fi
.venv/bin/python -m pip install -q --upgrade pip
if [ "$FOR_TESTS" = 1 ]; then
  .venv/bin/python -m pip install -q -e ".[dev]"
  bash scripts/guest-kernel.sh
else
  .venv/bin/python -m pip install -q -e ".[gui]"
fi
echo "setup: ready ($(.venv/bin/python --version), $(.venv/bin/tapediag --version))"
