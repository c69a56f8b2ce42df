#!/bin/sh
# Installs this tapediag bundle for the desktop, from wherever it was unpacked:
#   - `tapediag` and `tapediag-gui` on the PATH (symbolic links),
#   - a menu entry (tapediag.desktop) with its icon.
# As root: system-wide (/usr/local/bin, /usr/local/share). As a user: for that user
# (~/.local/bin, ~/.local/share). PREFIX=DIR chooses DIR/bin and DIR/share instead.
# `install.sh --uninstall` removes what it added.
# The bundle itself stays where it is: move it first (e.g. to /opt/tapediag).
set -eu
here=$(cd "$(dirname "$0")" && pwd)
if [ -n "${PREFIX:-}" ]; then
  bin="$PREFIX/bin"; share="$PREFIX/share"
elif [ "$(id -u)" -eq 0 ]; then
  bin=/usr/local/bin; share=/usr/local/share
else
  bin="$HOME/.local/bin"; share="${XDG_DATA_HOME:-$HOME/.local/share}"
fi
apps="$share/applications"; icons="$share/icons/hicolor/256x256/apps"

if [ "${1:-}" = "--uninstall" ]; then
  rm -f "$bin/tapediag" "$bin/tapediag-gui" "$apps/tapediag.desktop" "$icons/tapediag.png"
  echo "tapediag: removed the links, menu entry and icon (the bundle in $here stays)"
  exit 0
fi

mkdir -p "$bin" "$apps" "$icons"
ln -sf "$here/tapediag" "$bin/tapediag"
ln -sf "$here/tapediag-gui" "$bin/tapediag-gui"
cp "$here/share/tapediag.png" "$icons/tapediag.png"
sed "s|^Exec=.*|Exec=$here/tapediag-gui|" "$here/share/tapediag.desktop" > "$apps/tapediag.desktop"
command -v update-desktop-database >/dev/null 2>&1 && update-desktop-database -q "$apps" || true
echo "tapediag: installed $bin/tapediag, $bin/tapediag-gui and a menu entry"
case ":$PATH:" in *":$bin:"*) ;; *) echo "tapediag: note: $bin is not on your PATH" ;; esac
