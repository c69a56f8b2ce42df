"""The scenario table (``tests/kernel/guest.SCENARIOS``) that the session's one guest boot is built from:
a scenario whose test module moved or no longer asks for it would boot for nothing, or fall out of the
pytest-xdist worker that holds the boot and boot a second guest on the other."""
from __future__ import annotations

from pathlib import Path

from tests.kernel.guest import ROOT, SCENARIOS
from tests.kernel.session import UNITS


def test_every_scenario_has_its_script_and_a_test_module_that_reads_it() -> None:
    for scenario in SCENARIOS.values():
        assert scenario.script.is_file(), scenario
        module = ROOT / scenario.tests
        assert module.is_file(), scenario
        assert f'kernel_guest.run("{scenario.name}")' in module.read_text(), scenario


def test_no_other_test_module_asks_for_the_guest() -> None:
    asking = {str(path.relative_to(ROOT)) for path in (ROOT / "tests").rglob("test_*.py")
              if path != Path(__file__) and "kernel_guest.run(" in path.read_text()}
    assert asking == {scenario.tests for scenario in SCENARIOS.values()}


def test_every_module_kept_on_one_worker_exists() -> None:
    """A module of ``session.UNITS`` that moved would spread over both workers again, each building its fixture."""
    assert [module for module in UNITS if not (ROOT / module).is_file()] == []
