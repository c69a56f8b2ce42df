"""The library exerciser (``tapediag library-test``): timed moves among slots and drives, all put back."""
from app.libtest.engine import LibraryTest
from app.libtest.params import LibraryTestParams
from app.libtest.results import EXIT_CODES, LibraryTestResult, Verdict

__all__ = ["EXIT_CODES", "LibraryTest", "LibraryTestParams", "LibraryTestResult", "Verdict"]
