"""Ember's operations, as one table of plain-Python type rules.

Every Ember op is a row of ``OPS``: its operands, its attributes and a *rule* that
maps operand types and attributes to the result type (raising ``TypeRuleError`` with
a readable message when they do not fit). The same rule drives three things, so
they can never disagree:

* the MLIR verifier of the op (``ember.py`` compares the rule's answer with the
  op's declared result type),
* the builder (``builder.py`` asks the rule for the result type),
* the reference interpreter's shape expectations (``interpreter.py``).

NumPy broadcasting and dtype promotion are *explicit* in Ember: elementwise ops take
operands of one type (same shape, same dtype) and the frontend inserts
``broadcast_to`` and ``cast``. Ops whose result shape is not a function of their
operands' types (``broadcast_to``, ``reshape``, ``slice``, ``cast``, ``iota``) take the result
type from the builder and the rule only checks it; their dynamic result sizes are
passed as trailing ``index`` operands, one per ``?`` of the result, in order.

Sizes themselves are values too: the ``size`` family computes ``index`` values
(``size_constant``, ``size_arith``) and moves between them and 0-d integer tensors
(``to_index``, ``from_index``), so that a symbolic size such as ``s0 // 2`` or a
Python int argument ``n`` can size a result. An op's operands are its tensor operands
(``operands``), then its named ``index`` operands (``index_operands``), then its
dynamic result sizes (``sizes``); rules see the tensor operands' types only, since
an ``index`` operand has no type to check.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from compiler.dialects.types import COMPLEX, COMPLEX_PART, DYN, FLOATS, INTEGERS, TensorType


class TypeRuleError(ValueError):
    """An op's operands or attributes do not fit its rule."""


INDEX = "index"  # what the rule of an op producing an ``index`` returns (ember.dim, the size family)


@dataclass(frozen=True)
class OpSpec:
    name: str
    family: str
    operands: tuple[str, ...]
    rule: Callable
    attrs: dict = field(default_factory=dict)  # attribute name -> kind (see ATTR_KINDS)
    sizes: bool = False  # trailing variadic ``index`` operands: dynamic result sizes
    result_given: bool = False  # the builder supplies the result type
    index_operands: tuple[str, ...] = ()  # named ``index`` operands, after the tensor operands
    index_result: bool = False  # the result is an ``index``, not a tensor (the rule returns INDEX)


# Attribute kinds: how a Python value is stored as an MLIR attribute (see ember.py).
ATTR_KINDS = ("i64", "i64s", "bool", "str", "dense")


def _fail(msg: str):
    raise TypeRuleError(msg)


def _same_dims(a, b) -> bool:
    return a == b


def _require(cond: bool, msg: str):
    if not cond:
        _fail(msg)


def _check_axes(axes, rank: int, what: str = "axes") -> tuple[int, ...]:
    axes = tuple(axes)
    for a in axes:
        _require(0 <= a < rank, f"{what} {list(axes)} out of range for rank {rank}")
    _require(len(set(axes)) == len(axes), f"{what} {list(axes)} repeat an axis")
    return axes


# ----------------------------------------------------------------------------- elementwise

UNARY_DTYPES = {
    "neg": FLOATS + INTEGERS,
    "abs": FLOATS + INTEGERS,
    "exp": FLOATS,
    "log": FLOATS,
    "sqrt": FLOATS,
    "tanh": FLOATS,
    "sin": FLOATS,
    "cos": FLOATS,
    "sigmoid": FLOATS,
    "erf": FLOATS,
    "floor": FLOATS,
    "logical_not": ("i1",),
    # NumPy's math ufuncs (numpy_math.py): upstream ``math`` ops, libm where LLVM calls it
    "tan": FLOATS,
    "asin": FLOATS,
    "acos": FLOATS,
    "atan": FLOATS,
    "sinh": FLOATS,
    "cosh": FLOATS,
    "asinh": FLOATS,
    "acosh": FLOATS,
    "atanh": FLOATS,
    "log1p": FLOATS,
    "expm1": FLOATS,
    "log2": FLOATS,
    "log10": FLOATS,
    "exp2": FLOATS,
    "cbrt": FLOATS,
    "ceil": FLOATS,
    "trunc": FLOATS,
    "rint": FLOATS,  # round half to even (math.roundeven)
}

