"""Issue 25 §2: the drive's own alarms move the health verdict, through rules kept as data.

Each case replays hand-built pages (SSC-4 / SPC-4 / SPL-4 layouts) through a stand-in transport
(the scripted LTO-9 of ``tests/test_info.py``) into ``gather``, and checks the verdict, the exit
code, the finding's evidence and culprit, and that ``sg_logs --pdt=1 --inhex`` decodes the same
bytes to the figures the finding quotes. Every rule of ``resources/rules/drive-health.json`` has
a case here (``test_every_rule_has_a_case``), every row of its sense table too.
"""
from __future__ import annotations

import re
from dataclasses import dataclass, field
from pathlib import Path

import pytest

from app.drive import Supported, TapeDrive, Unsupported
from app.health_rules import CULPRITS, EVIDENCE, INFORMATIONAL, Level, classify, document, holds, tapealert_culprit
from app.info import EMPTY_TAPEALERT, Verdict, gather
from app.info_view import render_text
from native.scsi import cdb as C
from native.scsi import devicelogs as D
from native.scsi.logpages import LogPage
from native.scsi.sense import Sense, build_fixed
from tests.helpers import faults
from tests.helpers.faults import FaultyTransport, RecordingTransport, reply
from tests.scsi import samples
from tests.test_info import scripted_hpe_drive
from tests.virtual.conftest import sg_inhex


def replay(pages: dict[int, bytes], *, write_uncorrected: int = 0, alerts: frozenset[int] = frozenset()) -> RecordingTransport:
    """The scripted LTO-9, listing and answering ``pages`` too (a page given here replaces its sample)."""
    drive = scripted_hpe_drive(write_uncorrected=write_uncorrected, alerts=alerts)
    base = drive.responses[C.LOG_SENSE]
    listed = tuple(sorted({0x00, 0x02, 0x03, 0x0C, 0x17, 0x1B, 0x2E} | set(pages)))

    def log_sense(cdb: bytes, out: object, alloc: int) -> object:
        page = cdb[2] & 0x3F
        if page == 0x00:
            return reply(data=samples.supported_log_pages(listed))
        if page in pages:
            return reply(data=pages[page])
        return base(cdb, out, alloc)  # type: ignore[operator]

    drive.responses[C.LOG_SENSE] = log_sense  # type: ignore[assignment]
    return drive


def stats(**figures: int) -> bytes:
    return D.device_statistics_page({"lifetime_power_on_hours": 2000, "hard_write_errors": 0, "hard_read_errors": 0,
                                     **figures})


