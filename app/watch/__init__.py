"""Watch the customer's own backup: the bottleneck in one number (issue 28).

A passive, read-only observation of a backup that another program runs on a tape drive, for
a given time or until the job ends. During the job tapediag only reads files: the Linux
kernel's per-drive tape statistics (``stats``, ``node``), /proc/diskstats and /proc/net/dev
(``hoststats``), the backup process's /proc entries (``procs``, ``host``). The drive itself is
asked before and after the watch only, through its sg node, with INQUIRY, REPORT SUPPORTED
OPERATION CODES and LOG SENSE alone (``drivequery``).

The number: the share of the job's time the drive had no command outstanding, waiting for
the host (``busy``); its verdict and evidence (``rules``); whether the job fed the drive above
its slowest speed-matching step (``floor``, the steps in ``app.tapeperf.speedmatch``).
``engine.Watch(params).run(sink, cancel) -> result.WatchResult``; ``params.WatchParams``
declares the parameters once; ``text`` renders the result.

Not yet a ``tapediag`` command or a registered run kind: ``python -m app.watch DEVICE`` until
the run model wires it. Its exit codes are the CLI's:

* 0 the watch saw the job and judged it;
* 1 it saw no I/O to judge ("nothing ran on /dev/nst0"), or it stopped on an error;
* 2 bad input, or a drive the kernel keeps no statistics for (Windows, iscsi://, virtual:);
* 130 cancelled (Ctrl-C, SIGTERM, SIGHUP).
"""
