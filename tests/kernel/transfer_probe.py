"""Runs inside the real-kernel guest (``scenario.sh``): does the kernel take the transfer tapediag reports
for a node, and refuse one page more? Prints one JSON object per node.

Each try is one READ(6) in variable-block mode through tapediag's own pass-through, from a ``bytearray``
as the tape engine allocates its buffers: a SCSI status back (GOOD, or CHECK CONDITION for a short record
or blank tape) means the kernel mapped the buffer and sent the command; a refusal by the OS is the
transfer's size (``InvalidParameter``, nothing sent). The tape is rewound before each READ.
"""
from __future__ import annotations

import json
import os
import sys

from native.errors import InvalidParameter, TapediagError
from native.sgpt import PassThroughTransport

REWIND = bytes([0x01, 0, 0, 0, 0, 0])


def _try_read(transport: PassThroughTransport, nbytes: int) -> str:
    transport.execute(REWIND, timeout=60)
    cdb = bytes([0x08, 0x00]) + nbytes.to_bytes(3, "big") + b"\0"  # READ(6), variable: SILI off, length in bytes
    try:
        result = transport.execute(cdb, data_in=bytearray(nbytes), timeout=60)
    except InvalidParameter as err:
        return f"refused: {err}"
    except TapediagError as err:
        return f"failed: {err}"
    return f"sent: status {result.status:#04x}"


def probe(node: str) -> dict[str, object]:
    with PassThroughTransport(node) as transport:
        limit = transport.transfer_limit()
        if limit is None:
            return {"node": node, "limit": None}
        page = os.sysconf("SC_PAGE_SIZE")
        return {"node": node, "limit": limit.max_bytes, "source": limit.source,
                "at_limit": _try_read(transport, limit.max_bytes),
                "one_page_more": _try_read(transport, limit.max_bytes + page)}


if __name__ == "__main__":
    print(json.dumps({node: probe(node) for node in sys.argv[1:]}, indent=1))
