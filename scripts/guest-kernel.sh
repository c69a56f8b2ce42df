#!/usr/bin/env bash
# Fetches Debian's own kernel package (linux-image-amd64's current image) and unpacks it
# into .cache/guest-kernel/, for the real-kernel tests (tests/kernel/): a Linux guest
# under qemu with its own sg/st/iscsi_tcp stack. Nothing is installed on this machine:
# the package is only unpacked. Idempotent; called by scripts/setup.sh --tests.
set -euo pipefail
cd "$(dirname "$0")/.."
CACHE=.cache/guest-kernel
image=$(apt-cache depends linux-image-amd64 2>/dev/null | awk '/Depends: linux-image-[0-9]/ {print $2; exit}')
if [ -z "$image" ]; then
  echo "guest-kernel: cannot tell which kernel linux-image-amd64 depends on (apt-get update?)" >&2
  exit 1
fi
version=${image#linux-image-}
if [ -f "$CACHE/$version/boot/vmlinuz-$version" ] && [ -f "$CACHE/$version/lib/modules/$version/modules.dep" ]; then
  exit 0
fi
rm -rf "$CACHE/$version.partial"
mkdir -p "$CACHE/$version.partial"
(cd "$CACHE/$version.partial" && apt-get download -q "$image" >/dev/null 2>&1 && dpkg-deb -x ./*.deb root && rm ./*.deb)
depmod -b "$CACHE/$version.partial/root" "$version"
mv "$CACHE/$version.partial/root" "$CACHE/$version"
rm -rf "$CACHE/$version.partial"
echo "guest-kernel: Debian kernel $version unpacked into $CACHE/$version"
