"""The kernel ABI: what compiled object code and the runtime that calls it agree on.

The compiler (passes and backend) produces object code; the runtime loads and calls
it, possibly in another process, from the artifact cache, with no compiler imported.
Everything both sides must agree on is named here and nowhere else; the passes, the
backend, the entry glue (``runtime/entry_glue.py``) and the runtime import it.

**Arguments.** A kernel named ``name`` takes, in this order:

1. one memref descriptor per input array. Inputs arrive in whatever layout NumPy
   has them (views, negative or zero strides: no copy), so the descriptor carries
   strides; an input marked with the argument attribute ``LAYOUT_ATTR =
   "contiguous"`` was compiled for unit strides (contiguous loads vectorize), and
   the runtime only calls that variant with C-contiguous arrays.
2. one descriptor per output. Kernels never allocate their results (destination
   passing: a malloc and first-touch page faults per call cost more than small
   kernels run); the runtime allocates them as NumPy arrays the caller then owns.
   ``NUM_OUTPUTS_ATTR`` records how many trailing arrays are outputs.

   A result that is the new value of an input array the function writes (in-place
   NumPy: ``a += b``) carries the result attribute ``INOUT_ATTR = i`` (the input's
   index) and gets no output buffer: the kernel writes it into input ``i`` itself,
   the caller's array, so nothing is copied back. The frontend marks only results
   whose every element depends on the same element of the input alone, read by
   nothing else (``compiler/dialects/write_in_place.py``), so computing them in the
   input's buffer is right in any loop order. No other argument shares memory with a written
   input (the frontend guards that), so every buffer argument stays ``noalias``.
   The runtime returns input ``i`` in that result's place.
3. one descriptor per scratch buffer, where the function has ``SCRATCH_ATTR``
   (``[partials slots, counter slots]``, see ``scratch_buffers``): a reduction to
   one value split across threads keeps one partial per part and a counter that
   tells the last part to combine them. The caller allocates them zeroed, shared by
   the parts of one call only; ``MAX_PARTS`` partial slots means such a kernel never
   runs in more than ``MAX_PARTS`` parts.
4. ``part, parts`` (two ``i64``), where the function has ``PARALLEL_ATTR`` true: the
   call computes only its own contiguous block of the tiles, so the runtime can run
   the same kernel ``parts`` times at once, one call per thread, with no other
   synchronisation. A kernel without them runs on one thread.

A memref descriptor is MLIR's: ``{allocated, aligned, offset, sizes[rank],
strides[rank]}``, sizes and strides in elements (``runtime/memref.py``).

**Symbols.** The kernel function is ``kernel_symbol(name)`` (prefixed, so a graph
named ``pow`` cannot capture the libm ``pow`` its own code calls); MLIR's C
interface wrapper ``c_interface_name(name)`` takes pointers to the descriptors.
Building descriptors with ctypes costs about a microsecond per array, more than
many kernels run, so each object also exports ``entry_name(name)``, taking the
``PyArrayObject *`` of every input and output (then scratch pointers, then ``part,
parts``) and building the descriptors itself from the fields NumPy's C API macros
read, at the offsets ``PYARRAY_LAYOUT`` gives. A parallel kernel also exports
``launch_name(name)`` (arrays, then the number of parts asked for): it allocates
the scratch buffers and hands ``task_name(name)`` to the worker pool's ``POOL_RUN``
(``runtime/worker_pool.ll``), which calls it once per part. Where the layout probe
fails (``fast_entry_supported`` false) the runtime calls the C interface with
ctypes descriptors instead, a parallel kernel as its only part.

**Argument types.** ``ArraySpec(shape, dtype)`` describes one array argument in
plain Python: a size is an ``int``, or ``DYN`` where it is only known at run time.
The runtime checks calls against these without any MLIR.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

# ---------------------------------------------------------------- function attributes

PARALLEL_ATTR = "ember.parallel"  # bool: the kernel takes trailing (part, parts)
SCRATCH_ATTR = "ember.scratch"  # [partials slots, counter slots]: what the launcher allocates
NUM_OUTPUTS_ATTR = "ember.num_outputs"  # i64: how many of the buffer arguments are outputs
INOUT_ATTR = "ember.inout"  # result attribute, i64: the input this result is written into
LAYOUT_ATTR = "ember.layout"  # argument attribute: "contiguous", else any strides

MAX_PARTS = 256  # partials slots of a split reduction: it never runs in more parts

# ---------------------------------------------------------------- argument types

DYN = None  # a size only known at run time (``?`` in MLIR)


@dataclass(frozen=True)
class ArraySpec:
    """One array argument: ``shape`` (an ``int`` or ``DYN`` per axis) and NumPy dtype."""

    shape: tuple
    dtype: np.dtype

    def __post_init__(self):
        # The canonical dtype instance: the generated call path compares with ``is``.
        object.__setattr__(self, "dtype", np.dtype(self.dtype))
        object.__setattr__(self, "shape", tuple(self.shape))

    @property
    def rank(self) -> int:
        return len(self.shape)

    @property
    def is_static(self) -> bool:
        return all(d is not DYN for d in self.shape)

    def admits(self, dtype, shape) -> bool:
        """Whether an array of ``dtype`` and ``shape`` is one this argument takes."""
        return (
            dtype == self.dtype
            and len(shape) == self.rank
            and all(d is DYN or d == s for d, s in zip(self.shape, shape, strict=True))
        )

    def rejection(self, kernel: str, i: int, got: str) -> TypeError:
        """The error for argument ``i`` of ``kernel`` when it is ``got`` instead."""
        return TypeError(f"{kernel}: argument {i} must be {self}, got {got}")

    def __str__(self) -> str:
        return f"{self.dtype}[{', '.join('?' if d is DYN else str(d) for d in self.shape)}]"


def scratch_buffers(slots, output: ArraySpec) -> tuple[tuple[int, str], ...]:
    """``(slots, dtype)`` of each scratch buffer a kernel with ``SCRATCH_ATTR = slots``
    takes after its outputs: the partials, of its (first) output's dtype, then an
    int64 counter. Dtypes as strings, so the list can be stored beside object code."""
    partials, counter = slots
    return ((int(partials), output.dtype.str), (int(counter), np.dtype(np.int64).str))


# ---------------------------------------------------------------- symbols

POOL_RUN = "ember_pool_run"  # (task, argv, parts): task(argv, part, parts) for every part
POOL_AFTER_FORK = "ember_pool_after_fork"  # forget the parent's workers in a forked child


def kernel_symbol(name: str) -> str:
    """The symbol a graph named ``name`` gets in object code."""
    return f"ember_kernel_{name}"


def c_interface_name(name: str) -> str:
    """MLIR's wrapper of the kernel taking one descriptor pointer per buffer argument."""
    return f"_mlir_ciface_{kernel_symbol(name)}"


