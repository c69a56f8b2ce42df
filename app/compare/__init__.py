"""``tapediag compare RUN RUN``: two recorded runs side by side, before and after (issue 30 §2).

A technician cleans a drive, reseats a cable or updates its firmware, repeats the test and must show that it
helped. A comparison says first what differs between the two runs besides their figures (the drive, the
cartridge, the parameters, the tapediag that recorded them: ``differences``), then compares figure by figure
what both measured (``tapeperf`` for a tape performance run, every kind's own verdicts in ``verdicts``), each
judged improved, worse or within the run-to-run noise by the one rule (``noise``, with the spread measured
on repeated runs when the history has them, ``spread``).

A comparison is not a run: it measures nothing and touches no device, so it is not recorded (it would be a
visit of a drive that never happened, and a run in the history that holds no measurement). Its PDF is one
report with both runs (``app.report.build_report(..., comparison=...)``).
"""
from app.compare.build import compare_runs
from app.compare.model import Comparison, Difference, Row, Side
from app.compare.text import lines

__all__ = ["Comparison", "Difference", "Row", "Side", "compare_runs", "lines"]
