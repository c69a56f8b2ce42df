"""Remembered iSCSI targets: the ones a technician added with ``--add-iscsi``.

iSCSI drives cannot be discovered from the OS (we use no kernel initiator), so the
user names them once and ``tapediag devices`` lists them from then on. Kept as a
small JSON file in ``data_dir()`` so it is readable, diffable and survives upgrades;
written atomically (temp file + rename) so a crash never leaves half a file.

CHAP secrets live only here (the file is created mode 600, inside a 700 data
directory): a target remembered as ``iscsi://user%secret@host/...`` is shown and used
everywhere else as ``iscsi://user@host/...``, and its secret is looked up from this
file when that form is opened. ``chap_secret_for`` is the one place that decides
where a secret comes from; none of the ways puts it on a command line.
"""
from __future__ import annotations

import os
import sys
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import TYPE_CHECKING

from urllib.parse import quote

from native.errors import InvalidParameter, ParseError
from native.iscsi_url import DEFAULT_PORT, IscsiUrl, display_device
from native.paths import data_dir

if TYPE_CHECKING:  # what only adding or discovering targets needs is imported there: `devices` starts faster
    from native.iscsi_discovery import DiscoveredTarget
    from native.transport import Transport

FILE_NAME = "iscsi_targets.json"
#: Environment variable holding a CHAP secret (for scripts; not shown by ``ps``).
SECRET_ENV = "TAPEDIAG_CHAP_SECRET"
#: Environment variable naming a file whose first line is the CHAP secret.
SECRET_FILE_ENV = "TAPEDIAG_CHAP_SECRET_FILE"

_secret_file: Path | None = None  # set by the CLI's --chap-secret-file


@dataclass(frozen=True)
class RememberedTarget:
    """An iSCSI target a technician added with ``devices --add-iscsi``, as the targets file keeps it."""

    url: str
    added: str  # ISO 8601, UTC

    def to_dict(self) -> dict[str, str]:
        return asdict(self)

    @property
    def display(self) -> str:
        """The URL as shown and recorded: without the CHAP secret."""
        return display_device(self.url)


def _path() -> Path:
    return data_dir() / FILE_NAME


def list_targets() -> list[RememberedTarget]:
    """The remembered targets, oldest first ([] when none were added)."""
    path = _path()
    if not path.exists():
        return []
    import json  # here: ``devices`` lists the targets on every run, most often without a file (issue 32 §3)

    try:
        raw = json.loads(path.read_text(encoding="utf-8"))
        return [RememberedTarget(str(item["url"]), str(item.get("added", ""))) for item in raw["targets"]]
    except (ValueError, KeyError, TypeError) as err:
        raise ParseError(f"{path} is damaged ({err}); fix or delete it") from None


def _save(targets: list[RememberedTarget]) -> None:
    import json

    path = _path()
    payload = json.dumps({"targets": [t.to_dict() for t in targets]}, indent=2) + "\n"
    import tempfile

    fd, tmp = tempfile.mkstemp(prefix=FILE_NAME, dir=path.parent)
    try:
        with os.fdopen(fd, "w", encoding="utf-8") as handle:
            handle.write(payload)
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def use_secret_file(path: str | Path | None) -> None:
    """Read CHAP secrets from ``path`` (the CLI's ``--chap-secret-file``)."""
    global _secret_file
    _secret_file = Path(path) if path else None


def _read_secret_file(path: Path) -> str:
    try:
        text = path.read_text(encoding="utf-8")
    except (OSError, UnicodeError) as err:
        reason = getattr(err, "strerror", None) or "not UTF-8 text"
        raise InvalidParameter(f"cannot read the CHAP secret file {path}: {reason}") from None
    secret = text.splitlines()[0].strip() if text.strip() else ""
    if not secret:
        raise InvalidParameter(f"the CHAP secret file {path} is empty")
    return secret


def _same_target(a: IscsiUrl, b: IscsiUrl) -> bool:
    return (a.host.lower(), a.port, a.target, a.lun, a.user) == (b.host.lower(), b.port, b.target, b.lun, b.user)


