"""Published rates of LTO generations (vendor figures, ``shared/design/lto-drives.md``).

Used only to say how a measured rate compares with what the drive can do; full-height
figures (half-height LTO-8/9 drives are slower natively).
"""
from __future__ import annotations

# generation -> (native MB/s, compressed MB/s at the generation's nominal ratio)
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
    10: (400, 1200),
}


def rated(generation: int | None) -> tuple[float | None, float | None]:
    """(native, compressed) MB/s for a generation, (None, None) when unknown."""
    if generation is None or generation not in RATED_MB_S:
        return None, None
    return RATED_MB_S[generation]
