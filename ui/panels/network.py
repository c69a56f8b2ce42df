"""Network: the white paper's network step, measured by tapediag itself (``tapediag net-serve`` / ``net-test``).

One end starts the server here (its one-time token shown, to carry to the other end); the other end runs the
test: the server's address, the token typed into a masked field (never saved with the form's other values),
the streams, time, direction and pattern from the kind's field table. The test runs recorded in the history
(``app.execute``), with the live curve per direction, and its results page shows each direction's total, each
stream, the round trip and retransmissions, and the pattern used.
"""
from __future__ import annotations

from html import escape
from typing import Any

from PySide6.QtCore import Qt, QTimer
from PySide6.QtWidgets import (QCheckBox, QFormLayout, QGroupBox, QHBoxLayout, QLabel, QLineEdit, QListWidget,
                               QPushButton, QVBoxLayout)

from app.events import Message
from app.nettest.kind import NET_TEST, sections
from app.nettest.params import NetTestParams, ServeParams
from app.nettest.result import NetTestResult
from app.nettest.server import Listening, ServeOutcome
from app.nettest.text import listening_lines
from ui import engines
from ui.form import add_fields, given, widget_for
from ui.panels.testpanel import TestPanel
from native.errors import TapediagError
from ui.widgets import error_label
from ui.worker import Job

#: The server's fields the form shows (the rest keep their declared defaults, as on the command line).
SERVE_FIELDS = ("bind", "port", "wait_seconds")
SERVER_KEY = "net-serve"


