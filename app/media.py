"""Does this cartridge fit this drive? Asked before any load, test or move.

The rules are ``native.scsi.media``'s table (media identifiers, density codes, and what
each LTO generation reads and writes, each row with its source); this module gathers the
evidence and decides, once, for every front end:

* the drive's generation from its INQUIRY product name ("Ultrium 8-SCSI", "ULT3580-TD9"),
  else from REPORT DENSITY SUPPORT for the drive (the newest density it writes). Not the
  mode header's density: that is the loaded *cartridge's* format;
* the cartridge from its cartridge memory (MAM 0405h medium density code, 0408h medium
  type), else the mode header's density code, and from its barcode (the label's media
  identifier; for a move, the library's volume tag is all there is).

``refusal`` is the one policy: an incompatible cartridge is refused for any load, test or
move; a read-only-compatible one for a write; a cleaning cartridge for a test. What is
only odd (a label the rules do not know, a label that disagrees with the cartridge
memory, a read test on a cartridge the drive cannot write) is a note in one line.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.drive import TapeDrive, generation_from_product
from native.errors import ConnectionLost, DeviceError, ParseError, SafetyRefusal, UnitAttention
from native.scsi.mam import Mam
from native.scsi.media import SOURCES, Access, Medium, access, drive_rule, medium_of_barcode, medium_of_density


class MediaRefusal(SafetyRefusal):
    """A cartridge that does not fit the drive: nothing was loaded, moved or written (exit 3)."""

    def __init__(self, message: str, *, hint: str | None = None) -> None:
        super().__init__(message, reason="the cartridge does not fit the drive", overridable=False, hint=hint)


@dataclass(frozen=True)
class DriveGeneration:
    """A drive's LTO generation and where it was read (None: not an LTO drive tapediag can name)."""

    generation: int | None
    evidence: str


@dataclass(frozen=True)
class MediaFit:
    """A cartridge against a drive: what the drive can do with it, and why that is known."""

    drive: DriveGeneration
    medium: Medium | None
    evidence: str  # "barcode TD0001L9", "cartridge memory (MAM 0405h = 0x60)"
    barcode: str = ""
    notes: tuple[str, ...] = ()  # odd but not refused: an unknown label, a label the chip contradicts

    @property
    def access(self) -> Access:
        return access(self.drive.generation, self.medium)

    def describe(self) -> str:
        """The cartridge, the drive and the rule with its source, in one line (for a refusal or a note)."""
        what = self.barcode or "the cartridge"
        if self.medium is None or self.drive.generation is None:
            return f"{what}: {self.evidence}; the drive's generation: {self.drive.evidence}"
        if self.medium.cleaning:
            return f"{what} is a cleaning cartridge ({self.evidence})"
        gen = self.drive.generation
        verdict = {Access.READ_WRITE: "reads and writes", Access.READ_ONLY: "can only read",
                   Access.NONE: "can neither read nor write"}.get(self.access, "")
        return (f"{what} is {self.medium.name} media ({self.evidence}), which an LTO-{gen} drive {verdict} "
                f"({drive_rule(gen)}: {SOURCES[gen]})")


def drive_generation(drive: TapeDrive) -> DriveGeneration:
    """The drive's own generation: INQUIRY's product name, else the newest density REPORT DENSITY SUPPORT
    says the drive writes. Never the mode header (the loaded cartridge's format)."""
    product = drive.inquiry().product.strip()
    gen = generation_from_product(product)
    if gen is not None:
        return DriveGeneration(gen, f"INQUIRY product {product!r}")
    try:
        support = drive.report_density_support(media=False)
    except ConnectionLost:
        raise
    except (DeviceError, ParseError):
        return DriveGeneration(None, f"unknown (INQUIRY product {product!r} names no LTO generation)")
    gens = [d.generation for d in support.descriptors if d.wrtok and d.generation is not None]
    if gens:
        return DriveGeneration(max(gens), "REPORT DENSITY SUPPORT (the newest density the drive writes)")
    return DriveGeneration(None, f"unknown (INQUIRY product {product!r}, no LTO density reported)")


