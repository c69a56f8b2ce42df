"""Fixtures for the virtual drive's byte-level tests: raw CDBs, sense checks via sg3_utils."""
from __future__ import annotations

import shutil
import struct
import subprocess
from pathlib import Path
from typing import Callable

import pytest

from native.transport import CommandResult
from native.virtual import VirtualDrive, open_virtual


def sg_tool(name: str) -> str:
    path = shutil.which(name)
    if path is None:
        pytest.skip(f"{name} (sg3-utils) is not installed")
    return path


def hexwords(data: bytes) -> str:
    return " ".join(f"{b:02x}" for b in data)


def decode_sense(sense: bytes) -> str:
    """sg_decode_sense's reading of our sense bytes: the independent cross-check."""
    out = subprocess.run([sg_tool("sg_decode_sense"), *hexwords(sense).split()], capture_output=True, text=True, check=True)
    return out.stdout


def sg_inhex(tool: str, data: bytes, tmp_path: Path, *args: str) -> str:
    """Decode a response with an sg3_utils tool's --inhex/--in option."""
    f = tmp_path / f"{tool}.hex"
    f.write_text(hexwords(data) + "\n")
    flag = "--in" if tool == "sg_read_attr" else "--inhex"
    out = subprocess.run([sg_tool(tool), f"{flag}={f}", *args], capture_output=True, text=True)
    assert out.returncode == 0, out.stderr
    return out.stdout


def cdb6(op: int, b1: int = 0, length: int = 0, b5: int = 0) -> bytes:
    return bytes([op, b1]) + (length & 0xFFFFFF).to_bytes(3, "big") + bytes([b5])


def write(d: VirtualDrive, data: bytes) -> CommandResult:
    return d.execute(cdb6(0x0A, 0, len(data)), data_out=data)


def read(d: VirtualDrive, n: int, *, sili: bool = False) -> CommandResult:
    return d.execute(cdb6(0x08, 0x02 if sili else 0, n), data_in=n)


def filemarks(d: VirtualDrive, n: int = 1) -> CommandResult:
    return d.execute(cdb6(0x10, 0, n))


def rewind(d: VirtualDrive) -> CommandResult:
    return d.execute(cdb6(0x01))


def space(d: VirtualDrive, code: int, count: int) -> CommandResult:
    return d.execute(bytes([0x11, code]) + (count & 0xFFFFFF).to_bytes(3, "big") + b"\x00")


def position(d: VirtualDrive) -> tuple[int, int, int]:
    """(flags, logical object number, file number) from READ POSITION long form."""
    r = d.execute(bytes([0x34, 0x06]) + bytes(8), data_in=32)
    assert r.good
    flags, _part, obj, fileno = struct.unpack(">B3xIQQ8x", bytes(r.data))
    return flags, obj, fileno


def sense_fields(sense: bytes) -> tuple[int, int, int, int | None, bool, bool, bool]:
    """(key, asc, ascq, info-if-valid, filemark, eom, ili) from fixed-format sense."""
    assert sense[0] & 0x7F == 0x70 and len(sense) >= 18
    info = struct.unpack_from(">i", sense, 3)[0] if sense[0] & 0x80 else None
    return sense[2] & 0x0F, sense[12], sense[13], info, bool(sense[2] & 0x80), bool(sense[2] & 0x40), bool(sense[2] & 0x20)


@pytest.fixture
def open_drive(tmp_path: Path) -> Callable[..., VirtualDrive]:
    """Open virtual drives on a cartridge in tmp_path, unpaced; closed at teardown."""
    opened: list[VirtualDrive] = []

    def _open(gen: int = 9, cart: str = "c.cart", **opts: object) -> VirtualDrive:
        query = {"cartridge": str(tmp_path / cart), "realtime": "0", "capacity": "64M", "buffer": "4M"}
        query.update({k: str(v) for k, v in opts.items()})
        d = open_virtual(f"virtual:lto{gen}?" + "&".join(f"{k}={v}" for k, v in query.items()))
        opened.append(d)
        return d

    yield _open
    for d in opened:
        d.close()
