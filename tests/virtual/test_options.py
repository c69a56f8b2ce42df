"""Device-string options: every bad one is one clear InvalidParameter."""
from __future__ import annotations

import pytest

from native import open_transport
from native.errors import InvalidParameter
from native.units import parse_size
from native.virtual.options import parse_device


def test_sizes() -> None:
    """The virtual options read sizes with the one parser (issue 12): binary K/M/G, decimal KB/MB/GB."""
    assert parse_size("8G", "x") == 8 << 30
    assert parse_size("64MiB", "x") == 64 << 20
    assert parse_size("1.5GB", "x") == 1_500_000_000
    assert parse_size("4096", "x") == 4096


def test_full_option_set() -> None:
    o = parse_device("virtual:lto8?capacity=1G&wp=1&worm=0&halfheight=1&interface=300&buffer=64M&backhitch=1.5"
                     "&restart=0.5&realtime=0&tapealert=3,20&barcode=ABC123L8&loaded=0&ew=16M&maxfile=4G")
    assert (o.generation, o.capacity, o.write_protect, o.worm, o.half_height) == (8, 1 << 30, True, False, True)
    assert (o.backhitch, o.restart, o.realtime, o.tapealert, o.loaded) == (1.5, 0.5, False, (3, 20), False)
    assert (o.early_warning, o.max_file, o.barcode) == (16 << 20, 4 << 30, "ABC123L8")
    spec = o.spec
    assert spec.interface_rate == 300e6 and spec.buffer_size == 64 << 20
    assert spec.speed_steps[-1] == 306e6  # LTO-8 half height tops out at 306 MB/s


def test_fault_options_for_the_assessment() -> None:
    o = parse_device("virtual:lto9?alertat=4,30@64M&wornhead=50")
    assert o.alert_at == ((4, 30), 64 << 20) and o.worn_head == 50.0
    assert parse_device("virtual:lto9").alert_at is None and parse_device("virtual:lto9").worn_head == 0.0


@pytest.mark.parametrize("device", [
    "virtual:lto4", "virtual:lto11", "virtual:lto10?halfheight=1", "virtual:ltox", "virtual:lto9?bogus=1", "virtual:lto9?wp=maybe",
    "virtual:lto9?capacity=lots", "virtual:lto9?capacity=10", "virtual:lto9?wp", "virtual:lto9?wp=1&wp=0",
    "virtual:lto9?tapealert=0", "virtual:lto9?tapealert=a", "virtual:lto9?restart=2", "virtual:lto9?buffer=1",
    "virtual:lto9?interface=-5", "virtual:lto9?cartridge=", "virtual:lto9?maxfile=1K",
    "virtual:lto9?temp=500", "virtual:lto9?hours=-1", "virtual:lto9?phyerrors=many",
    "virtual:lto9?alertat=4", "virtual:lto9?alertat=@8M", "virtual:lto9?alertat=99@8M", "virtual:lto9?alertat=4@lots",
    "virtual:lto9?wornhead=-1", "virtual:lto9?wornhead=much",
])
def test_bad_options_are_rejected(device: str) -> None:
    with pytest.raises(InvalidParameter) as err:
        open_transport(device)
    assert "\n" not in str(err.value)


def test_default_cartridge_lives_in_the_data_dir(isolated_data_dir) -> None:
    d = open_transport("virtual:lto6?realtime=0")
    try:
        assert (isolated_data_dir / "virtual" / "lto6.cart").exists()
    finally:
        d.close()


def test_cartridge_of_an_unreadable_generation_is_refused(open_drive) -> None:
    open_drive(5, "old.cart").close()
    with pytest.raises(InvalidParameter, match="LTO-5 cartridge"):
        open_drive(9, "old.cart")


def test_every_documented_option_is_read_and_every_read_option_documented() -> None:
    """``OPTIONS`` (the help ``devices --help`` prints) and the parser's table name the same keys, and each
    documented example parses."""
    from native.virtual.options import _FIELDS, OPTIONS

    assert {opt.key for opt in OPTIONS} == set(_FIELDS)
    for opt in OPTIONS:
        if opt.key in ("library", "drive"):
            continue  # only together, with a library folder (test_library.py)
        parse_device(f"virtual:lto9?{opt.key}={opt.example}")