def sas(invalid: int) -> bytes:
    phy = D.SasPhy(0, 0xB, 1, 0x5000C50012345678, 0x500605B000000001, 0, invalid, invalid, invalid // 10, 0)
    return D.sas_port_page((D.PortStatus(1, D.PROTOCOL_SAS, (phy,)),))


def status(*names: str) -> bytes:
    return D.device_status_page(D.DtStatus({n: n in names + ("medium_present",) for n in D.DT_FLAG_NAMES}, 0))


WRITE_ERROR_ENTRY = D.tape_diagnostic_page((D.DiagnosticEntry(
    code=0, density_code=0x60, medium_type=0, head_hours=812, repeat=False, sense_key=3, asc=0x0C, ascq=0,
    vendor_code=0, revision="Q3A1", hours_since_clean=12, opcode=0x0A, service_action=0, medium_id="ABC001L9",
    timestamp_origin=2, timestamp=123_456),))


@dataclass(frozen=True)
class Case:
    """Pages to replay, what sg_logs must print for them, and the finding expected."""

    pages: dict[int, bytes]
    verdict: Verdict
    culprit: str
    evidence: str  # in the finding's value
    sg_logs: tuple[str, ...] = ()  # lines sg_logs prints for the replayed pages (the same figures)
    alerts: frozenset[int] = frozenset()
    write_uncorrected: int = 0
    tur: faults.Fault | None = None
    extra: dict[str, object] = field(default_factory=dict)


CASES: dict[str, Case] = {
    "temperature-above-reference": Case({0x0D: D.temperature_page(75, reference=55)}, Verdict.ATTENTION, "drive", "75 °C",
                                        ("Current temperature = 75 C", "Reference temperature = 55 C")),
    "max-temperature-exceeded": Case({0x14: stats(max_mechanism_temperature_exceeded=1)}, Verdict.ATTENTION, "drive", "set",
                                     ("Maximum recommended mechanism temperature exceeded: 1",)),
    "hard-write-errors": Case({0x14: stats(hard_write_errors=7, hard_read_errors=3)}, Verdict.ATTENTION,
                              "drive or cartridge", "7", ("Hard write errors: 7", "Hard read errors: 3")),
    "hard-read-errors": Case({0x14: stats(hard_read_errors=3)}, Verdict.ATTENTION, "drive or cartridge", "3",
                             ("Hard read errors: 3",)),
    "cleaning-requested": Case({0x11: status("cleaning_requested")}, Verdict.ATTENTION, "drive", "set",
                               ("CRQST=1 CRQRD=0",)),
    "cleaning-required": Case({0x11: status("cleaning_required")}, Verdict.ATTENTION, "drive", "set", ("CRQRD=1",)),
    "diagnostic-entry": Case({0x16: WRITE_ERROR_ENTRY}, Verdict.ATTENTION, "cartridge", "03/0C/00",
                             ("Sense key: 0x3 [Medium Error]", "Additional sense code: 0xc")),
    "non-medium-errors": Case({0x06: D.non_medium_error_page(250)}, Verdict.ATTENTION, "drive", "250",
                              ("Non-medium error count = 250",)),
    "non-medium-errors-path": Case({0x06: D.non_medium_error_page(250), 0x18: sas(5000)}, Verdict.ATTENTION, "path", "250",
                                   ("Non-medium error count = 250", "Invalid DWORD count = 5000")),
    "sas-phy-errors": Case({0x18: sas(5000)}, Verdict.ATTENTION, "path", "10,500 in all",
                           ("Invalid DWORD count = 5000", "Running disparity error count = 5000",
                            "Loss of DWORD synchronization count = 500")),
    "uncorrected-errors": Case({0x02: samples.error_counters(0x02, (5, 0, 3, 5, 5, 10**12, 7))}, Verdict.ATTENTION,
                               "drive or cartridge", "7", ("Total uncorrected errors = 7",)),
    "tapealert-cleaning": Case({}, Verdict.ATTENTION, "drive", "set", alerts=frozenset({0x14})),
    "tapealert-critical": Case({}, Verdict.FAILING, "cartridge", "set", alerts=frozenset({0x04})),
    "tapealert-warning": Case({}, Verdict.ATTENTION, "path", "set", alerts=frozenset({0x20})),
    "query-error": Case({}, Verdict.ATTENTION, "path", "0B/47/00", tur=faults.check_condition(0xB, 0x47, 0x00, "parity")),
    "query-informational": Case({}, Verdict.HEALTHY, "drive", "00/00/01",
                                tur=faults.check_condition(0x0, 0x00, 0x01, "filemark", filemark=True)),
}


def _gather(case: Case):  # type: ignore[no-untyped-def]
    transport = FaultyTransport(replay(case.pages, write_uncorrected=case.write_uncorrected, alerts=case.alerts))
    if case.tur is not None:
        transport.inject(case.tur, opcode=C.TEST_UNIT_READY, times=None)
    return gather(TapeDrive(transport))


def test_every_rule_has_a_case() -> None:
    assert {rule["id"] for rule in document()["rules"]} == set(CASES)


@pytest.mark.parametrize("rule", sorted(CASES))
def test_rule_fires_on_replayed_pages(rule: str, tmp_path: Path) -> None:
    case = CASES[rule]
    info = _gather(case)
    assert info.health.verdict is case.verdict, info.health.reasons
    assert info.health.exit_code == {Verdict.HEALTHY: 0, Verdict.ATTENTION: 10, Verdict.FAILING: 11}[case.verdict]
    mine = [f for f in info.health.findings if f.rule == rule]
    assert len(mine) == 1, [f.rule for f in info.health.findings]
    finding = mine[0]
    assert finding.culprit == case.culprit and case.evidence in finding.value
    assert finding.page and finding.parameter and finding.threshold and finding.source  # names its evidence
    decoded = "\n".join(sg_inhex("sg_logs", raw, tmp_path, "--pdt=1") for raw in case.pages.values())
    for line in case.sg_logs:  # the same bytes, decoded by sg3_utils, say the same figures
        assert line in decoded, (line, decoded)
    printed = "\n".join(case.sg_logs)
    for number in re.findall(r"= (\d+)$|: (\d+)$", printed, re.M):
        value = next(n for n in number if n)
        assert value.replace(",", "") in render_text(info).replace(",", "")  # the report prints what sg_logs does


def test_a_healthy_drive_with_every_page_is_healthy_and_says_what_it_read() -> None:
    pages = {0x0D: D.temperature_page(38, reference=55), 0x14: stats(lifetime_power_on_hours=40_000), 0x11: status(),
             0x16: D.tape_diagnostic_page(()), 0x06: D.non_medium_error_page(3), 0x18: sas(20)}
    info = gather(TapeDrive(replay(pages)))
    assert info.health.verdict is Verdict.HEALTHY and info.health.findings == ()
    assert "temperature, device status, device statistics, SAS port, tape diagnostic data and non-medium errors: " \
           "nothing past a threshold" in info.health.reasons[0]
    # 40,000 power-on hours: no published design life, so shown (wear) and not judged.
    assert isinstance(info.wear, Supported) and "power-on hours" in render_text(info).lower()
    assert "no published design figure" in render_text(info)


def test_the_reference_temperature_is_the_drives_own_and_none_means_not_judged() -> None:
    hot_no_reference = gather(TapeDrive(replay({0x0D: D.temperature_page(75)})))
    assert hot_no_reference.health.verdict is Verdict.HEALTHY  # no reference reported, no published figure: shown only
    at_reference = gather(TapeDrive(replay({0x0D: D.temperature_page(55, reference=55)})))
    assert at_reference.health.verdict is Verdict.HEALTHY
    hot = gather(TapeDrive(replay({0x0D: D.temperature_page(75, reference=55)})))
    (finding,) = hot.health.findings
    assert (finding.threshold, finding.page) == ("55 °C", "log page 0Dh (temperature)")
    assert "drive's own reference temperature" in finding.source


@pytest.mark.parametrize("page", [0x12, 0x2E])
def test_an_empty_tapealert_page_is_no_evidence(page: int) -> None:
    empty = LogPage(page, 0, False, False, ()).build()
    drive = scripted_hpe_drive()
    if page == 0x12:
        drive = replay({0x12: empty})
    else:
        drive.responses[C.LOG_SENSE] = _with_page(drive, 0x2E, empty)
    info = gather(TapeDrive(drive))
    assert info.tapealerts == Unsupported(EMPTY_TAPEALERT)
    assert "TapeAlert: no warning" not in " ".join(info.health.reasons)  # not counted as "no flags"
    assert info.health.verdict is Verdict.HEALTHY  # the counters were read and clean: that is the basis
    # With the counters gone too, nothing is evidence: Not assessed, naming the empty page.
    faulty = FaultyTransport(drive)
    faulty.inject(faults.check_condition(0x5, 0x24, 0x00), opcode=C.LOG_SENSE, after=2, times=None)
    bare = gather(TapeDrive(faulty))
    assert bare.health.verdict is Verdict.NOT_ASSESSED and "without any flag parameter" in bare.health.reasons[0]


def _with_page(drive: RecordingTransport, code: int, data: bytes):  # type: ignore[no-untyped-def]
    base = drive.responses[C.LOG_SENSE]
    return lambda cdb, out, alloc: reply(data=data) if cdb[2] & 0x3F == code else base(cdb, out, alloc)  # type: ignore[operator]


# ------------------------------------------------------------------ TEST UNIT READY by sense class
TUR_CASES = [
    # (sense fields, verdict, culprit or None when no finding moves the verdict)
    (dict(key=0xB, asc=0x47, ascq=0x00), Verdict.ATTENTION, "path"),  # SCSI parity error: the cable
    (dict(key=0x4, asc=0x47, ascq=0x00), Verdict.ATTENTION, "path"),  # parity under HARDWARE ERROR: still the path
    (dict(key=0x0, asc=0x00, ascq=0x01, filemark=True), Verdict.HEALTHY, None),  # NO SENSE + FILEMARK: not an error
    (dict(key=0x5, asc=0x20, ascq=0x00), Verdict.HEALTHY, None),  # ILLEGAL REQUEST 20/00: not supported
    (dict(key=0x3, asc=0x0C, ascq=0x00, deferred=True), Verdict.ATTENTION, "cartridge"),  # deferred MEDIUM ERROR
    (dict(key=0x4, asc=0x44, ascq=0x00), Verdict.FAILING, "drive"),  # HARDWARE ERROR
    (dict(key=0x2, asc=0x3A, ascq=0x00), Verdict.HEALTHY, None),  # no cartridge
    (dict(key=0x2, asc=0x04, ascq=0x03), Verdict.ATTENTION, "drive"),  # manual intervention required
]


@pytest.mark.parametrize("sense, verdict, culprit", TUR_CASES, ids=lambda v: str(v))
def test_test_unit_ready_by_sense_class(sense: dict, verdict: Verdict, culprit: str | None) -> None:
    key, asc, ascq = sense.pop("key"), sense.pop("asc"), sense.pop("ascq")
    fault = faults.check_condition(key, asc, ascq, **sense)
    info = gather(TapeDrive(FaultyTransport(scripted_hpe_drive()).inject(fault, opcode=C.TEST_UNIT_READY, times=None)))
    assert info.health.verdict is verdict, info.health.reasons
    judged = [f for f in info.health.findings if f.level is not Level.NOTE]
    assert [f.culprit for f in judged] == ([culprit] if culprit else [])
    # The same sense on another query is classified by the same table: the same verdict and culprit.
    other = FaultyTransport(scripted_hpe_drive()).inject(faults.check_condition(key, asc, ascq, **sense),
                                                         opcode=C.READ_BLOCK_LIMITS)
    again = gather(TapeDrive(other))
    assert [f.culprit for f in again.health.findings if f.level is not Level.NOTE] == [f.culprit for f in judged]


def test_virtual_drive_options_show_every_case_to_a_trainer() -> None:
    """The virtual drive can show each case (``tapediag devices --help`` lists the options)."""
    from app.cli import main

    expected = {"temp=75&reftemp=55": 10, "maxtemp=1": 10, "clean=requested": 10, "harderrors=7,3": 10,
                "diag=03/0C/00": 10, "nonmedium=250": 10, "phyerrors=5000": 10, "hours=40000": 0, "tur=0B/47/00": 10,
                "tur=00/00/01/filemark": 0, "tur=05/20/00": 0, "tur=03/0C/00/deferred": 10, "tur=04/44/00": 11}
    got = {q: main(["info", f"virtual:lto9?realtime=0&{q}", "--json"]) for q in expected}
    assert got == expected


# ------------------------------------------------------------------ the tables themselves
@pytest.mark.parametrize("index", range(len(document()["sense"])))
def test_every_sense_row_is_reached(index: int) -> None:
    """Each row of the sense table is the first match for a sense built from it (none is shadowed)."""
    row = document()["sense"][index]
    key = int(row["key"], 16) if "key" in row else 0x4
    asc = int(row["asc"], 16) if "asc" in row else 0x7F
    ascq = int(row["ascq"], 16) if "ascq" in row else 0x7E
    if "key" not in row and "asc" not in row:  # the catch-all: a key no other row names
        key = 0x9
    found = classify(Sense.parse(build_fixed(key, asc, ascq)))
    assert (found.kind, found.why) == (row["class"], row["why"])
    assert found.culprit in CULPRITS
    assert (found.level is not None) == (row["class"] == EVIDENCE)


def test_sense_classes() -> None:
    parity = classify(Sense.parse(build_fixed(0xB, 0x47, 0x00)))
    assert (parity.kind, parity.culprit) == (EVIDENCE, "path")
    assert classify(Sense.parse(build_fixed(0x0, 0x00, 0x01, filemark=True))).kind == INFORMATIONAL
    assert classify(None).kind == EVIDENCE  # a CHECK CONDITION without sense is the drive's fault


def test_tapealert_culprits_name_known_parts() -> None:
    assert (tapealert_culprit(0x04), tapealert_culprit(0x1E), tapealert_culprit(0x20), tapealert_culprit(0x09)) == (
        "cartridge", "drive", "path", "host")
    assert tapealert_culprit(0x05) == "drive or cartridge"  # "the tape is damaged or the drive is faulty"
    table = document()["tapealert_culprits"]
    assert set(table) - {"about"} <= set(CULPRITS)


def test_clauses() -> None:
    assert holds({"fact": "a", "op": ">", "other": "b"}, {"a": 2, "b": 1})
    assert not holds({"fact": "a", "op": ">", "other": "b"}, {"a": 2, "b": None})  # unknown: never holds
    assert holds({"fact": "a", "op": "!=", "value": True}, {})
    assert holds({"fact": "a", "op": "==", "value": None}, {})
    assert holds({"any": [{"fact": "a", "op": "==", "value": 1}, {"fact": "b", "op": "==", "value": 2}]}, {"b": 2})


def test_findings_travel_in_json_and_come_back_typed() -> None:
    from app.info import DriveInfo
    from app.runs.typed import from_dict

    info = _gather(CASES["sas-phy-errors"])
    data = info.to_dict()
    (f,) = data["health"]["findings"]
    assert (f["culprit"], f["level"], f["page"]) == ("path", "Attention", "log page 18h (SAS port)")
    back = from_dict(DriveInfo, data)
    assert back.health.findings == info.health.findings
    text = render_text(back)
    assert "Culprit: path" in text and "Threshold               more than 100; source: tapediag's own judgement" in text


def test_a_template_prints_an_unknown_fact_or_an_unfitting_spec_plainly() -> None:
    """A rule's text never fails on its facts: an unknown one is '?', also under a number's spec, and a value its
    spec does not fit (a text under ``:02X``) prints as it is; the rest formats as ``format`` does."""
    from app.health_rules import render

    facts = {"errors": 12345, "code": "n/a", "asc": 10, "port": None}
    assert render("{errors:,} {missing:,} {code:02X} {asc:02X} {port} {{literal}}", facts) == \
        "12,345 ? n/a 0A None {literal}"
