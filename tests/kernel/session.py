"""One guest boot for the whole test session (loaded by ``tests/conftest.py`` via ``pytest_plugins``).

Booting Debian's kernel under software emulation and warming the interpreter in it is the slow part of
every real-kernel test, so the modules that need a guest share one boot: each scenario of
``tests/kernel/guest.SCENARIOS`` names the test module that reads its results, and that module asks the
session fixture ``kernel_guest`` for them. The first ask boots the guest with the scenarios of every
selected module (so ``pytest tests/nettest/test_shaped_guest.py`` boots for its own scenario only); each
scenario still starts from a clean guest (``scenarios.sh``).

Under pytest-xdist (``scripts/test.sh``: ``-n 2 --dist loadgroup``) the guest's tests are one unit of
work, so one worker boots once while the other runs the rest of the suite. The unit is made here
(``pytest_xdist_make_scheduler``) from the scenario table, not by ``xdist_group`` marks: pytest-xdist 3.8
groups those by rewriting node ids, which pytest 9.2 no longer lets it do (pytest-xdist issue 1386), and
the tests then silently spread over both workers, each booting its own guest.
"""
from __future__ import annotations

from typing import Any

import pytest

from tests.kernel.guest import BOOT_SECONDS, SCENARIOS, GuestRun, GuestUnavailable, check_available, missing_tool, run_scenarios

#: pytest-timeout for a test that may pay for the boot: the boot's own limit, and a margin to collect its results.
KERNEL_TIMEOUT = BOOT_SECONDS + sum(s.seconds for s in SCENARIOS.values()) + 120
#: Test module (as in a node id) -> the scenario it reads.
SCENARIO_OF_MODULE = {s.tests: s.name for s in SCENARIOS.values()}
GROUP = "kernel-guest"
#: Other test modules that must run as one unit of work each, on one worker, and why:
UNITS = {
    # builds dist/tapediag once per process (TAPEDIAG_BUILD_BUNDLE=1): two workers would build and archive the
    # same directory at once, each removing what the other is reading
    "tests/packaging/test_bundle.py": "linux-bundle",
    # programs in the one Wine prefix the Windows build leaves (tests/helpers/wine.py) never share its
    # wineserver at once: a windowed program must get a desktop of its own, on the X server its test started
    "tests/packaging/test_windows_bundle.py": "wine",
    "tests/packaging/test_windows_tests.py": "wine",
    # a module fixture that costs tens of seconds (runs recorded by the command line, a tape written): one worker
    # builds it once, where tests spread over both had each worker build its own (seen twice in --durations)
    "tests/report/test_every_kind.py": "every-kind",
    "tests/report/test_report_pdf.py": "report-pdf",
    "tests/report/test_report_pages.py": "report-pages",
    "tests/compare/test_compare.py": "compare",
    "tests/test_scan_attribution.py": "scan-attribution",
}


class KernelGuest:
    """The session's boot, made on the first ask, with the scenarios the session's tests want."""

    def __init__(self, wanted: set[str], factory: pytest.TempPathFactory) -> None:
        self._wanted = wanted
        self._factory = factory
        self._runs: dict[str, GuestRun] | None = None

    def run(self, name: str) -> GuestRun:
        """``name``'s results; skips the asking test when the guest or the scenario's tools are missing."""
        try:
            check_available()
        except GuestUnavailable as err:
            pytest.skip(str(err))
        missing = missing_tool(SCENARIOS[name])
        if missing is not None:
            pytest.skip(missing)
        if self._runs is None:
            names = {n for n in self._wanted | {name} if missing_tool(SCENARIOS[n]) is None}
            self._runs = run_scenarios(sorted(names), self._factory.mktemp("guest"))
        return self._runs[name]


def _module(item: pytest.Item) -> str:
    return item.nodeid.split("::", 1)[0]


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The guest's tests first (in their order), so that its boot (minutes, one core) starts at once."""
    items[:] = sorted(items, key=lambda item: _module(item) not in SCENARIO_OF_MODULE)


@pytest.hookimpl(tryfirst=True, optionalhook=True)
def pytest_xdist_make_scheduler(config: pytest.Config, log: Any) -> Any:
    """For ``--dist loadgroup``: the guest's tests as one unit of work, each of ``UNITS`` as one, every
    other test (or its own ``xdist_group``) as pytest-xdist would have it."""
    if config.getvalue("dist") != "loadgroup":
        return None
    from xdist.scheduler import LoadGroupScheduling  # only under pytest-xdist, which calls this hook

    class GuestGroupScheduling(LoadGroupScheduling):  # type: ignore[misc]
        def _split_scope(self, nodeid: str) -> str:
            module = nodeid.split("::", 1)[0]
            if module in SCENARIO_OF_MODULE:
                return GROUP
            return UNITS.get(module) or super()._split_scope(nodeid)

    return GuestGroupScheduling(config, log)


@pytest.fixture(scope="session")
def kernel_guest(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> KernelGuest:
    modules = {_module(item) for item in request.session.items}
    return KernelGuest({name for module, name in SCENARIO_OF_MODULE.items() if module in modules}, tmp_path_factory)

