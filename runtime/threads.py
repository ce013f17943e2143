"""The worker threads that run a kernel's parts (see compiler/passes/parallel.py).

A parallel kernel is called once per part, concurrently; each ctypes call releases
the GIL, so the parts run on separate cores. Small problems run as one part: below
``PARALLEL_MIN_BYTES`` of data the ~10 µs of handing work to a thread costs more
than it saves.
"""

from __future__ import annotations

import os
import threading
from concurrent.futures import ThreadPoolExecutor

PARALLEL_MIN_BYTES = 1 << 20
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def num_threads() -> int:
    """``EMBER_NUM_THREADS`` if set, else the machine's core count."""
    value = os.environ.get("EMBER_NUM_THREADS")
    if value:
        try:
            return max(1, int(value))
        except ValueError:
            raise ValueError(f"EMBER_NUM_THREADS must be an integer, got {value!r}") from None
    return os.cpu_count() or 1


def _executor(workers: int) -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None or _pool._max_workers < workers:
            _pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="ember")
        return _pool


def run_parts(call, parts: int) -> None:
    """``call(part)`` for every part in ``range(parts)``, part 0 on this thread."""
    if parts <= 1:
        call(0)
        return
    futures = [_executor(parts - 1).submit(call, p) for p in range(1, parts)]
    call(0)
    for f in futures:
        f.result()