class NetworkPanel(TestPanel):
    key = "network"
    tab_title = "&Network"
    title = "Network test"
    description = ("Measures the network between two machines, as a backup or restore crosses it: start the server "
                   "on one (e.g. the media server), then run the test from the other with the token the server "
                   "shows. TCP throughput per stream and in total, round trip and retransmissions.")
    uses_device = False
    presets = [
        ("Backup and restore, 4 streams, 10 s each", {"streams": "4", "seconds": "10", "direction": "both"}),
        ("One stream, backup only, 10 s", {"streams": "1", "seconds": "10", "direction": "backup"}),
    ]

    def __init__(self, workers, parent=None) -> None:
        self.server_job: Job[ServeOutcome] | None = None
        self.server_outcome: ServeOutcome | None = None
        self.listening: Listening | None = None  # where the server started here listens, while it does
        super().__init__(workers, parent)
        self._server_timer = QTimer(self)
        self._server_timer.setInterval(100)
        self._server_timer.timeout.connect(self._drain_server)
        # A network test's samples are each stream's bytes ten times a second, not I/Os.
        self.runview.captions["samples"].setText("Samples:")

    # -- the choose page: start a server here, or go on to test against one -------------------------------------
    def build_choose(self, layout: QVBoxLayout) -> None:
        test = QGroupBox("Test the network to a server")
        words = QLabel("Run the test from this machine against a server started on the other end (it shows its "
                       "address and token). Next: the test's parameters.")
        words.setWordWrap(True)
        QVBoxLayout(test).addWidget(words)
        layout.addWidget(test)
        layout.addWidget(self._build_server())

    def _build_server(self) -> QGroupBox:
        box = QGroupBox("Or start the server on this machine")
        lay = QVBoxLayout(box)
        form = QFormLayout()
        self.serve_fields: dict[str, Any] = {}
        for field in ServeParams.FIELDS:
            if field.name in SERVE_FIELDS:
                widget = widget_for(field)
                widget.setToolTip(field.help)
                widget.setObjectName(f"serve_{field.name}")
                self.serve_fields[field.name] = widget
                form.addRow(field.label, widget)
        self.serve_fields["bind"].setText("127.0.0.1")
        lay.addLayout(form)
        self.serve_button = QPushButton("Start &server")
        self.serve_button.clicked.connect(self.start_server)
        self.stop_server_button = QPushButton("S&top server")
        self.stop_server_button.setEnabled(False)
        self.stop_server_button.clicked.connect(self.stop_server)
        row = QHBoxLayout()
        row.addWidget(self.serve_button)
        row.addWidget(self.stop_server_button)
        row.addStretch(1)
        lay.addLayout(row)
        self.serve_error = error_label("serveError")
        lay.addWidget(self.serve_error)
        self.server_status = QLabel("")
        self.server_status.setObjectName("serverStatus")
        self.server_status.setWordWrap(True)
        self.server_status.setTextFormat(Qt.TextFormat.RichText)
        self.server_status.setTextInteractionFlags(Qt.TextInteractionFlag.TextSelectableByMouse)
        lay.addWidget(self.server_status)
        self.server_log = QListWidget()
        self.server_log.setObjectName("serverLog")
        self.server_log.setMaximumHeight(90)
        lay.addWidget(self.server_log)
        return box

    def start_server(self) -> Job[ServeOutcome] | None:
        values = given({name: w.text() for name, w in self.serve_fields.items()})
        try:
            params = engines.serve_params(values)
        except TapediagError as err:  # InvalidParameter: said beside the button
            self.serve_error.setText(str(err))
            return None
        self.serve_error.setText("")
        self.server_outcome = None
        self.server_log.clear()
        self.server_status.setText("Starting…")
        self.serve_button.setEnabled(False)
        self.stop_server_button.setEnabled(True)
        job: Job[ServeOutcome] = Job(SERVER_KEY, "network server", lambda j: engines.serve_network(j, params),
                                     on_done=self._server_ended, on_error=self._server_failed)
        self.server_job = job
        self._server_timer.start()
        return self.workers.submit(job)

    def stop_server(self) -> None:
        if self.server_job is not None:
            self.server_job.cancel.cancel()

    def _drain_server(self) -> None:
        if self.server_job is None:
            return
        for event in self.server_job.drain():
            if isinstance(event, Listening):
                self.listening = event
                lines = listening_lines(event)
                # The console's lines but its command line: here the other end is told in the GUI's words.
                said = [line.strip() for line in lines[2:] if not line.strip().startswith("on the client:")]
                self.server_status.setText(
                    f"<b>Listening on {escape(event.address)} port {event.port}</b> for one test session.<br>"
                    f"Token: <b style='font-family:monospace; font-size:large'>{escape(event.token)}</b> "
                    "(give it to the test on the other machine; it opens one session only)<br>"
                    f"On the other machine: the Network test to this machine's address, port {event.port}, with "
                    "this token (or the command tapediag net-test)<br>" + "<br>".join(escape(line) for line in said))
            elif isinstance(event, Message):
                self.server_log.addItem(event.text)
                self.server_log.scrollToBottom()

    def _server_ended(self, outcome: ServeOutcome) -> None:
        self._drain_server()
        self._server_timer.stop()
        self.server_outcome = outcome
        self.server_job = self.listening = None
        self.serve_button.setEnabled(True)
        self.stop_server_button.setEnabled(False)
        words = {"complete": "Session complete: the server has stopped.", "cancelled": "Stopped."}
        self.server_status.setText(escape(words.get(outcome.status, f"The server stopped: {outcome.text}")))

    def _server_failed(self, err: BaseException) -> None:
        self._server_timer.stop()
        self.server_job = self.listening = None
        self.serve_button.setEnabled(True)
        self.stop_server_button.setEnabled(False)
        self.server_status.setText("")
        self.serve_error.setText(str(err))

    # -- the test: parameters, token, run, results ---------------------------------------------------------------
    def build_fields(self, form: QFormLayout) -> None:
        add_fields(self, NetTestParams.FIELDS)  # net-test's options, declared once (app.nettest.params)
        self.token_edit = QLineEdit()
        self.token_edit.setObjectName("token")
        self.token_edit.setEchoMode(QLineEdit.EchoMode.Password)
        self.token_edit.setPlaceholderText("the token the server shows, e.g. 7KQ4-M2XP-9DTR-H3WC")
        self.token_edit.setToolTip("A secret: never saved, recorded or shown in a report")
        self.token_edit.textChanged.connect(lambda _text: self.validate())
        show = QCheckBox("Sho&w")
        show.toggled.connect(lambda on: self.token_edit.setEchoMode(
            QLineEdit.EchoMode.Normal if on else QLineEdit.EchoMode.Password))
        row = QHBoxLayout()
        row.addWidget(self.token_edit, 1)
        row.addWidget(show)
        caption = QLabel("To&ken:")
        caption.setBuddy(self.token_edit)
        form.addRow(caption, row)

    def target(self) -> str | None:
        return "net-test"

    def subject(self) -> str:
        params = getattr(self, "params", None)
        return f"the path to {params.where}" if isinstance(params, NetTestParams) else "the network path"

    def make_params(self) -> NetTestParams:
        return engines.net_test_params(given(self.values()), self.token_edit.text())

    def confirm_text(self, params: NetTestParams) -> str:
        ways = {"backup": "this machine sends to the server (a backup's way)",
                "restore": "the server sends to this machine (a restore's way)",
                "both": "this machine sends, then the server sends (a backup's way, then a restore's)"}
        return (f"<p>Measures TCP throughput to <b>{escape(params.where)}</b> for {params.seconds:g} s per direction "
                f"with {params.streams} stream{'s' if params.streams > 1 else ''}: {ways[params.direction]}, "
                f"data pattern {escape(params.pattern)}.</p><p>Only test data crosses the network; nothing is "
                "written to a disk or a tape at either end. The result is recorded in the history, where "
                "troubleshooting takes the network's figure from it.</p>")

    def phases(self, params: NetTestParams) -> tuple[str, ...]:
        return params.phases

    def run_engine(self, job: Job, params: Any, force: bool):
        return engines.run_net_test(job, params)

    def result_headline(self, r: NetTestResult) -> str:
        return f"<b>{escape(NET_TEST.headline(r))}</b>"

    def result_sections(self, r: NetTestResult):
        return [(title, dict(rows), True) for title, rows in sections(r)]


__all__ = ["NetworkPanel"]
