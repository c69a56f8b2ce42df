"""iSCSI SendTargets discovery: which targets a portal offers, over libiscsi.

A technician adding an iSCSI drive knows the portal (host and port) but rarely the
target's IQN by heart. A discovery session (RFC 7143 §4.3, ``SendTargets=All``) asks
the portal for the names it will let this initiator log in to. It sends no SCSI
command to any LUN, so it is safe against any target.

Kept beside ``native.iscsi`` (which owns normal sessions) and using the same library
binding; the discovery prototypes are declared here, where they are used.
"""
from __future__ import annotations

import ctypes
import socket
from dataclasses import dataclass

from native import _iscsi_lib
from native.errors import DeviceNotFound, InvalidParameter, TransportError
from native.iscsi import DEFAULT_PORT, LOGIN_TIMEOUT, IscsiUrl, initiator_name

SESSION_DISCOVERY = 1


class _TargetPortal(ctypes.Structure):
    pass


_TargetPortal._fields_ = [("next", ctypes.POINTER(_TargetPortal)), ("portal", ctypes.c_char_p)]


class _DiscoveryAddress(ctypes.Structure):
    pass


_DiscoveryAddress._fields_ = [
    ("next", ctypes.POINTER(_DiscoveryAddress)),
    ("target_name", ctypes.c_char_p),
    ("portals", ctypes.POINTER(_TargetPortal)),
]

_PROTOTYPES: dict[str, tuple[object, list[object]]] = {
    "iscsi_connect_sync": (ctypes.c_int, [ctypes.c_void_p, ctypes.c_char_p]),
    "iscsi_login_sync": (ctypes.c_int, [ctypes.c_void_p]),
    "iscsi_discovery_sync": (ctypes.c_void_p, [ctypes.c_void_p]),
    "iscsi_free_discovery_data": (None, [ctypes.c_void_p, ctypes.c_void_p]),
    "iscsi_disconnect": (ctypes.c_int, [ctypes.c_void_p]),
}


@dataclass(frozen=True)
class DiscoveredTarget:
    """One target a portal offers: its IQN and the portals (``host:port,tpgt``) it listed."""

    iqn: str
    portals: tuple[str, ...]


def _bind() -> ctypes.CDLL:
    binding = _iscsi_lib.load()
    lib = binding.lib
    for name, (restype, argtypes) in _PROTOTYPES.items():
        try:
            func = getattr(lib, name)
        except AttributeError:
            raise TransportError(f"the installed libiscsi ({binding.path}) lacks {name}: "
                                 "SendTargets discovery is not possible") from None
        func.restype = restype
        func.argtypes = argtypes
    return lib


def send_targets(host: str, port: int = DEFAULT_PORT, *, user: str | None = None, secret: str | None = None,
                 login_timeout: int = LOGIN_TIMEOUT) -> list[DiscoveredTarget]:
    """The targets the portal at ``host:port`` offers (SendTargets=All), in its order.

    ``user``/``secret``: CHAP for the discovery session, when the portal asks for it.
    ``DeviceNotFound`` (one line, naming the portal) when nothing answers or the login
    is refused; ``InvalidParameter`` for a malformed host or port.
    """
    # The host and port are checked the way a device string's are (before any lookup).
    probe = IscsiUrl.parse(f"iscsi://{_bracket(host)}:{port}/iqn.x/0") if 0 < port < 65536 else None
    if probe is None:
        raise InvalidParameter(f"port {port} is not a TCP port (1-65535)")
    portal = probe.portal
    if user and not secret:
        raise InvalidParameter(f"no CHAP secret for user '{user}'", hint="type the secret, or leave the user empty")
    lib = _bind()
    ctx = lib.iscsi_create_context(initiator_name().encode())
    if not ctx:
        raise TransportError("libiscsi could not create a context", device=portal)
    try:
        lib.iscsi_set_session_type(ctx, SESSION_DISCOVERY)
        lib.iscsi_set_header_digest(ctx, _iscsi_lib.HEADER_DIGEST_NONE)
        lib.iscsi_set_noautoreconnect(ctx, 1)
        lib.iscsi_set_tcp_syncnt(ctx, 2)  # an unreachable host fails in seconds, not minutes
        lib.iscsi_set_timeout(ctx, login_timeout)
        if user:
            lib.iscsi_set_initiator_username_pwd(ctx, user.encode(), (secret or "").encode())
        if lib.iscsi_connect_sync(ctx, portal.encode()) != 0:
            raise _unreachable(probe, _error(lib, ctx), login_timeout)
        if lib.iscsi_login_sync(ctx) != 0:
            raise DeviceNotFound(f"the iSCSI portal {portal} refused the discovery login: {_error(lib, ctx)}",
                                 device=portal, hint="check the CHAP user and secret, and the portal's access list")
        found = lib.iscsi_discovery_sync(ctx)
        if not found:
            reason = _error(lib, ctx)
            if "timed out" in reason.lower() or "timeout" in reason.lower():
                raise DeviceNotFound(f"no SendTargets answer from {portal} within {login_timeout} s", device=portal)
            # An empty answer is also reported as NULL by some libiscsi versions: no targets.
            lib.iscsi_logout_sync(ctx)
            return []
        try:
            targets = _walk(ctypes.cast(found, ctypes.POINTER(_DiscoveryAddress)))
        finally:
            lib.iscsi_free_discovery_data(ctx, found)
        lib.iscsi_logout_sync(ctx)
        return targets
    finally:
        lib.iscsi_destroy_context(ctx)


def _walk(node: "ctypes._Pointer[_DiscoveryAddress]") -> list[DiscoveredTarget]:
    out: list[DiscoveredTarget] = []
    while node:
        entry = node.contents
        portals: list[str] = []
        p = entry.portals
        while p:
            portals.append((p.contents.portal or b"").decode(errors="replace"))
            p = p.contents.next
        out.append(DiscoveredTarget((entry.target_name or b"").decode(errors="replace"), tuple(portals)))
        node = entry.next
    return out


def _bracket(host: str) -> str:
    return f"[{host}]" if ":" in host and not host.startswith("[") else host


def _error(lib: ctypes.CDLL, ctx: int) -> str:
    msg = lib.iscsi_get_error(ctx)
    return (msg or b"unknown error").decode(errors="replace").strip()


def _unreachable(url: IscsiUrl, reason: str, login_timeout: int) -> DeviceNotFound:
    """libiscsi's words for a failed TCP connect help nobody; ask the OS why, once."""
    why = reason
    try:
        with socket.create_connection((url.host, url.port), timeout=login_timeout):
            pass
    except TimeoutError:
        why = "timed out"
    except OSError as err:
        why = err.strerror or str(err)
    return DeviceNotFound(f"no iSCSI target answers at {url.portal}: {why}", device=url.portal,
                          hint="check the address and port, and that the target service is running")
