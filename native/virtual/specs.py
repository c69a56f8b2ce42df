"""Per-generation figures of the LTO drives the virtual drive imitates.

Numbers are the published vendor figures collected in ``docs``/design notes
(`lto-drives.md`): native rate, speed-matching range, buffer, interface. Where a
vendor publishes only the range, the steps are spread evenly across it: the model
needs a realistic floor and ceiling more than IBM's exact step table.
"""
from __future__ import annotations

from dataclasses import dataclass

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

    @property
    def name(self) -> str:
        return f"LTO-{self.generation}"


def _steps(low: float, high: float, count: int) -> tuple[float, ...]:
    return tuple(round(low + (high - low) * i / (count - 1)) * MB for i in range(count))


#: Density codes by generation (SSC / T10 density code list).
DENSITY = {1: 0x40, 2: 0x42, 3: 0x44, 4: 0x46, 5: 0x58, 6: 0x5A, 7: 0x5C, 8: 0x5E, 9: 0x60}
GENERATION_OF_DENSITY = {code: gen for gen, code in DENSITY.items()}

#: (native MB/s, steps full height, steps half height, native GB, buffer MiB, interface MB/s)
_TABLE: dict[int, tuple[float, tuple[float, float, int], tuple[float, float, int], int, int, int]] = {
    5: (140, (40, 140, 14), (40, 140, 14), 1_500, 256, 600),
    6: (160, (40, 160, 14), (40, 160, 14), 2_500, 512, 600),
    7: (300, (101, 306, 12), (101, 306, 12), 6_000, 1024, 1200),
    8: (360, (112, 365, 12), (112, 306, 12), 12_000, 1024, 1200),
    9: (400, (177, 408, 12), (177, 284, 12), 18_000, 1024, 1200),
}
_HALF_HEIGHT_NATIVE = {8: 300, 9: 300}


def spec_for(generation: int, *, half_height: bool = False) -> GenerationSpec:
    """The spec of ``virtual:lto<generation>``; KeyError for generations we do not model."""
    native, full, half, capacity_gb, buffer_mib, iface = _TABLE[generation]
    low, high, count = half if half_height else full
    if half_height:
        native = _HALF_HEIGHT_NATIVE.get(generation, native)
    own = DENSITY[generation]
    # An LTO drive reads two generations back (one from LTO-8 on) and writes one back.
    back_read = 1 if generation >= 8 else 2
    readable = tuple(DENSITY[g] for g in range(generation - back_read, generation + 1))
    writable = tuple(DENSITY[g] for g in range(generation - 1, generation + 1))
    return GenerationSpec(
        generation=generation,
        density_code=own,
        native_capacity=capacity_gb * 1_000_000_000,
        native_rate=native * MB,
        speed_steps=_steps(low, high, count),
        buffer_size=buffer_mib * MiB,
        interface_rate=iface * MB,
        history=1024 if generation <= 5 else 16384,
        product=f"Ultrium {generation}-SCSI",
        revision=f"V{generation}A0",
        readable=readable,
        writable=writable,
    )


GENERATIONS = tuple(sorted(_TABLE))