def _remembered_secret(url: IscsiUrl) -> str | None:
    for entry in list_targets():
        try:
            known = IscsiUrl.parse(entry.url)
        except InvalidParameter:
            continue
        if known.password and _same_target(known, url):
            return known.password
    return None


def _given_secret(url: IscsiUrl, display: str) -> str | None:
    """A secret given for this run: environment, secret file, or a prompt on a terminal."""
    if os.environ.get(SECRET_ENV):
        return os.environ[SECRET_ENV]
    path = _secret_file or (Path(os.environ[SECRET_FILE_ENV]) if os.environ.get(SECRET_FILE_ENV) else None)
    if path is not None:
        return _read_secret_file(path)
    if sys.stdin is not None and sys.stdin.isatty():
        try:
            import getpass

            return getpass.getpass(f"CHAP secret for {display}: ") or None
        except EOFError:
            return None
    return None


def chap_secret_for(device: str) -> str | None:
    """The CHAP secret to log in to ``device`` with; None when it needs none.

    In order: the secret in the string itself (accepted, though it shows in ``ps``);
    the remembered target with the same portal, target, LUN and user; the
    TAPEDIAG_CHAP_SECRET environment variable; the --chap-secret-file (or
    TAPEDIAG_CHAP_SECRET_FILE); a prompt when run on a terminal. A user with no secret
    from any of these is bad input (one line), not a failed login.
    """
    if not device.startswith("iscsi://"):
        return None
    url = IscsiUrl.parse(device)
    if not url.user:
        return None
    secret = url.password or _remembered_secret(url) or _given_secret(url, display_device(device))
    if not secret:
        raise InvalidParameter(f"no CHAP secret for {display_device(device)}",
                               hint=f"set {SECRET_ENV}, use --chap-secret-file FILE, or remember the target "
                               "with 'tapediag devices --add-iscsi'")
    return secret


def open_device(device: str) -> "Transport":
    """The transport behind ``device``, opened with its CHAP secret (``chap_secret_for``): the one way
    tapediag opens a device it names (drive, changer, ticket, discovery)."""
    from native import open_transport

    return open_transport(device, chap_secret=chap_secret_for(device))


def add_target(url: str) -> RememberedTarget:
    """Remember ``url`` (validated, not contacted). Adding it twice keeps one entry.

    ``iscsi://user@host/...`` takes its secret from the environment, the secret file
    or a prompt (``chap_secret_for``), and the file keeps it; the entry with the
    secret replaces an older one for the same target and user.
    """
    url = url.strip()
    parsed = IscsiUrl.parse(url)  # InvalidParameter for a malformed string
    if parsed.user and not parsed.password:
        secret = _given_secret(parsed, display_device(url)) or _remembered_secret(parsed)
        if not secret:
            raise InvalidParameter(f"no CHAP secret for {display_device(url)}",
                                   hint=f"set {SECRET_ENV}, use --chap-secret-file FILE, or give it at the prompt")
        url = _with_secret(url, secret)
    targets = list_targets()
    for existing in targets:
        if existing.url == url:
            return existing
    kept = [t for t in targets if t.display != display_device(url)]
    from datetime import datetime, timezone

    entry = RememberedTarget(url, datetime.now(timezone.utc).isoformat(timespec="seconds"))
    _save([*kept, entry])
    return entry


def _with_secret(url: str, secret: str) -> str:
    """``iscsi://user@host/...`` + secret -> ``iscsi://user%secret@host/...`` (libiscsi's syntax)."""
    if "/" in secret or not secret.isprintable():
        raise InvalidParameter("this CHAP secret cannot be remembered (it holds '/' or a control character)",
                               hint="give it for each run instead (TAPEDIAG_CHAP_SECRET or --chap-secret-file)")
    head = "iscsi://"
    user, _, rest = url[len(head):].partition("@")
    return f"{head}{user}%{secret}@{rest}"


def remove_target(url: str) -> None:
    """Forget ``url`` (with or without its secret); InvalidParameter if it was never remembered."""
    url = url.strip()
    targets = list_targets()
    kept = [t for t in targets if t.url != url and t.display != display_device(url)]
    if len(kept) == len(targets):
        raise InvalidParameter(f"{display_device(url)} is not a remembered iSCSI target", hint="see 'tapediag devices'")
    _save(kept)


