"""Media scan: a read-only look at a customer's cartridge, BOT to EOD (issue 16).

``MediaScan(drive, ScanParams(...)).run(sink, cancel)`` returns a ``ScanResult``: the
layout the backup application wrote (files, blocks, sizes), the read rate per zone,
where the drive paused while the host kept up (repositioning on reads), the error
counters' deltas and TapeAlert after the scan, and a cartridge verdict.
"""
from app.scan.engine import MediaScan
from app.scan.params import ScanParams
from app.scan.results import CartridgeVerdict, FileLayout, ScanResult, Zone

__all__ = ["MediaScan", "ScanParams", "ScanResult", "FileLayout", "Zone", "CartridgeVerdict"]
