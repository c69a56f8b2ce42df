"""The network step of the white paper's method, measured: TCP throughput between two ends.

``net-serve`` (``server.NetServer``) runs on one end, ``net-test HOST`` (``client.NetTest``)
on the other: 1 to N parallel TCP streams, client -> server (what a backup sends) and/or
server -> client (what a restore brings back), for a given time, with the tape and disk
tests' data patterns; payload bytes over time per stream and in total, and the sending
kernel's round-trip time and retransmissions (Linux TCP_INFO).

Modules: ``params`` (what is asked, declared once), ``token`` (the one-time token),
``protocol`` (the wire format), ``gate`` (who the server lets in), ``streams`` (the stream
threads, both ends), ``server``, ``client``, ``result``, ``text`` (what a technician reads).
``tapediag net-serve`` (``app.cli.net_serve``, not recorded: the server keeps no state) and
``tapediag net-test`` (``app.cli.net_test``, the ``net-test`` run kind, ``kind``) are the front
ends; their exit codes are the CLI's:

* 0 the session ran complete;
* 1 it did not: nothing listens, the server refused (wrong token, busy, limits,
  version), the connection broke mid-test, the port is in use, no client came in time,
  too many wrong tokens;
* 2 bad input (an option out of range, no token given, an address not of this machine);
* 130 cancelled (Ctrl-C, SIGTERM).
"""
