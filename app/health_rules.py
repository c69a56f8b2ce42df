"""The drive-health rules of ``resources/rules/drive-health.json``, and the one small evaluator for them.

Why data: a threshold a technician disputes (100 invalid dwords? the drive's own reference
temperature?) is read and changed in one file, with where it comes from beside it, and every
rule has its test (``tests/test_health_rules.py``). This module only interprets that file:
no health rule is written as a code branch here or in ``app.info``.

Three parts:

* ``classify(sense)``: an error a drive returned to a query (TEST UNIT READY or any other), by
  sense key and ASC/ASCQ: no cartridge, not ready yet, informational, or evidence with a verdict
  and a culprit. "Not supported" stays ``app.drive.is_not_supported``'s rule, asked first.
* ``evaluate(subjects)``: every rule over the facts of each subject (the drive, each TapeAlert
  flag, each error-counter page, each SAS phy, each diagnostic entry, each distinct query error),
  giving ``Finding``s that name their evidence (page, parameter, value, threshold and its source)
  and their culprit.
* ``tapealert_culprit(code)``: which part a TapeAlert flag points at.

``app.info.assess`` builds the subjects from what ``gather`` read and turns the findings into
the verdict; nothing else judges a drive's health.
"""
from __future__ import annotations

import enum
import json
import operator
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path
from typing import TYPE_CHECKING, Any, Callable, Mapping, Sequence

from native.errors import TapediagError

if TYPE_CHECKING:  # the sense decoder (and its ASC table) loads with the first error a drive returns
    from native.scsi.sense import Sense

RULES_FILE = Path(__file__).resolve().parents[1] / "resources" / "rules" / "drive-health.json"


class Verdict(str, enum.Enum):
    """The health verdict of ``tapediag info`` (re-exported as ``app.info.Verdict``)."""

    HEALTHY = "Healthy"
    ATTENTION = "Attention"
    FAILING = "Failing"
    # Neither TapeAlert nor the error counters could be read: there is no evidence
    # either way, and "Healthy" would be a claim the technician cannot sign.
    NOT_ASSESSED = "Not assessed"
    # INQUIRY says this is not a sequential-access device: no tape query was sent.
    NOT_A_TAPE = "Not a tape drive"


class Level(str, enum.Enum):
    """How much a finding weighs: it makes the verdict Failing or Attention, or is a Note (shown, not judged)."""

    FAILING = "Failing"
    ATTENTION = "Attention"
    NOTE = "Note"


#: Who a finding points at. "drive or cartridge": the evidence alone cannot tell (the history can).
CULPRITS = ("drive", "cartridge", "path", "host", "drive or cartridge")

#: The classes of ``classify``: only "evidence" says something about health.
NO_CARTRIDGE, NOT_READY, INFORMATIONAL, EVIDENCE = "no cartridge", "not ready", "informational", "evidence"


@dataclass(frozen=True)
class Finding:
    """One thing the rules found, with its evidence, as a technician quotes it in a support case."""

    rule: str  # the rule's id in drive-health.json
    level: Level
    culprit: str  # one of CULPRITS
    text: str  # the sentence: "the drive is at 75 °C, above its own reference temperature of 55 °C"
    page: str  # "log page 0Dh (temperature)", or the query that got an error
    parameter: str  # "0000h temperature"
    value: str  # "75 °C"
    threshold: str  # "55 °C"
    source: str  # where the threshold comes from
    action: str = ""  # what to do about it


@dataclass(frozen=True)
class SenseClass:
    """What an error a drive returned means for its health (a row of the ``sense`` table)."""

    kind: str  # NO_CARTRIDGE, NOT_READY, INFORMATIONAL or EVIDENCE
    level: Level | None  # for EVIDENCE: Failing or Attention
    culprit: str
    why: str


@dataclass(frozen=True)
class Subject:
    """The facts one rule is evaluated over: ``kind`` is the rule's ``subject``."""

    kind: str
    facts: Mapping[str, Any]


@lru_cache(maxsize=1)
def document() -> dict[str, Any]:
    try:
        data = json.loads(RULES_FILE.read_text(encoding="utf-8"))
    except (OSError, ValueError) as err:
        raise TapediagError(f"cannot read the drive-health rules {RULES_FILE}: {err}", hint="reinstall tapediag") from err
    return data


def _hex(text: str | None) -> int | None:
    return None if text is None else int(text, 16)


