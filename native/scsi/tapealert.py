"""The 64 TapeAlert flags (SSC-4 annex / the HP TapeAlert specification).

Each flag: its standard name, severity (Information / Warning / Critical) and the
advice a technician should follow. Flags 0x28-0x2E are the autoloader flags that
SSC later made obsolete; reserved flags are kept so that a drive setting one is
still shown rather than dropped.
"""
from __future__ import annotations

import enum
from dataclasses import dataclass


class Severity(str, enum.Enum):
    INFORMATION = "Information"
    WARNING = "Warning"
    CRITICAL = "Critical"


I, W, C = Severity.INFORMATION, Severity.WARNING, Severity.CRITICAL


@dataclass(frozen=True)
class TapeAlertDefinition:
    """One TapeAlert flag as the table below defines it: its code, name, severity and the text a technician reads."""

    code: int
    name: str
    severity: Severity
    text: str


_TABLE: tuple[tuple[int, str, Severity, str], ...] = (
    (0x01, "Read warning", W, "The drive is having problems reading data. No data has been lost, but tape performance is reduced."),
    (0x02, "Write warning", W, "The drive is having problems writing data. No data has been lost, but tape capacity is reduced."),
    (0x03, "Hard error", W, "The operation stopped because of a read or write error the drive cannot correct."),
    (0x04, "Media", C, "Your data is at risk: copy any data you need from this tape, do not use it again, restart the operation with a different tape."),
    (0x05, "Read failure", C, "The tape is damaged or the drive is faulty. Call the tape drive supplier helpline."),
    (0x06, "Write failure", C, "The tape is from a faulty batch or the drive is faulty: test the drive with a good tape; if the problem persists, call the supplier helpline."),
    (0x07, "Media life", W, "The cartridge has reached the end of its calculated useful life: copy the data you need to another tape and discard this one."),
    (0x08, "Not data grade", W, "The cartridge is not data-grade; any data backed up to it is at risk. Replace it with a data-grade tape."),
    (0x09, "Write protect", C, "A write was attempted to a write-protected cartridge. Remove the write protection or use another tape."),
    (0x0A, "No removal", I, "The cartridge cannot be ejected because the drive is in use. Wait until the operation completes."),
    (0x0B, "Cleaning media", I, "The tape in the drive is a cleaning cartridge."),
    (0x0C, "Unsupported format", I, "A cartridge of a type this drive does not support was loaded."),
    (0x0D, "Recoverable mechanical cartridge failure", C, "The tape has suffered a mechanical failure: discard it and restart the operation with a different tape."),
    (0x0E, "Unrecoverable mechanical cartridge failure", C, "The tape has suffered a mechanical failure: do not try to extract it; call the tape drive supplier helpline."),
    (0x0F, "Memory chip in cartridge failure", W, "The cartridge memory has failed, reducing performance. Do not use this cartridge for further writes."),
    (0x10, "Forced eject", C, "The operation failed because the cartridge was manually ejected while the drive was reading or writing."),
    (0x11, "Read only format", W, "The cartridge type is read-only in this drive; it will appear write-protected."),
    (0x12, "Tape directory corrupted on load", W, "The tape directory is corrupted; file search will be slower. Reading all data on the cartridge rebuilds it."),
    (0x13, "Nearing media life", I, "The cartridge is nearing the end of its calculated life: use another cartridge for the next backup and keep this one safe."),
    (0x14, "Cleaning required", C, "The drive needs cleaning: when the operation has finished, eject the tape and clean the drive."),
    (0x15, "Cleaning requested", W, "The drive is due for routine cleaning: when the current operation finishes, use a cleaning cartridge."),
    (0x16, "Expired cleaning media", C, "The last cleaning cartridge used is worn out: discard it and use a new cleaning cartridge."),
    (0x17, "Invalid cleaning tape", C, "The last cleaning cartridge used was an invalid type: do not use it in this drive; use a valid cleaning cartridge."),
    (0x18, "Retension requested", W, "The drive has requested a retension operation."),
    (0x19, "Dual port interface error", W, "A redundant interface port on the drive has failed."),
    (0x1A, "Cooling fan failing", W, "A cooling fan in the drive has failed."),
    (0x1B, "Power supply failure", W, "A redundant power supply in the drive enclosure has failed; see the enclosure manual to replace it."),
    (0x1C, "Power consumption", W, "The drive's power consumption is outside the specified range."),
    (0x1D, "Drive maintenance", W, "Preventive maintenance of the drive is required; see the drive manual or call the supplier helpline."),
    (0x1E, "Hardware A", C, "The drive has a hardware fault: eject the tape, reset the drive, restart the operation."),
    (0x1F, "Hardware B", C, "The drive has a hardware fault: power-cycle the drive and restart the operation; if it persists, call the supplier helpline."),
    (0x20, "Interface", W, "The drive has a problem with the host interface: check cables and connections, then restart the operation."),
    (0x21, "Eject media", C, "The operation failed: eject the tape, insert it again and restart the operation."),
    (0x22, "Microcode update fail", W, "The firmware download failed because the firmware is not for this drive. Obtain the correct firmware and retry."),
    (0x23, "Drive humidity", W, "Humidity inside the drive is outside the specified range."),
    (0x24, "Drive temperature", W, "Temperature inside the drive is outside the specified range."),
    (0x25, "Drive voltage", W, "The drive's supply voltage is outside the specified range."),
    (0x26, "Predictive failure", C, "A hardware failure of the drive is predicted. Call the tape drive supplier helpline."),
    (0x27, "Diagnostics required", W, "The drive may have a hardware fault: run extended diagnostics to verify and diagnose it."),
    (0x28, "Loader hardware A (obsolete)", C, "The changer mechanism has difficulty communicating with the drive: power-cycle the autoloader and restart the operation."),
    (0x29, "Loader stray tape (obsolete)", C, "A tape was left in the autoloader by a previous fault: insert an empty magazine; power-cycle the autoloader if it persists."),
    (0x2A, "Loader hardware B (obsolete)", W, "There is a problem with the autoloader mechanism."),
    (0x2B, "Loader door (obsolete)", C, "The autoloader door is open: clear obstructions, re-insert the magazine; power-cycle the autoloader if it persists."),
    (0x2C, "Loader hardware C (obsolete)", C, "The autoloader has a hardware fault: power-cycle it and restart the operation."),
    (0x2D, "Loader magazine (obsolete)", C, "The autoloader cannot operate without its magazine: insert it and restart the operation."),
    (0x2E, "Loader predictive failure (obsolete)", W, "A hardware failure of the changer mechanism is predicted. Call the supplier helpline."),
    (0x2F, "Reserved (0x2F)", I, "Reserved flag."),
    (0x30, "Reserved (0x30)", I, "Reserved flag."),
    (0x31, "Diminished native capacity", W, "The cartridge's native capacity is below its nominal value."),
    (0x32, "Lost statistics", W, "Media statistics have been lost at some time in the past."),
    (0x33, "Tape directory invalid at unload", W, "The tape directory of the cartridge just unloaded is corrupted; file search will be slower. Reading all data rebuilds it."),
    (0x34, "Tape system area write failure", C, "The cartridge just unloaded could not write its system area: copy the data to another cartridge and discard this one."),
    (0x35, "Tape system area read failure", C, "The cartridge's system area could not be read at load: copy the data to another cartridge."),
    (0x36, "No start of data", C, "The start of data could not be found: check the tape format; discard the tape or return it to the supplier."),
    (0x37, "Loading failure", C, "The medium cannot be loaded and threaded: remove and inspect the cartridge, retry; call the supplier helpline if it persists."),
    (0x38, "Unrecoverable unload failure", C, "The medium cannot be unloaded: do not try to extract it; call the tape drive supplier helpline."),
    (0x39, "Automation interface failure", C, "The drive has a problem with the automation interface: check power, cables and connections of the automation system."),
    (0x3A, "Firmware failure", W, "The drive reset itself after a firmware fault. If it persists, call the supplier helpline."),
    (0x3B, "WORM medium - integrity check failed", W, "The drive found an inconsistency while checking the integrity of a WORM cartridge; it may have been tampered with."),
    (0x3C, "WORM medium - overwrite attempted", W, "An attempt was made to overwrite user data on a WORM cartridge."),
    (0x3D, "Reserved (0x3D)", I, "Reserved flag."),
    (0x3E, "Reserved (0x3E)", I, "Reserved flag."),
    (0x3F, "Reserved (0x3F)", I, "Reserved flag."),
    (0x40, "Reserved (0x40)", I, "Reserved flag."),
)

TAPEALERTS: dict[int, TapeAlertDefinition] = {code: TapeAlertDefinition(code, name, sev, text) for code, name, sev, text in _TABLE}

# Flags that ask for the drive to be cleaned (the health verdict reports them).
CLEANING_FLAGS = frozenset({0x14, 0x15})


def definition(code: int) -> TapeAlertDefinition:
    """The definition of a flag; codes outside 1..64 are reported as unknown, not dropped."""
    found = TAPEALERTS.get(code)
    if found is not None:
        return found
    return TapeAlertDefinition(code, f"Unknown TapeAlert flag 0x{code:02X}", Severity.WARNING, "Vendor or unknown flag.")
