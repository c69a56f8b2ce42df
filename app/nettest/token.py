"""The one-time token that lets one client start one test session on a server.

The server makes a fresh token when it starts and prints it on its own console only;
the technician carries it to the client. 16 characters of Crockford's base 32 (80
bits; no I, L, O or U, so it survives being read aloud or typed from a photo), shown in
groups of four. Dashes, spaces and case do not matter when it is typed back. The server
compares in constant time (``hmac.compare_digest``) and gives up after a few wrong
tokens, so guessing is hopeless; the token is spent by the session it opens.

How the client gets it, in order (``read_token``), and what each costs:

* ``--token-file FILE`` (first line): not visible to other users, scriptable; the file
  must be kept private (and removed after) by whoever wrote it;
* ``TAPEDIAG_NET_TOKEN``: scriptable; on Linux other users cannot read a process's
  environment (``/proc/PID/environ`` is the owner's and root's only), but the shell's
  history may keep it if it was typed as ``VAR=... command``;
* a prompt on the terminal (not echoed): leaves no trace, but needs a person there.

``tapediag net-test --token TOKEN`` works too, and is the least safe: ``ps`` shows every
user of the machine a process's arguments for as long as it runs (the command says so).

In memory the token is a ``Token``: its ``repr`` and ``str`` hide it, so a parameters object,
an error or a log line that shows one never shows the secret; ``reveal()`` is the one way in.
"""
from __future__ import annotations

import getpass
import hmac
import os
import secrets
import sys
from pathlib import Path
from typing import Callable, Mapping

from native.errors import InvalidParameter

ALPHABET = "0123456789ABCDEFGHJKMNPQRSTVWXYZ"  # Crockford's base 32
LENGTH = 16
GROUP = 4
ENV = "TAPEDIAG_NET_TOKEN"
#: The longest token the wire format carries (``app.nettest.protocol``); a typed token is normalised first.
MAX_WIRE = 64


class Token:
    """The client's token as it is held (module docstring): ``reveal()`` gives it, nothing else shows it."""

    __slots__ = ("_text",)

    def __init__(self, text: str) -> None:
        self._text = text

    def reveal(self) -> str:
        return self._text

    def __repr__(self) -> str:
        return "Token(hidden)"

    __str__ = __repr__


def new_token() -> str:
    """A fresh token as it is shown: ``7KQ4-M2XP-9DTR-H3WC``."""
    raw = "".join(secrets.choice(ALPHABET) for _ in range(LENGTH))
    return "-".join(raw[i:i + GROUP] for i in range(0, LENGTH, GROUP))


def normalise(text: str) -> bytes:
    """The token as compared and sent: upper case, without dashes or blanks; O/I/L read as 0/1/1
    (Crockford's rule: what a person may mistype)."""
    cleaned = "".join(ch for ch in text.upper() if ch not in "- \t\r\n")
    cleaned = cleaned.translate(str.maketrans("OIL", "011"))
    return cleaned.encode("ascii", "replace")[:MAX_WIRE]


def matches(given: bytes, expected: str) -> bool:
    """Constant-time comparison of a token from the wire with the server's."""
    return hmac.compare_digest(normalise(given.decode("ascii", "replace")), normalise(expected))


def read_token(token_file: str | None = None, environ: Mapping[str, str] = os.environ,
               prompt: Callable[[str], str] | None = None, interactive: bool | None = None,
               given: str | None = None) -> str:
    """The client's token: ``given`` (the ``--token`` option), else from ``token_file``, else
    ``TAPEDIAG_NET_TOKEN``, else a prompt on a terminal."""
    if given is not None:
        text = given
    elif token_file:
        try:
            lines = Path(token_file).read_text(encoding="utf-8", errors="replace").splitlines()
        except OSError as err:
            raise InvalidParameter(f"cannot read the token file {token_file}: {err.strerror or err}") from None
        text = lines[0] if lines else ""
    elif environ.get(ENV, "").strip():
        text = environ[ENV]
    else:
        if interactive is None:
            interactive = sys.stdin is not None and sys.stdin.isatty()
        if not interactive:
            raise InvalidParameter("no token given", hint=f"use --token-file FILE, set {ENV}, or run on a terminal "
                                                          "to be asked for the token net-serve printed")
        text = (prompt or getpass.getpass)("token printed by net-serve: ")
    if not normalise(text):
        raise InvalidParameter("the token is empty", hint="type the token net-serve printed, e.g. 7KQ4-M2XP-9DTR-H3WC")
    return text.strip()
