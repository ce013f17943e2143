"""Where a warning about a compiled call should point: the user's line.

Between the user's call and the code that warns lie frames of Ember's own, and how
many depends on the path (the generated dispatcher, the entries it tries, a miss, a
trace): a fixed ``stacklevel`` points into Ember on some of them. This finds the first
frame outside the ``compiler`` package and the code it generates (``<ember ...>``).
"""

from __future__ import annotations

import os
import sys

_PACKAGE = os.path.dirname(os.path.dirname(os.path.abspath(__file__))) + os.sep


def user_stacklevel() -> int:
    """The ``stacklevel`` for ``warnings.warn`` called by this function's caller."""
    frame, level = sys._getframe(1), 1
    while frame is not None and _is_ours(frame.f_code.co_filename):
        frame, level = frame.f_back, level + 1
    return level


def _is_ours(filename: str) -> bool:
    return filename.startswith(_PACKAGE) or filename.startswith("<ember ")
