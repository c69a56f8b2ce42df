"""Stub of the C per-command path of the iSCSI transport (native/src/_iscsi_cmd.c)."""
from typing import Callable

from typing_extensions import Buffer

#: ``watch(opcode, seconds) -> give the command up?`` (native.transport.Watch)
_Watch = Callable[[int, float], bool]

class Runner:
    def __init__(self, create_task: int, add_data_out: int, add_data_in: int, command_sync: int, free_task: int,
                 off_status: int, off_residual_status: int, off_residual: int, off_datain_size: int,
                 off_datain_data: int, command_async: int = 0, get_fd: int = 0, which_events: int = 0,
                 service: int = 0, out_queue_length: int = 0, abort_task: int = 0, cancel_task: int = 0,
                 abort_wait: float = 2.0) -> None: ...
    def run(self, context: int, lun: int, cdb: Buffer, direction: int, buffer: Buffer | None,
            length: int, watch: _Watch | None = None, state: Buffer | None = None) -> tuple[int, int, int, bytes] | None: ...
    def repeat(self, context: int, lun: int, cdb: Buffer, direction: int, buffer: Buffer | None, length: int,
               count: int, until: float, starts: Buffer, ends: Buffer, fill: Callable[[Buffer, int], object] | None,
               first: int, step: int, spare: Buffer | None, watch: _Watch | None = None,
               state: Buffer | None = None) -> tuple[int, tuple[int, int, int, bytes] | bool | None]: ...
