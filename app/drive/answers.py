"""What a device answered to a query it may not implement: ``Supported(value)`` or ``Unsupported(reason)``.

"Not supported" is one rule (``is_not_supported``): the ILLEGAL REQUEST a device gives for a command or
a field it lacks (ASC 20h invalid opcode, 24h invalid field in CDB, 26h invalid field in the parameter
list). Anything else it answers is an error, not a missing feature: a medium error is not "unsupported".
"""
from __future__ import annotations

from dataclasses import dataclass
from typing import Callable, Generic, TypeVar, Union

from native.errors import IllegalRequest

T = TypeVar("T")

# ASCs meaning "the device does not implement this" (invalid opcode, invalid
# field in CDB / parameter list).
_NOT_SUPPORTED_ASC = (0x20, 0x24, 0x26)

NOT_SUPPORTED = "not supported by this device"


def is_not_supported(err: BaseException) -> bool:
    """True for the ILLEGAL REQUEST a device gives for a command or field it lacks."""
    if not isinstance(err, IllegalRequest):
        return False
    sense = err.sense
    return sense is None or sense.asc in _NOT_SUPPORTED_ASC


@dataclass(frozen=True)
class Supported(Generic[T]):
    """A value the device provided."""

    value: T
    supported: bool = True

    def __bool__(self) -> bool:
        return True


@dataclass(frozen=True)
class Unsupported:
    """Marker for "the device does not implement this"; ``reason`` is shown to the user."""

    reason: str = NOT_SUPPORTED
    supported: bool = False
    value: None = None

    def __bool__(self) -> bool:
        return False


Maybe = Union[Supported[T], Unsupported]


def supported(fn: Callable[..., T], *args: object, **kwargs: object) -> "Maybe[T]":
    """Call ``fn``; an ILLEGAL REQUEST 20/xx or 24/xx becomes ``Unsupported``.

    Other errors propagate: a medium error is not "unsupported".
    """
    try:
        return Supported(fn(*args, **kwargs))
    except IllegalRequest as err:
        if is_not_supported(err):
            return Unsupported()
        raise

