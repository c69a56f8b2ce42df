"""Prints an apt sources file with a ``deb-src`` entry for this machine's Debian release.

``apt-get source sg3-utils`` needs a ``deb-src`` line, which Debian machines usually
lack. Rather than edit the system's configuration (or name a mirror in this
repository), build-windows-dll.sh asks apt to read this private file instead: the
same mirror and keys the machine already uses for binary packages, for source
packages of its own release.

    python3 deb_src_sources.py   ->  a deb822 paragraph on stdout (exit 1 if none found)
"""
from __future__ import annotations

import re
import sys
from pathlib import Path

APT = Path("/etc/apt")


def codename() -> str:
    for line in Path("/etc/os-release").read_text().splitlines():
        if line.startswith("VERSION_CODENAME="):
            return line.split("=", 1)[1].strip('"')
    raise SystemExit("deb_src_sources: /etc/os-release names no release codename")


def deb822_entries(text: str):
    """(uris, suites, signed_by) of each ``Types: deb`` paragraph of a .sources file."""
    for paragraph in re.split(r"\n\s*\n", text):
        fields = dict(
            (key.strip().lower(), value.strip())
            for key, _, value in (line.partition(":") for line in paragraph.splitlines() if ":" in line and not line.startswith("#"))
        )
        if "deb" in fields.get("types", "").split():
            yield fields.get("uris", "").split(), fields.get("suites", "").split(), fields.get("signed-by", "")


def one_line_entries(text: str):
    """(uris, suites, signed_by) of each ``deb URI SUITE ...`` line of a .list file."""
    for line in text.splitlines():
        match = re.match(r"\s*deb\s+(\[[^\]]*\]\s+)?(\S+)\s+(\S+)", line)
        if match:
            options = match.group(1) or ""
            signed = re.search(r"signed-by=(\S+?)\]?(\s|$)", options)
            yield [match.group(2)], [match.group(3)], signed.group(1) if signed else ""


def main() -> int:
    release = codename()
    files = sorted(APT.glob("sources.list.d/*.sources")) + sorted(APT.glob("sources.list.d/*.list"))
    if (APT / "sources.list").exists():
        files.append(APT / "sources.list")
    for path in files:
        parse = deb822_entries if path.suffix == ".sources" else one_line_entries
        for uris, suites, signed_by in parse(path.read_text()):
            if release in suites and uris:
                print("Types: deb-src")
                print(f"URIs: {uris[0]}")
                print(f"Suites: {release}")
                print("Components: main")
                if signed_by:
                    print(f"Signed-By: {signed_by}")
                return 0
    print(f"deb_src_sources: no apt source for Debian {release} found under {APT}", file=sys.stderr)
    return 1


if __name__ == "__main__":
    sys.exit(main())
