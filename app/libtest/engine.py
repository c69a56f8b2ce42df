"""The library exerciser: N timed moves between chosen slots and drives, everything put back.

The moves are the ones a backup makes: a cartridge from its home slot into a drive, and
back. A round loads one cartridge into each chosen drive, then returns them, so the robot
crosses between every drive and several slots; rounds repeat, taking the next cartridges,
until N moves are done, and a cartridge still in a drive then is put back (those moves are
timed too, marked "putting back").

Safety, the reason for the shape:
* only empty drives are used (a loaded drive may be in use by the backup software), only
  cartridges with a barcode that is not a cleaner (CLN...), each only between its own home
  slot and an empty drive;
* before every move a fresh inventory checks that everything the run moved is where the
  run put it and that the move can work (``app.library.check_move``): a library changed
  under the run (an operator, the backup software) stops it instead of being fought;
* before a move out of a drive, the drive is unloaded (LOAD UNLOAD) through the tape drive
  whose serial its element's identifier names (``app.library_discovery``): many libraries
  refuse to pull a threaded tape. A drive element that names no listed drive is left to
  the library (the result says which drives were unloaded);
* the first robotics error stops the exercise (L&TT's rule); its decoded sense is the
  reason. Then, and after a cancel, every cartridge the run moved is put back where the
  library can (each attempt reported, the first failure ends them), and a final
  inventory says where each cartridge is: nothing is left half-moved unreported. A cancel
  (Ctrl-C, SIGTERM, SIGHUP, the GUI's Cancel) is seen between moves, never inside one; any error
  after the first move (bad input found then included) goes through the same putting back and
  the run is recorded with it (issue 27: such an error used to exit 2 with cartridges in drives
  and the run deleted);
* the library as the last recorded run on it left it is compared with what it shows now, and
  every difference is said before the first move (``app.libtest.previous``).
"""
from __future__ import annotations

import dataclasses
import itertools
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Iterator

from app.claims import claimed
from app.drive import TapeDrive
from app.events import CancelToken, Checkpoint, EventSink, Message, RobotMove, discard
from app.libtest.params import LibraryTestParams
from app.libtest.previous import differences, left_by_last_run, state_of
from app.libtest.results import LibraryTestResult, Misplaced, Move, Verdict
from app.library import Changer, Inventory, check_move
from native.errors import Cancelled, DeviceError, InvalidParameter, TapediagError
from native.iscsi_url import display_device
from native.scsi.smc import MOVE_MEDIUM, Element, ElementType

if TYPE_CHECKING:
    from app import identity, media


@dataclass(frozen=True)
class _Cartridge:
    barcode: str
    home: int  # element address of its slot


