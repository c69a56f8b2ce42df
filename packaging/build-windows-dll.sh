#!/usr/bin/env bash
# Cross-builds sg3_utils' pass-through library for 64-bit Windows with mingw-w64:
#   dist/windows-dll/libsgutils2-1-46-2.dll   (SPTI backend, "direct" variant by default)
#   dist/windows-dll/sg3_utils-BSD_LICENSE.txt
# The Windows bundle (build-windows.ps1) ships both; native/sgpt.py loads the DLL.
#
# The source is Debian's own `sg3-utils` source package (BSD-licensed), fetched at build
# time with `apt-get source` through a private apt configuration under build/ -- the
# machine's apt settings are not touched and no sg3_utils code lives in this repository.
# Needs a Debian machine (or WSL) and root for the one-time install of mingw-w64.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
work="$root/build/windows-dll"
out="$root/dist/windows-dll"
host=x86_64-w64-mingw32

# Functions tapediag's ctypes binding needs from the DLL (sg3_utils' sg_pt.h).
REQUIRED_SYMBOLS=(
  construct_scsi_pt_obj destruct_scsi_pt_obj scsi_pt_open_device scsi_pt_close_device
  set_scsi_pt_cdb set_scsi_pt_sense set_scsi_pt_data_in set_scsi_pt_data_out
  do_scsi_pt get_scsi_pt_result_category get_scsi_pt_status_response get_scsi_pt_sense_len
  get_scsi_pt_resid get_scsi_pt_os_err get_scsi_pt_os_err_str get_scsi_pt_transport_err
  get_scsi_pt_transport_err_str scsi_pt_win32_direct scsi_pt_win32_spt_state
)

# Wine sees the Linux file system as drive Z:.
winepath_of() { printf 'Z:%s' "${1//\//\\}"; }

start=$(date +%s)
need=()
command -v "$host-gcc" >/dev/null || need+=(mingw-w64)
command -v dpkg-source >/dev/null || need+=(dpkg-dev)
command -v make >/dev/null || need+=(make)
if [ "${#need[@]}" -gt 0 ]; then
  echo "build-windows-dll: installing ${need[*]}"
  sudo_=""; [ "$(id -u)" -eq 0 ] || sudo_=sudo
  $sudo_ apt-get update -qq
  $sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}"
fi

# 1. The source package, through a private apt configuration (deb-src of this release).
apt_dir="$work/apt"
rm -rf "$work"
mkdir -p "$apt_dir/lists/partial" "$apt_dir/cache/archives/partial" "$work/src"
python3 packaging/windows/deb_src_sources.py > "$apt_dir/sources.sources"
apt_opts=(
  -o "Dir::Etc::SourceList=/dev/null" -o "Dir::Etc::SourceParts=$apt_dir/parts"
  -o "Dir::State::Lists=$apt_dir/lists" -o "Dir::Cache=$apt_dir/cache"
  -o "APT::Sandbox::User=root"
)
mkdir -p "$apt_dir/parts" && mv "$apt_dir/sources.sources" "$apt_dir/parts/debian-src.sources"
echo "build-windows-dll: fetching Debian's sg3-utils source package"
apt-get -qq "${apt_opts[@]}" update
(cd "$work/src" && apt-get -qq "${apt_opts[@]}" source sg3-utils >/dev/null)
src=$(find "$work/src" -maxdepth 1 -type d -name 'sg3-utils-*' | head -n1)
[ -n "$src" ] || { echo "build-windows-dll: the source package did not unpack" >&2; exit 1; }
echo "build-windows-dll: building $(basename "$src") for $host"

# 2. Cross-configure and build only the library (the utilities are not needed).
mkdir -p "$work/build"
(
  cd "$work/build"
  "$src/configure" -q --host="$host" --enable-win32-spt-direct --enable-shared --disable-static \
    > configure.log 2>&1 || { tail -20 configure.log >&2; exit 1; }
  make -C lib -j"$(nproc)" > make.log 2>&1 || { tail -20 make.log >&2; exit 1; }
)
dll=$(find "$work/build/lib/.libs" -maxdepth 1 -name 'libsgutils2-*.dll' | head -n1)
[ -n "$dll" ] || { echo "build-windows-dll: no DLL was produced" >&2; exit 1; }

rm -rf "$out" && mkdir -p "$out"
"$host-strip" --strip-unneeded -o "$out/$(basename "$dll")" "$dll"
cp "$src/BSD_LICENSE" "$out/sg3_utils-BSD_LICENSE.txt"
dll="$out/$(basename "$dll")"

# 3. Check what it exports and what it imports.
exports=$("$host-objdump" -p "$dll" | awk '/\[Ordinal\/Name Pointer\] Table/{t=1; next} t && /^[ \t]*\[/{print $NF} t && /^$/{t=0}')
missing=()
for sym in "${REQUIRED_SYMBOLS[@]}"; do
  grep -qx "$sym" <<<"$exports" || missing+=("$sym")
done
# Every sg3_utils function the Python binding names must be exported too.
if [ -f native/sgpt.py ]; then
  for sym in $(grep -oE '\b(construct|destruct|set|get|do|clear|partial_clear|scsi_pt|sg)_[a-z0-9_]+' native/sgpt.py | sort -u); do
    if nm -D --defined-only /usr/lib/x86_64-linux-gnu/libsgutils2-*.so.* 2>/dev/null | grep -qw "$sym" \
       && ! grep -qx "$sym" <<<"$exports" && [[ "$sym" != sg_linux* ]]; then
      missing+=("$sym (used by native/sgpt.py)")
    fi
  done
fi
if [ "${#missing[@]}" -gt 0 ]; then
  echo "build-windows-dll: error: the DLL does not export: ${missing[*]}" >&2
  exit 1
fi
imports=$("$host-objdump" -p "$dll" | awk '/DLL Name:/{print $3}' | sort -u | tr '\n' ' ')

# 4. With Wine installed (optional: Debian's wine64), load it as Windows would and call it.
"$host-gcc" -O2 -Wall -Wextra -o "$work/dll_probe.exe" packaging/windows/dll_probe.c
wine=$(command -v wine64 || command -v wine || ls /usr/lib/wine/wine64 2>/dev/null || true)
if [ -n "$wine" ]; then
  echo "build-windows-dll: loading it under Wine ($wine)"
  # The Wine prefix stays outside the repository: its drive Z: is a link to /, which
  # any tool walking the tree (setuptools, pytest) would follow forever.
  wineprefix=$(mktemp -d)
  trap 'rm -rf "$wineprefix"' EXIT
  WINEPREFIX="$wineprefix" WINEDEBUG=-all "$wine" "$work/dll_probe.exe" "$(winepath_of "$dll")" 2>/dev/null \
    | sed 's/^/  /' || { echo "build-windows-dll: error: the DLL misbehaves under Wine" >&2; exit 1; }
else
  echo "build-windows-dll: Wine not installed: skipped loading the DLL (apt-get install wine64 to check)"
fi

end=$(date +%s)
echo "build-windows-dll: done in $((end - start)) s"
echo "build-windows-dll: $dll ($(du -h "$dll" | cut -f1), $(wc -l <<<"$exports") exports, all ${#REQUIRED_SYMBOLS[@]} required present)"
echo "build-windows-dll: it imports only: $imports"
