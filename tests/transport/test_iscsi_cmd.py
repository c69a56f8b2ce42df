"""The C per-command path (native._iscsi_cmd) behind IscsiTransport.execute.

What the ctypes path used to guarantee must still hold: buffers are used in place,
odd buffer shapes become one-line errors, a GOOD write's result is right even though
it is shared, and bad arguments never reach libiscsi.
"""
from __future__ import annotations

import os

import pytest

from native import _iscsi_lib
from native.errors import InvalidParameter
from native.iscsi import IscsiTransport
from tests.helpers.tgt import TgtTarget
from tests.transport._cdb import REWIND, read6, write6


def test_runner_refuses_bad_arguments_before_libiscsi() -> None:
    run = _iscsi_lib.load().runner.run
    buf = bytearray(16)
    with pytest.raises(ValueError, match="context"):
        run(0, 0, write6(16), 2, buf, 16)
    with pytest.raises(ValueError, match="CDB"):
        run(1, 0, bytes(17), 2, buf, 16)
    with pytest.raises(ValueError, match="shorter"):
        run(1, 0, write6(32), 2, buf, 32)
    with pytest.raises(ValueError, match="direction"):
        run(1, 0, write6(16), 0, buf, 16)  # no direction but a length
    with pytest.raises(BufferError):
        run(1, 0, read6(16), 1, b"read-only target", 16)  # data-in needs a writable buffer


def test_runner_offsets_come_from_the_detected_layout() -> None:
    binding = _iscsi_lib.load()
    again = _iscsi_lib.make_runner(binding.lib, binding.task_struct)
    assert type(again) is type(binding.runner)


@pytest.fixture
def transport(tgt_target: TgtTarget):
    t = IscsiTransport(tgt_target.url)
    yield t
    t.close()


@pytest.mark.tgt
def test_odd_buffers_are_one_line_errors(transport: IscsiTransport) -> None:
    data = bytearray(os.urandom(4096))
    with pytest.raises(InvalidParameter, match="contiguous"):
        transport.execute(write6(2048), data_out=memoryview(data)[::2])
    with pytest.raises(InvalidParameter, match="not both"):
        transport.execute(write6(4096), data_out=data, data_in=4096)


@pytest.mark.tgt
def test_wide_format_views_go_out_and_come_back_as_bytes(transport: IscsiTransport) -> None:
    payload = os.urandom(8192)
    out = memoryview(bytearray(payload)).cast("I")  # 2048 items, 8192 bytes
    first = transport.execute(write6(8192), data_out=out)
    second = transport.execute(write6(8192), data_out=out)
    assert first.good and first.transferred == 8192 and first.data.nbytes == 0
    assert second is first  # GOOD results without data-in are shared (frozen)
    assert transport.execute(REWIND).good
    back = bytearray(8192)
    result = transport.execute(read6(8192), data_in=memoryview(back).cast("I"))
    assert result.good and bytes(back) == payload and result.transferred == 8192
    assert transport.execute(read6(8192), data_in=back).good and bytes(back) == payload
