"""app.paths.create_beside: the temporary file every report, export and ticket is written to."""
from __future__ import annotations

import os
from pathlib import Path

from app.paths import create_beside


def test_create_beside_gives_a_new_file_that_keeps_bytes_as_written(tmp_path: Path) -> None:
    """Byte for byte (no CRLF translation, no end at ^Z on Windows), beside the target, new.

    On Windows this failed with AttributeError (os.O_NOFOLLOW) for every PDF report
    (issue 18, found by the Windows bundle's smoke test under Wine).
    """
    target = tmp_path / "report.pdf"
    data = b"%PDF-1.4\n\r\n\x1a\x00\xff end"
    fd, tmp = create_beside(target)
    try:
        assert os.write(fd, data) == len(data)
        os.lseek(fd, 0, os.SEEK_SET)
        assert os.read(fd, 100) == data
    finally:
        os.close(fd)
    assert tmp.parent == target.parent and tmp.name.startswith(".report.pdf.")
    assert tmp.read_bytes() == data
    fd2, tmp2 = create_beside(target)
    os.close(fd2)
    assert tmp2 != tmp