BINARY_DTYPES = {
    "add": FLOATS + INTEGERS,
    "sub": FLOATS + INTEGERS,
    "mul": FLOATS + INTEGERS,
    "div": FLOATS,
    "floordiv": FLOATS + INTEGERS,
    "mod": FLOATS + INTEGERS,
    "pow": FLOATS + INTEGERS,
    "maximum": FLOATS + INTEGERS + ("i1",),
    "minimum": FLOATS + INTEGERS + ("i1",),
    "and": INTEGERS + ("i1",),
    "or": INTEGERS + ("i1",),
    "xor": INTEGERS + ("i1",),
    "atan2": FLOATS,
    "hypot": FLOATS,
    "copysign": FLOATS,
    "fmod": FLOATS + INTEGERS,  # C's remainder: the dividend's sign; integer x fmod 0 is 0
    "shl": INTEGERS,  # NumPy's shifts: a count outside [0, bits) gives 0 (shr: the sign)
    "shr": INTEGERS,
}

CMP_PREDICATES = ("eq", "ne", "lt", "le", "gt", "ge")

# --- complex numbers (types.COMPLEX; lowered in passes/complex_semantics.py, frontend in
# frontend/numpy_complex.py): the ufunc loops NumPy has for complex, and ops of their own
for _n in ("neg", "exp", "log", "sqrt", "tanh", "sin", "cos"):
    UNARY_DTYPES[_n] += COMPLEX
for _n in ("add", "sub", "mul", "div"):
    BINARY_DTYPES[_n] += COMPLEX


def _complex_op_rule(to_part: bool):
    """``real imag cabs`` give the part's type (``complex<f64>`` -> ``f64``); ``conj`` and
    ``reciprocal`` keep the complex type. Complex operands only."""

    def rule(x: TensorType, attrs, result=None):
        _require(x.dtype in COMPLEX, f"element type {x.dtype} is not complex")
        return x.with_dtype(COMPLEX_PART[x.dtype]) if to_part else x

    return rule


COMPLEX_OPS = {"real": True, "imag": True, "cabs": True, "conj": False, "reciprocal": False}


def _complex_rule(re: TensorType, im: TensorType, attrs, result=None):
    """``complex(re, im)``: parts of one type (f32 or f64) -> ``complex<fN>``."""
    _require(re == im, f"operand types differ: {re} vs {im} (broadcast and cast first)")
    _require(re.dtype in COMPLEX_PART.values(), f"parts must be f32 or f64, got {re.dtype}")
    return re.with_dtype(next(c for c, p in COMPLEX_PART.items() if p == re.dtype))


# --- end of complex numbers


def _unary_rule(name):
    def rule(x: TensorType, attrs, result=None):
        _require(x.dtype in UNARY_DTYPES[name], f"element type {x.dtype} not supported")
        return x

    return rule


def _binary_rule(name):
    def rule(lhs: TensorType, rhs: TensorType, attrs, result=None):
        _require(lhs == rhs, f"operand types differ: {lhs} vs {rhs} (broadcast and cast first)")
        _require(lhs.dtype in BINARY_DTYPES[name], f"element type {lhs.dtype} not supported")
        return lhs

    return rule


def _cmp_rule(lhs, rhs, attrs, result=None):
    _require(lhs == rhs, f"operand types differ: {lhs} vs {rhs} (broadcast and cast first)")
    _require(
        attrs["predicate"] in CMP_PREDICATES,
        f"unknown predicate {attrs['predicate']!r}, expected one of {', '.join(CMP_PREDICATES)}",
    )
    return lhs.with_dtype("i1")


def _select_rule(cond, lhs, rhs, attrs, result=None):
    _require(cond.dtype == "i1", f"condition must have element type i1, got {cond.dtype}")
    _require(lhs == rhs, f"branch types differ: {lhs} vs {rhs}")
    _require(cond.shape == lhs.shape, f"condition shape {cond} differs from {lhs}")
    return lhs


# ----------------------------------------------------------------------------- shapes


