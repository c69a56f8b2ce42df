"""Where tapediag keeps its files (defined in ``native.paths``, re-exported here).

``data_dir()`` creates the directory with mode 700 and says in one line when it is a
file or cannot be made; the history database inside it is created 600 by
``app.history.store``.
"""
from native.paths import data_dir

__all__ = ["data_dir"]