# -- adding a target from its parts (the GUI's "Add iSCSI target" dialog) ----------------
def target_url(host: str, port: int | str, iqn: str, lun: int | str, user: str = "", secret: str = "") -> str:
    """The device string for a portal, target name and LUN (and CHAP user/secret).

    One rule for what the dialog's fields make, checked as ``IscsiUrl.parse`` checks a
    typed string: InvalidParameter names the field that is wrong. The secret goes into
    the string only as libiscsi's ``user%secret@`` form, which ``display_device``
    strips everywhere it is shown.
    """
    host, iqn, user = host.strip(), iqn.strip(), user.strip()
    if host.startswith("[") and host.endswith("]"):
        host = host[1:-1]
    if not host:
        raise InvalidParameter("the host (the portal's address) is empty")
    port_n = _port(port)
    if not 0 < port_n < 65536:
        raise InvalidParameter(f"the port {port_n} is not a TCP port (1-65535)")
    if not iqn:
        raise InvalidParameter("the target name (IQN) is empty", hint="use Discover to list the portal's targets")
    if any(ch.isspace() for ch in iqn) or "/" in iqn:
        raise InvalidParameter(f"'{iqn[:80]}' is not an iSCSI target name (no spaces or '/')")
    try:
        lun_n = int(str(lun).strip())
    except ValueError:
        raise InvalidParameter(f"the LUN '{lun}' is not a number") from None
    if not 0 <= lun_n < 16384:
        raise InvalidParameter(f"the LUN {lun_n} is out of range (0-16383)")
    if secret and not user:
        raise InvalidParameter("a CHAP secret needs its CHAP user name")
    authority = f"[{host}]" if ":" in host else host
    url = f"iscsi://{quote(user, safe='') + '@' if user else ''}{authority}:{port_n}/{iqn}/{lun_n}"
    IscsiUrl.parse(url)  # host, LUN range: the same checks as a typed device string
    return _with_secret(url, secret) if user and secret else url


def discover_targets(host: str, port: int | str, user: str = "", secret: str = "") -> list[DiscoveredTarget]:
    """SendTargets discovery at the portal: the target names it offers this initiator."""
    from native.iscsi_discovery import send_targets

    host = host.strip().strip("[]")
    if not host:
        raise InvalidParameter("the host (the portal's address) is empty")
    return send_targets(host, _port(port), user=user.strip() or None, secret=secret or None)


def _port(port: int | str) -> int:
    """The portal's TCP port as typed (empty: iSCSI's 3260); text that is no number is one line."""
    try:
        return int(str(port).strip() or DEFAULT_PORT)
    except ValueError:
        raise InvalidParameter(f"the port '{port}' is not a number") from None


@dataclass(frozen=True)
class TargetCheck:
    """What a test connection to a target found, for the question before saving it."""

    device: str  # as shown: no CHAP secret
    vendor: str
    product: str
    peripheral_type: int
    type_name: str

    @property
    def is_tape(self) -> bool:
        return self.peripheral_type == 0x01


def check_target(url: str) -> TargetCheck:
    """Log in to ``url`` and send INQUIRY (nothing else): does a drive answer there?

    Raises the transport's one-line error (``DeviceNotFound`` for a portal that does not
    answer or a login that is refused).
    """
    from native.errors import DeviceError
    from native.scsi.cdb import inquiry
    from native.scsi.inquiry import Inquiry, device_type_name

    # One INQUIRY straight on the transport: what answers there may not be a tape drive (``app.drive`` opens tapes,
    # and opening one asks this module for the CHAP secret).
    with open_device(url) as transport:
        result = transport.execute(inquiry(96), data_in=96, timeout=10)
    if not result.good:
        raise DeviceError(f"{display_device(url)} did not answer INQUIRY (status 0x{result.status:02X})",
                          device=display_device(url))
    inq = Inquiry.parse(bytes(result.data))
    return TargetCheck(display_device(url), inq.vendor, inq.product, inq.device_type,
                       device_type_name(inq.device_type))
