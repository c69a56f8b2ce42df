"""Per-generation figures of the LTO drives the virtual drive imitates.

Numbers are the published vendor figures collected in ``docs``/design notes
(`lto-drives.md`): native rate, speed-matching range, buffer, interface. Where a
vendor publishes only the range, the steps are spread evenly across it: the model
needs a realistic floor and ceiling more than IBM's exact step table.
"""
from __future__ import annotations

from dataclasses import dataclass

from native.scsi.media import density_of_format, formats

MB = 1_000_000
MiB = 1 << 20


@dataclass(frozen=True)
class GenerationSpec:
    """What one LTO generation (full- or half-height) looks like from the host."""

    generation: int
    density_code: int
    native_capacity: int  # bytes, the real cartridge's native capacity
    native_rate: float  # bytes/s
    speed_steps: tuple[float, ...]  # tape speeds in compressed bytes/s, ascending
    buffer_size: int  # bytes
    interface_rate: float  # bytes/s (SAS link)
    history: int  # SLDC history bytes
    product: str
    revision: str
    readable: tuple[int, ...]  # density codes the drive reads
    writable: tuple[int, ...]  # density codes the drive writes
    vendor: str = "HPE"  # INQUIRY vendor identification (``vendor=ibm``: "IBM", see vendorpages.py)

    @property
    def name(self) -> str:
        return f"LTO-{self.generation}"


def _steps(low: float, high: float, count: int) -> tuple[float, ...]:
    return tuple(round(low + (high - low) * i / (count - 1)) * MB for i in range(count))


#: Density codes by generation (SSC / T10 density code list). LTO-10 0x62: LTFS
#: src/libltfs/tape_ops.h ``TC_DC_LTO10`` (the virtual drive models LTO-10 "LA" media, not 0x63 "PA").
DENSITY = {1: 0x40, 2: 0x42, 3: 0x44, 4: 0x46, 5: 0x58, 6: 0x5A, 7: 0x5C, 8: 0x5E, 9: 0x60, 10: 0x62}
GENERATION_OF_DENSITY = {code: gen for gen, code in DENSITY.items()}

#: (native MB/s, steps full height, steps half height, native GB, buffer MiB, interface MB/s)
_TABLE: dict[int, tuple[float, tuple[float, float, int], tuple[float, float, int], int, int, int]] = {
    5: (140, (40, 140, 14), (40, 140, 14), 1_500, 256, 600),
    6: (160, (40, 160, 14), (40, 160, 14), 2_500, 512, 600),
    7: (300, (101, 306, 12), (101, 306, 12), 6_000, 1024, 1200),
    8: (360, (112, 365, 12), (112, 306, 12), 12_000, 1024, 1200),
    9: (400, (177, 408, 12), (177, 284, 12), 18_000, 1024, 1200),
    # LTO-10 (IBM ULT3580-TDA, full height only: no half-height figures are published, so
    # ``halfheight=1`` is refused for it). Native 400 MB/s and 12 Gb SAS (burst 1200 MB/s):
    # IBM Documentation "Performance specifications for LTO tape drives" (ibm.com/docs/en/dtl/2.12.3).
    # 30 TB native (LA media): shared/design/lto-drives.md. Buffer: no published LTO-10 figure,
    # LTO-7..9's 1 GiB is kept. Speed steps: _PUBLISHED_STEPS below.
    10: (400, (157, 407, 14), (157, 407, 14), 30_000, 1024, 1200),
}
_HALF_HEIGHT_NATIVE = {8: 300, 9: 300}
#: Generations modelled full height only (refused with ``halfheight=1``).
FULL_HEIGHT_ONLY = frozenset({10})

#: Where the vendor publishes the exact speed-matching table, it is used as is instead of an even
#: spread. LTO-10 with Generation 10 media, MB/s: IBM Documentation "Speed matching"
#: (ibm.com/docs/en/STAKKZ/con_LTOdrive_speedmatching.html), 14 steps 157 ... 407.
_PUBLISHED_STEPS: dict[int, tuple[float, ...]] = {
    10: (157, 176, 195, 214, 234, 253, 272, 291, 311, 330, 349, 368, 387, 407),
}


def spec_for(generation: int, *, half_height: bool = False) -> GenerationSpec:
    """The spec of ``virtual:lto<generation>``; KeyError for generations we do not model."""
    native, full, half, capacity_gb, buffer_mib, iface = _TABLE[generation]
    low, high, count = half if half_height else full
    if half_height:
        native = _HALF_HEIGHT_NATIVE.get(generation, native)
    own = DENSITY[generation]
    # What the drive reads and writes is the LTO rule table's (native.scsi.media.DRIVE_MEDIA): LTO-8 and
    # LTO-9 one generation back (LTO-8 also M8), LTO-5..7 write one back and read two, LTO-10 only LTO-10.
    readable = tuple(sorted(density_of_format(f) for f in formats(generation, writable=False)))
    writable = tuple(sorted(density_of_format(f) for f in formats(generation, writable=True)))
    steps = tuple(v * MB for v in _PUBLISHED_STEPS[generation]) if generation in _PUBLISHED_STEPS else _steps(low, high, count)
    return GenerationSpec(
        generation=generation,
        density_code=own,
        native_capacity=capacity_gb * 1_000_000_000,
        native_rate=native * MB,
        speed_steps=steps,
        buffer_size=buffer_mib * MiB,
        interface_rate=iface * MB,
        history=1024 if generation <= 5 else 16384,
        product=f"Ultrium {generation}-SCSI",
        revision=f"V{generation:X}A0",  # 4 characters, as INQUIRY's revision field: "V9A0", "VAA0"
        readable=readable,
        writable=writable,
    )


GENERATIONS = tuple(sorted(_TABLE))