def judge(drive: DriveGeneration, *, barcode: str | None = None, density: int | None = None,
          medium_type: str | None = None, density_from: str = "MAM 0405h") -> MediaFit:
    """Weigh the label against the cartridge memory: the chip wins, a disagreement is a note."""
    label = (barcode or "").strip()
    by_label = medium_of_barcode(label)
    by_chip = medium_of_density(density, worm=medium_type == "WORM")
    if medium_type == "cleaning":
        from native.scsi.media import CLEANING

        by_chip = CLEANING
    notes: list[str] = []
    if label and by_label is None:
        notes.append(f"barcode {label} ends in no LTO media identifier (L5...L9, LA, M8, LV...LZ, CLN...): "
                     "the label was not checked")
    if by_chip is not None:
        chip = f"{density_from} = 0x{density:02X}" if density is not None else "cartridge memory, MAM 0408h"
        if by_label is not None and (by_label.format, by_label.cleaning) != (by_chip.format, by_chip.cleaning):
            notes.append(f"barcode {label} says {by_label.name}, the cartridge says {by_chip.name} ({chip}): the "
                         "label is wrong; the cartridge is believed")
        return MediaFit(drive, by_chip, chip, label, tuple(notes))
    if by_label is not None:
        return MediaFit(drive, by_label, "its barcode", label, tuple(notes))
    return MediaFit(drive, None, "neither its label nor its cartridge memory names its media type", label,
                    tuple(notes))


def loaded_fit(drive: TapeDrive) -> MediaFit:
    """The cartridge in ``drive`` against the drive: read-only queries (INQUIRY, READ ATTRIBUTE, MODE SENSE)."""
    gen = drive_generation(drive)
    density, medium_type, barcode, source = None, None, None, "MAM 0405h"
    try:
        mam = _read_attributes(drive)
        density, medium_type, barcode = mam.density_code, mam.medium_type, mam.barcode
    except ConnectionLost:
        raise
    except (DeviceError, ParseError):  # no cartridge memory (tgt), or none readable: the label and mode header
        pass
    if density is None:
        try:
            density = drive.mode_header().density_code or None
            source = "the mode header's density code"
        except ConnectionLost:
            raise
        except (DeviceError, ParseError):
            density = None
    return judge(gen, barcode=barcode, density=density, medium_type=medium_type, density_from=source)


def _read_attributes(drive: TapeDrive) -> Mam:
    """READ ATTRIBUTE, once more after a UNIT ATTENTION (a fresh load reports one to the first command)."""
    try:
        return drive.read_attributes()
    except UnitAttention:
        return drive.read_attributes()


def refusal(fit: MediaFit, *, writes: bool, doing: str, test: bool = True) -> MediaRefusal | None:
    """The one policy (module docstring): None when ``doing`` may go ahead with this cartridge. ``test``:
    a test would run on it (a cleaning cartridge is refused then; a move of one into a drive is a cleaning)."""
    kind = fit.access
    if kind is Access.NONE:
        return MediaRefusal(f"{doing}: {fit.describe()}", hint="use a cartridge of a generation the drive takes")
    if kind is Access.CLEANING and test:
        return MediaRefusal(f"{doing}: {fit.describe()}", hint="use a data cartridge")
    if kind is Access.READ_ONLY and writes:
        return MediaRefusal(f"{doing}: {fit.describe()}, and the test writes",
                            hint="use a cartridge of the drive's own generation, or run a read test")
    return None


def notes(fit: MediaFit, *, writes: bool) -> list[str]:
    """What to say without refusing: the fit's notes, and a read-only cartridge under a read test."""
    out = list(fit.notes)
    if fit.access is Access.READ_ONLY and not writes:
        out.append(f"{fit.describe()}: reading only")
    return out


def check_loaded(drive: TapeDrive, *, writes: bool, doing: str) -> MediaFit:
    """Raise ``MediaRefusal`` when the loaded cartridge does not fit ``doing``; else the fit (with its notes)."""
    fit = loaded_fit(drive)
    refused = refusal(fit, writes=writes, doing=doing)
    if refused is not None:
        raise refused
    return fit


__all__ = ["DriveGeneration", "MediaFit", "MediaRefusal", "check_loaded", "drive_generation", "judge", "loaded_fit",
           "notes", "refusal"]
