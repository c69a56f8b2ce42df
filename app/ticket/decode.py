"""For each file of a ticket, the exact command that decodes it as the tape page it is: one table.

Why: the raw pages are for the vendor's engineer, who will run sg3_utils on them, and the obvious
command misleads. ``sg_logs --inhex FILE`` without ``--pdt=1`` decodes pages 0Ch, 11h, 16h and 17h
as a disk's ("Logical block provisioning", "Solid state media", "ATA pass-through results",
"Non-volatile cache"); ``sdparm --inhex`` without ``--pdt=1`` decodes mode page 10h as SBC's "XOR
control" page; ``sg_opcodes`` reads no file before sg3_utils 1.48. So every file gets the command
that is right for it, run from the folder the zip was unpacked into, or none, with the reason and
tapediag's own decode beside it.

What sg3_utils decodes, checked against its source and its ``--help`` (1.46, Debian 12, and the
current tree):

* ``sg_logs`` (``-M``/``--vendor`` values ``lto5``, ``lto6``; ``sg_logs -e -M lto5`` lists them) has
  layouts for the LTO vendor pages 30h (tape usage), 31h (tape capacity) and 32h (data compression)
  only (src/sg_logs_vendor.c); 33h-3Eh it names after IBM's LTO-5 page list and prints "Unable to
  decode". Its names are IBM's: on an HPE drive 34h is HP's performance page, which sg_logs would call
  "Read forward errors", and on a Quantum drive 3Eh is Quantum's tape device statistics, which it
  would call "Device Status". ``--pdt=1`` alone already applies the LTO table in 1.46; ``-M lto5`` is
  given too, so the command also holds where the vendor must be named.
* ``sg_read_buffer --inhex`` decodes the error history directory from sg3_utils 1.47 (1.46 prints it
  in hex); ``sg_rep_density`` exists from 1.47 (both run here on a build of the current tree).
  ``sg_opcodes --inhex`` exists from 1.48, but it names the opcodes as a disk's whatever ``--pdt``
  says (01h "Rezero Unit", 1Bh "Start stop unit"; seen on that build): it is named in the note, and
  tapediag's decode is the file's decode.
* Nothing in sg3_utils reads a READ BLOCK LIMITS answer from a file, and stenc reads the encryption
  pages only from a device (``stenc -f DEVICE``), never from a file.
"""
from __future__ import annotations

from dataclasses import dataclass
from fnmatch import fnmatch

from native.scsi.vendorlogs import HP, IBM

#: Vendor log pages sg_logs has a layout for (the rest it names only).
SG_LOGS_DECODES = frozenset({0x30, 0x31, 0x32})
#: (family, page) where sg_logs' LTO table names the page wrongly for that vendor.
SG_LOGS_WRONG = {(HP, 0x34): "sg_logs would call it IBM's 'Read forward errors'; on an HPE drive it is HP's "
                             "performance page"}


@dataclass(frozen=True)
class Decode:
    """How one file is decoded: ``command`` (run in the unpacked folder; "" when no tool reads the file),
    what it shows or why there is none, the sg3_utils release it needs, and tapediag's own decode beside it."""

    command: str
    shows: str
    needs: str = ""
    tapediag: str = ""  # a file in the zip, "" when the command decodes every field


@dataclass(frozen=True)
class _Rule:
    pattern: str  # fnmatch pattern on the capture's name
    command: str  # "{file}" is the file's name in the zip
    shows: str
    needs: str = ""
    tapediag: bool = False  # tapediag writes its own decode, ``<name>.txt``


_RULES = (
    _Rule("inquiry", "sg_inq --inhex={file}", "the standard INQUIRY data (device type 1: tape)"),
    _Rule("vpd/page_*", "sg_vpd --inhex={file}", "the VPD page (its header carries the device type)"),
    _Rule("mode/*", "sdparm --pdt=1 --all --inhex={file}",
          "every mode page's fields; --pdt=1, or page 10h is read as a disk's XOR control page"),
    _Rule("mam/attributes", "sg_read_attr --in={file}", "the cartridge memory (MAM) attributes"),
    _Rule("density/*", "sg_rep_density --inhex={file}", "the density descriptors", "sg3_utils 1.47 or later", True),
    _Rule("opcodes/all", "", "sg_opcodes reads no file before sg3_utils 1.48; from 1.48 'sg_opcodes --inhex={file} "
                             "--rctd' gives the opcodes and timeouts right but names 01h and 1Bh after a disk's "
                             "commands ('Rezero Unit', 'Start stop unit': REWIND and LOAD UNLOAD here), --pdt=1 or not",
          tapediag=True),
    _Rule("request_sense", "sg_decode_sense --file={file}", "the sense data"),
    _Rule("error_history/directory", "sg_read_buffer --inhex={file} --mode=err_hist", "the error history directory",
          "sg3_utils 1.47 or later (1.46 prints it in hex)", True),
    _Rule("read_block_limits", "", "no tool reads this answer from a file (sg_read_block_limits asks a device)",
          tapediag=True),
    _Rule("encryption/*", "", "no tool reads these pages from a file (stenc -f DEVICE asks the drive itself)",
          tapediag=True),
    _Rule("error_history/buffer_*", "", "vendor-specific contents (SPC-4 buffer format 00h), as the drive sent them: "
                                        "for the vendor's own tools"),
    _Rule("dump/descriptor", "", "READ BUFFER descriptor: byte 0 offset boundary, bytes 1-3 the dump's size"),
    _Rule("dump/drive_dump", "", "the drive's dump in the vendor's own format, as the drive sent it: for the "
                                 "vendor's own tools"),
)


def _log_decode(code: int, family: str | None) -> Decode:
    """A log page's command: the SSC/SPC pages with --pdt=1; the vendor pages by family."""
    standard = "sg_logs --pdt=1 --inhex={file}"
    if code < 0x30:
        return Decode(standard, "every field (--pdt=1, or 0Ch 11h 16h 17h are read as a disk's pages)")
    wrong = SG_LOGS_WRONG.get((family or "", code))
    if wrong is not None:
        return Decode("", f"no sg3_utils layout: {wrong}", tapediag="{name}.txt")
    if family not in (HP, IBM):
        return Decode("", "no sg3_utils layout: a vendor page of a drive whose layouts sg_logs does not know",
                      tapediag="{name}.txt")
    if code in SG_LOGS_DECODES:
        return Decode("sg_logs --pdt=1 -M lto5 --inhex={file}", "every field (sg_logs' LTO vendor layout)")
    return Decode("", "no public parameter layout: sg_logs -M lto5 names the page and prints 'Unable to decode'",
                  tapediag="{name}.txt")


def decode_for(name: str, file: str, family: str | None) -> Decode:
    """The decode of the capture ``name`` saved as ``file``, for a drive of vendor ``family``."""
    if name.startswith("log/page_"):
        found = _log_decode(int(name[len("log/page_"):-1], 16), family)
    else:
        rule = next((r for r in _RULES if fnmatch(name, r.pattern)), None)
        if rule is None:
            return Decode("", "no decoder known")
        found = Decode(rule.command, rule.shows, rule.needs, "{name}.txt" if rule.tapediag else "")
    return Decode(found.command.format(file=file), found.shows.format(file=file), found.needs,
                  found.tapediag.format(name=name))
