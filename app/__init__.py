"""tapediag's Qt-free core: SCSI command set, drive model, tests, rules, reports, CLI."""

import os

__version__ = "0.1.0"

# numpy (the engines' sample arrays, pyqtgraph) starts OpenBLAS's worker threads at import, one
# per core, and they spin when woken: on a two-core box that is the core a local target or the
# disk under test needs. tapediag does no BLAS work (a whole-run profile of a tape write found
# 4 % of its samples in blas_thread_server); set before numpy is imported, a user's setting kept.
os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")
