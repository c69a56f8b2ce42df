"""The published speed-matching steps (app.tapeperf.speedmatch): one per vendor table, each with its source,
and the troubleshooting rules' lowest steps (resources/rules/lto-drives.json) in agreement with them."""
from __future__ import annotations

import json
from pathlib import Path

import pytest

from app.tapeperf.speedmatch import FULL_HEIGHT, HALF_HEIGHT, NOT_FOUND, TABLES, Match, form_from_product, speed_steps

RULES = Path(__file__).resolve().parents[1] / "resources" / "rules" / "lto-drives.json"


def test_every_table_names_its_source_and_runs_fastest_first() -> None:
    for t in TABLES:
        assert t.source and t.steps_mb_s == tuple(sorted(t.steps_mb_s, reverse=True)), t


def test_the_troubleshooting_rules_lowest_steps_agree_with_the_tables() -> None:
    generations = json.loads(RULES.read_text())["generations"]
    for gen, row in generations.items():
        floors = {round(t.lowest_mb_s) for t in TABLES if t.generation == int(gen)}
        if row["lowest_step_mb_s"] is None:
            assert not floors and int(gen) in NOT_FOUND, gen
        else:
            assert round(row["lowest_step_mb_s"]) in floors, (gen, row["lowest_step_mb_s"], floors)


@pytest.mark.parametrize("product, form", [("ULT3580-HH9", HALF_HEIGHT), ("ULTRIUM-TD9", FULL_HEIGHT),
                                           ("ULTRIUM-HH8", HALF_HEIGHT), ("Ultrium 9-SCSI", None)])
def test_the_form_factor_is_read_where_the_product_name_says_it(product: str, form: str | None) -> None:
    assert form_from_product(product) == form


def test_a_drive_gets_its_own_vendors_table_else_one_said_to_be_another_vendors() -> None:
    own = speed_steps(9, vendor="QUANTUM", form=HALF_HEIGHT)
    assert isinstance(own, Match) and own.table.vendor == "QUANTUM" and own.fit == ""
    hp3 = speed_steps(3, vendor="HP", form=FULL_HEIGHT)
    assert isinstance(hp3, Match) and hp3.table.lowest_mb_s == 27
    ibm3 = speed_steps(3, vendor="IBM", form=FULL_HEIGHT)
    assert isinstance(ibm3, Match) and ibm3.table.lowest_mb_s == 40
    hh9 = speed_steps(9, vendor="IBM", form=HALF_HEIGHT)
    assert isinstance(hh9, Match) and hh9.table.highest_mb_s == 284 and hh9.table.lowest_mb_s == 177
    lto10 = speed_steps(10, vendor="IBM", form=HALF_HEIGHT)
    assert isinstance(lto10, Match) and lto10.table.lowest_mb_s == 157 and "only a full height table" in lto10.fit
    assert isinstance(speed_steps(6, vendor="IBM"), str)
