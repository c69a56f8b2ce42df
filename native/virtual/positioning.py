"""Positioning commands: REWIND, LOAD UNLOAD, LOCATE(10/16), SPACE(6/16), READ POSITION.

Positions are logical object numbers (blocks and filemarks alike, as in SSC-4):
forward over a filemark leaves the head on its EOP side, backward on its BOP side;
running into a filemark, BOT or EOD reports 00/01 (FILEMARK), 00/04 (EOM) or
08/00/05 (BLANK CHECK) with the unspent count as a signed INFO field.
"""
from __future__ import annotations

import struct

from native.scsi import cdb as C
from native.transport import Buffer
from native.virtual.base import DriveBase
from native.virtual.sense import BLANK_CHECK, NO_SENSE, Check, invalid_field, no_medium


class PositioningCommands(DriveBase):
    def _rewind(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        self._select_partition(0)  # REWIND goes to BOP of partition 0 (SSC-5)
        self._reposition(0)
        return 0

    def _load_unload(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        command = C.LoadUnload.parse(cdb)
        if command.eot:
            raise invalid_field()  # not supported
        if command.load:
            if self.empty:
                raise no_medium()  # a library drive the robot put no cartridge in
            if not self.loaded:
                self.loaded = True
                self.cart.meta.load_count += 1
                self.life.loads_this_session += 1
                self.load = dict.fromkeys(self.load, 0)
            self._select_partition(0)
            self._reposition(0)
        elif self.loaded:
            self._select_partition(0)
            self._reposition(0)
            self.loaded = False
            for part in self.parts:
                part.flush()
        self._tell_library()
        return 0

    def _locate(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        if cdb[0] == C.LOCATE_10:
            ten = C.Locate10.parse(cdb)
            dest_type, cp, partition, target = 0, ten.cp, ten.partition, ten.block_address
        else:
            sixteen = C.Locate16.parse(cdb)
            dest_type, cp, partition, target = sixteen.dest_type, sixteen.cp, sixteen.partition, sixteen.logical_identifier
        if cp:
            self._select_partition(partition)  # LOCATE with CP: into another partition
        cart = self.cart
        if dest_type == 3:
            self._reposition(cart.count)
            return 0
        if dest_type == 1:
            where = 0 if target == 0 else cart.filemark_position(target - 1)
            target = where + 1 if (where is not None and target) else (0 if target == 0 else cart.count + 1)
        elif dest_type != 0:
            raise invalid_field()
        if target > cart.count:
            self._reposition(cart.count)
            raise Check(BLANK_CHECK, 0x00, 0x05)
        self._reposition(target)
        return 0

    def _space6(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        command = C.Space6.parse(cdb)
        return self._space(command.code & 0x07, command.count)

    def _space16(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        command = C.Space16.parse(cdb)
        return self._space(command.code, command.count)

    def _space(self, code: int, count: int) -> int:
        self._medium()
        cart, pos = self.cart, self.pos
        if code == 3:
            self._reposition(cart.count)
            return 0
        if code not in (0, 1):
            raise invalid_field()
        if count == 0:
            return 0
        if code == 0 and count > 0:
            fm = cart.next_filemark(pos)
            stop = fm if fm is not None else cart.count
            if count <= stop - pos:
                self._reposition(pos + count)
            elif fm is not None:
                self._reposition(fm + 1)
                raise Check(NO_SENSE, 0x00, 0x01, info=count - (fm - pos), filemark=True)
            else:
                self._reposition(cart.count)
                raise Check(BLANK_CHECK, 0x00, 0x05, info=count - (stop - pos))
        elif code == 0:
            want = -count
            fm = cart.prev_filemark(pos)
            floor = fm + 1 if fm is not None else 0
            if want <= pos - floor:
                self._reposition(pos - want)
            elif fm is not None:
                self._reposition(fm)
                raise Check(NO_SENSE, 0x00, 0x01, info=want - (pos - floor), filemark=True)
            else:
                self._reposition(0)
                raise Check(NO_SENSE, 0x00, 0x04, info=want - pos, eom=True)
        elif count > 0:
            before = cart.filemarks_before(pos)
            where = cart.filemark_position(before + count - 1)
            if where is not None:
                self._reposition(where + 1)
            else:
                passed = cart.filemarks_before(cart.count) - before
                self._reposition(cart.count)
                raise Check(BLANK_CHECK, 0x00, 0x05, info=count - passed)
        else:
            before = cart.filemarks_before(pos)
            k = before + count  # count is negative
            where = cart.filemark_position(k) if k >= 0 else None
            if where is not None:  # k < before: that filemark exists
                self._reposition(where)
            else:
                self._reposition(0)
                raise Check(NO_SENSE, 0x00, 0x04, info=-count - before, eom=True)
        return 0

    def _read_position(self, cdb: bytes, out: Buffer | None, buf: memoryview) -> int:
        self._medium()
        command = C.ReadPosition.parse(cdb)
        action = command.service_action
        pos, cart = self.pos, self.cart
        flags = (0x80 if pos == 0 else 0) | (0x40 if cart.tape_used(pos) > cart.meta.capacity - self._early_warning else 0)
        if action in (C.PositionForm.SHORT, C.PositionForm.SHORT_VENDOR):
            if pos > 0xFFFFFFFF:
                data = bytes([flags | 0x04]) + bytes(19)
            else:
                data = struct.pack(">BBxxII8x", flags, self.partition, pos, pos)
            return self._reply(data, 20, buf)
        if action == C.PositionForm.LONG:
            data = struct.pack(">B3xIQQ8x", flags, self.partition, pos, cart.filemarks_before(pos))
            return self._reply(data, 32, buf)
        if action == C.PositionForm.EXTENDED:
            data = struct.pack(">BBHxBBBQQQ", flags, 0, 0x1C, 0, 0, 0, pos, pos, 0)
            return self._reply(data, command.allocation_length, buf)
        raise invalid_field()
