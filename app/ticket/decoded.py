"""tapediag's own decode of the files no tool reads (or that the installed sg3_utils cannot yet read), as text
beside the raw file (``<name>.txt``): decoded with tapediag's parsers in ``native.scsi``, the same ones ``info``
uses, so the vendor reads what tapediag read."""
from __future__ import annotations

from typing import Callable

from native.errors import ParseError
from native.scsi.buffers import SNAPSHOT_RETRIEVED, SNAPSHOT_SOURCE, ErrorHistoryDirectory, ErrorHistoryEntry
from native.scsi.cdb import opcode_name
from native.scsi.density_support import DensitySupport
from native.scsi.encryption import (PAGE_CAPABILITIES, PAGE_NEXT_BLOCK, PAGE_STATUS, EncryptionCapabilities,
                                    EncryptionStatus, KeyDescriptor, NextBlockStatus)
from native.scsi.logpages import PAGE_HP_PERFORMANCE, HpPerformance, LogPage
from native.scsi.opcodes import SupportedCommands
from native.scsi.tape import BlockLimits
from native.scsi.vendorlogs import HP, decode_vendor_page


def _opcodes(data: bytes, family: str | None) -> list[str]:
    out = ["REPORT SUPPORTED OPERATION CODES: opcode, service action, CDB length, timeouts (nominal / recommended, s)"]
    for c in SupportedCommands.parse(data).commands:
        sa = f"/{c.service_action:02X}h" if c.service_action is not None else ""
        t = f"{c.timeouts.nominal} / {c.timeouts.recommended}" if c.timeouts else "not reported"
        out.append(f"  {c.opcode:02X}h{sa:<5} {opcode_name(c.opcode):<34} CDB {c.cdb_length:>2}  timeouts {t}")
    return out


def _block_limits(data: bytes, family: str | None) -> list[str]:
    limits = BlockLimits.parse(data)
    return ["READ BLOCK LIMITS", f"  maximum block length  {limits.max_length} bytes",
            f"  minimum block length  {limits.min_length} bytes",
            f"  granularity           2^{limits.granularity} bytes"]


def _density(data: bytes, family: str | None) -> list[str]:
    out = ["REPORT DENSITY SUPPORT: primary code, name, writable, default, capacity (10^6 bytes), description"]
    for d in DensitySupport.parse(data).descriptors:
        out.append(f"  {d.primary_code:02X}h {d.density_name:<10} writable {'yes' if d.wrtok else 'no':<3} "
                   f"default {'yes' if d.deflt else 'no':<3} {d.capacity_mb:>10} MB  {d.description}")
    return out


def _keys(descriptors: tuple[KeyDescriptor, ...], what: str) -> list[str]:
    return [f"  {what} descriptor   {d.kind_name}: {d.text}" for d in descriptors] or [f"  {what} descriptors  none"]


def _encryption(data: bytes, family: str | None) -> list[str]:
    code = int.from_bytes(bytes(data[:2]), "big")
    if code == PAGE_CAPABILITIES:
        caps = EncryptionCapabilities.parse(data)
        return ["SECURITY PROTOCOL IN 20h, page 0010h: data encryption capabilities"] + [
            f"  algorithm {a.index}: {a.name}, key {a.key_bytes} bytes, encrypt capable {a.encrypt_capable}, "
            f"decrypt capable {a.decrypt_capable}" for a in caps.algorithms]
    if code == PAGE_STATUS:
        s = EncryptionStatus.parse(data)
        return ["SECURITY PROTOCOL IN 20h, page 0020h: data encryption status",
                f"  encryption            {s.encryption_mode_name}", f"  decryption            {s.decryption_mode_name}",
                f"  algorithm index       {s.algorithm_index}", f"  key instance counter  {s.key_instance_counter}",
                f"  volume holds encrypted blocks (VCELB)  {'yes' if s.volume_has_encrypted_blocks else 'no'}",
                f"  KAD format            {s.kad_format:02X}h"] + _keys(s.descriptors, "key in use")
    if code == PAGE_NEXT_BLOCK:
        n = NextBlockStatus.parse(data)
        return ["SECURITY PROTOCOL IN 20h, page 0021h: next block encryption status",
                f"  logical object number {n.logical_object}", f"  encryption status     {n.status_name}",
                f"  algorithm index       {n.algorithm_index}",
                f"  KAD format            {n.kad_format:02X}h"] + _keys(n.descriptors, "block's key")
    raise ParseError(f"security protocol page {code:04X}h is not one tapediag decodes")


def _role(entry: ErrorHistoryEntry) -> str:
    if entry.directory:
        return "  (this directory)"
    return "" if entry.readable else "  (reading it would take a new snapshot: not read)"


def _error_history(data: bytes, family: str | None) -> list[str]:
    d = ErrorHistoryDirectory.parse(data)
    out = ["READ BUFFER mode 1Ch buffer 00h: error history directory", f"  T10 vendor            {d.vendor}",
           f"  version               {d.version}",
           f"  snapshot              {SNAPSHOT_SOURCE.get(d.snapshot_source, '?')}; "
           f"{SNAPSHOT_RETRIEVED.get(d.snapshot_retrieved, '?')}",
           f"  clearing supported    {'yes' if d.clear_supported else 'no'} (tapediag never clears it)"]
    out += [f"  buffer {e.buffer_id:02X}h  format {e.buffer_format:02X}h  source {e.buffer_source:X}h  "
            f"up to {e.max_length} bytes{_role(e)}" for e in d.entries]
    return out + (["  (the directory was cut short by the allocation length)"] if d.truncated else [])


def _vendor_log(data: bytes, family: str | None) -> list[str]:
    page = LogPage.parse(bytes(data))
    if family == HP and page.page_code == PAGE_HP_PERFORMANCE:
        perf = HpPerformance.from_page(page)
        return ["HP log page 0x34: performance data (HP Ultrium technical reference manual Q1530-90901)"] + [
            f"  {name:<24} {value}" for name, value in perf.figures().items()]
    vendor = decode_vendor_page(family, data)
    out = [vendor.title, f"  layout: {vendor.source}"] + [f"  {k:<32} {v}" for k, v in vendor.figures.items()]
    out += [f"  parameter {r.code:04X}h (raw)  {r.hex}" for r in vendor.raw]
    return out + ([] if vendor.figures or vendor.raw else ["  no parameters"])


_DECODERS: dict[str, Callable[[bytes, str | None], list[str]]] = {
    "opcodes/": _opcodes, "read_block_limits": _block_limits, "density/": _density, "encryption/": _encryption,
    "error_history/directory": _error_history, "log/page_": _vendor_log,
}


def decoded_text(name: str, data: bytes, family: str | None) -> str:
    """tapediag's decode of the capture ``name``; a page that does not decode says why instead."""
    decoder = next((fn for prefix, fn in _DECODERS.items() if name.startswith(prefix)), None)
    if decoder is None:
        return f"{name}: tapediag has no decoder for this file\n"
    try:
        return "\n".join(decoder(data, family)) + "\n"
    except ParseError as err:
        return f"{name}: does not decode ({err}); the raw bytes are beside this file\n"
