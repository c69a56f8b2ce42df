"""Erase a cartridge as IBM ITDT and HPE L&TT offer it (issue 30 §3): short (end of data at BOT) or long (the whole tape).

``Erase(drive, EraseParams(long=...)).run(sink, cancel)`` returns an ``EraseResult``. The safety rules are
the tape test's (``app.tapeperf.safety``): never write-protected or WORM media, a cartridge holding data
(LTFS named as such) only with the confirmation a data overwrite needs, nothing in a read-only session.
The run kind is ``app.erase.kind.ERASE`` (``tapediag erase DEVICE --short|--long``); ``check_cartridge`` is what
a confirmation shows before it asks.
"""
from app.erase.engine import Erase, EraseCheck, check_cartridge
from app.erase.params import EraseParams
from app.erase.result import EraseResult

__all__ = ["Erase", "EraseCheck", "EraseParams", "EraseResult", "check_cartridge"]
