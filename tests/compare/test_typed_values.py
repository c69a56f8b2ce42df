"""Stored parameters typed back into a kind's form ("Repeat this run"): read back by ``from_values``, they are the
same parameters, for every kind the history can repeat; ``force`` is never carried over."""
from __future__ import annotations

import pytest

from app.assess.engine import AssessParams
from app.runs.fields import typed_values
from app.scan.params import ScanParams
from app.tapeperf.params import TapePerfParams


@pytest.mark.parametrize("cls, given", [
    (TapePerfParams, {"size": "128M", "pattern": "random", "block_size": "128K", "host_rate": "50MB",
                      "direction": "write,read", "verify": True, "force": True}),
    (TapePerfParams, {"size": "90s", "mode": "variable", "block_size": "64K", "compression": "off"}),
    (TapePerfParams, {}),  # auto size
    (ScanParams, {"limit": "10min", "zone": "2GB"}),
    (ScanParams, {"limit": "20G"}),
    (AssessParams, {"no_write": True}),
    (AssessParams, {"size": "4G", "force": True}),
], ids=lambda v: v.__name__ if isinstance(v, type) else ",".join(v))
def test_stored_parameters_typed_back_are_the_same_parameters(cls, given) -> None:  # type: ignore[no-untyped-def]
    stored = cls.from_values(given).to_dict()
    typed = typed_values(cls.FIELDS, stored)
    assert "force" not in typed
    back = cls.from_values({k: v for k, v in typed.items() if v != ""}).to_dict()
    assert back == {**stored, "force": False} if "force" in stored else back == stored
