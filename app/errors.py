"""Re-export of the one exception tree (defined in ``native.errors``, the lowest layer)."""
from native.errors import *  # noqa: F401,F403
from native.errors import TapediagError  # noqa: F401
