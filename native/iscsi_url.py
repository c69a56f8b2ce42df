"""``iscsi://`` device strings: parsing, checking and the form that may be shown (no CHAP secret).

Split from ``native.iscsi`` so that code which only names, shows or remembers iSCSI devices
(the drive object, the history, ``tapediag devices``) does not import the libiscsi binding:
start-up cost (issue 13.4). ``native.iscsi`` re-exports the public names.

Syntax: ``iscsi://[user[%password]@]host[:port]/target-iqn/lun``, libiscsi's own URL syntax,
target names URL-encoded (``%3A`` for ``:``). Port defaults to 3260.
"""
from __future__ import annotations

import ipaddress
import re
from dataclasses import dataclass, field
from urllib.parse import unquote

from native.errors import InvalidParameter

DEFAULT_PORT = 3260

#: Longest host name DNS allows (RFC 1035: 253 characters in text, labels of 1-63).
MAX_HOST = 253
_LABEL = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_-]{0,61}[A-Za-z0-9_])?$")


def _authority_split(rest: str) -> tuple[str | None, str]:
    """``user%secret@host:port/...`` -> (``user%secret``, ``host:port/...``).

    The credentials end at the *last* ``@`` before the first ``/``: a host never
    contains ``@``, a secret might.
    """
    authority, slash, path = rest.partition("/")
    cred, at, host = authority.rpartition("@")
    return (cred, host + slash + path) if at else (None, rest)


def display_device(device: str) -> str:
    """The form of a device string that may be shown or recorded: no CHAP secret.

    ``iscsi://user%secret@host/iqn/1`` -> ``iscsi://user@host/iqn/1``; every other
    string is returned unchanged. This is the one place that decides what of a device
    string leaves the process (terminal, GUI, history, reports, error messages); the
    secret itself stays in the transport and in the remembered-targets file (mode 600).
    Never raises: it also cleans strings that are not valid device strings.
    """
    if not device[:8].lower() == "iscsi://":
        return device
    cred, rest = _authority_split(device[8:])
    if cred is None:
        return device
    user = cred.partition("%")[0]
    return f"{device[:8]}{user}@{rest}" if user else f"{device[:8]}{rest}"


#: An iSCSI device string inside any text, up to its path: what ``scrub`` cleans and ``has_secret`` finds.
_IN_TEXT = re.compile(r"iscsi://[^\s/]+", re.IGNORECASE)


def scrub(text: str) -> str:
    """``text`` with every iSCSI device string in it shown as ``display_device`` shows it: an error
    line that quotes a command line (argparse's "unrecognized arguments: ...") never shows a secret."""
    return _IN_TEXT.sub(lambda m: display_device(m.group(0) + "/")[:-1], text)


def has_secret(text: str) -> bool:
    """Whether ``text`` holds an iSCSI device string with a CHAP secret in it."""
    return any(display_device(m.group(0) + "/") != m.group(0) + "/" for m in _IN_TEXT.finditer(text))


def _check_host(host: str, bad: InvalidParameter) -> None:
    """A host name or address libiscsi and the resolver can take, checked before any lookup.

    The resolver's IDNA codec raises UnicodeError on a label over 63 characters
    (issue 14.10); a bad name is bad input, said in one line.
    """
    if len(host) > MAX_HOST:
        raise InvalidParameter(f"the iSCSI host name is {len(host)} characters long (at most {MAX_HOST})",
                               hint="use the target's IP address or host name")
    try:
        ipaddress.ip_address(host)
        return
    except ValueError:
        pass
    labels = host[:-1].split(".") if host.endswith(".") else host.split(".")
    if not all(_LABEL.match(label) for label in labels):
        raise InvalidParameter(f"'{host[:64]}' is not a valid host name or IP address "
                               "(letters, digits and '-', labels of 1-63 characters)",
                               hint=bad.hint)


@dataclass(frozen=True)
class IscsiUrl:
    """A parsed ``iscsi://`` device string."""

    host: str
    port: int
    target: str
    lun: int
    user: str | None = None
    password: str | None = field(default=None, repr=False)  # a CHAP secret: never in a repr or traceback

    @property
    def portal(self) -> str:
        host = f"[{self.host}]" if ":" in self.host else self.host
        return f"{host}:{self.port}"

    @classmethod
    def parse(cls, url: str) -> "IscsiUrl":
        bad = InvalidParameter(
            f"'{display_device(url)[:300]}' is not an iSCSI device string",
            hint="use iscsi://host[:port]/target-iqn/lun, e.g. iscsi://127.0.0.1/iqn.2004-04.com.example:tape/1",
        )
        if not url.startswith("iscsi://"):
            raise bad
        cred, rest = _authority_split(url[len("iscsi://"):])
        user = password = None
        if cred is not None:
            user, _, pw = cred.partition("%")
            password = pw or None
            if not user:
                raise bad
        parts = rest.split("/")
        if len(parts) != 3 or not all(parts):
            raise bad
        hostport, target, lun_text = parts
        host, port_text = hostport, ""
        if hostport.startswith("["):  # [v6]:port
            host, _, tail = hostport[1:].partition("]")
            port_text = tail[1:] if tail.startswith(":") else ""
        elif ":" in hostport:
            host, _, port_text = hostport.rpartition(":")
        try:
            port = int(port_text) if port_text else DEFAULT_PORT
            lun = int(lun_text)
        except ValueError:
            raise bad from None
        if not host or not 0 < port < 65536 or not 0 <= lun < 16384:
            raise bad
        _check_host(host, bad)
        return cls(host, port, unquote(target), lun, user, password)
