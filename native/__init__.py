"""How commands reach a device: OS pass-through, iSCSI, the virtual drive.

``open_transport(device)`` is the one place that chooses an implementation from the
device string; the modules behind it are imported lazily so a missing library only
matters for the transport that needs it.
"""
from __future__ import annotations

import re
from typing import TYPE_CHECKING, Any

from native.errors import DeviceNotFound, InvalidParameter

if TYPE_CHECKING:
    from native.transport import Transport

_PASS_THROUGH = re.compile(r"^(/dev/(sg|nst|st)\d+|\\\\\.\\Tape\d+|Tape\d+)$", re.IGNORECASE)


def device_kind(device: str) -> str:
    """'virtual', 'null', 'iscsi' or 'passthrough' for a device string; InvalidParameter otherwise."""
    if device.startswith("virtual:null"):
        return "null"
    if device.startswith("virtual:library"):
        return "library"
    if device.startswith("virtual:"):
        return "virtual"
    if device.startswith("iscsi://"):
        return "iscsi"
    if _PASS_THROUGH.match(device):
        return "passthrough"
    raise InvalidParameter(
        f"'{device}' is not a device tapediag understands",
        hint="use /dev/sgN or /dev/nstN (Linux), \\\\.\\TapeN (Windows), "
        "iscsi://host[:port]/iqn/lun, or virtual:lto5 ... virtual:lto10",
    )


def open_transport(device: str, *, chap_secret: str | None = None) -> Transport:
    """Open the transport the device string names; ``chap_secret`` is for iSCSI CHAP only."""
    kind = device_kind(device)
    if kind == "null":
        from native.null import NullTransport

        return NullTransport(device)
    if kind == "library":
        from native.virtual.library import open_library

        return open_library(device)
    if kind == "virtual":
        from native.virtual import open_virtual

        return open_virtual(device)
    if kind == "iscsi":
        from native.iscsi import IscsiTransport

        return IscsiTransport(device, chap_secret=chap_secret)
    if kind == "passthrough":
        from native.sgpt import PassThroughTransport

        return PassThroughTransport(device)
    raise DeviceNotFound(f"no transport for {device}", device=device)  # pragma: no cover


__all__ = ["open_transport", "device_kind", "Transport"]


if not TYPE_CHECKING:  # hidden from mypy, which checks the name against the import above
    def __getattr__(name: str) -> Any:
        """``Transport`` on first use (PEP 562): every module of ``native`` imports this package first, and
        ``tapediag --version`` and ``--help`` (``native.errors``) need no transport (issue 32 §3)."""
        if name != "Transport":
            raise AttributeError(f"module {__name__!r} has no attribute {name!r}")
        from native.transport import Transport

        return Transport

