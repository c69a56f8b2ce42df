"""Never lose a customer's data: the checks made before a performance test's first write.

* a write-protected cartridge (mode header WP bit) or WORM media: refused, and no
  ``--force`` lifts it (the write cannot succeed, or would use up a WORM cartridge);
* a cartridge that holds data, when the test would start at BOT: rewind, read one
  block; a block or a filemark (rather than BLANK CHECK / EOD) means data. Refused
  unless forced; the message says what was found, with the cartridge memory's
  lifetime figure where the drive has one;
* an LTFS volume (``app.ltfs``): named as such ("LTFS volume 'ARCHIVE01' (UUID ...), written by
  ...: holds data"), from its labels at BOT, else from the cartridge memory. Refused unless forced,
  also for a write appended at EOD: LTFS keeps its index last on each partition, so data appended
  after it leaves a volume LTFS no longer mounts.

Appending at EOD destroys nothing else, so it only needs the first check (and the cartridge memory's
word on LTFS, read without moving the tape). Read-only tests
never call this (they never write).
"""
from __future__ import annotations

from dataclasses import dataclass

from native.errors import CheckCondition, DataProtect, DeviceError, SafetyRefusal

from app import ltfs
from app.drive import TapeDrive
from native.scsi.ltfs import LtfsVolume, from_mam
from native.scsi.mam import Mam
from native.units import block_text

#: The probe read asks for up to this many bytes: enough for any block a test writes;
#: a longer block is reported by ILI with its true length.
PROBE_BYTES = 1 << 20


@dataclass(frozen=True)
class CartridgeState:
    """What the pre-write probe found."""

    write_protected: bool = False
    worm: bool = False
    found: str = ""  # "" when the cartridge is blank at BOT, else what was read there
    mam_mb_written: int | None = None
    probe_error: str = ""
    ltfs: LtfsVolume | None = None
    barcode: str = ""  # the cartridge memory's (0806h): what a confirmation names the cartridge by

    @property
    def holds_data(self) -> bool:
        return bool(self.found) or bool(self.probe_error) or self.ltfs is not None

    def held(self) -> str:
        """What the probe found, as a confirmation says it: "a block at BOT of 80 bytes", "blank at the start of the
        tape", with the cartridge memory's lifetime figure where it has one."""
        mam = f"; MAM says {self.mam_mb_written:,} MB written in its life" if self.mam_mb_written else ""
        what = self.found or self.probe_error or ("" if self.holds_data else "blank at the start of the tape")
        return (what + mam) if what else mam.lstrip("; ")

    def words(self) -> str:
        """What the cartridge holds, as a result says it: "LTFS volume 'ARCHIVE01' (...): holds data (a block at
        BOT of 80 bytes; MAM says 1,024 MB written in its life)", "blank at the start of the tape"."""
        if not self.holds_data:
            return self.held()
        named = f"{self.ltfs.describe()}: holds data" if self.ltfs is not None else "holds data"
        return f"{named} ({self.held()})" if self.held() else named

    def to_dict(self) -> dict:
        return {"write_protected": self.write_protected, "worm": self.worm, "found": self.found,
                "mam_mb_written": self.mam_mb_written, "probe_error": self.probe_error, "holds_data": self.holds_data,
                "ltfs": self.ltfs.to_dict() if self.ltfs is not None else None, "barcode": self.barcode}


def _mam(drive: TapeDrive) -> "Mam | None":
    try:
        return drive.read_attributes()
    except DeviceError:
        return None


def _worm_from_logs(drive: TapeDrive) -> bool:
    try:
        page = drive.log_sense(0x17)
    except DeviceError:
        return False
    value = page.value(0x0081) if hasattr(page, "value") else None
    return bool(value)


def probe(drive: TapeDrive, *, at_bot: bool, probe_bytes: int = PROBE_BYTES) -> CartridgeState:
    """Look at the cartridge without writing. Leaves it rewound when ``at_bot``."""
    wp = drive.is_write_protected()
    mam = _mam(drive)
    worm = bool(mam is not None and mam.medium_type == "WORM") or _worm_from_logs(drive)
    mb_written = mam.mb_written_total if mam is not None else None
    in_memory = from_mam(mam) if mam is not None else None
    barcode = (mam.barcode or "").strip() if mam is not None else ""
    if wp or worm or not at_bot:
        return CartridgeState(wp, worm, "", mb_written, ltfs=in_memory, barcode=barcode)
    found, error, volume = "", "", None
    drive.rewind()
    fixed = drive.block_size() or 0
    try:
        if fixed:
            outcome = drive.read(bytearray(fixed), block_size=fixed)
        else:
            outcome = drive.read(bytearray(probe_bytes))
        if outcome.nbytes > 0:
            length = outcome.nbytes
            if outcome.ili and outcome.residual < 0:
                length = probe_bytes - outcome.residual  # the block was longer than the probe
            found = f"a block at BOT of {block_text(length)}"
            volume = ltfs.read_labels(drive, in_memory) if outcome.nbytes == ltfs.VOL1_BYTES else None
        elif outcome.filemark:
            found = "a filemark at BOT"
        elif not outcome.eod:
            found = "something other than blank tape at BOT"
    except DataProtect:
        wp = True
    except CheckCondition as err:
        # A blank cartridge answers BLANK CHECK (an outcome, not this); anything else
        # (a medium error on a used tape...) means we cannot prove the tape is blank.
        error = f"the read at BOT failed ({err.message})"
    finally:
        drive.rewind()
    return CartridgeState(wp, worm, found, mb_written, error, ltfs=volume, barcode=barcode)


def decide(state: CartridgeState, *, force: bool) -> SafetyRefusal | None:
    """The one safety decision, for every front end: None when a write may go ahead, else why not
    (``overridable`` says whether an explicit confirmation, ``--force`` or the GUI's, may lift it)."""
    if state.write_protected:
        return SafetyRefusal(
            "the cartridge is write-protected: a write test cannot run",
            reason="write-protected",
            overridable=False,
            hint="slide the cartridge's write-protect tab, or run a read test",
        )
    if state.worm:
        return SafetyRefusal(
            "the cartridge is WORM media: a test would use it up for good",
            reason="WORM media",
            overridable=False,
            hint="load a scratch rewritable cartridge",
        )
    if state.holds_data and not force:
        what = state.found or state.probe_error
        mam = f"; MAM says {state.mam_mb_written:,} MB written in its life" if state.mam_mb_written else ""
        if state.ltfs is not None:
            return SafetyRefusal(
                f"{state.ltfs.describe()}: holds data{mam}",
                reason=state.ltfs.describe(),
                overridable=True,
                hint="LTFS keeps its index last on each partition: any write, appended or not, breaks the volume; "
                     "load a scratch cartridge, or overwrite it with --force",
            )
        return SafetyRefusal(
            f"the cartridge holds data: {what}{mam}",
            reason=what,
            overridable=True,
            hint="load a scratch cartridge, append with --start eod, or overwrite it with --force",
        )
    return None


def check_before_write(drive: TapeDrive, *, at_bot: bool, force: bool) -> CartridgeState:
    """Raise ``SafetyRefusal`` if writing would fail or destroy data; else the state found."""
    state = probe(drive, at_bot=at_bot)
    refusal = decide(state, force=force)
    if refusal is not None:
        raise refusal
    return state


__all__ = ["CartridgeState", "probe", "decide", "check_before_write"]
