"""A caching allocator for device memory, after PyTorch's CUDA caching allocator.

``cuMemAlloc`` and ``cuMemFree`` cost tens of microseconds and ``cuMemFree``
synchronizes the device, so freeing a temporary after every kernel would serialize
the GPU with Python. Freed blocks are kept instead and handed out again to the next
request of the same size class.

Size classes: requests round up to a multiple of 512 B while that stays below 1 MiB
(PyTorch's small pool), to a multiple of 2 MiB from 1 MiB on (its large pool), so a
block serves every request of its class and a few classes cover most sizes. Unlike
PyTorch, a block is one raw allocation: large segments are not split.

Reuse is stream-ordered: a block freed on stream ``s`` may still be read by kernels
queued on ``s``, so it is handed out again only for allocations on ``s``, whose work
runs after them. Reuse on another stream would need an event recorded at free time.
Releasing a cached block to the driver is safe at any time, since ``cuMemFree``
waits for the device.

The cache is bounded: when freed-but-cached bytes exceed ``limit_bytes`` (default
``EMBER_CUDA_CACHE_LIMIT``, e.g. ``2GiB``, ``512MiB`` or plain bytes, else 4 GiB),
the oldest cached blocks go back to the driver. An allocation the driver refuses for
lack of memory empties the cache and is tried once more.
"""

from __future__ import annotations

import os
import re
import threading
from dataclasses import dataclass

from runtime.cuda.driver import driver
from runtime.errors import CudaError

SMALL_GRANULE = 512
LARGE_GRANULE = 2 << 20
SMALL_LIMIT = 1 << 20
DEFAULT_CACHE_LIMIT = 4 << 30

_UNITS = {"": 1, "b": 1, "kib": 1 << 10, "mib": 1 << 20, "gib": 1 << 30, "tib": 1 << 40}


@dataclass(eq=False)
class Block:
    """A device allocation: ``size`` is its size class, ``stream`` the stream it is used on."""

    ptr: int
    size: int
    stream: int = 0


def size_class(nbytes: int) -> int:
    """The size of the block that serves a request of ``nbytes`` (at least one granule)."""
    small = max(_round_up(nbytes, SMALL_GRANULE), SMALL_GRANULE)
    return small if small < SMALL_LIMIT else _round_up(nbytes, LARGE_GRANULE)


def _round_up(n: int, granule: int) -> int:
    return -(-n // granule) * granule


def parse_bytes(text: str) -> int:
    """``"2GiB"``, ``"512MiB"``, ``"4096"`` as a number of bytes."""
    match = re.fullmatch(r"\s*(\d+)\s*([KMGT]iB|B)?\s*", text, re.IGNORECASE)
    if match is None:
        raise ValueError(f"{text!r} is not a size: expected bytes like '4GiB', '512MiB' or '1048576'")
    return int(match[1]) * _UNITS[(match[2] or "").lower()]


def cache_limit_from_env() -> int:
    text = os.environ.get("EMBER_CUDA_CACHE_LIMIT")
    if text is None:
        return DEFAULT_CACHE_LIMIT
    try:
        return parse_bytes(text)
    except ValueError as e:
        raise ValueError(f"EMBER_CUDA_CACHE_LIMIT: {e}") from None


class CachingAllocator:
    """Hands out ``Block``s over ``raw_alloc(nbytes) -> ptr`` and ``raw_free(ptr)``, caching freed ones."""

    def __init__(self, raw_alloc, raw_free, *, limit_bytes: int | None = None):
        self._raw_alloc, self._raw_free = raw_alloc, raw_free
        self.limit_bytes = cache_limit_from_env() if limit_bytes is None else limit_bytes
        self._lock = threading.Lock()
        self._live: dict[int, Block] = {}
        self._free: dict[tuple[int, int], dict[int, Block]] = {}  # (stream, size) -> cached blocks, newest last
        self._age: dict[int, Block] = {}  # every cached block, oldest first
        self._allocated = self._cached = self._raw_allocs = self._reuses = 0

    def allocate(self, nbytes: int, stream: int = 0) -> Block:
        size = size_class(nbytes)
        with self._lock:
            block = self._take_cached(size, stream)
            if block is None:
                block = self._new_block(size, stream)
            self._live[block.ptr] = block
            self._allocated += size
            return block

    def free(self, block: Block) -> None:
        with self._lock:
            if self._live.get(block.ptr) is not block:
                raise ValueError(f"device block {block.ptr:#x} is not allocated (freed twice?)")
            del self._live[block.ptr]
            self._allocated -= block.size
            self._free.setdefault((block.stream, block.size), {})[block.ptr] = block
            self._age[block.ptr] = block
            self._cached += block.size
            self._trim(self.limit_bytes)

    def empty_cache(self) -> None:
        """Release every cached block to the driver."""
        with self._lock:
            self._trim(0)

    def stats(self) -> dict[str, int]:
        with self._lock:
            return {
                "allocated_bytes": self._allocated,
                "cached_bytes": self._cached,
                "raw_allocs": self._raw_allocs,
                "reuses": self._reuses,
            }

    def _take_cached(self, size: int, stream: int) -> Block | None:
        bucket = self._free.get((stream, size))
        if not bucket:
            return None
        _, block = bucket.popitem()  # the most recently freed: likeliest still in L2
        self._forget_cached(block, bucket)
        self._reuses += 1
        return block

    def _new_block(self, size: int, stream: int) -> Block:
        try:
            ptr = self._raw_alloc(size)
        except CudaError as e:
            if e.name != "CUDA_ERROR_OUT_OF_MEMORY" or not self._age:
                raise
            self._trim(0)
            ptr = self._raw_alloc(size)
        self._raw_allocs += 1
        return Block(ptr, size, stream)

    def _trim(self, limit: int) -> None:
        """Release cached blocks, oldest first, until at most ``limit`` bytes stay cached."""
        while self._cached > limit:
            block = next(iter(self._age.values()))
            bucket = self._free[(block.stream, block.size)]
            del bucket[block.ptr]
            self._forget_cached(block, bucket)
            self._raw_free(block.ptr)

    def _forget_cached(self, block: Block, bucket: dict[int, Block]) -> None:
        if not bucket:
            del self._free[(block.stream, block.size)]
        del self._age[block.ptr]
        self._cached -= block.size


_allocator: CachingAllocator | None = None
_allocator_lock = threading.Lock()


def device_allocator() -> CachingAllocator:
    """The process's allocator of device memory, created on first use (``NoCudaDriver`` without a GPU)."""
    global _allocator
    if _allocator is None:
        with _allocator_lock:
            if _allocator is None:
                driver()
                _allocator = CachingAllocator(_raw_alloc, _raw_free)
    return _allocator


def _raw_alloc(nbytes: int) -> int:
    return driver().alloc_raw(nbytes)  # through driver(): the calling thread needs the context current


def _raw_free(ptr: int) -> None:
    driver().free_raw(ptr)


def release_cached() -> None:
    """Give every cached block back to the driver, if device memory was ever allocated."""
    if _allocator is not None:
        _allocator.empty_cache()
