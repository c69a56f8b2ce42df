"""``sg_opcodes`` decodes the REPORT SUPPORTED OPERATION CODES bytes tapediag builds, and sends the CDB ours builds.

sg_opcodes (sg3_utils 1.46, version 0.69) has no ``--inhex``: it only reads from a device. This
machine has no SCSI device, so an LD_PRELOAD stand-in for SG_IO (``tests/helpers/sgio_shim.c``)
hands it our bytes and records the CDB it sent. The tool then parses the response with its own
code, and both sides must agree on every opcode, service action, CDB size and timeout.
"""
from __future__ import annotations

import os
import re
import shutil
import subprocess
from pathlib import Path

import pytest

from native.scsi import cdb as C
from native.scsi.opcodes import CommandDescriptor, CommandTimeouts, SupportedCommands

SHIM = Path(__file__).resolve().parent.parent / "helpers" / "sgio_shim.c"

pytestmark = pytest.mark.skipif(shutil.which("sg_opcodes") is None or shutil.which("gcc") is None,
                                reason="needs sg3-utils (sg_opcodes) and gcc")

SAMPLE = SupportedCommands((
    CommandDescriptor(0x01, None, 6, CommandTimeouts(nominal=120, recommended=780)),
    CommandDescriptor(0x08, None, 6, CommandTimeouts(nominal=60, recommended=900)),
    CommandDescriptor(0x19, None, 6, CommandTimeouts(nominal=0, recommended=86400)),
    CommandDescriptor(0x1B, None, 6, CommandTimeouts(nominal=45, recommended=1020)),
    CommandDescriptor(0xA3, 0x0C, 12, CommandTimeouts(nominal=1, recommended=20)),
    CommandDescriptor(0x12, None, 6, None),
), needed=0)


@pytest.fixture(scope="module")
def shim(tmp_path_factory: pytest.TempPathFactory) -> Path:
    out = tmp_path_factory.mktemp("shim") / "sgio_shim.so"
    subprocess.run(["gcc", "-shared", "-fPIC", "-O1", "-o", str(out), str(SHIM), "-ldl"], check=True, timeout=60)
    return out


def sg_opcodes(shim: Path, tmp_path: Path, response: bytes) -> tuple[str, bytes]:
    (tmp_path / "resp.bin").write_bytes(response)
    device = tmp_path / "device"
    device.touch()
    env = {**os.environ, "LD_PRELOAD": str(shim), "SHIM_RESPONSE": str(tmp_path / "resp.bin"),
           "SHIM_CDB": str(tmp_path / "cdb.bin")}
    proc = subprocess.run(["sg_opcodes", "--no-inquiry", "--pdt=1", "--rctd", "--unsorted", str(device)],
                          capture_output=True, text=True, env=env, timeout=30)
    assert proc.returncode == 0, proc.stdout + proc.stderr
    return proc.stdout, (tmp_path / "cdb.bin").read_bytes()


def rows(text: str) -> list[tuple[int, int | None, int, tuple[int, int] | None]]:
    """(opcode, service action, CDB size, (nominal, recommended)) per listed command. The numbers
    before the name are [cdb], [sa, cdb], [cdb, nominal, recommended] or [sa, cdb, nominal, recommended]."""
    out = []
    for line in text.splitlines():
        tokens = line.split()
        if len(tokens) < 2 or not re.fullmatch(r"[0-9a-f]{2}", tokens[0]):
            continue
        nums = []
        for tok in tokens[1:]:
            if not re.fullmatch(r"[0-9a-f]+|-", tok):
                break
            nums.append(tok)
        sa = int(nums.pop(0), 16) if len(nums) in (2, 4) else None
        timeouts = (0 if nums[1] == "-" else int(nums[1]), int(nums[2])) if len(nums) == 3 else None
        out.append((int(tokens[0], 16), sa, int(nums[0]), timeouts))
    return out


def test_sg_opcodes_sends_our_cdb_and_reads_our_timeouts(shim: Path, tmp_path: Path) -> None:
    text, cdb = sg_opcodes(shim, tmp_path, SAMPLE.to_bytes())
    # sg_opcodes asks for 8192 bytes: the very CDB our builder makes for that allocation length
    assert cdb == C.report_supported_opcodes(timeouts=True, alloc=8192), cdb.hex()
    ours = [(c.opcode, c.service_action, c.cdb_length,
             (c.timeouts.nominal, c.timeouts.recommended) if c.timeouts else None)
            for c in SupportedCommands.parse(SAMPLE.to_bytes()).commands]
    assert rows(text) == ours, text
