"""A real tape library on 127.0.0.1: tgtd's medium changer (SMC LUN) with tgt tape drives (SSC LUNs).

tgt's changer keeps its cartridges as tape files named by barcode in ``media_home``; a
MOVE MEDIUM into a drive element closes the drive LUN's file and opens
``media_home/BARCODE`` there, and a move out of the drive unloads the LUN. So what the
drive LUN serves after a move is the proof that the robot moved that cartridge. The
set-up follows Debian's ``/usr/share/doc/tgt/README.vtl``; the daemon's life (control
socket, port, stop by PID) is ``TgtTarget``'s.

A slot may name a barcode with no tape file (``missing=``): moving it into a drive fails
the way a robot that cannot load does (tgt answers 04/15/01, mechanical positioning
error), which is how the tests get a real robotics error mid-run from tgt.

``drive_product="Ultrium 6-SCSI"`` makes the drive LUNs answer INQUIRY with that product name, so
tapediag knows their LTO generation (tgt's own, "VIRTUAL-TAPE", names none) and checks the
cartridges' labels against it.

Fixture: ``tgt_library_factory(drives=2, slots=5, ie=1, barcodes=(...), missing=(...), drive_product=None)``.
"""
from __future__ import annotations

from pathlib import Path
from typing import Callable, Iterator

import pytest

from tests.helpers.tgt import TgtTarget, make_cartridge, tgt_available

#: Element addresses as a mid-size library numbers them (the virtual library's layout).
ROBOT, IE_FIRST, DRIVE_FIRST, SLOT_FIRST = 1, 10, 500, 1000
TID = 1


class TgtLibrary(TgtTarget):
    """tgtd serving LUN 1..N (tape drives, empty at start) and LUN N+1 (the changer)."""

    def __init__(self, workdir: Path, *, drives: int = 2, slots: int = 5, ie: int = 1,
                 barcodes: tuple[str, ...] = ("TGT001L6", "TGT002L6", "CLN001L1"),
                 missing: tuple[str, ...] = (), size_mb: int = 8, drive_product: str | None = None) -> None:
        if len(barcodes) > slots:
            raise ValueError("more barcodes than slots")
        workdir = Path(workdir).resolve()
        self.media_home = workdir / "media"
        self.media_home.mkdir(parents=True, exist_ok=True)
        self.drives, self.slots, self.ie = drives, slots, ie
        self.barcodes, self.missing = barcodes, missing
        self.drive_product = drive_product  # the drive LUNs' INQUIRY product ("Ultrium 6-SCSI"): their generation
        for barcode in barcodes:
            if barcode not in missing:
                make_cartridge(self.media_home / barcode, size_mb=size_mb, barcode=barcode)
        # Each drive LUN needs a backing file at creation; a placeholder of its own, never a slot's cartridge
        # (README.vtl uses the slots' files, so a drive and a slot would hold one file open twice).
        self.placeholders = [make_cartridge(workdir / f"drive{i}-placeholder.img", size_mb=1, barcode=f"PLACE{i:03d}")
                             for i in range(drives)]
        super().__init__(workdir, cartridge=self.placeholders[0] if drives else None, size_mb=1)

    @property
    def changer_lun(self) -> int:
        return self.drives + 1

    @property
    def url(self) -> str:
        """The changer LUN's device string."""
        return self.lun_url(self.changer_lun)

    def lun_url(self, lun: int) -> str:
        return f"iscsi://127.0.0.1:{self.port}/{self.iqn}/{lun}"

    def drive_url(self, index: int) -> str:
        """Drive element ``index`` (0-based, as ``drive:N``) is LUN index+1."""
        return self.lun_url(index + 1)

    def slot_file(self, barcode: str) -> Path:
        return self.media_home / barcode

    def _configure(self) -> None:
        def adm(*args: str) -> None:
            self._adm("--lld", "iscsi", *args)

        def changer(params: str) -> None:
            adm("--op", "update", "--mode", "logicalunit", "--tid", str(TID), "--lun", str(self.changer_lun),
                "--params", params)

        adm("--op", "new", "--mode", "target", "--tid", str(TID), "-T", self.iqn)
        for i, placeholder in enumerate(self.placeholders):
            lun = str(i + 1)
            adm("--op", "new", "--mode", "logicalunit", "--tid", str(TID), "--lun", lun, "--bstype", "ssc",
                "--device-type", "tape", "-b", str(placeholder))
            adm("--op", "update", "--mode", "logicalunit", "--tid", str(TID), "--lun", lun, "--params", "online=0")
            if self.drive_product:
                adm("--op", "update", "--mode", "logicalunit", "--tid", str(TID), "--lun", lun, "--params",
                    f"product_id={self.drive_product}")
        smc_store = self.workdir / "smc"
        smc_store.write_bytes(bytes(1024))
        adm("--op", "new", "--mode", "logicalunit", "--tid", str(TID), "--lun", str(self.changer_lun),
            "--device-type", "changer", "-b", str(smc_store))
        changer(f"media_home={self.media_home}")
        if self.drives:
            changer(f"element_type=4,start_address={DRIVE_FIRST},quantity={self.drives}")
            for i in range(self.drives):
                changer(f"element_type=4,address={DRIVE_FIRST + i},tid={TID},lun={i + 1}")
        changer(f"element_type=1,start_address={ROBOT},quantity=1")
        changer(f"element_type=2,start_address={SLOT_FIRST},quantity={self.slots}")
        if self.ie:
            changer(f"element_type=3,start_address={IE_FIRST},quantity={self.ie}")
        for i, barcode in enumerate(self.barcodes):
            changer(f"element_type=2,address={SLOT_FIRST + i},barcode={barcode},sides=1")
        adm("--op", "bind", "--mode", "target", "--tid", str(TID), "-I", "ALL")


TgtLibraryFactory = Callable[..., TgtLibrary]


@pytest.fixture
def tgt_library_factory(tmp_path: Path) -> Iterator[TgtLibraryFactory]:
    if not tgt_available():
        pytest.skip("tgt (tgtd/tgtadm/tgtimg) is not installed: apt-get install tgt")
    made: list[TgtLibrary] = []

    def make(**kwargs: object) -> TgtLibrary:
        library = TgtLibrary(tmp_path / f"tgtlib{len(made)}", **kwargs)  # type: ignore[arg-type]
        made.append(library)
        return library.start()

    yield make
    for library in made:
        library.stop()
