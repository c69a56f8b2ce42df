#!/usr/bin/env bash
# Builds the Linux one-folder bundle and its tarball:
#   dist/tapediag/                                  tapediag, tapediag-gui, _internal/, share/, install.sh
#   dist/tapediag-VERSION-linux-x86_64.tar.gz
# Uses the project virtualenv (.venv, from scripts/setup.sh) and installs PyInstaller
# into it (the `bundle` extra). libsgutils2 and libiscsi are NOT bundled: the target
# machine's own packages are used, and tapediag names the transports it cannot offer.
set -euo pipefail
cd "$(dirname "$0")/.."
root=$(pwd)
py=.venv/bin/python
[ -x "$py" ] || { echo "build-linux: no .venv here; run scripts/setup.sh first" >&2; exit 1; }

start=$(date +%s)
echo "build-linux: installing PyInstaller (the bundle extra) and the build requirements into .venv"
# Only these requirements (pyproject.toml's bundle extra and build-system.requires, since
# the C helpers are built in place below): re-installing the project is not needed.
mapfile -t reqs < <("$py" -c '
import tomllib
project = tomllib.load(open("pyproject.toml", "rb"))
print("\n".join(project["project"]["optional-dependencies"]["bundle"] + project["build-system"]["requires"]))')
"$py" -m pip install -q "${reqs[@]}"
echo "build-linux: building the C helpers in place"
"$py" setup.py -q build_ext --inplace

echo "build-linux: rendering icons"
"$py" packaging/render_icons.py build/icons

echo "build-linux: running PyInstaller"
"$py" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath dist --workpath build/pyinstaller packaging/tapediag-linux.spec

bundle=dist/tapediag
mkdir -p "$bundle/share"
cp packaging/linux/tapediag.desktop build/icons/tapediag.png "$bundle/share/"
cp packaging/linux/install.sh "$bundle/install.sh"

# The transports' libraries must come from the machine the bundle runs on.
if found=$(find "$bundle" -name 'libsgutils2*' -o -name 'libiscsi*' | grep .); then
  echo "build-linux: error: system-only libraries ended up in the bundle:" >&2
  echo "$found" >&2
  exit 1
fi

version=$("$py" -c 'import app; print(app.__version__)')
tarball="dist/tapediag-$version-linux-$(uname -m).tar.gz"
tar -C dist -czf "$tarball" tapediag

end=$(date +%s)
echo "build-linux: done in $((end - start)) s"
echo "build-linux: bundle  $bundle ($(du -sh "$bundle" | cut -f1))"
echo "build-linux: tarball $tarball ($(du -sh "$tarball" | cut -f1))"