def _broadcast_rule(x, attrs, result):
    _require(result.dtype == x.dtype, f"element type changes from {x.dtype} to {result.dtype}")
    _require(result.rank >= x.rank, f"cannot broadcast {x} to lower rank {result}")
    offset = result.rank - x.rank
    for i, d in enumerate(x.shape):
        out = result.shape[offset + i]
        _require(
            d == 1 or _same_dims(d, out),
            f"dimension {i} of {x} is neither 1 nor equal to dimension {offset + i} of {result}",
        )
    return result


def _cast_rule(x, attrs, result):
    _require(result.shape == x.shape, f"cast changes shape: {x} to {result}")
    return result


def _reshape_rule(x, attrs, result):
    _require(result.dtype == x.dtype, f"element type changes from {x.dtype} to {result.dtype}")
    if x.is_static and result.is_static:
        _require(
            _numel(x.shape) == _numel(result.shape), f"cannot reshape {x} ({_numel(x.shape)} elements) to {result}"
        )
    return result


def _numel(shape) -> int:
    n = 1
    for d in shape:
        n *= d
    return n


def slice_length(size: int, start: int, step: int) -> int:
    """Number of elements NumPy's ``a[start::step]`` has along a dim of ``size``."""
    return len(range(size)[slice(start, None, step)])


def slice_first(axis: int, size: int, start: int, step: int, length: int) -> int:
    """Where ``length`` elements from ``start`` (counted from the end when negative)
    by ``step`` begin along dimension ``axis`` of ``size``; TypeRuleError when any of
    them falls outside the dimension."""
    first = start + size if start < 0 else start
    last = first + (length - 1) * step
    _require(
        length == 0 or (0 <= first < size and 0 <= last < size),
        f"dimension {axis}: {length} elements from {start} by {step} leave the size {size}",
    )
    return first


def _slice_rule(x, attrs, result):
    starts, steps = attrs["starts"], attrs["steps"]
    _require(
        len(starts) == x.rank and len(steps) == x.rank,
        f"starts and steps need {x.rank} entries, got {len(starts)} and {len(steps)}",
    )
    _require(result.dtype == x.dtype and result.rank == x.rank, f"slice result {result} does not fit {x}")
    for i, (d, start, step, out) in enumerate(zip(x.shape, starts, steps, result.shape)):
        _require(step != 0, f"step of dimension {i} is zero")
        if d is not DYN and out is not DYN:
            slice_first(i, d, start, step, out)
    return result


def _update_slice_rule(dest, src, attrs, result=None):
    """``dest[start::step, ...] = src`` as a value: ``dest`` with the strided region of
    ``src``'s shape replaced. ``src`` is already broadcast to the region (same rank);
    where sizes are static the region must fit inside ``dest``."""
    starts, steps = attrs["starts"], attrs["steps"]
    _require(src.dtype == dest.dtype, f"element types differ: dest {dest.dtype} vs src {src.dtype} (cast first)")
    _require(src.rank == dest.rank, f"src {src} and dest {dest} differ in rank (broadcast src to the region first)")
    _require(
        len(starts) == dest.rank and len(steps) == dest.rank,
        f"starts and steps need {dest.rank} entries, got {len(starts)} and {len(steps)}",
    )
    for i, (d, start, step, length) in enumerate(zip(dest.shape, starts, steps, src.shape)):
        _require(step != 0, f"step of dimension {i} is zero")
        if d is not DYN and length is not DYN:
            slice_first(i, d, start, step, length)
    return dest


def _iota_rule(attrs, result):
    """``result[i0, i1, ...] = i_axis``, for a declared result type."""
    _require(result.rank > 0, "iota needs a result of rank 1 or more")
    _check_axes([attrs["axis"]], result.rank, "axis")
    _require(result.dtype != "i1", "iota of i1 is not supported (compare an integer iota instead)")
    return result


def _reduce_rule(name):
    def rule(x, attrs, result=None):
        axes = _check_axes(attrs["axes"], x.rank)
        if name in ("sum", "prod"):
            _require(x.dtype != "i1", f"'{name}' of i1 is undefined (cast to an integer first)")
        if name == "mean":
            _require(x.is_float or x.is_complex, f"'mean' needs a float element type, got {x.dtype}")
        if attrs["keepdims"]:
            shape = tuple(1 if i in axes else d for i, d in enumerate(x.shape))
        else:
            shape = tuple(d for i, d in enumerate(x.shape) if i not in axes)
        return x.with_shape(shape)

    return rule


