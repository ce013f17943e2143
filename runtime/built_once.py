"""Values built on first use, once per key, even when threads race for them.

A compiled graph's code variants (one per input layout) are built on the first call
that needs each: a dict read on the fast path, a lock only while building, and a
second look under the lock so two threads never build the same variant.
"""

from __future__ import annotations

import threading
from typing import Callable


class BuiltOnce:
    def __init__(self, build: Callable):
        self.values: dict = {}  # read directly by generated call paths
        self._build = build
        self._lock = threading.Lock()

    def get(self, key):
        found = self.values.get(key)
        if found is None:
            with self._lock:
                found = self.values.get(key)
                if found is None:
                    found = self.values[key] = self._build(key)
        return found