def classify(sense: Sense | None) -> SenseClass:
    """The first row of the ``sense`` table that matches the sense key and ASC/ASCQ.

    No sense data at all (a CHECK CONDITION without it) is evidence against the drive: a
    drive must say why it failed a command."""
    if sense is None:
        return SenseClass(EVIDENCE, Level.ATTENTION, "drive", "a CHECK CONDITION without sense data")
    for row in document()["sense"]:
        key, asc, ascq = _hex(row.get("key")), _hex(row.get("asc")), _hex(row.get("ascq"))
        if (key is None or key == sense.key) and (asc is None or asc == sense.asc) and (ascq is None or ascq == sense.ascq):
            level = Level(row["verdict"]) if row["class"] == EVIDENCE else None
            return SenseClass(row["class"], level, row.get("culprit", "drive"), row["why"])
    raise TapediagError("the drive-health rules' sense table has no last row that matches every sense")


@lru_cache(maxsize=1)
def _flag_culprits() -> dict[int, str]:
    table = document()["tapealert_culprits"]
    return {int(code, 16): culprit for culprit, codes in table.items() if culprit != "about" for code in codes}


def tapealert_culprit(code: int) -> str:
    """The part a TapeAlert flag points at; a flag the table does not list points at the drive."""
    return _flag_culprits().get(code, "drive")


def culprit_action(culprit: str) -> str:
    return str(document()["actions"].get(culprit, ""))


_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne,
}


def holds(clause: Mapping[str, Any], facts: Mapping[str, Any]) -> bool:
    """One clause; a clause on an unknown fact never holds, except ``!=`` and ``== null``."""
    if "any" in clause:
        return any(holds(c, facts) for c in clause["any"])
    op = _OPS.get(clause.get("op", ""))
    if op is None or "fact" not in clause:
        raise TapediagError(f"malformed drive-health rule clause: {dict(clause)}")
    left = facts.get(clause["fact"])
    right = facts.get(clause["other"]) if "other" in clause else clause.get("value")
    if right is None and "other" not in clause:  # "== null": the fact is unknown
        return (left is None) == (clause["op"] == "==")
    if left is None or right is None:
        return clause["op"] == "!="
    try:
        return bool(op(left, right))
    except TypeError:
        return False


class _Field:
    """A fact as a template's ``{name:spec}`` meets it: formatted by its spec where the spec applies to it, else
    printed plain (an unknown fact's '?' under ``:,``, a text under ``:02X``) instead of failing the verdict."""

    __slots__ = ("value",)

    def __init__(self, value: Any) -> None:
        self.value = value

    def __format__(self, spec: str) -> str:
        try:
            return format(self.value, spec)
        except (ValueError, TypeError):
            return str(self.value)


class _Facts(dict):
    """Facts for ``str.format_map``, each a ``_Field``; an unknown one prints as '?'. (``str.format_map`` rather
    than ``string.Formatter``: ``string`` compiles a regular expression at import, for every ``info``; issue 32 §3.)"""

    def __getitem__(self, key: str) -> _Field:
        return _Field(super().__getitem__(key))

    def __missing__(self, key: str) -> str:
        return "?"


def render(template: str, facts: Mapping[str, Any]) -> str:
    return template.format_map(_Facts(facts))


def _finding(rule: Mapping[str, Any], facts: Mapping[str, Any]) -> Finding:
    culprit = render(rule["culprit"], facts)
    if culprit not in CULPRITS:
        raise TapediagError(f"drive-health rule {rule['id']} names an unknown culprit {culprit!r}")
    facts = {**facts, "culprit_action": culprit_action(culprit)}
    return Finding(rule=rule["id"], level=Level(render(rule["verdict"], facts)), culprit=culprit,
                   text=render(rule["text"], facts), page=render(rule["page"], facts),
                   parameter=render(rule["parameter"], facts), value=render(rule["value"], facts),
                   threshold=render(rule["threshold"], facts), source=render(rule["source"], facts),
                   action=render(rule.get("action", ""), facts))


def evaluate(subjects: Sequence[Subject], rules: Sequence[Mapping[str, Any]] | None = None) -> tuple[Finding, ...]:
    """Every rule that holds for a subject of its kind, in the rules' order then the subjects'."""
    rules = document()["rules"] if rules is None else rules
    return tuple(_finding(rule, s.facts) for rule in rules for s in subjects
                 if s.kind == rule["subject"] and all(holds(c, s.facts) for c in rule["when"]))
