"""The worker threads that run a kernel's parts (see compiler/passes/parallel.py).

A parallel kernel is split into ``parts`` calls over contiguous blocks of its tiles.
Handing those calls to Python threads (a ``ThreadPoolExecutor``) cost ~50 µs per
kernel call — futures, a condition variable, the GIL taken back by each worker — which
is 7% of a 4096x1024 layernorm on two cores. So the pool is native code: LLVM IR in
``runtime/worker_pool.ll``, which this module JIT-compiles once per process. Its
workers spin for a while after each job (the next kernel call usually follows within
microseconds), then sleep on a condition variable; a call hands out the job by
storing one word per worker, and the caller and the workers claim the parts one by one
from a shared counter (a worker woken late finds them taken: the caller ran them), all
without the GIL (ctypes released it).

Each parallel kernel object gets ``ember_launch_<name>`` (see ``runtime/abi.py``),
which packs its array pointers and calls ``ember_pool_run(task, args, parts)``;
the JIT resolves that symbol to this pool (``register_symbols``). The pool runs one
job at a time: a call that finds it busy (another Python thread's kernel) runs its
parts one after another on its own thread, so concurrent callers never wait on each
other's work. After ``fork`` the child has none of the parent's workers; it starts
its own on first use.

Small problems run as one part: the hand-off costs about 0.2 µs, but below
``PARALLEL_MIN_BYTES`` a kernel has too few tiles to share (``ember-tile`` sizes tiles
at 256 KiB of operands; ``python benchmarks/parallel_split.py`` on two cores:
``tanh(x*x)`` on 256 KiB runs no faster in two parts, on 384 KiB 1.46x faster).
"""

from __future__ import annotations

import ctypes
import functools
import os
import re
from importlib import resources

import llvmlite.binding as llvm

from runtime import abi, jit_symbols
from runtime.target import host_target, new_target_machine

PARALLEL_MIN_BYTES = 384 << 10  # one and a half tiles of ember-tile's default size
MAX_WORKERS = 255  # worker ids 1..MAX_WORKERS (worker_pool.ll's slot arrays); the caller is id 0
SPIN_NS = 1_000_000  # a worker spins this long for the next job before it sleeps
# A forked loop's parts per thread (entry_glue.fork_glue). The parts are claimed one by
# one, so a thread that gets its core late or shares it takes fewer of them and the
# others run the rest: a kernel that calls BLAS forks its loops right after OpenBLAS's
# call, whose threads keep spinning for about 0.1 s on the cores our workers need.
# Measured on 2 cores (median ms, parts 2 -> 4 -> 8): the corpus's dft (exp of a 512^2
# complex matrix, then a product) 8.17 -> 5.86 -> 6.63, covariance 10.98 -> 10.45 ->
# 10.81, the MLP 3.68 -> 3.60 -> 3.68; the corpus in all 1.03x (geometric mean); kernels
# without BLAS the same within 2 %. The helper libraries keep one part per thread and
# size their blocks by ember_pool_threads: x @ A in four column blocks on
# two threads ran 11 % slower, A @ x's rows in four parts 5-10 %.
FORK_PARTS_PER_THREAD = 2

_num_threads: int | None = None  # set_num_threads(); None: the environment, else the cores


def set_num_threads(n: int | None) -> None:
    """Worker threads a parallel kernel call splits into (like ``torch.set_num_threads``);
    ``None`` goes back to ``EMBER_NUM_THREADS``, else the cores. The runtime owns the
    setting, as it runs the threads; ``compiler.config.num_threads`` reads and writes it."""
    global _num_threads
    _num_threads = None if n is None else int(n)
    sync_threads()


def configured_threads() -> int | None:
    """What ``set_num_threads`` set, ``None`` if nothing."""
    return _num_threads


def num_threads() -> int:
    """The threads a parallel call uses: ``set_num_threads``'s value if set, else
    ``EMBER_NUM_THREADS``, else the cores this process may run on."""
    if _num_threads is not None:
        return max(1, _num_threads)
    value = os.environ.get("EMBER_NUM_THREADS")
    if value:
        try:
            return max(1, int(value))
        except ValueError:
            raise ValueError(f"EMBER_NUM_THREADS must be an integer, got {value!r}") from None
    return _cores()


@functools.cache
def _cores() -> int:
    """The cores this process may run on, read once: ``num_threads`` runs on every
    parallel kernel call, and the affinity mask is a system call."""
    if hasattr(os, "sched_getaffinity"):
        return max(1, len(os.sched_getaffinity(0)))
    return os.cpu_count() or 1


