"""Published rates of LTO generations (vendor figures, ``shared/design/lto-drives.md``).

Used only to say how a measured rate compares with what the drive can do; full-height
figures (half-height LTO-8/9 drives are slower natively).
"""
from __future__ import annotations

from dataclasses import dataclass

# generation -> (native MB/s, compressed MB/s at the generation's nominal ratio). The "compressed" figure is
# the vendors' marketing figure at the generation's nominal ratio (2:1, 2.5:1 from LTO-6), not a ceiling: a
# drive fed more compressible data goes faster, up to its link.
RATED_MB_S: dict[int, tuple[float, float]] = {
    1: (20, 40),
    2: (35, 70),
    3: (80, 160),
    4: (120, 240),
    5: (140, 280),
    6: (160, 400),
    7: (300, 750),
    8: (360, 900),
    9: (400, 1000),
    # LTO-10: IBM Documentation "Performance specifications for LTO tape drives" (ibm.com/docs/en/dtl/2.12.3):
    # native 400 MB/s, sustained 1000 MB/s at 2.5:1 on SAS and FC (LA and PA media).
    10: (400, 1000),
}


# generation -> the host link the generation's drives ship with, MB/s (what one command stream can carry):
# LTO-1/2 Ultra160/320 SCSI, LTO-3/4 Ultra320 SCSI / 4 Gb FC / 3 Gb SAS, LTO-5/6 6 Gb SAS / 8 Gb FC,
# LTO-7 and later 12 Gb SAS / 8 Gb FC (HPE and IBM data sheets; the virtual drives use the same figures).
LINK_MB_S: dict[int, float] = {1: 160, 2: 320, 3: 320, 4: 400, 5: 600, 6: 600, 7: 1200, 8: 1200, 9: 1200, 10: 1200}

# generation -> the drive's data buffer in MiB: a write that has not sent at least twice this much may have
# measured the buffer filling, not the tape (HPE/IBM data sheets; full-height drives).
BUFFER_MIB: dict[int, int] = {1: 64, 2: 64, 3: 128, 4: 256, 5: 256, 6: 512, 7: 1024, 8: 1024, 9: 1024, 10: 1024}


@dataclass(frozen=True)
class Possible:
    """What this drive can do with this data, and how that figure was reached (for its label)."""

    mb_s: float
    label: str  # "800 MB/s possible for 2:1 data on LTO-9"


def possible(generation: int | None, ratio: float | None, *, compression_on: bool = True) -> Possible | None:
    """The rate the drive can reach with data of ``ratio``: native x ratio, capped by its link.

    With compression off (or incompressible data) the reference is the native rate. This
    is the one reference every "% of possible" figure uses (CLI, GUI, PDF, history).
    """
    if generation is None or generation not in RATED_MB_S:
        return None
    native = RATED_MB_S[generation][0]
    # The ratio as the label prints it (one decimal), so the figure and its label agree.
    effective = max(round(ratio or 1.0, 1), 1.0) if compression_on else 1.0
    link = LINK_MB_S.get(generation)
    value = native * effective
    capped = link is not None and value > link
    if capped and link is not None:
        value = link
    if not compression_on:
        data = "with compression off"
    elif effective <= 1.0:
        data = "for incompressible data"
    else:
        data = f"for {effective:.1f}:1 data".replace(".0:1", ":1")
    how = " (the link's limit)" if capped else ""
    return Possible(value, f"{value:,.0f} MB/s possible {data} on LTO-{generation}{how}")


def rated(generation: int | None) -> tuple[float | None, float | None]:
    """(native, compressed) MB/s for a generation, (None, None) when unknown."""
    if generation is None or generation not in RATED_MB_S:
        return None, None
    return RATED_MB_S[generation]
