"""What differs between two recorded runs besides their figures, said first and in words.

A before-and-after is the same test (kind and parameters) on the same drive and cartridge, by the same tapediag.
Whatever is not the same is named here with what it means for the comparison: another drive makes it a
comparison of two drives; another cartridge may explain a change the drive did not make; another block size
or amount of data changes what a rate measures; another tapediag version may judge by another rule. The
drive and the cartridge are told by what the runs recorded (``app.identity``: serial, firmware, barcode, the
cartridge memory's serial), not by the device string, which names a path; for a run recorded before identities
were, by the keys the history indexes it by (``app.history.keys``: the drive serial, barcode and MAM serial its
older results carry).
"""
from __future__ import annotations

from typing import Any

from app.compare.model import Difference
from app.history.keys import RunKeys
from app.identity import TAPE_DRIVE, DeviceIdentity
from app.runs.fields import stored_rows
from app.runs.stored import Loaded

#: Parameters that say how a run was started, not what it measured: never a difference.
HOW_NOT_WHAT = ("force",)
NOT_RECORDED = "not recorded"
NO_KEYS = RunKeys()


def drive_identity(loaded: Loaded[Any]) -> DeviceIdentity | None:
    """The one tape drive a run recorded, or None (an older run, a run on several drives or on none)."""
    drives = [i for i in loaded.identities or () if i.role == TAPE_DRIVE]
    return drives[0] if len(drives) == 1 else None


def _kind(a: Loaded[Any], b: Loaded[Any]) -> list[Difference]:
    if a.run.kind == b.run.kind:
        return []
    return [Difference("Kind of run", _title(a), _title(b),
                       "two different tests: only what both say (their verdicts by topic) is compared")]


def _title(loaded: Loaded[Any]) -> str:
    return loaded.kind.title if loaded.kind is not None else loaded.run.kind


def _drive(a: Loaded[Any], b: Loaded[Any], ka: RunKeys, kb: RunKeys) -> list[Difference]:
    """The drive (serial), its firmware, and the device string it was reached by."""
    da, db = drive_identity(a), drive_identity(b)
    out: list[Difference] = []
    sa, sb = (da.serial if da else None) or ka.drive_serial, (db.serial if db else None) or kb.drive_serial
    if sa and sb and sa != sb:
        out.append(Difference("Drive serial", sa, sb, "two different drives: this compares one drive with another, "
                                                      "not one drive before and after"))
    elif (sa is None) != (sb is None):
        out.append(Difference("Drive serial", sa or NOT_RECORDED, sb or NOT_RECORDED,
                              "one run did not record its drive: whether it is the same drive cannot be shown"))
    same_drive = bool(sa and sa == sb)
    fa, fb = (da.firmware if da else None), (db.firmware if db else None)
    if fa and fb and fa != fb:
        out.append(Difference("Firmware", fa, fb, "the drive's firmware changed between the runs (an update): "
                                                  "a change in the figures may be the firmware's"
                              if same_drive else "the drives run different firmware"))
    if a.run.device != b.run.device:
        out.append(Difference("Device", a.run.device or "none", b.run.device or "none",
                              "the same drive reached by another name (a path, or a virtual drive's options: "
                              "they set how it behaves)" if same_drive else "another device"))
    return out


def _cartridge(a: Loaded[Any], b: Loaded[Any], ka: RunKeys, kb: RunKeys) -> list[Difference]:
    da, db = drive_identity(a), drive_identity(b)
    out = []
    for what, key, keyed in (("Cartridge barcode", "barcode", "barcode"),
                             ("Cartridge serial (cartridge memory)", "cartridge_serial", "mam_serial")):
        va = (getattr(da, key) if da else None) or getattr(ka, keyed)
        vb = (getattr(db, key) if db else None) or getattr(kb, keyed)
        if va != vb and (va or vb):
            out.append(Difference(what, va or NOT_RECORDED, vb or NOT_RECORDED,
                                  "another cartridge: a change may be the cartridge's, not the drive's"
                                  if va and vb else "one run did not record its cartridge"))
    return out


def _parameters(a: Loaded[Any], b: Loaded[Any]) -> list[Difference]:
    """Each parameter, labelled and worded by the kind's field table (``app.runs.fields.stored_rows``)."""
    if a.run.kind != b.run.kind:
        return []
    fields = a.kind.fields if a.kind is not None else ()
    pa = dict(stored_rows(fields, {k: v for k, v in a.run.params.items() if k not in HOW_NOT_WHAT}))
    pb = dict(stored_rows(fields, {k: v for k, v in b.run.params.items() if k not in HOW_NOT_WHAT}))
    out = []
    for label in dict.fromkeys([*pa, *pb]):
        if pa.get(label) != pb.get(label):
            out.append(Difference(label, pa.get(label, "default"), pb.get(label, "default"),
                                  "another parameter: the runs measured different things"))
    return out


def _recorded(a: Loaded[Any], b: Loaded[Any]) -> list[Difference]:
    """The tapediag that recorded each run (``app.history.Run.version``), and a run that did not finish."""
    out = []
    va, vb = str(getattr(a.run, "version", "")), str(getattr(b.run, "version", ""))
    if va != vb:
        out.append(Difference("tapediag version", va, vb,
                              "recorded by different versions: a rule may have changed between them"))
    unfinished = [side.run.id for side in (a, b) if side.run.status != "complete"]
    if unfinished:
        which = " and ".join(f"run {i}" for i in unfinished)
        out.append(Difference("Status", a.run.status, b.run.status, f"{which} did not finish: its figures are partial"))
    return out


def differences(a: Loaded[Any], b: Loaded[Any], ka: RunKeys = NO_KEYS, kb: RunKeys = NO_KEYS) -> tuple[Difference, ...]:
    """Everything but the figures that is not the same in ``a`` (before) and ``b`` (after), most important first;
    ``ka``/``kb``: the history's keys of each run, for what its identities do not say."""
    return tuple(_kind(a, b) + _drive(a, b, ka, kb) + _cartridge(a, b, ka, kb) + _parameters(a, b) + _recorded(a, b))


__all__ = ["HOW_NOT_WHAT", "differences", "drive_identity"]
