"""Cross-check our decoding with sg3_utils on the very same bytes.

sg3_utils is the reference decoder technicians already trust; each test writes a
response as ASCII hex, runs the sg3_utils tool on it (``--in``/``--inhex``, no
device involved) and compares the fields the tool prints with ours.
"""
from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from native.scsi.asc_table import ASC_ASCQ
from native.scsi.inquiry import DeviceIdentification, Inquiry, SupportedVpdPages, UnitSerialNumber
from native.scsi.logparse import parse_log_page
from native.scsi.mam import Mam
from native.scsi.sense import Sense, build_descriptor, build_fixed
from tests.scsi import samples

pytestmark = pytest.mark.skipif(shutil.which("sg_decode_sense") is None, reason="sg3-utils is not installed")


def run(*args: str) -> str:
    out = subprocess.run(args, capture_output=True, text=True, timeout=30)
    return out.stdout + out.stderr


def hexfile(tmp_path: Path, data: bytes, name: str = "resp.hex") -> str:
    path = tmp_path / name
    path.write_text(data.hex(" ") + "\n")
    return str(path)


def sg_sense(raw: bytes) -> dict[str, str]:
    text = run("sg_decode_sense", *[f"{b:02x}" for b in raw])
    fields = {"raw": text}
    m = re.search(r"Sense key: (.+)", text)
    fields["key"] = m.group(1).strip() if m else ""
    m = re.search(r"Additional sense: (.+)", text)
    fields["asc"] = m.group(1).strip() if m else ""
    m = re.search(r"Info fld=0x([0-9a-f]+)", text) or re.search(r"Information: 0x([0-9a-f]+)", text)
    fields["info"] = m.group(1) if m else ""
    return fields


def _norm(text: str) -> str:
    return re.sub(r"\s*\(obs\)$", "", text).strip().lower()


# Every tape-relevant code, plus every third entry of the whole table.
TAPE_CODES = [(0x00, q) for q in range(0x00, 0x06)] + [(0x3B, q) for q in range(0x00, 0x0E)] + [
    (0x30, q) for q in range(0x00, 0x0E) if (0x30, q) in ASC_ASCQ] + [
    (0x52, 0x00), (0x53, 0x00), (0x53, 0x01), (0x0C, 0x00), (0x11, 0x00), (0x14, 0x03), (0x50, 0x00), (0x51, 0x00),
    (0x04, 0x01), (0x04, 0x03), (0x3A, 0x00), (0x27, 0x00), (0x28, 0x00), (0x29, 0x00), (0x44, 0x00), (0x20, 0x00),
    (0x24, 0x00), (0x26, 0x00), (0x5D, 0x00)]
SAMPLED = sorted(set(TAPE_CODES) | set(sorted(ASC_ASCQ)[::3]))
KEYS = [0x0, 0x1, 0x2, 0x3, 0x4, 0x5, 0x6, 0x7, 0x8, 0xB, 0xD, 0xE]


@pytest.mark.parametrize("asc, ascq", SAMPLED, ids=[f"{a:02X}{q:02X}" for a, q in SAMPLED])
def test_sense_asc_text_matches_sg_decode_sense(asc: int, ascq: int) -> None:
    key = KEYS[(asc + ascq) % len(KEYS)]
    raw = build_fixed(key, asc, ascq)
    ours = Sense.parse(raw)
    theirs = sg_sense(raw)
    assert theirs["key"].upper() == ours.key_name
    assert _norm(theirs["asc"]) == _norm(ours.asc_text), theirs["raw"]


@pytest.mark.parametrize("key", range(16))
def test_every_sense_key_name(key: int) -> None:
    theirs = sg_sense(build_fixed(key, 0, 0))
    ours = Sense.parse(build_fixed(key, 0, 0))
    theirs_name = re.sub(r"\(\d+\)$", "", theirs["key"]).strip().upper()
    assert theirs_name == ours.key_name