def _dims_agree(a, b) -> bool:
    return a is DYN or b is DYN or a == b


def _matmul_rule(lhs, rhs, attrs, result=None):
    _require(lhs.dtype == rhs.dtype, f"element types differ: {lhs.dtype} vs {rhs.dtype}")
    _require(lhs.dtype != "i1", "matmul of i1 is not supported")
    _require(lhs.rank >= 1 and rhs.rank >= 1, "matmul needs operands of rank 1 or more")
    k_lhs = lhs.shape[-1]
    k_rhs = rhs.shape[0] if rhs.rank == 1 else rhs.shape[-2]
    _require(_dims_agree(k_lhs, k_rhs), f"contracted dimensions differ: {lhs} @ {rhs}")
    if rhs.rank <= 2:  # a matrix, or a stack of rows, times a matrix or vector
        shape = lhs.shape[:-1] + rhs.shape[1:] if rhs.rank == 2 else lhs.shape[:-1]
        return lhs.with_shape(shape)
    _require(lhs.rank == rhs.rank, f"batched matmul needs equal ranks: {lhs} @ {rhs}")
    _require(lhs.shape[:-2] == rhs.shape[:-2], f"batch dimensions differ: {lhs} @ {rhs} (broadcast first)")
    return lhs.with_shape(lhs.shape[:-1] + rhs.shape[-1:])


def _transpose_rule(x, attrs, result=None):
    perm = tuple(attrs["perm"])
    _require(sorted(perm) == list(range(x.rank)), f"perm {list(perm)} is not a permutation of rank {x.rank}")
    return x.with_shape(tuple(x.shape[p] for p in perm))


def _expand_dims_rule(x, attrs, result=None):
    rank = x.rank + len(attrs["axes"])
    axes = _check_axes(attrs["axes"], rank)
    dims = iter(x.shape)
    return x.with_shape(tuple(1 if i in axes else next(dims) for i in range(rank)))


def _squeeze_rule(x, attrs, result=None):
    axes = _check_axes(attrs["axes"], x.rank)
    for a in axes:
        _require(x.shape[a] == 1, f"cannot squeeze dimension {a} of {x}: its size is not 1")
    return x.with_shape(tuple(d for i, d in enumerate(x.shape) if i not in axes))


def _concatenate_rule(lhs, rhs, attrs, result=None):
    axis = attrs["axis"]
    _require(lhs.dtype == rhs.dtype, f"element types differ: {lhs.dtype} vs {rhs.dtype}")
    _require(lhs.rank == rhs.rank and lhs.rank > 0, f"cannot concatenate {lhs} and {rhs}")
    _check_axes([axis], lhs.rank, "axis")
    for i, (a, b) in enumerate(zip(lhs.shape, rhs.shape)):
        _require(i == axis or a == b, f"dimension {i} differs: {lhs} vs {rhs}")
    a, b = lhs.shape[axis], rhs.shape[axis]
    joined = DYN if a is DYN or b is DYN else a + b
    return lhs.with_shape(lhs.shape[:axis] + (joined,) + lhs.shape[axis + 1 :])


def _dim_rule(x, attrs, result=None):
    _check_axes([attrs["axis"]], x.rank, "axis")
    return INDEX


def _constant_rule(attrs, result=None):
    return TensorType.of_array(attrs["value"])


# ----------------------------------------------------------------------------- sizes

# ``size_arith``'s ops on ``index`` values, as Python computes them on ints (the
# interpreter and the shape program call these): ``floordiv`` rounds toward negative
# infinity, ``mod`` takes the divisor's sign, a zero divisor raises ZeroDivisionError.
SIZE_ARITH: dict[str, Callable[[int, int], int]] = {
    "add": operator.add,
    "sub": operator.sub,
    "mul": operator.mul,
    "floordiv": operator.floordiv,
    "mod": operator.mod,
    "max": max,
    "min": min,
}


def _size_constant_rule(attrs, result=None):
    return INDEX


