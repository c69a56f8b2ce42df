"""The drive settings a tape test changes, saved before it and put back after it.

A fixed-mode test used to leave the drive in fixed 256 KiB blocks (seen over iSCSI and
through /dev/nst0): the next run's safety probe then failed its read, and a backup
application would have inherited the setting. The tape test changes two things, the
block length (MODE SELECT block descriptor) and hardware compression (the Data
Compression page's DCE), so those two are saved and restored, after a failure or a
cancel as well; only a lost connection prevents it, and then the result says what the
drive was left with.
"""
from __future__ import annotations

from dataclasses import dataclass

from app.drive import TapeDrive
from native.errors import DeviceError
from native.units import block_text


@dataclass(frozen=True)
class DriveSettings:
    block_length: int | None  # 0: variable-block mode; None: the drive has no block descriptor
    compression: bool | None  # None: no data compression page (or not capable)

    def describe(self) -> str:
        mode = ("unknown block mode" if self.block_length is None else
                "variable-block mode" if self.block_length == 0 else f"fixed blocks of {block_text(self.block_length)}")
        comp = "compression unknown" if self.compression is None else f"compression {'on' if self.compression else 'off'}"
        return f"{mode}, {comp}"


def save(drive: TapeDrive) -> DriveSettings:
    """The settings now (what cannot be read is None and will not be touched)."""
    try:
        block = drive.block_size()
    except DeviceError:
        block = None
    try:
        page = drive.compression()
        compression = page.dce if page is not None else None
    except DeviceError:
        compression = None
    return DriveSettings(block, compression)


def restore(drive: TapeDrive, saved: DriveSettings) -> str:
    """Put back what differs from ``saved``; one sentence saying what was done."""
    now = save(drive)
    changed, failed = [], []
    if saved.block_length is not None and now.block_length != saved.block_length:
        try:
            drive.set_block_size(saved.block_length)
            changed.append("block mode")
        except DeviceError as err:
            failed.append(f"block mode ({err})")
    if saved.compression is not None and now.compression is not None and now.compression != saved.compression:
        try:
            change = drive.set_compression(saved.compression)
        except DeviceError as err:
            failed.append(f"compression ({err})")
        else:
            (changed if change else failed).append("compression" if change else f"compression ({change.reason})")
    if failed:
        return f"could not put back {', '.join(failed)}: the drive was {saved.describe()} before the test"
    if changed:
        return f"drive settings put back: {saved.describe()}"
    return f"drive settings unchanged: {saved.describe()}"