@pytest.mark.parametrize(
    "fields",
    [
        dict(key=0x0, asc=0, ascq=1, info=65536, filemark=True),
        dict(key=0x8, asc=0, ascq=0, info=4096, eom=True),
        dict(key=0x0, asc=0, ascq=0, info=-100, ili=True),
        dict(key=0x0, asc=0, ascq=0, info=1000, ili=True),
        dict(key=0x0, asc=0, ascq=2, info=0, eom=True),
        dict(key=0xD, asc=0, ascq=2, info=512, eom=True),
        dict(key=0x3, asc=0x11, ascq=0, info=123),
    ],
)
@pytest.mark.parametrize("build", [build_fixed, build_descriptor], ids=["fixed", "descriptor"])
def test_tape_bits_and_info_match(build, fields: dict) -> None:
    raw = build(**fields)
    ours = Sense.parse(raw)
    theirs = sg_sense(raw)
    width = 32 if build is build_fixed else 64
    assert int(theirs["info"], 16) == ours.info % (1 << width)
    text = theirs["raw"]
    assert ("FMK" in text or "FILEMARK" in text) == ours.filemark
    assert ("EOM" in text) == ours.eom
    assert ("ILI" in text) == ours.ili


def test_sense_key_specific_matches(tmp_path: Path) -> None:
    raw = build_fixed(0x2, 0x04, 0x07, sks=bytes([0x80, 0x40, 0x00]))
    assert "25.00%" in sg_sense(raw)["raw"] and Sense.parse(raw).sks.progress == 0.25
    raw = build_fixed(0x5, 0x24, 0x00, sks=bytes([0xC8, 0x00, 0x02]))
    text = sg_sense(raw)["raw"]
    ours = Sense.parse(raw).sks
    assert "Error in Command: byte 2 bit 0" in text and (ours.in_cdb, ours.value, ours.bit_pointer) == (True, 2, 0)


@pytest.mark.parametrize("vendor, product, rev", [("HPE", "Ultrium 9-SCSI", "Q3A1"), ("IBM", "ULT3580-TD8", "Q9S2"),
                                                  ("QUANTUM", "ULTRIUM-HH7", "M954"), ("IET", "VIRTUAL-TAPE", "0001")])
def test_inquiry_matches_sg_inq(tmp_path: Path, vendor: str, product: str, rev: str) -> None:
    data = samples.inquiry(vendor, product, rev)
    text = run("sg_inq", f"--inhex={hexfile(tmp_path, data)}")
    ours = Inquiry.parse(data)
    assert re.search(r"Vendor identification: (.*)", text).group(1).strip() == ours.vendor
    assert re.search(r"Product identification: (.*)", text).group(1).strip() == ours.product
    assert re.search(r"Product revision level: (.*)", text).group(1).strip() == ours.revision
    assert "Peripheral device type: tape" in text and ours.device_type_name == "tape"


def test_vpd_pages_match_sg_vpd(tmp_path: Path) -> None:
    text = run("sg_vpd", f"--inhex={hexfile(tmp_path, samples.vpd80('HU0123ABCD'))}")
    assert re.search(r"Unit serial number: (.*)", text).group(1).strip() == UnitSerialNumber.parse(samples.vpd80("HU0123ABCD")).serial
    text = run("sg_vpd", f"--inhex={hexfile(tmp_path, samples.vpd83())}")
    lu_part = text.split("Target port:")[0]
    naa = re.search(r"designator type: NAA.*\n\s+(0x[0-9a-f]+)", lu_part).group(1)
    assert naa == DeviceIdentification.parse(samples.vpd83()).wwn
    text = run("sg_vpd", f"--inhex={hexfile(tmp_path, samples.vpd00())}")
    assert "Unit serial number" in text and "Device identification" in text
    assert SupportedVpdPages.parse(samples.vpd00()).pages[:3] == (0x00, 0x80, 0x83)


def _sg_logs(tmp_path: Path, data: bytes) -> str:
    return run("sg_logs", "--pdt=1", f"--in={hexfile(tmp_path, data)}")