def _size_arith_rule(attrs, result=None):
    _require(
        attrs["op"] in SIZE_ARITH, f"unknown size arithmetic {attrs['op']!r}, expected one of {', '.join(SIZE_ARITH)}"
    )
    return INDEX


def _to_index_rule(x, attrs, result=None):
    _require(x.rank == 0, f"to_index needs a 0-d tensor, got {x}")
    _require(x.dtype in INTEGERS, f"to_index needs an integer element type ({', '.join(INTEGERS)}), got {x.dtype}")
    return INDEX


def _from_index_rule(attrs, result=None):
    return TensorType((), "i64")


# ----------------------------------------------------------------------------- advanced indexing
# (gather/scatter: lowered in passes/lower_indexing.py, frontend in frontend/numpy_indexing.py)


def _indexed_shape(x, indices, attrs) -> tuple:
    """The shape ``gather`` reads: ``x``'s dims not in ``axes``, with the index batch
    shape ``indices.shape[:-1]`` inserted at position ``at``."""
    axes = tuple(attrs["axes"])
    _require(indices.dtype == "i64", f"indices must have element type i64, got {indices.dtype}")
    _require(indices.rank >= 1, f"indices need a trailing dimension of the indexed axes, got {indices}")
    _require(indices.shape[-1] == len(axes), f"indices {indices} do not index {len(axes)} axes (the last dimension)")
    _require(len(axes) >= 1, "gather/scatter needs at least one indexed axis")
    _check_axes(axes, x.rank)
    _require(list(axes) == sorted(axes), f"axes {list(axes)} must be increasing")
    rest = [d for i, d in enumerate(x.shape) if i not in axes]
    at = attrs["at"]
    _require(0 <= at <= len(rest), f"at={at} out of range for {len(rest)} remaining dimensions")
    return tuple(rest[:at]) + tuple(indices.shape[:-1]) + tuple(rest[at:])


def _gather_rule(x, indices, attrs, result=None):
    """``result[r] = x[...]``: the coordinates of ``x`` along ``axes`` are
    ``indices[b, :]`` (``b`` the result's dims ``at .. at + batch rank``), the other
    coordinates the result's remaining dims in order. Indices must lie in range (the
    frontend wraps negatives and checks; the lowering clamps, so none reads outside)."""
    return x.with_shape(_indexed_shape(x, indices, attrs))


def _scatter_rule(dest, indices, updates, attrs, result=None):
    """``dest`` with ``dest[...] = updates[r]`` at the coordinates ``gather`` would read
    ``r`` from, written in row-major order of ``updates``: the last write wins."""
    _require(updates.dtype == dest.dtype, f"element types differ: dest {dest.dtype} vs updates {updates.dtype}")
    shape = _indexed_shape(dest, indices, attrs)
    _require(
        len(shape) == updates.rank and all(_dims_agree(a, b) for a, b in zip(shape, updates.shape)),
        f"updates {updates} do not have the indexed shape {shape}",
    )
    return dest


def _scatter_add_rule(dest, indices, updates, attrs, result=None):
    """``scatter_add``: the positions of ``scatter``, each update added to what the
    position holds, in the same order (``np.bincount``); real element types."""
    _require(dest.dtype not in COMPLEX, f"scatter_add of complex {dest.dtype} is not supported")
    return _scatter_rule(dest, indices, updates, attrs, result)


# ----------------------------------------------------------------------------- scans
# (cumsum/cumprod, ufunc.accumulate: lowered in passes/lower_scan.py, frontend in
# frontend/numpy_reductions.py)

# each kind and the NumPy ufunc whose ``accumulate`` it is (the interpreter's reference
# and the frontend's table of ``ufunc.accumulate``)
SCAN_KINDS = {
    "sum": np.add,
    "prod": np.multiply,
    "max": np.maximum,
    "min": np.minimum,
    "fmax": np.fmax,
    "fmin": np.fmin,
}


