"""What a network test found: per direction, per stream and in total.

The figure is what a backup stream gets through the path: payload bytes counted at the
receiving end, from the phase's start to each stream's last byte; a phase's rate is all
streams' bytes over the slowest stream's time (the white paper's rule for parallel
work). Round-trip time and retransmissions come from the sending end's kernel (Linux
``TCP_INFO``); None means that end's OS does not report them here, and ``tcp_info_note``
says so.
"""
from __future__ import annotations

from dataclasses import asdict, dataclass, field
from typing import Any

MB = 1e6  # decimal MB/s, as the white paper's figures
#: client -> server and server -> client in words, for the summary and the report.
ARROWS = {"backup": "client -> server", "restore": "server -> client"}


@dataclass
class NetStream:
    stream: int
    bytes: int
    seconds: float  # the receiver's: phase start to this stream's last byte
    rtt_ms: float | None = None  # the sender's smoothed RTT, mean over the phase
    min_rtt_ms: float | None = None
    retransmits: int | None = None  # segments the sender sent again during the phase

    @property
    def mb_s(self) -> float:
        return self.bytes / self.seconds / MB if self.seconds > 0 else 0.0

    def to_dict(self) -> dict[str, Any]:
        return {**asdict(self), "mb_s": round(self.mb_s, 3)}


@dataclass
class NetPhase:
    """One direction: ``backup`` (client -> server) or ``restore`` (server -> client)."""

    phase: str
    streams: list[NetStream] = field(default_factory=list)
    receiver: str = ""  # "server" or "client": the end that counted the bytes
    tcp_info_note: str = ""  # "" when RTT and retransmissions were reported, else why not
    note: str = ""  # why the phase ended early, "" when it ran its time

    @property
    def bytes(self) -> int:
        return sum(s.bytes for s in self.streams)

    @property
    def seconds(self) -> float:
        return max((s.seconds for s in self.streams), default=0.0)

    @property
    def mb_s(self) -> float:
        return self.bytes / self.seconds / MB if self.seconds > 0 else 0.0

    @property
    def mbit_s(self) -> float:
        return self.mb_s * 8

    @property
    def rtt_ms(self) -> float | None:
        values = [s.rtt_ms for s in self.streams if s.rtt_ms is not None]
        return sum(values) / len(values) if values else None

    @property
    def min_rtt_ms(self) -> float | None:
        return min((s.min_rtt_ms for s in self.streams if s.min_rtt_ms is not None), default=None)

    @property
    def retransmits(self) -> int | None:
        values = [s.retransmits for s in self.streams if s.retransmits is not None]
        return sum(values) if values else None

    def to_dict(self) -> dict[str, Any]:
        return {
            "phase": self.phase, "streams": [s.to_dict() for s in self.streams], "receiver": self.receiver,
            "tcp_info_note": self.tcp_info_note, "note": self.note, "bytes": self.bytes,
            "seconds": round(self.seconds, 6), "mb_s": round(self.mb_s, 3), "mbit_s": round(self.mbit_s, 2),
            "rtt_ms": self.rtt_ms, "min_rtt_ms": self.min_rtt_ms, "retransmits": self.retransmits,
        }


@dataclass
class NetTestResult:
    """The whole test. ``status``: complete, cancelled or stopped (``error`` says why)."""

    server: str  # "127.0.0.1 port 5210"
    params: dict
    status: str = "complete"
    error: str | None = None
    pattern: str = ""
    predicted_ratio: float | None = None  # what the pattern compresses to on a tape drive (SLDC model)
    phases: list[NetPhase] = field(default_factory=list)
    native: bool = True  # the C stream loops ran (False: the Python ones, slower on fast links)
    client: str = ""  # "tapediag 0.1.0 on Linux"
    server_info: str = ""

    def phase(self, name: str) -> NetPhase | None:
        return next((p for p in self.phases if p.phase == name), None)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe: the one form the CLI (--json), the history and reports share."""
        out = {k: v for k, v in self.__dict__.items() if k != "phases"}
        out["params"] = dict(self.params)
        out["phases"] = [p.to_dict() for p in self.phases]
        for p in self.phases:  # headline figures for history tables and the bottleneck rules
            out[f"{p.phase}_mb_s"] = round(p.mb_s, 3)
        return out
