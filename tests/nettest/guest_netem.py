"""Inside the real-kernel guest (``test_shaped_guest.py``): the shaped namespace path with netem's
rate *and* delay, which this machine's kernel may lack.

Prints one JSON object: the shaping applied and, per stream count, the run's status, the
server's exit code and each phase as ``NetPhase.to_dict()`` gives it.
"""
from __future__ import annotations

import json
import sys

from app.nettest.client import NetTest
from app.nettest.params import NetTestParams
from tests.helpers.netns import shaped_namespace
from tests.helpers.nettest import start_server

#: Long enough for slow start under emulation and the queue netem builds (its RTT under load is
#: hundreds of ms: 1000 packets of lo's 64 KiB).
SECONDS = 8


def main() -> int:
    out: dict = {"runs": []}
    with shaped_namespace(100.0, 5.0) as ns:
        assert ns.shaping is not None
        out["shaping"] = {"qdisc": ns.shaping.qdisc, "rate_mbit": ns.shaping.rate_mbit, "delay_ms": ns.shaping.delay_ms}
        for streams in (1, 4):
            server = start_server(ns=ns)
            params = NetTestParams("127.0.0.1", server.port, streams=streams, seconds=SECONDS, direction="both")
            result = ns.call(lambda params=params, server=server: NetTest(params, server.token).run())
            rc, _err = server.finish(timeout=300)
            out["runs"].append({"streams": streams, "status": result.status, "error": result.error, "server_rc": rc,
                                "phases": [p.to_dict() for p in result.phases]})
    json.dump(out, sys.stdout, indent=1)
    return 0


if __name__ == "__main__":
    sys.exit(main())
