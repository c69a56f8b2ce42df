"""The exit statuses every command shares (README); a kind's own verdict codes (10, 11, 12, 13) are its ``exit_code``.

Their own module, below ``app.runs.kind`` (which re-exports them): the command line needs them on every
start, before it knows which command runs, and the run model's dataclasses are not worth loading for
five numbers (issue 32 §3).
"""
from __future__ import annotations

EXIT_OK = 0
EXIT_FAILED = 1  # the test ran and found a problem, or the device failed
EXIT_USAGE = 2  # bad input, refused before anything happened
EXIT_REFUSED = 3  # a safety refusal: nothing was written
EXIT_CANCELLED = 130

__all__ = ["EXIT_CANCELLED", "EXIT_FAILED", "EXIT_OK", "EXIT_REFUSED", "EXIT_USAGE"]