def _scan_rule(x, attrs, result=None):
    """``scan``: the running ``kind`` of ``x`` along ``axis``, in order: element ``k`` is
    ``y[k - 1] op x[k]`` (NumPy's sequential loop), ``y[0] = x[0]``; ``op`` is ``+``, ``*``,
    ``maximum``, ``minimum`` (NaN-propagating) or ``fmax``, ``fmin`` (NaN-skipping)."""
    _require(x.rank > 0, "scan needs an operand of rank 1 or more")
    _check_axes([attrs["axis"]], x.rank, "axis")
    _require(attrs["kind"] in SCAN_KINDS, f"scan kind {attrs['kind']!r} is not one of {list(SCAN_KINDS)}")
    return x


# ----------------------------------------------------------------------------- sorting
# (sort/argsort/partition: lowered in passes/lower_sort.py, frontend in frontend/numpy_sorting.py)


def _sort_rule(x, attrs, result=None):
    """``sort``: ``x`` sorted ascending along ``axis``, stably, NaN last (NumPy's order),
    ``-0.0`` and ``0.0`` equal (they keep their order)."""
    _require(x.rank > 0, "sort needs an operand of rank 1 or more")
    _check_axes([attrs["axis"]], x.rank, "axis")
    return x


def _argsort_rule(x, attrs, result=None):
    """``argsort``: the i64 indices along ``axis`` that sort ``x`` as ``sort`` does."""
    return _sort_rule(x, attrs).with_dtype("i64")


def _partition_rule(x, kth, attrs, result=None):
    """``partition``: each line of ``x`` along ``axis`` rearranged so that at every
    position of the 1-d i64 ``kth`` (ascending, each in ``[0, n)``) is the element that
    ``sort`` would put there, with no greater one before it and no smaller one after it
    (``np.partition``, NaN last); the order within the parts is unspecified. What
    ``np.median``/``np.percentile`` need, in ``O(n)`` per position instead of a sort."""
    _require(x.rank > 0, "partition needs an operand of rank 1 or more")
    _check_axes([attrs["axis"]], x.rank, "axis")
    _require(kth.rank == 1 and kth.dtype == "i64", f"partition's kth must be a 1-d i64 tensor, got {kth}")
    return x


# ----------------------------------------------------------------------------- LAPACK
# (np.linalg: frontend in frontend/numpy_linalg.py, lowered in passes/lower_lapack.py)
#
# ``lapack`` (one matrix), ``lapack_solve`` (A, B) and ``lapack_lstsq`` (A, B, rcond) run
# one LAPACK routine on every matrix of a stack ``(batch, m, n)`` of f64 or complex<f64>
# (NumPy computes all its linear algebra in double or complex double). Their one result,
# of the operands' element type, packs the routine's outputs per matrix:
# ``(batch, parts, width)``, part ``k`` in row ``k`` as the first ``lapack_parts(...)[k]``
# elements (a matrix row-major), the rest of the row zero; real outputs of a complex
# routine (eigenvalues, singular values, log|det|, residuals) are stored as complex.
# Part 0 of the routines that can fail holds LAPACK's ``info`` (0: success); ``lstsq``
# adds the rank there as its second element.

LAPACK_DTYPES = ("f64", "complex<f64>")

LAPACK_ROUTINES = (
    "slogdet",
    "inv",
    "cholesky_L",
    "cholesky_U",
    "eigh_L",
    "eigh_U",
    "eigvalsh_L",
    "eigvalsh_U",
    "svd_A",
    "svd_S",
    "svd_N",
    "qr_reduced",
    "qr_complete",
    "qr_r",
)
SQUARE_ROUTINES = ("slogdet", "inv", "cholesky", "eigh", "eigvalsh", "solve")


def lapack_parts(routine: str, m, n, nrhs=None) -> list:
    """The length of each packed part for an ``m x n`` matrix (``nrhs`` columns of B)."""
    k = min(m, n)
    mc = m if m > n else k  # qr 'complete': NumPy's column count of q
    table = {
        "slogdet": [2],
        "inv": [1, n * n],
        "cholesky": [1, n * n],
        "eigh": [1, n, n * n],
        "eigvalsh": [1, n],
        "svd_A": [1, k, m * m, n * n],
        "svd_S": [1, k, m * k, k * n],
        "svd_N": [1, k],
        "qr_reduced": [m * k, k * n],
        "qr_complete": [m * mc, mc * n],
        "qr_r": [k * n],
        "solve": [1, n * (nrhs or 0)],
        "lstsq": [2, n * (nrhs or 0), k, nrhs or 0],
    }
    return table[routine if routine in table else routine.rsplit("_", 1)[0]]


