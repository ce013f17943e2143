"""Kernel temporaries go through the runtime's cache (``runtime/temporaries.py``): large
blocks are reused between calls and advised to huge pages, bounded, thread-safe, and
given back on ``compiler.reset()``."""

import ctypes
import threading

import numpy as np
import pytest

import compiler
from compiler.backends.llvm_cpu import lower_to_object
from compiler.backends.llvm_cpu.temporaries import route_temporaries
from compiler.mlir import functions, symbol_name
from runtime import temporaries

pytestmark = pytest.mark.skipif(not temporaries.routed(), reason="temporaries are routed on Linux only")


def test_malloc_and_free_are_routed_together():
    ir = (
        "declare ptr @malloc(i64)\ndeclare void @free(ptr)\n"
        "define void @f() {\n  %p = tail call ptr @malloc(i64 99)\n  call void @free(ptr %p)\n  ret void\n}\n"
    )
    routed = route_temporaries(ir, True)
    assert "tail call ptr @ember_temp_alloc(i64 99)" in routed and "call void @ember_temp_free(ptr %p)" in routed
    assert "declare ptr @ember_temp_alloc(i64)" in routed and "declare void @ember_temp_free(ptr)" in routed
    assert route_temporaries(ir, False) == ir


class _Cache:
    """A private instance (its own slots), called through ctypes."""

    def __init__(self, limit):
        self.native = temporaries.TemporaryCache(limit)
        self.alloc = ctypes.CFUNCTYPE(ctypes.c_void_p, ctypes.c_int64)(self.native.addresses[temporaries.ALLOC])
        self.free = ctypes.CFUNCTYPE(None, ctypes.c_void_p)(self.native.addresses[temporaries.FREE])


def test_a_freed_large_block_is_handed_out_again_for_the_same_size():
    cache = _Cache(64 << 20)
    big = temporaries.THRESHOLD * 3
    p = cache.alloc(big)
    ctypes.memset(p, 7, big)  # the whole block is usable
    cache.free(p)
    assert cache.native.cached() == big
    assert cache.alloc(big) == p and cache.native.cached() == 0
    q = cache.alloc(big + 8)  # another size: a fresh block
    assert q != p
    cache.free(p)
    cache.free(q)
    assert cache.native.cached() == 2 * big + 8
    assert cache.native.trim() == 2 * big + 8 and cache.native.cached() == 0


def test_small_blocks_are_not_kept_and_the_limit_holds():
    cache = _Cache(temporaries.THRESHOLD * 2)
    small = cache.alloc(1000)
    cache.free(small)
    assert cache.native.cached() == 0
    blocks = [cache.alloc(temporaries.THRESHOLD) for _ in range(3)]
    for b in blocks:
        cache.free(b)
    assert cache.native.cached() == 2 * temporaries.THRESHOLD  # the third did not fit
    cache.free(None)  # free(NULL) is a no-op, as C's
    cache.native.trim()


def test_a_full_cache_keeps_the_newest_blocks():
    """Blocks freed into a full cache (every slot taken, or the limit reached) take the
    place of those freed longest ago: the sizes a program uses now are kept, where stale
    ones from earlier kernels had refused them for good."""
    size = temporaries.THRESHOLD
    cache = _Cache(256 << 20)
    stale = [cache.alloc(size + 64 * k) for k in range(temporaries.SLOTS)]
    for b in stale:
        cache.free(b)
    total = sum(size + 64 * k for k in range(temporaries.SLOTS))
    assert cache.native.cached() == total
    new = cache.alloc(size * 2)
    cache.free(new)  # every slot is full: the oldest stale block (the first) goes
    assert cache.native.cached() == total - size + 2 * size
    assert cache.alloc(size * 2) == new  # the new size is kept
    assert cache.alloc(size + 64) == stale[1]  # and so are the other stale ones
    assert cache.native.cached() == total - size - (size + 64)
    cache.native.trim()
    limited = _Cache(3 * size)
    first, second = limited.alloc(size), limited.alloc(size + 64)
    limited.free(first)
    limited.free(second)
    third = limited.alloc(2 * size - 128)
    limited.free(third)  # over the limit: the oldest goes, the newer stays
    assert limited.native.cached() == (size + 64) + (2 * size - 128)
    assert limited.alloc(2 * size - 128) == third and limited.alloc(size + 64) == second
    limited.native.trim()


def test_threads_share_the_cache_safely():
    cache = _Cache(256 << 20)
    sizes = [temporaries.THRESHOLD * (1 + i % 3) for i in range(8)]
    errors = []

    def work(seed):
        try:
            for i in range(300):
                n = sizes[(seed + i) % len(sizes)]
                p = cache.alloc(n)
                ctypes.memset(p, seed, 64)
                if ctypes.string_at(p, 64) != bytes([seed]) * 64:
                    errors.append("a block was handed to two threads")
                cache.free(p)
        except Exception as e:  # pragma: no cover - reported below
            errors.append(repr(e))

    threads = [threading.Thread(target=work, args=(s,)) for s in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert errors == []
    assert cache.native.cached() <= 256 << 20
    cache.native.trim()
    assert cache.native.cached() == 0


def test_a_kernels_large_temporaries_are_reused_and_given_back_on_reset():
    def scaled_rows(A, x):
        return np.tanh(A * 2.0) @ x  # the tanh of the matrix is a 4.8 MB temporary

    modules = []
    A = np.random.default_rng(0).standard_normal((600, 1000))
    x = np.ones(1000)
    compiler.compile(scaled_rows, backend=lambda m, ex: modules.append(m) or compiler.backends.EagerGraph(m))(A, x)
    entry = symbol_name(functions(modules[0])[0])
    ir = lower_to_object(modules[0], entry, (True, True)).llvm_ir
    assert "call ptr @ember_temp_alloc(" in ir and "call void @ember_temp_free(" in ir
    compiled = compiler.compile(scaled_rows)
    for _ in range(3):
        np.testing.assert_allclose(compiled(A, x), scaled_rows(A, x), rtol=1e-12)
    assert temporaries.cached_bytes() >= 600 * 1000 * 8
    compiler.reset()
    assert temporaries.cached_bytes() == 0


def test_the_limit_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("EMBER_TEMP_CACHE", "64M")
    assert temporaries.limit_bytes() == 64 << 20
    monkeypatch.setenv("EMBER_TEMP_CACHE", "0")
    assert temporaries.limit_bytes() == 0
    monkeypatch.setenv("EMBER_TEMP_CACHE", "lots")
    with pytest.raises(ValueError, match="EMBER_TEMP_CACHE"):
        temporaries.limit_bytes()
    monkeypatch.delenv("EMBER_TEMP_CACHE")
    assert temporaries.limit_bytes() == temporaries.DEFAULT_LIMIT
