"""The "run" page every test panel shares: live plot, progress, figures, Cancel.

A QTimer (50 ms) drains the job's thread-safe event queue on the GUI thread; the
engine's thread never touches a widget. Between ticks samples pile up in the queue,
so the cost of drawing does not depend on how fast the drive goes.
"""
from __future__ import annotations

import time
from collections import deque

from PySide6.QtCore import Qt, QTimer, Signal
from PySide6.QtWidgets import (
    QGridLayout,
    QHBoxLayout,
    QLabel,
    QListWidget,
    QListWidgetItem,
    QProgressBar,
    QPushButton,
    QVBoxLayout,
    QWidget,
)

from app.events import Message, PhaseFinished, PhaseStarted, Progress, RatedRates, Sample, SampleBatch, Yardstick
from ui import gcthread
from ui.format import human_bytes, human_duration, human_rate
from ui.plot import PHASE_LABELS, ThroughputPlot
from ui.worker import Job

DRAIN_MS = 50
REDRAW_S = 0.2  # the curve is redrawn at most 5 times a second: painting is the GUI's main cost


CURRENT_WINDOW_S = 1.0  # "current rate" is measured over the last second of samples
#: The longest text each figure takes (its label is sized for it once, see RunView.__init__).
_WIDEST = {"bytes": ("888.88 GB of 888.88 GB",), "current": ("88,888 MB/s",), "average": ("88,888 MB/s",),
           "eta": ("88 h 88 min", "88 min 88 s"), "elapsed": ("88 h 88 min", "88 min 88 s"), "samples": ("888,888,888",)}


