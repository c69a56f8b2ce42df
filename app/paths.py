"""Where tapediag keeps its files (defined in ``native.paths``, re-exported here)."""
from native.paths import data_dir

__all__ = ["data_dir"]
