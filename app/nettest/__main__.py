"""``python -m app.nettest``: retired. The two ends are ``tapediag net-serve`` and ``tapediag net-test``
(``app.cli.net_serve``, ``app.cli.net_test``), and only the latter's run is recorded; one path, so this
module says where to go instead of running a second front end with its own options."""
from __future__ import annotations

import sys

from app.runs.kind import EXIT_USAGE


def main() -> int:
    print("tapediag: error: 'python -m app.nettest' is retired: use 'tapediag net-serve --listen ADDR:PORT' and "
          "'tapediag net-test HOST:PORT'", file=sys.stderr)
    return EXIT_USAGE


if __name__ == "__main__":
    sys.exit(main())