class RunView(QWidget):
    """Attach a running job with ``attach``; emits ``cancel_requested`` on Cancel."""

    cancel_requested = Signal()

    def __init__(self, parent: QWidget | None = None) -> None:
        super().__init__(parent)
        self.plot = ThroughputPlot(self)
        self.subject = QLabel("")
        self.subject.setObjectName("runSubject")
        self.subject.setTextFormat(Qt.TextFormat.RichText)
        self.subject.setWordWrap(True)
        self.phase_label = QLabel("Waiting to start…")
        self.phase_label.setObjectName("phaseLabel")
        font = self.phase_label.font()
        font.setBold(True)
        self.phase_label.setFont(font)
        self.progress = QProgressBar()
        self.progress.setRange(0, 1000)
        self.progress.setTextVisible(True)
        self.cancel_button = QPushButton("&Cancel")
        self.cancel_button.clicked.connect(self._on_cancel)
        self.figures: dict[str, QLabel] = {}
        self.captions: dict[str, QLabel] = {}  # a panel may name a figure in its own words ("Samples" for "I/Os")
        grid = QGridLayout()
        for i, (key, title) in enumerate(
            [("bytes", "Transferred"), ("current", "Current rate"), ("average", "Average rate"), ("eta", "Time left"),
             ("elapsed", "Elapsed"), ("samples", "I/Os")]
        ):
            caption = QLabel(title + ":")
            caption.setAlignment(Qt.AlignmentFlag.AlignRight | Qt.AlignmentFlag.AlignVCenter)
            value = QLabel("–")
            value.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
            # A fixed size, wide enough for the longest figure: a label whose minimum and maximum
            # sizes differ relayouts the whole window (splitter, tabs, every page) on each new
            # text, 20 times a second while a run streams (py-spy: QLayout::activate, qSmartMinSize).
            widest = max(value.fontMetrics().horizontalAdvance(t) for t in _WIDEST[key])
            value.setFixedSize(max(110, widest + 8), value.sizeHint().height())
            self.figures[key] = value
            self.captions[key] = caption
            grid.addWidget(caption, i // 3, (i % 3) * 2)
            grid.addWidget(value, i // 3, (i % 3) * 2 + 1)
        self.messages = QListWidget()
        self.messages.setFixedHeight(90)
        self.messages.setObjectName("runMessages")
        # Hidden until the first message, but its room is kept: showing it mid-run ("Write
        # finished") would otherwise shrink the plot, a relayout and a full repaint while streaming.
        policy = self.messages.sizePolicy()
        policy.setRetainSizeWhenHidden(True)
        self.messages.setSizePolicy(policy)
        self.messages.hide()  # shown with the first message
        top = QHBoxLayout()
        top.addWidget(self.phase_label, 1)
        top.addWidget(self.cancel_button)
        layout = QVBoxLayout(self)
        layout.addWidget(self.subject)
        layout.addLayout(top)
        layout.addWidget(self.plot, 1)
        layout.addWidget(self.progress)
        layout.addLayout(grid)
        layout.addWidget(self.messages)
        self.timer = QTimer(self)
        self.timer.setInterval(DRAIN_MS)
        self.timer.timeout.connect(self.drain)
        self.job: Job | None = None
        self._recent: deque[tuple[float, int]] = deque()
        self._recent_bytes = 0
        self._recent_phase: str | None = None
        self._started = 0.0
        self._ios = 0
        self.events_seen = 0
        self._dirty = False
        self._last_redraw = 0.0

    # -- lifecycle --------------------------------------------------------------------
    def attach(self, job: Job, *, references: list[tuple[str, float]] | None = None,
               phases: tuple[str, ...] = (), subject: str = "") -> None:
        """Show ``job`` live; ``subject`` names what it runs on (the drive or directory)."""
        self.job = job
        self.subject.setText(subject)
        self.subject.setVisible(bool(subject))
        self.plot.clear()
        self.plot.set_reference_rates(references or [])
        self.plot.prepare(phases)
        self.messages.clear()
        self.messages.hide()
        self.progress.setValue(0)
        self.progress.setFormat("%p%")
        self._recent.clear()
        self._recent_bytes = 0
        self._recent_phase = None
        self._ios = 0
        self.events_seen = 0
        self._started = time.monotonic()
        for value in self.figures.values():
            value.setText("–")
        self.phase_label.setText(f"Starting {job.title}…")
        self.cancel_button.setEnabled(True)
        self.cancel_button.setText("&Cancel")
        # No cyclic-garbage passes while a test streams: a full pass holds the GIL for
        # 50-100 ms, a visible freeze of the live view. The engines' per-I/O objects are
        # freed by reference counting; the collector resumes when the run ends.
        gcthread.hold(self)  # a set of holders: holding twice is holding once
        self.timer.start()

    def detach(self, outcome: str) -> None:
        """The job ended: take the last events, stop the timer, say how it ended."""
        self.drain(final=True)
        self.timer.stop()
        self.release_gc()
        self.cancel_button.setEnabled(False)
        self.phase_label.setText(outcome)

    def release_gc(self) -> None:
        gcthread.release(self)

    def _on_cancel(self) -> None:
        if self.job is not None:
            self.job.cancel.cancel()
        self.cancel_button.setEnabled(False)
        self.cancel_button.setText("Cancelling…")
        self.cancel_requested.emit()

    # -- events -------------------------------------------------------------------------
    def drain(self, final: bool = False) -> None:
        if self.job is None:
            return
        events = self.job.drain()
        samples: list[Sample] = []
        progress: Progress | None = None
        for event in events:
            self.events_seen += 1
            if isinstance(event, SampleBatch):
                samples.extend(event.samples)
            elif isinstance(event, Progress):
                progress = event  # only the newest is shown: each one relays out and repaints the figures
            elif isinstance(event, PhaseStarted):
                if progress is not None:  # the previous phase's last figures, before the page says the next one
                    self._progress(progress)
                    progress = None
                label = PHASE_LABELS.get(event.phase, event.phase)
                size = f" ({human_bytes(event.total_bytes)})" if event.total_bytes else ""
                self.phase_label.setText(f"{label}{size}…")
                self.progress.setValue(0)
            elif isinstance(event, Message):
                self._message(event)
            elif isinstance(event, RatedRates):  # the tape engine knows the generation: draw its rated rates
                from ui.engines import reference_rates

                self.plot.set_reference_rates(reference_rates(event.native_mb_s, event.compressed_mb_s,
                                                              event.generation))
            elif isinstance(event, Yardstick):  # then what its verdict will judge against: that line alone
                self.plot.set_reference_rates([(event.label, event.mb_s)])
            elif isinstance(event, PhaseFinished):
                self._message(Message("info", f"{PHASE_LABELS.get(event.phase, event.phase)} finished"))
        if progress is not None:
            self._progress(progress)
        if samples:
            self._ios += len(samples)
            # The last second's bytes as a running sum: summing the window again every tick
            # cost ~10,000 additions a tick at virtual:null's rate.
            # Each phase's clock starts at 0: the window holds the newest phase's samples only (a read's first
            # second once reached back to the write's last, showing 3,006,760 MB/s).
            if samples[-1].phase != self._recent_phase:
                self._recent.clear()
                self._recent_bytes = 0
                self._recent_phase = samples[-1].phase
            newest = [s for s in samples if s.phase == self._recent_phase]
            self._recent.extend((s.t, s.nbytes) for s in newest)
            self._recent_bytes += sum(s.nbytes for s in newest)
            horizon = samples[-1].t - CURRENT_WINDOW_S
            while self._recent and self._recent[0][0] < horizon:
                self._recent_bytes -= self._recent.popleft()[1]
            span = max(samples[-1].t - self._recent[0][0], 1e-3) if len(self._recent) > 1 else 0
            if span:
                self.figures["current"].setText(human_rate(self._recent_bytes / span / 1e6))
            self.figures["samples"].setText(f"{self._ios:,}")
        if samples:
            self.plot.ingest(samples)
            self._dirty = True
        now = time.monotonic()
        if final or (self._dirty and now - self._last_redraw >= REDRAW_S):
            self.plot.redraw(final)
            self._dirty = False
            self._last_redraw = now
        self.figures["elapsed"].setText(human_duration(time.monotonic() - self._started))

    def _progress(self, p: Progress) -> None:
        if p.total_bytes:
            self.progress.setRange(0, 1000)
            self.progress.setValue(int(1000 * min(p.done_bytes / p.total_bytes, 1.0)))
        else:
            self.progress.setRange(0, 0)  # running to a duration / EOD: busy indicator
        self.figures["bytes"].setText(
            human_bytes(p.done_bytes) + (f" of {human_bytes(p.total_bytes)}" if p.total_bytes else "")
        )
        self.figures["average"].setText(human_rate(p.rate_mb_s))
        self.figures["eta"].setText(human_duration(p.eta_s) if p.eta_s is not None else "–")

    def _message(self, m: Message) -> None:
        item = QListWidgetItem(m.text)
        if m.level == "error":
            item.setForeground(Qt.GlobalColor.red)
        elif m.level == "warning":
            item.setForeground(Qt.GlobalColor.darkYellow)
        self.messages.addItem(item)
        self.messages.show()
        self.messages.scrollToBottom()