def lapack_packed_shape(routine: str, batch, m, n, nrhs=None) -> tuple:
    parts = lapack_parts(routine, m, n, nrhs)
    return (batch, len(parts), max([1, *parts]))


def _lapack_check(routine, operands, result):
    a = operands[0]
    _require(a.rank == 3, f"'{routine}' needs a stack of matrices (batch, m, n), got {a}")
    for t in operands:
        _require(t.dtype in LAPACK_DTYPES, f"LAPACK routines run in f64 or complex<f64> (NumPy's precision), got {t}")
        _require(t.dtype == result.dtype, f"operand {t} and result {result} of '{routine}' differ in element type")
    for t in operands[1:]:
        _require(t.rank == 3 and _dims_agree(t.shape[0], a.shape[0]), f"batch of {t} differs from {a}")
    _, m, n = a.shape
    if routine.split("_")[0] in SQUARE_ROUTINES:
        _require(_dims_agree(m, n), f"'{routine}' needs square matrices, got {a}")
    _require(result.rank == 3, f"result {result} is not a (batch, parts, width) stack")
    _require(_dims_agree(result.shape[0], a.shape[0]), f"result batch of {result} differs from {a}")
    nrhs = operands[1].shape[2] if len(operands) > 1 else None
    if DYN not in (m, n, nrhs):
        expected = lapack_packed_shape(routine, result.shape[0], m, n, nrhs)
        _require(result.shape[1:] == expected[1:], f"result {result} of '{routine}' should be {expected}")
    return result


def _lapack_rule(a, attrs, result):
    _require(attrs["routine"] in LAPACK_ROUTINES, f"unknown LAPACK routine {attrs['routine']!r}")
    return _lapack_check(attrs["routine"], [a], result)


def _lapack_solve_rule(a, b, attrs, result):
    _require(_dims_agree(a.shape[-1], b.shape[1]) if b.rank == 3 else True, f"rows of {b} differ from {a}")
    return _lapack_check("solve", [a, b], result)


def _lapack_lstsq_rule(a, b, rcond, attrs, result):
    _require(rcond.rank == 0 and rcond.dtype == "f64", f"rcond must be a 0-d f64, got {rcond}")
    _require(b.rank == 3 and _dims_agree(a.shape[1], b.shape[1]), f"rows of {b} differ from {a}")
    return _lapack_check("lstsq", [a, b], result)


# ----------------------------------------------------------------------------- the table


