"""One guest boot for the whole test session (loaded by ``tests/conftest.py`` via ``pytest_plugins``).

Booting Debian's kernel under software emulation and warming the interpreter in it is the slow part of
every real-kernel test, so the modules that need a guest share one boot: a module marks itself
``pytest.mark.guest_scenario("NAME")`` (a name of ``tests/kernel/guest.SCENARIOS``) and asks the
session fixture ``kernel_guest`` for its scenario's results. The first ask boots the guest with every
scenario the session's selected tests mark (so ``pytest tests/nettest/test_shaped_guest.py`` boots for
its own scenario only); each scenario still starts from a clean guest (``scenarios.sh``). The marked
modules also carry ``xdist_group("kernel")``, so under ``pytest -n 2 --dist loadgroup`` they all run on
one worker and that worker boots once.
"""
from __future__ import annotations

import pytest

from tests.kernel.guest import BOOT_SECONDS, SCENARIOS, GuestRun, GuestUnavailable, check_available, missing_tool, run_scenarios

#: pytest-timeout for a test that may pay for the boot: the boot's own limit, and a margin to collect its results.
KERNEL_TIMEOUT = BOOT_SECONDS + sum(s.seconds for s in SCENARIOS.values()) + 120


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


def pytest_collection_modifyitems(items: list[pytest.Item]) -> None:
    """The guest's tests first (in their order), so that its boot (minutes, one core) overlaps the rest of the
    suite on the other pytest-xdist worker instead of starting late."""
    items[:] = sorted(items, key=lambda item: item.get_closest_marker("guest_scenario") is None)


def pytest_configure(config: pytest.Config) -> None:
    config.addinivalue_line("markers", "guest_scenario(name): reads that scenario's results from the session's guest")
    config.addinivalue_line("markers", "xdist_group(name): runs on the same pytest-xdist worker as its group")


@pytest.fixture(scope="session")
def kernel_guest(request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory) -> KernelGuest:
    wanted = {m.args[0] for item in request.session.items for m in item.iter_markers("guest_scenario")}
    return KernelGuest(wanted, tmp_path_factory)
