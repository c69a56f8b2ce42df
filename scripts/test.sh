#!/usr/bin/env bash
# Sets everything up, then runs the whole test suite (unit, real tgtd over iSCSI,
# virtual drive, GUI offscreen, PDF checks). Extra arguments go to pytest.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/setup.sh --tests
# The gates: ruff and mypy (configured in pyproject.toml) with zero findings, before the tests.
.venv/bin/ruff check app native ui tests benchmarks scripts
.venv/bin/mypy
export QT_QPA_PLATFORM=offscreen
# Two pytest-xdist workers (TAPEDIAG_TEST_WORKERS=0: all in this one process). The real-kernel guest's tests
# are one unit of work (tests/kernel/session.py): one worker boots the guest while the other runs the rest.
exec .venv/bin/python -m pytest -q -p no:cacheprovider -n "${TAPEDIAG_TEST_WORKERS:-2}" --dist loadgroup "$@"
