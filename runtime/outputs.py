"""Large kernel outputs from the cache of large blocks (``runtime/temporaries.py``),
returned to it when the caller's array dies: PyTorch's caching allocator for outputs.

Why: a kernel called in a loop gets a fresh output every call. With ``np.empty`` a block
of 32 MiB or more is a fresh ``mmap`` each time (glibc's mmap threshold stops growing at
32 MiB), and the kernel's first touch of each page pays a fault and the kernel's
zeroing of the page: the zeroing alone writes the whole output once more, and leaves its
lines dirty in the cache where the kernel's streaming stores must evict them. A block
handed back when the last array over it dies, and handed out again to the next request
of the same size, is already mapped.

An output of ``MIN_BYTES`` or more is an array over a block of the cache; its
``base`` is the ``Block`` holding it, whose finalizer returns the block (so views keep
it alive, as NumPy's own bases do). The cache is bounded (``EMBER_TEMP_CACHE``),
thread-safe, shared with the kernels' temporaries, and given back to the system by
``compiler.reset()`` and by a failed allocation. Smaller outputs, and hosts where
kernels do not route their temporaries there, get ``np.empty``: below 16 MiB glibc
mostly reuses its heap blocks itself, and the holder costs 2-4 us a call. Measured on
``x * 1.5 + y`` float32 called in a loop: 1 MiB 19-21 -> 24 us, 2-16 MiB the same within
4 %, 32 MiB 5.1 -> 1.8 ms.
"""

from __future__ import annotations

import ctypes
import functools
import math

import numpy as np

from runtime import temporaries

MIN_BYTES = 16 << 20
_ALLOCATE = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int64)
_FREE = ctypes.CFUNCTYPE(None, ctypes.c_void_p)


@functools.cache
def _entries() -> tuple:
    cache = temporaries.cache()
    return _ALLOCATE(cache.addresses[temporaries.ALLOC]), _FREE(cache.addresses[temporaries.FREE])


class Block:
    """One cached block under one output array; returned to the cache when collected."""

    __slots__ = ("__array_interface__", "_address", "_free")

    def __init__(self, address: int, shape: tuple, dtype: np.dtype, free):
        self._address, self._free = address, free
        self.__array_interface__ = {"data": (address, False), "shape": shape, "typestr": dtype.str, "version": 3}

    def __del__(self):
        self._free(self._address)


def cached(shape, dtype) -> bool:
    """Whether an output of ``shape`` and ``dtype`` comes from the cache (``empty``); the
    binder of a static signature asks once, so small outputs stay a bare ``np.empty``
    on the warm path (this check costs about 180 ns a call)."""
    dtype = np.dtype(dtype)
    return math.prod(shape) * dtype.itemsize >= MIN_BYTES and not dtype.hasobject and temporaries.routed()


def empty(shape, dtype) -> np.ndarray:
    """``np.empty(shape, dtype)``, from the cache when it is large."""
    dtype = np.dtype(dtype)
    if not cached(shape, dtype):
        return np.empty(shape, dtype)
    return _from_cache(shape, dtype)


def empty_of(dtype):
    """``empty`` for outputs of one dtype, what can be decided once decided: the
    allocator a kernel with run-time output sizes calls for each output. ``empty``
    looks the dtype up and checks it on every call: 1.6 us against ``np.empty``'s 0.4
    for a small output, most of such a kernel's warm call."""
    dtype = np.dtype(dtype)
    if dtype.hasobject or not temporaries.routed():
        return lambda shape: np.empty(shape, dtype)
    least = -(-MIN_BYTES // dtype.itemsize)  # the items from which the cache serves it

    def allocate(shape) -> np.ndarray:
        if math.prod(shape) < least:
            return np.empty(shape, dtype)
        return _from_cache(shape, dtype)

    return allocate


def _from_cache(shape, dtype: np.dtype) -> np.ndarray:
    nbytes = math.prod(shape) * dtype.itemsize
    allocate, free = _entries()
    address = allocate(nbytes)
    if not address:
        raise MemoryError(f"ember: cannot allocate an output of {nbytes} bytes")
    return np.asarray(Block(address, tuple(shape), dtype, free))