def entry_name(name: str) -> str:
    """``(PyArrayObject *arrays..., scratch pointers... [, part, parts])``."""
    return f"ember_entry_{name}"


def launch_name(name: str) -> str:
    """``(PyArrayObject *arrays..., parts)``: every part of a parallel kernel, one call."""
    return f"ember_launch_{name}"


def fastcall_name(name: str) -> str:
    """``PyObject *(PyObject *self, PyObject *const *args, Py_ssize_t nargs)``: the entry
    as a CPython ``METH_FASTCALL`` function (a builtin, no ctypes), for kernels that
    run on one thread. It returns ``self`` (a sentinel) without running when an input
    its variant takes as C-contiguous is not, and a new reference to its first
    argument when it ran."""
    return f"ember_fastcall_{name}"


# The CPython functions a fastcall entry calls (resolved in the running interpreter).
PYTHON_API = ("PyEval_SaveThread", "PyEval_RestoreThread", "Py_NewRef", "PyErr_BadArgument")
NPY_ARRAY_C_CONTIGUOUS = 0x0001


FORK_PREFIX = "ember_fork_"
FORKED_PREFIX = "ember_forked_"
# () -> the configured threads (a forked loop splits into FORK_PARTS_PER_THREAD parts per thread)
POOL_THREADS = "ember_pool_threads"
POOL_SET_THREADS = "ember_pool_set_threads"  # (threads): what POOL_THREADS returns from now on


def fork_name(function: str, number: int) -> str:
    """``(values..., tiles)``: what ``function`` calls in place of its loop ``number``
    (``ember-fork-loops``); the backend's glue runs ``forked_of`` it on the worker pool."""
    return f"{FORK_PREFIX}{function}_{number}"


def forked_name(function: str, number: int) -> str:
    """``(values..., part, parts)``: loop ``number`` of ``function``, moved out by
    ``ember-fork-loops``, running one part's tiles."""
    return f"{FORKED_PREFIX}{function}_{number}"


def forked_of(fork: str) -> str:
    """The forked function fork ``fork`` runs."""
    return FORKED_PREFIX + fork.removeprefix(FORK_PREFIX)


def fork_task_name(fork: str) -> str:
    """``(ptr argv, part, parts)``: one part of fork ``fork``'s loop, as the pool calls it (internal)."""
    return "ember_forktask_" + fork.removeprefix(FORK_PREFIX)


def task_name(name: str) -> str:
    """``(ptr argv, part, parts)``: one part, as the worker pool calls it (internal)."""
    return f"ember_task_{name}"


# ---------------------------------------------------------------- PyArrayObject

# Byte offsets of PyArrayObject's fields after the object header (NumPy's ABI since 1.x).
PYARRAY_LAYOUT = {"data": 16, "nd": 24, "dimensions": 32, "strides": 40, "flags": 64}


def _layout_holds() -> bool:
    """Whether a real array has its fields at ``PYARRAY_LAYOUT`` (a non-contiguous 3-d
    view, so no field can match by accident)."""
    probe = np.arange(24, dtype=np.float64).reshape(2, 3, 4)[:, ::-1, ::2]
    base = id(probe)

    def word(offset):
        return ctypes.c_int64.from_address(base + offset).value

    dims, strides = word(PYARRAY_LAYOUT["dimensions"]), word(PYARRAY_LAYOUT["strides"])
    return (
        word(PYARRAY_LAYOUT["data"]) == probe.ctypes.data
        and ctypes.c_int.from_address(base + PYARRAY_LAYOUT["nd"]).value == probe.ndim
        and [ctypes.c_int64.from_address(dims + 8 * i).value for i in range(3)] == list(probe.shape)
        and [ctypes.c_int64.from_address(strides + 8 * i).value for i in range(3)] == list(probe.strides)
        and _c_contiguous_flag(probe) is False
        and _c_contiguous_flag(np.ones((2, 3))) is True
    )


def _c_contiguous_flag(a: np.ndarray) -> bool:
    return bool(ctypes.c_int.from_address(id(a) + PYARRAY_LAYOUT["flags"]).value & NPY_ARRAY_C_CONTIGUOUS)


fast_entry_supported = _layout_holds()
