"""SendTargets discovery (native.iscsi_discovery) and the target URL rule of the
Add-target dialog (app.targets.target_url), against a real tgtd on 127.0.0.1."""
from __future__ import annotations

import socket

import pytest

from native.errors import DeviceNotFound, InvalidParameter


@pytest.mark.tgt
def test_send_targets_lists_the_portals_target(tgt_target):
    from app.targets import discover_targets

    found = discover_targets("127.0.0.1", str(tgt_target.port))
    assert [t.iqn for t in found] == [tgt_target.iqn]
    assert found[0].portals and found[0].portals[0].startswith(f"127.0.0.1:{tgt_target.port}")


@pytest.mark.tgt
def test_check_target_says_what_answers_at_a_lun(tgt_target):
    from app.targets import check_target, target_url

    tape = check_target(target_url("127.0.0.1", tgt_target.port, tgt_target.iqn, 1))
    assert tape.is_tape and tape.vendor == "IET"
    controller = check_target(target_url("127.0.0.1", tgt_target.port, tgt_target.iqn, 0))
    assert not controller.is_tape and controller.type_name


def test_a_portal_that_does_not_answer_is_one_line():
    from native.iscsi_discovery import send_targets

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    with pytest.raises(DeviceNotFound, match=f"no iSCSI target answers at 127.0.0.1:{port}: Connection refused"):
        send_targets("127.0.0.1", port, login_timeout=3)


@pytest.mark.parametrize("fields, message", [
    (("", 3260, "iqn.x:y", 1), "host"),
    (("127.0.0.1", "port", "iqn.x:y", 1), "port 'port' is not a number"),
    (("127.0.0.1", 0, "iqn.x:y", 1), "not a TCP port"),
    (("127.0.0.1", 3260, "", 1), r"target name \(IQN\) is empty"),
    (("127.0.0.1", 3260, "iqn x", 1), "not an iSCSI target name"),
    (("127.0.0.1", 3260, "iqn.x:y", 16384), "LUN 16384 is out of range"),
    (("bad host!", 3260, "iqn.x:y", 1), "not a valid host name"),
])
def test_target_url_names_the_wrong_field(fields, message):
    from app.targets import target_url

    with pytest.raises(InvalidParameter, match=message):
        target_url(*fields)


def test_target_url_forms():
    from app.targets import target_url
    from native.iscsi import display_device

    assert target_url(" 127.0.0.1 ", "", "iqn.x:y", "1") == "iscsi://127.0.0.1:3260/iqn.x:y/1"
    assert target_url("::1", 3261, "iqn.x:y", 0) == "iscsi://[::1]:3261/iqn.x:y/0"
    url = target_url("127.0.0.1", 3260, "iqn.x:y", 1, "tech", "pw")
    assert url == "iscsi://tech%pw@127.0.0.1:3260/iqn.x:y/1"
    assert display_device(url) == "iscsi://tech@127.0.0.1:3260/iqn.x:y/1"
    with pytest.raises(InvalidParameter, match="needs its CHAP user"):
        target_url("127.0.0.1", 3260, "iqn.x:y", 1, "", "pw")