@pytest.mark.parametrize("page", [0x02, 0x03])
def test_error_counters_match_sg_logs(tmp_path: Path, page: int) -> None:
    data = samples.error_counters(page, (3, 1, 4, 1, 5, 9_265_358_979, 2))
    text = _sg_logs(tmp_path, data)
    ours = parse_log_page(data)
    expect = {
        "Errors corrected without substantial delay": ours.corrected_without_delay,
        "Errors corrected with possible delays": ours.corrected_with_delay,
        "Total rewrites or rereads": ours.total_retries,
        "Total errors corrected": ours.total_corrected,
        "Total times correction algorithm processed": ours.correction_algorithm_processed,
        "Total bytes processed": ours.total_bytes_processed,
        "Total uncorrected errors": ours.total_uncorrected,
    }
    for label, value in expect.items():
        assert int(re.search(re.escape(label) + r" = (\d+)", text).group(1)) == value


def test_tapealert_matches_sg_logs(tmp_path: Path) -> None:
    active = frozenset({0x03, 0x04, 0x14, 0x15, 0x1F, 0x26, 0x37})
    data = samples.tapealert(active)
    text = _sg_logs(tmp_path, data)
    page = parse_log_page(data)
    theirs = dict(re.findall(r"^\s+(.+?): ([01])$", text, re.M))
    compared = 0
    for flag in page.flags:
        if 0x28 <= flag.code <= 0x31 or flag.code > 0x3C:
            continue  # obsolete / reserved: names differ by design
        assert theirs[flag.name] == str(int(flag.active)), flag.name
        compared += 1
    assert compared == 50 and {f.code for f in page.active} == active


def test_other_tape_log_pages_match_sg_logs(tmp_path: Path) -> None:
    text = _sg_logs(tmp_path, samples.volume_statistics())
    stats = parse_log_page(samples.volume_statistics()).stats()
    assert int(re.search(r"Thread count: (\d+)", text).group(1)) == stats["thread_count"]
    assert int(re.search(r"Lifetime megabytes written: (\d+)", text).group(1)) == stats["lifetime_mb_written"]
    assert re.search(r"Volume barcode: (.*)", text).group(1).strip() == stats["volume_barcode"]
    text = _sg_logs(tmp_path, samples.compression_log())
    comp = parse_log_page(samples.compression_log())
    assert int(re.search(r"Read compression ratio x100: (\d+)", text).group(1)) == round(comp.read_ratio * 100)
    assert int(re.search(r"Write compression ratio x100: (\d+)", text).group(1)) == round(comp.write_ratio * 100)
    text = _sg_logs(tmp_path, samples.sequential_access(cleaning=1))
    seq = parse_log_page(samples.sequential_access(cleaning=1))
    assert "Cleaning action required" in text and seq.cleaning_required
    assert int(re.search(r"Native capacity from BOP to EOD: (\d+) MB", text).group(1)) == seq.capacity_bop_to_eod_mb
    text = _sg_logs(tmp_path, samples.supported_log_pages())
    listed = [int(x, 16) for x in re.findall(r"^\s+0x([0-9a-f]{2})\s", text, re.M)]
    assert tuple(listed) == parse_log_page(samples.supported_log_pages()).pages


def test_mam_matches_sg_read_attr(tmp_path: Path) -> None:
    data = samples.mam()
    text = run("sg_read_attr", f"--in={hexfile(tmp_path, data)}")
    theirs = dict(re.findall(r"^\s+(.+?): (.*)$", text, re.M))
    mam = Mam.parse(data)
    checks = {
        "Remaining capacity in partition [MiB]": mam.remaining_capacity_mib,
        "Maximum capacity in partition [MiB]": mam.maximum_capacity_mib,
        "Load count": mam.load_count,
        "Total MiB written in medium life": mam.mb_written_total,
        "Total MiB read in medium life": mam.mb_read_total,
        "Total MiB written in current/last load": mam.mb_written_last_load,
        "Total MiB read in current/last load": mam.mb_read_last_load,
    }
    for label, value in checks.items():
        assert int(theirs[label]) == value, label
    assert theirs["Medium manufacturer"].strip() == mam.manufacturer
    assert theirs["Medium serial number"].strip() == mam.serial
    assert int(theirs["Medium density code"], 16) == mam.density_code
    assert theirs["Medium manufacture date"].strip() == mam.manufacture_date
    assert theirs["Barcode"].strip() == mam.barcode
    assert theirs["User medium text label"].strip() == mam.value(0x0803)
