"""Where a report may be written: checked before anything is built or created.

Shared by the CLI (``tapediag report``, ``troubleshoot --report``) and the GUI's report
dialog, so both refuse the same paths with the same words.
"""
from __future__ import annotations

import os
import tempfile
from pathlib import Path

from app.output import check_target
from native.errors import InvalidParameter


def check_report_path(output: Path) -> None:
    """Refuse a report path that cannot work before anything is built or created.

    Missing parent directories are fine (the renderer creates them); a parent that is a
    file, an unwritable directory or an output that is a directory are not. The renderer
    still handles what happens later (a full disk) without leaving a file behind.
    """
    if output.suffix.lower() != ".pdf":
        raise InvalidParameter(f"the report is a PDF: name it {output.with_suffix('.pdf').name}")
    if output.is_dir():
        raise InvalidParameter(f"cannot write the report to {output}: it is a directory")
    parent = output.absolute().parent
    while not parent.exists() and parent != parent.parent:
        parent = parent.parent
    if not parent.is_dir():
        raise InvalidParameter(f"cannot write the report to {output}: {parent} is not a directory")
    check_target(output, "the report")  # a regular file or nothing: never a node, a pipe or a link
    if output.exists() and not os.access(output, os.W_OK):
        raise InvalidParameter(f"cannot write the report to {output}: permission denied")
    try:  # only trying tells (root ignores permissions; /proc, read-only mounts): a hidden probe, removed at once
        with tempfile.NamedTemporaryFile(dir=parent, prefix=".tapediag-probe-"):
            pass
    except OSError as err:
        raise InvalidParameter(f"cannot write the report to {output}: {err.strerror or err}") from err
