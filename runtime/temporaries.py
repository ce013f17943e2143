"""A cache of large kernel temporaries (``runtime/temporaries.ll``), PyTorch's caching
allocator idea for the memory a kernel allocates and frees inside one call.

A kernel's temporaries (a matmul's product before the addition that reads it, a
materialized transpose, a fused chain's intermediate) are allocated and freed on every
call. glibc serves a large block with a fresh ``mmap``, and its first touch pays page
faults and zeroing: in ``out += patch @ w`` nine times over, the products' 4 MB
temporaries took more time than the matmuls. Every ``malloc``/``free`` of a kernel goes
through ``ember_temp_alloc``/``ember_temp_free`` instead (the CPU backend rewrites its
LLVM IR: ``compiler/backends/llvm_cpu/temporaries.py``), which keep freed blocks of
``THRESHOLD`` bytes or more for the next request of the same size.

Bounded: at most ``SLOTS`` blocks and ``limit_bytes()`` bytes in all (``EMBER_TEMP_CACHE``,
default 256 MiB; ``0`` keeps none); a block freed into a full cache replaces the one freed
longest ago, so the kernels running now keep theirs (the corpus run's ``moving_average``,
after 60 other programs had filled the slots, took 10.9 ms a call instead of 6.3). Thread-safe (a spin lock: parallel parts allocate
too). Given back to the system by ``trim()`` (``compiler.reset()``), and by a failed
``malloc`` before it is tried again (memory pressure). Large blocks get huge pages, as
NumPy's own arrays do (``madvise(MADV_HUGEPAGE)`` from 4 MiB).
"""

from __future__ import annotations

import ctypes
import functools
import os
from importlib import resources

import llvmlite.binding as llvm

from runtime import jit_symbols
from runtime.target import host_target, new_target_machine

THRESHOLD = 1 << 20  # smaller blocks: glibc keeps them in its own arenas
HUGE = 4 << 20  # NumPy's huge-page threshold
SLOTS = 16
DEFAULT_LIMIT = 256 << 20
ALLOC, FREE, TRIM, CACHED = "ember_temp_alloc", "ember_temp_free", "ember_temp_trim", "ember_temp_cached"


def limit_bytes() -> int:
    """The cache's bound: ``EMBER_TEMP_CACHE`` (bytes, ``K``/``M``/``G`` suffixes), else 256 MiB."""
    from runtime.cache import parse_size

    text = os.environ.get("EMBER_TEMP_CACHE")
    if text is None:
        return DEFAULT_LIMIT
    if text.strip() == "0":
        return 0
    try:
        size = parse_size(text)
    except ValueError:
        size = None
    if size is None:  # "none"/"unlimited" too: the cache is always bounded
        raise ValueError(f"EMBER_TEMP_CACHE must be a size such as 256M or 0, got {text!r}")
    return size


def cache_ir(limit: int) -> str:
    """``temporaries.ll`` with its parameters filled in."""
    text = resources.files("runtime").joinpath("temporaries.ll").read_text()
    code, comments = [], []
    for line in text.splitlines():
        (comments if line.startswith(";") else code).append(line)
    body = "\n".join(code)
    for name, value in (("THRESHOLD", THRESHOLD), ("HUGE", HUGE), ("SLOTS", SLOTS), ("LIMIT", limit)):
        body = body.replace(name, str(value))
    return body


class TemporaryCache:
    """The compiled cache; never freed (kernels hold its addresses), like the worker pool."""

    def __init__(self, limit: int):
        machine = new_target_machine(0)  # a few dozen instructions: no need to optimize
        module = llvm.parse_assembly(cache_ir(limit))
        module.triple, module.data_layout = machine.triple, str(machine.target_data)
        module.verify()
        self._engine = llvm.create_mcjit_compiler(module, machine)
        self._engine.finalize_object()
        self.addresses = {name: self._engine.get_function_address(name) for name in (ALLOC, FREE, TRIM, CACHED)}
        self.trim = ctypes.CFUNCTYPE(ctypes.c_int64)(self.addresses[TRIM])
        self.cached = ctypes.CFUNCTYPE(ctypes.c_int64)(self.addresses[CACHED])
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(self))


@functools.cache
def cache() -> TemporaryCache:
    return TemporaryCache(limit_bytes())


def routed() -> bool:
    """Whether kernels route their temporaries here (Linux: ``madvise`` and glibc's mmap)."""
    return "linux" in host_target().triple


@functools.cache
def register_symbols() -> None:
    """Make ``ember_temp_alloc``/``ember_temp_free`` resolvable by the JIT."""
    if routed():
        for name in (ALLOC, FREE):
            jit_symbols.add_symbol(name, cache().addresses[name])


def trim() -> int:
    """Give every cached block back to the system; the bytes given back."""
    return cache().trim() if cache.cache_info().currsize else 0


def cached_bytes() -> int:
    return cache().cached() if cache.cache_info().currsize else 0