def _table() -> dict[str, OpSpec]:
    specs = [OpSpec(n, "unary", ("x",), _unary_rule(n)) for n in UNARY_DTYPES]
    specs += [OpSpec(n, "binary", ("lhs", "rhs"), _binary_rule(n)) for n in BINARY_DTYPES]
    specs += [
        OpSpec(n, "reduce", ("x",), _reduce_rule(n), {"axes": "i64s", "keepdims": "bool"})
        for n in ("sum", "mean", "max", "min", "prod")
    ]
    specs += [
        OpSpec("cmp", "compare", ("lhs", "rhs"), _cmp_rule, {"predicate": "str"}),
        OpSpec("select", "select", ("cond", "lhs", "rhs"), _select_rule),
        OpSpec("broadcast_to", "shape", ("x",), _broadcast_rule, sizes=True, result_given=True),
        OpSpec("cast", "cast", ("x",), _cast_rule, result_given=True),
        OpSpec("matmul", "matmul", ("lhs", "rhs"), _matmul_rule),
        OpSpec("transpose", "shape", ("x",), _transpose_rule, {"perm": "i64s"}),
        OpSpec("reshape", "shape", ("x",), _reshape_rule, sizes=True, result_given=True),
        OpSpec("expand_dims", "shape", ("x",), _expand_dims_rule, {"axes": "i64s"}),
        OpSpec("squeeze", "shape", ("x",), _squeeze_rule, {"axes": "i64s"}),
        OpSpec(
            "slice", "slice", ("x",), _slice_rule, {"starts": "i64s", "steps": "i64s"}, sizes=True, result_given=True
        ),
        OpSpec(
            "update_slice", "update_slice", ("dest", "src"), _update_slice_rule, {"starts": "i64s", "steps": "i64s"}
        ),
        OpSpec("iota", "iota", (), _iota_rule, {"axis": "i64"}, sizes=True, result_given=True),
        OpSpec("concatenate", "concatenate", ("lhs", "rhs"), _concatenate_rule, {"axis": "i64"}),
        OpSpec("constant", "constant", (), _constant_rule, {"value": "dense"}),
        OpSpec("dim", "dim", ("x",), _dim_rule, {"axis": "i64"}, index_result=True),
        OpSpec("size_constant", "size", (), _size_constant_rule, {"value": "i64"}, index_result=True),
        OpSpec(
            "size_arith", "size", (), _size_arith_rule, {"op": "str"}, index_operands=("lhs", "rhs"), index_result=True
        ),
        OpSpec("to_index", "size", ("x",), _to_index_rule, index_result=True),
        OpSpec("from_index", "size", (), _from_index_rule, index_operands=("size",)),
    ]
    # --- advanced indexing (gather/scatter): rules above, lowered in passes/lower_indexing.py
    specs += [
        OpSpec("gather", "gather", ("x", "indices"), _gather_rule, {"axes": "i64s", "at": "i64"}),
        OpSpec("scatter", "scatter", ("dest", "indices", "updates"), _scatter_rule, {"axes": "i64s", "at": "i64"}),
        OpSpec(
            "scatter_add", "scatter", ("dest", "indices", "updates"), _scatter_add_rule, {"axes": "i64s", "at": "i64"}
        ),
    ]
    # --- end of advanced indexing
    # --- scans (cumsum/cumprod, ufunc.accumulate: rule above, lowered in passes/lower_scan.py)
    specs += [OpSpec("scan", "scan", ("x",), _scan_rule, {"axis": "i64", "kind": "str"})]
    # --- sorting (sort/argsort: rules above, lowered in passes/lower_sort.py, frontend in
    # frontend/numpy_sorting.py)
    specs += [
        OpSpec("sort", "sort", ("x",), _sort_rule, {"axis": "i64"}),
        OpSpec("argsort", "sort", ("x",), _argsort_rule, {"axis": "i64"}),
        OpSpec("partition", "sort", ("x", "kth"), _partition_rule, {"axis": "i64"}),
    ]
    # --- end of sorting
    # --- LAPACK (np.linalg): rules above, lowered in passes/lower_lapack.py, frontend in
    # frontend/numpy_linalg.py
    specs += [
        OpSpec("lapack", "lapack", ("a",), _lapack_rule, {"routine": "str"}, sizes=True, result_given=True),
        OpSpec("lapack_solve", "lapack", ("a", "b"), _lapack_solve_rule, sizes=True, result_given=True),
        OpSpec("lapack_lstsq", "lapack", ("a", "b", "rcond"), _lapack_lstsq_rule, sizes=True, result_given=True),
    ]
    # --- end of LAPACK
    # --- complex numbers: parts, conjugate, magnitude, reciprocal (passes/complex_semantics.py)
    specs += [OpSpec(n, "unary", ("x",), _complex_op_rule(part)) for n, part in COMPLEX_OPS.items()]
    specs += [OpSpec("complex", "binary", ("lhs", "rhs"), _complex_rule)]  # from the parts
    # x ** n for an integer |n| < 100: NumPy's npy_cpow loop (repeated multiplication)
    specs += [OpSpec("powi", "unary", ("x",), _complex_op_rule(False), {"n": "i64"})]
    # --- end of complex numbers
    return {s.name: s for s in specs}


OPS: dict[str, OpSpec] = _table()


def infer(name: str, operand_types: list, attrs: dict, result: TensorType | None = None):
    """Result type of op ``name`` (or the checked ``result`` for result-given ops)."""
    spec = OPS[name]
    if len(operand_types) != len(spec.operands):
        _fail(f"expects {len(spec.operands)} tensor operands, got {len(operand_types)}")
    if spec.result_given and result is None:
        _fail("needs an explicit result type")
    return spec.rule(*operand_types, attrs, result)