def parts_for(arrays) -> int:
    """How many parts one call splits into: all threads, unless the data is small."""
    return parts_for_bytes(sum(a.nbytes for a in arrays))


def parts_for_bytes(nbytes: int) -> int:
    """``parts_for`` of arrays of ``nbytes`` in all (the generated call path adds them inline)."""
    return num_threads() if nbytes >= PARALLEL_MIN_BYTES else 1


SPIN_HINTS = {  # triple prefix -> the call that replaces worker_pool.ll's "; spin hint" line
    ("x86_64", "i686", "i386"): "  call void @llvm.x86.sse2.pause()",
    ("aarch64", "arm64"): "  call void @llvm.aarch64.hint(i32 1)",
}


def pool_ir(triple: str, max_workers: int = MAX_WORKERS, spin_ns: int = SPIN_NS) -> str:
    """``worker_pool.ll`` with this pool's parameters: the initializers of
    ``@max_workers`` and ``@spin_ns``, and the spin-wait hint of the host (none where
    it has none). The file documents these lines; each must be there exactly once."""
    if not 1 <= max_workers <= MAX_WORKERS:
        raise ValueError(f"max_workers must be in 1..{MAX_WORKERS} (the pool's slot arrays), got {max_workers}")
    text = resources.files("runtime").joinpath("worker_pool.ll").read_text()
    hint = next((call for prefixes, call in SPIN_HINTS.items() if triple.startswith(prefixes)), "  ; no spin hint")
    lines = (
        (r"^@max_workers = internal constant i64 \d+$", f"@max_workers = internal constant i64 {max_workers}"),
        (r"^@spin_ns = internal constant i64 \d+$", f"@spin_ns = internal constant i64 {int(spin_ns)}"),
        (r"^  ; spin hint$", hint),
    )
    for pattern, line in lines:
        text, count = re.subn(pattern, line, text, flags=re.M)
        if count != 1:
            raise RuntimeError(f"worker_pool.ll: expected one line matching {pattern!r}, found {count}")
    return text


class NativePool:
    """One compiled pool: ``run(task, args, parts)`` calls the C function
    ``task(args, part, parts)`` once for every part, on the calling thread and the
    workers, each taking the next part left.

    A pool is never freed: its workers run (or sleep) in its code until the process
    exits, so its engine must outlive every reference Python holds, interpreter
    shutdown included — each pool keeps one extra reference to itself."""

    def __init__(self, max_workers: int = MAX_WORKERS, spin_ns: int = SPIN_NS):
        # Unoptimized, and code generation at -O0: 4 ms instead of 35 ms at -O2, paid by
        # every process that runs a parallel kernel; the pool's paths are a few dozen
        # instructions either way (benchmarks/parallel_split.py's 1-element row).
        machine = new_target_machine(0)  # the engine owns it
        module = llvm.parse_assembly(pool_ir(host_target().triple, max_workers, spin_ns))
        module.triple, module.data_layout = machine.triple, str(machine.target_data)
        module.verify()
        self._engine = llvm.create_mcjit_compiler(module, machine)
        self._engine.finalize_object()
        self.run_address = self._engine.get_function_address(abi.POOL_RUN)
        self.run = ctypes.CFUNCTYPE(None, ctypes.c_void_p, ctypes.c_void_p, ctypes.c_int64)(self.run_address)
        self.after_fork = ctypes.CFUNCTYPE(None)(self._engine.get_function_address(abi.POOL_AFTER_FORK))
        self.threads_address = self._engine.get_function_address(abi.POOL_THREADS)
        self.set_threads = ctypes.CFUNCTYPE(None, ctypes.c_int64)(
            self._engine.get_function_address(abi.POOL_SET_THREADS)
        )
        os.register_at_fork(after_in_child=self.after_fork)
        ctypes.pythonapi.Py_IncRef(ctypes.py_object(self))


@functools.cache
def pool() -> NativePool:
    """The process's pool, which every parallel kernel uses."""
    return NativePool()


@functools.cache
def register_symbols() -> None:
    """Make ``ember_pool_run`` and ``ember_pool_threads`` resolvable by the JIT, for the
    objects of parallel kernels and of kernels with forked loops."""
    jit_symbols.add_symbol(abi.POOL_RUN, pool().run_address)
    jit_symbols.add_symbol(abi.POOL_THREADS, pool().threads_address)
    sync_threads()


def sync_threads() -> None:
    """Tell the pool how many threads forked loops and the helpers split across
    (``num_threads()``), once it exists: when it starts, and on ``set_num_threads``.
    ``EMBER_NUM_THREADS`` is read then; a parallel kernel's call reads it every time."""
    if pool.cache_info().currsize:
        pool().set_threads(num_threads())