class LibraryTest:
    def __init__(self, changer: Changer, params: LibraryTestParams) -> None:
        self.changer, self.params = changer, params
        self._prepared: tuple[Inventory, list[Element], list[Element], list[_Cartridge], list[str]] | None = None
        self.drive_devices: dict[int, str] = {}  # drive element address -> the tape drive to unload it through
        self._start: dict[int, str] = {}  # element address -> barcode, every full element when the run began
        self.identities: list["identity.DeviceIdentity"] = []  # the library and its exercised drives
        #: Every element that differs from how the last run on this library left it (``prepare``).
        self.not_as_left: list[str] = []
        self._cancel: CancelToken | None = None

    def prepare(self) -> None:
        """Read the library and choose the elements; bad input raises here, before a run is recorded.

        A named slot that is empty, a named drive that holds a cartridge, a name that is no
        element or the wrong kind of element: one line (exit 2). A read-only session is
        refused (exit 3) before the robot is asked for anything.
        """
        self.changer.require_writable(MOVE_MEDIUM)
        inv = self.changer.inventory()
        skipped: list[str] = []
        slots = self._chosen(inv, self.params.slots, ElementType.STORAGE, "slots")
        drives = self._chosen(inv, self.params.drives, ElementType.DATA_TRANSFER, "drives")
        for slot in slots if self.params.slots else ():
            if not slot.full:
                raise InvalidParameter(f"slots: {inv.name(slot)} (address {slot.address}) is empty: nothing to move")
        usable = self._empty_drives(inv, drives, skipped)
        cartridges = self._movable(inv, slots, skipped)
        devices: dict[int, str] = {}
        if usable:
            from app.library_discovery import drive_devices

            devices = drive_devices(inv, {d.address for d in usable})
        generations = self._drives(devices)
        cartridges = self._fitting(inv, cartridges, usable, generations, skipped)
        self._prepared = (inv, slots, usable, cartridges, skipped)
        self._start = {e.address: e.barcode for e in inv.elements if e.full}
        left = left_by_last_run(self.changer.device)
        self.not_as_left = differences(left, state_of(inv)) if left is not None else []
        if self.params.unload:
            self.drive_devices = devices

    def _empty_drives(self, inv: Inventory, drives: list[Element], skipped: list[str]) -> list[Element]:
        """The drives the exerciser may load: empty ones. A named drive that holds a cartridge is bad input;
        one found loaded otherwise is skipped (it may be in use)."""
        usable = []
        for drive in drives:
            if drive.full and self.params.drives:
                raise InvalidParameter(f"drives: {inv.name(drive)} (address {drive.address}) already holds "
                                       f"{drive.barcode or 'a cartridge'}; the exerciser uses only empty drives")
            if drive.full:
                skipped.append(f"{inv.name(drive)}: holds {drive.barcode or 'a cartridge'} (a loaded drive may be "
                               "in use)")
            else:
                usable.append(drive)
        return usable

    @staticmethod
    def _movable(inv: Inventory, slots: list[Element], skipped: list[str]) -> list[_Cartridge]:
        """The cartridges the run moves: barcoded data cartridges, each barcode once (the run follows them by it)."""
        cartridges: list[_Cartridge] = []
        for slot in slots:
            if not slot.full:
                continue
            if slot.cleaning:
                skipped.append(f"{slot.barcode} in {inv.name(slot)} (cleaning cartridge)")
            elif not slot.barcode:
                skipped.append(f"the cartridge in {inv.name(slot)} (no barcode: it may be a cleaning cartridge)")
            elif any(c.barcode == slot.barcode for c in cartridges):
                skipped.append(f"{slot.barcode} in {inv.name(slot)} (the same barcode is in another slot)")
            else:
                cartridges.append(_Cartridge(slot.barcode, slot.address))
        return cartridges

    def _drives(self, devices: dict[int, str]) -> dict[int, "media.DriveGeneration"]:
        """Each named drive's generation (for the media check) and identity (for the record), by INQUIRY."""
        from app import identity, media

        self.identities = [identity.of_changer(self.changer)]
        generations: dict[int, media.DriveGeneration] = {}
        for address, device in devices.items():
            try:
                with TapeDrive.open(device) as tape:
                    generations[address] = media.drive_generation(tape)
                    self.identities.append(replace(identity.of_drive(tape), role=identity.LIBRARY_DRIVE))
            except TapediagError:  # a drive that does not answer checks nothing here; unloading it will say why
                self.identities.append(identity.DeviceIdentity(display_device(device), identity.LIBRARY_DRIVE))
        return generations

    @staticmethod
    def _fitting(inv: Inventory, cartridges: list[_Cartridge], drives: list[Element],
                 generations: dict[int, "media.DriveGeneration"], skipped: list[str]) -> list[_Cartridge]:
        """The cartridges every exercised drive can load (``app.media``: by label, against each drive's
        generation); the others are skipped, each with the drive that could not take it. A drive whose tape
        drive is not named, or whose generation is unknown, checks nothing."""
        from app import media

        fitting = []
        for cartridge in cartridges:
            refused = next((r for d in drives if d.address in generations
                            if (r := media.refusal(media.judge(generations[d.address], barcode=cartridge.barcode),
                                                   writes=False, doing=inv.name(d), test=False)) is not None), None)
            if refused is None:
                fitting.append(cartridge)
            else:
                home = next(e for e in inv.elements if e.address == cartridge.home)
                skipped.append(f"{cartridge.barcode} in {inv.name(home)} (does not fit {refused.message})")
        return fitting

    @staticmethod
    def _chosen(inv: Inventory, names: tuple[str, ...], kind: ElementType, option: str) -> list[Element]:
        if not names:
            return list(inv.of(kind))
        out: list[Element] = []
        for name in names:
            try:
                element = inv.find(name)
            except InvalidParameter as err:
                raise InvalidParameter(f"{option}: {err.message}", hint=err.hint) from None
            if element.type is not kind:
                raise InvalidParameter(f"{option}: {name} is a {element.type.word}, not a {kind.word}")
            if element not in out:
                out.append(element)
        return out

    # -- the run ------------------------------------------------------------------------

    def run(self, sink: EventSink = discard, cancel: CancelToken | None = None) -> LibraryTestResult:
        cancel = self._cancel = cancel or CancelToken()
        if self._prepared is None:
            self.prepare()
        assert self._prepared is not None
        inv, slots, drives, cartridges, skipped = self._prepared
        result = LibraryTestResult(device=self.changer.device, params=self.params.to_dict(), vendor=inv.vendor,
                                   product=inv.product, slots=[inv.name(s) for s in slots],
                                   drives=[inv.name(d) for d in drives], skipped=skipped,
                                   drive_devices={inv.name(d): self.drive_devices[d.address] for d in drives
                                                  if d.address in self.drive_devices},
                                   identities=[i.to_dict() for i in self.identities],
                                   start_state=state_of(inv), not_as_left=list(self.not_as_left))
        for line in result.not_as_left:
            sink(Message("warning", f"the library is not as the last run on it left it: {line}"))
        sink(Checkpoint(result.to_dict()))  # the starting inventory is kept, even if this process dies
        if not drives or not cartridges:
            result.reason = ("no empty drive to exercise" if not drives
                             else "no cartridge to move (only cleaning or unlabelled cartridges, or empty slots)")
            result.restored = True
            result.end_state = result.start_state
            return result
        where = {c.barcode: c.home for c in cartridges}  # where the run believes each cartridge is
        try:
            self._exercise(result, where, cartridges, drives, sink, cancel)
        except Cancelled as err:  # a robot command given up after the cancel (app.commandwatch): said once
            result.status, result.error = "cancelled", str(err)
            sink(Message("warning", str(err)))
        except TapediagError as err:  # once a move began, even bad input is the run's failure, put back first
            self._stop(result, f"the exercise stopped: {err}", device_failed=True)
        except BaseException:
            self._finish(result, where, cartridges, sink)
            raise
        if cancel.cancelled and result.status != "failed":
            result.status, result.error = "cancelled", result.error or "cancelled by the user"
        self._finish(result, where, cartridges, sink)
        return result

    def _exercise(self, result: LibraryTestResult, where: dict[str, int], cartridges: list[_Cartridge],
                  drives: list[Element], sink: EventSink, cancel: CancelToken) -> None:
        """The planned moves, up to the count, a cancel (seen between moves) or the first error."""
        planned = 0
        for source, destination, cartridge in self._plan(cartridges, drives):
            if planned >= self.params.moves or cancel.cancelled:
                return
            planned += 1
            if not self._move(result, where, cartridge, source, destination, sink, returning=False):
                return

    def _finish(self, result: LibraryTestResult, where: dict[str, int], cartridges: list[_Cartridge],
                sink: EventSink) -> None:
        """Put every cartridge back, read the final inventory, judge; the cartridges the robot moved go on
        the library's identity (``app.identity``)."""
        self._put_back(result, where, cartridges, sink)
        self._final_inventory(result, cartridges, sink)
        self._judge(result)
        moved = list(dict.fromkeys(m.barcode for m in result.moves if m.barcode))
        if result.identities and moved:
            result.identities[0]["barcode"] = ", ".join(moved)

    @staticmethod
    def _plan(cartridges: list[_Cartridge], drives: list[Element]) -> Iterator[tuple[int, int, _Cartridge]]:
        """(source, destination, cartridge) forever: rounds of loads into every drive, then returns.

        Each round starts at the next drive, so with fewer cartridges than drives every drive
        still gets its turn."""
        k = 0
        for round_ in itertools.count():
            batch: list[tuple[_Cartridge, int]] = []
            start = round_ % len(drives)
            for drive in drives[start:] + drives[:start]:
                cartridge = cartridges[k % len(cartridges)]
                if any(c is cartridge for c, _ in batch):
                    break  # fewer cartridges than drives
                batch.append((cartridge, drive.address))
                k += 1
            for cartridge, drive_address in batch:
                yield cartridge.home, drive_address, cartridge
            for cartridge, drive_address in batch:
                yield drive_address, cartridge.home, cartridge

    def _move(self, result: LibraryTestResult, where: dict[str, int], cartridge: _Cartridge, source: int,
              destination: int, sink: EventSink, *, returning: bool) -> bool:
        """One checked, timed move; False when the run must stop (its reason in ``result``)."""
        try:
            inv = self.changer.inventory()
        except Cancelled:
            raise
        except DeviceError as err:
            return self._stop(result, f"the library's inventory could not be read: {err}", device_failed=True)
        names = {e.address: inv.name(e) for e in inv.elements}
        move = Move(names.get(source, str(source)), names.get(destination, str(destination)), cartridge.barcode,
                    returning=returning)
        lost = self._unexpected(inv, where)
        if lost:
            return self._stop(result, lost)
        try:
            src, dst = check_move(inv, str(source), str(destination))
        except InvalidParameter as err:
            return self._stop(result, f"the library changed during the test: {err}")
        result.moves.append(move)
        said = RobotMove(len(result.moves), self.params.moves, move.source, move.destination, move.barcode,
                         returning=returning)
        sink(said)
        device = self.drive_devices.get(src.address) if src.type is ElementType.DATA_TRANSFER else None
        if device is not None:
            try:
                with TapeDrive.open(device) as drive, claimed(drive, "library-test (unloading the drive)"):
                    drive.watch_commands(self._cancel, sink)
                    drive.unload()
            except Cancelled:
                raise
            except TapediagError as err:  # a drive that does not answer, is busy (DeviceInUse), or is no tape drive
                move.error = f"LOAD UNLOAD on {device}: {err}"
                sink(dataclasses.replace(said, error=move.error))
                return self._stop(result, f"the drive in {move.source} ({device}) did not unload "
                                          f"{move.barcode}: {err}")
            move.unloaded = True
        try:
            move.seconds = self.changer.send_move(src, dst)
        except Cancelled:
            raise
        except DeviceError as err:
            move.error = str(err)
            sink(dataclasses.replace(said, error=move.error))
            return self._stop(result, f"robotics error on move {len(result.moves)} "
                                      f"({move.barcode} {move.source} -> {move.destination}): {err}")
        where[cartridge.barcode] = destination
        sink(dataclasses.replace(said, seconds=move.seconds))
        sink(Message("info", f"move {len(result.moves)}: {move.barcode} {move.source} -> {move.destination} "
                             f"in {move.seconds:.2f} s" + (" (putting back)" if returning else "")))
        return True

    def _locate(self, inv: Inventory, cartridge: _Cartridge) -> Element | None:
        """Where the inventory shows the run's cartridge: its home slot if it is there, else the element
        with its barcode that did not already hold that barcode when the run began (a twin label's slot)."""
        for element in inv.elements:
            if element.address == cartridge.home and element.full and element.barcode == cartridge.barcode:
                return element
        for element in inv.elements:
            if element.full and element.barcode == cartridge.barcode and \
                    self._start.get(element.address) != cartridge.barcode:
                return element
        return None

    @staticmethod
    def _unexpected(inv: Inventory, where: dict[str, int]) -> str:
        """Why the inventory does not show the run's cartridges where the run put them ("" if it does)."""
        by_address = {e.address: e for e in inv.elements}
        for barcode, address in where.items():
            element = by_address.get(address)
            if element is None or not element.full or element.barcode != barcode:
                found = next((inv.name(e) for e in inv.elements if e.full and e.barcode == barcode), "nowhere")
                expected = inv.name(element) if element is not None else f"address {address}"
                return f"the library shows {barcode} in {found}, not in {expected} where the last move put it"
        return ""

    @staticmethod
    def _stop(result: LibraryTestResult, reason: str, *, device_failed: bool = False) -> bool:
        """Stop the exercise with the reason for FAIL; the first reason is the run's (a later one,
        while putting back, shows in the moves and the final inventory). A robotics error is what
        the test looks for: the run is complete, its verdict FAIL. Only a library that can no
        longer be read makes the run itself "failed"."""
        if not result.stopped:
            result.stopped, result.reason = True, reason
            if device_failed:
                result.status, result.error = "failed", reason
        return False

    def _put_back(self, result: LibraryTestResult, where: dict[str, int], cartridges: list[_Cartridge],
                  sink: EventSink) -> None:
        """Every cartridge the run moved back to its home slot, by where the library now shows it."""
        try:
            inv = self.changer.inventory()
        except DeviceError:
            return  # the final inventory reports it
        located = {c.barcode: e.address for c in cartridges if (e := self._locate(inv, c)) is not None}
        where.clear()  # after a fault the library, not the run, knows where things are
        where.update({c.barcode: located[c.barcode] for c in cartridges if c.barcode in located})
        for cartridge in cartridges:
            at = located.get(cartridge.barcode)
            if at is None or at == cartridge.home:
                continue
            sink(Message("info", f"putting {cartridge.barcode} back in its home slot"))
            if not self._move(result, where, cartridge, at, cartridge.home, sink, returning=True):
                return

    def _final_inventory(self, result: LibraryTestResult, cartridges: list[_Cartridge], sink: EventSink) -> None:
        try:
            inv = self.changer.inventory()
        except DeviceError as err:
            result.restored = None
            sink(Message("error", f"the final inventory could not be read: {err}"))
            return
        names = {e.address: inv.name(e) for e in inv.elements}
        result.end_state = state_of(inv)
        located = {c.barcode: inv.name(e) for c in cartridges if (e := self._locate(inv, c)) is not None}
        result.misplaced = [Misplaced(c.barcode, names.get(c.home, str(c.home)), located.get(c.barcode, "not found"))
                            for c in cartridges if located.get(c.barcode) != names.get(c.home)]
        result.restored = not result.misplaced

    @staticmethod
    def _judge(result: LibraryTestResult) -> None:
        exercised = [m for m in result.moves if not m.returning]
        if result.stopped or result.restored is False:
            result.verdict = Verdict.FAIL
            if not result.reason:
                result.reason = "not every cartridge is back in its home slot"
        elif result.status == "cancelled" or not exercised or result.restored is None:  # nothing judged
            result.verdict = Verdict.NOT_ASSESSED
            result.reason = result.reason or (f"cancelled after {len(exercised)} moves" if result.status == "cancelled"
                                              else "the final inventory could not be read")
        else:
            result.verdict = Verdict.PASS
            result.reason = f"{len(result.moves)} moves without a robotics error, every cartridge back home"


__all__ = ["LibraryTest"]
