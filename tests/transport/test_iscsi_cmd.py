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


@pytest.mark.tgt
def test_good_reads_into_one_view_share_one_result_with_the_bytes_of_each(transport: IscsiTransport) -> None:
    # Issue 19: the hot read loop passes one view; a GOOD read into it is answered with one shared,
    # frozen result (no object per command), which must still describe the bytes each read brought.
    blocks = [os.urandom(4096), os.urandom(4096)]
    for block in blocks:
        assert transport.execute(write6(4096), data_out=block).good
    assert transport.execute(REWIND).good
    view = memoryview(bytearray(4096))
    first = transport.execute(read6(4096), data_in=view)
    assert first.good and first.transferred == 4096 and first.data is view and bytes(view) == blocks[0]
    second = transport.execute(read6(4096), data_in=view)
    assert second is first and bytes(second.data) == blocks[1]


@pytest.mark.tgt
def test_a_shorter_read_into_the_shared_view_reports_its_own_length(transport: IscsiTransport) -> None:
    assert transport.execute(write6(8192), data_out=os.urandom(8192)).good
    payload = os.urandom(4096)
    assert transport.execute(write6(4096), data_out=payload).good
    assert transport.execute(REWIND).good
    view = memoryview(bytearray(8192))
    whole = transport.execute(read6(8192), data_in=view)
    assert whole.transferred == 8192
    short = transport.execute(read6(4096), data_in=view)  # the CDB's length, not the view's
    assert short is not whole and short.transferred == 4096 and bytes(short.data) == payload


@pytest.mark.tgt
def test_a_bytearray_read_into_is_not_kept_locked(transport: IscsiTransport) -> None:
    payload = os.urandom(4096)
    assert transport.execute(write6(4096), data_out=payload).good
    assert transport.execute(REWIND).good
    buf = bytearray(4096)
    result = transport.execute(read6(4096), data_in=buf)
    assert bytes(result.data) == payload
    del result
    buf.extend(b"more")  # BufferError if the transport still held a view of it


@pytest.mark.tgt
def test_the_runner_answers_every_good_command_with_one_tuple(transport: IscsiTransport) -> None:
    run = transport._run
    ctx = transport._ctx
    first = run(ctx, transport._lun, REWIND, _iscsi_lib.XFER_NONE, None, 0)
    assert first == (0, 0, 0, b"")
    assert run(ctx, transport._lun, REWIND, _iscsi_lib.XFER_NONE, None, 0) is first
