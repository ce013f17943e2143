"""A NumPy reference interpreter of the Ember dialect.

``run(module, *arrays)`` executes a ``func.func`` of Ember ops one op at a time with
NumPy. It is the oracle the tests compare every lowering against and the ``eager``
backend, so its one job is to be *obviously* NumPy: each op is a small function in
one table (``IMPLS``), keyed by op name, that calls the NumPy function a user's
program would have called.

Ember makes broadcasting and promotion explicit, so elementwise ops see operands of
one type and keep that dtype (an ``i32`` sum stays ``i32``, unlike ``np.sum``'s
default). Every result is checked against the op's declared result type: a mismatch
means the type rules (``ops.py``) and NumPy disagree, which is a bug we want to hear
about at the op that caused it, not as a wrong answer three ops later.

Values are NumPy arrays (0-d arrays for scalars, never NumPy scalars) and ``index``
values (what ``ember.dim`` and the size ops produce, what the ``?`` size operands
consume) are Python ints, so size arithmetic is Python's own (``//`` floors, ``%``
takes the divisor's sign, a zero divisor raises ``ZeroDivisionError``).
"""

from __future__ import annotations

import math
import warnings
from typing import Callable

import numpy as np

from compiler.dialects import complex_numbers, ember, ops
from compiler.dialects.types import DYN, TensorType
from compiler.mlir import function_named, ir, symbol_name


class InterpreterError(RuntimeError):
    """The interpreter's own result disagrees with the op's declared type (a rule bug)."""


# ----------------------------------------------------------------------------- elementwise


def _sigmoid(x):
    """The textbook formula, so that ``eager`` equals what a user writes by hand."""
    return 1 / (1 + np.exp(-x))


def _erf(x):
    """``math.erf`` per element: NumPy has no erf and SciPy is not a dependency."""
    return np.vectorize(math.erf, otypes=[x.dtype])(x)


UNARY: dict[str, Callable] = {
    "neg": np.negative,
    "abs": np.abs,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "tanh": np.tanh,
    "sin": np.sin,
    "cos": np.cos,
    "sigmoid": _sigmoid,
    "erf": _erf,
    "floor": np.floor,
    "logical_not": np.logical_not,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "log2": np.log2,
    "log10": np.log10,
    "exp2": np.exp2,
    "cbrt": np.cbrt,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "rint": np.rint,
}

BINARY: dict[str, Callable] = {
    "add": np.add,
    "sub": np.subtract,
    "mul": np.multiply,
    "div": np.true_divide,
    "floordiv": np.floor_divide,  # int // 0 == 0, as NumPy (its warning is silenced)
    "mod": np.mod,  # Python's sign convention, as NumPy's ``%``
    "pow": np.power,  # int ** negative int raises ValueError, as NumPy
    "maximum": np.maximum,  # propagates NaN (not fmax)
    "minimum": np.minimum,
    "and": np.bitwise_and,
    "or": np.bitwise_or,
    "xor": np.bitwise_xor,
    "atan2": np.arctan2,
    "hypot": np.hypot,
    "copysign": np.copysign,
    "fmod": np.fmod,  # integer x fmod 0 == 0, as NumPy (its warning is silenced)
    "shl": np.left_shift,  # a count outside [0, bits) gives 0
    "shr": np.right_shift,  # ... and here 0 or -1 (the sign)
}

COMPARE: dict[str, Callable] = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}

REDUCE: dict[str, Callable] = {
    "sum": np.sum,
    "mean": np.mean,
    "max": np.max,
    "min": np.min,
    "prod": np.prod,
}


def _unary(name):
    """On a contiguous copy: NumPy's float32 loops for a strided view (a reversed slice)
    are not its SIMD ones and can differ in the last bit (``arcsinh(0.5)``), and the
    reference must not depend on how a value happens to be laid out."""
    fn = UNARY[name]
    return lambda x, attrs, out: fn(x if x.flags.c_contiguous else x.copy())


def _binary(name):
    fn = BINARY[name]
    return lambda lhs, rhs, attrs, out: fn(lhs, rhs)


def _compare(lhs, rhs, attrs, out):
    """One op with a predicate attribute, like ``arith.cmpf``; always yields bool."""
    return COMPARE[attrs["predicate"]](lhs, rhs)


def _select(cond, lhs, rhs, attrs, out):
    return np.where(cond, lhs, rhs)


def _cast(x, attrs, out):
    """``astype``: floats truncate toward zero, anything becomes bool as ``!= 0``; complex
    to real keeps the real part (NumPy's value; its ComplexWarning is the frontend's)."""
    if x.dtype.kind == "c" and out.numpy_dtype.kind not in "cb":
        return x.real.astype(out.numpy_dtype)
    return x.astype(out.numpy_dtype)


def _reduce(name):
    fn = REDUCE[name]

    def reduce(x, attrs, out):
        """Ember reductions keep the element type, so pass ``dtype`` (NumPy widens ints).
        A float16 mean is NumPy's own (float32 sum and division, rounded once to half)."""
        kwargs = {} if name in ("max", "min") or (name == "mean" and x.dtype == np.float16) else {"dtype": x.dtype}
        return fn(x, axis=tuple(attrs["axes"]), keepdims=attrs["keepdims"], **kwargs)

    return reduce


def _matmul(lhs, rhs, attrs, out):
    return np.matmul(lhs, rhs)


# ----------------------------------------------------------------------------- shapes


def _broadcast_to(x, attrs, out):
    return np.broadcast_to(x, out.shape)


def _reshape(x, attrs, out):
    return np.reshape(x, out.shape)


def _transpose(x, attrs, out):
    return np.transpose(x, attrs["perm"])


def _expand_dims(x, attrs, out):
    return np.expand_dims(x, tuple(attrs["axes"]))


def _squeeze(x, attrs, out):
    return np.squeeze(x, axis=tuple(attrs["axes"]))


def _slice(x, attrs, out):
    """``x[start::step]`` per dim, cut to the result's length.

    The length comes from the result type (or its size operand), not from the end of
    the dim, because the frontend folds ``stop`` into it. Python's slice clamping
    would silently hide a start or length outside the dim, so we check instead.
    The region is copied out contiguous: an Ember value has no strides, and NumPy's
    float32 ``arctan2`` answers by another path, one ulp apart, on a reversed view
    (``atan2(0.5, 0.5)``: 0.7853982 on a view, 0.7853981 on contiguous memory).
    """
    return np.ascontiguousarray(x[_region(x.shape, attrs, out.shape)])


def _region(shape, attrs, lengths) -> tuple:
    """The NumPy index of ``lengths`` elements from each start by each step of ``attrs``."""
    index = []
    for axis, (size, start, step, length) in enumerate(zip(shape, attrs["starts"], attrs["steps"], lengths)):
        first = ops.slice_first(axis, size, start, step, length)
        stop = first + length * step
        # an empty region may start anywhere; slice(-1, None) would not be empty
        index.append(slice(0, 0) if length == 0 else slice(first, None if stop < 0 else stop, step))
    return tuple(index)


def _update_slice(dest, src, attrs, out):
    """``dest[start::step, ...] = src`` on a copy of ``dest`` (Ember values are never mutated).

    The region's lengths are ``src``'s sizes; as for ``slice``, a start or length
    outside ``dest`` is an error here rather than clamped away.
    """
    result = np.array(dest, copy=True)
    result[_region(dest.shape, attrs, src.shape)] = src
    return result


def _iota(attrs, out):
    """``np.arange`` along ``axis``, broadcast over the other dims of the result."""
    axis = attrs["axis"]
    line = np.arange(out.shape[axis]).reshape([-1 if a == axis else 1 for a in range(out.rank)])
    return np.broadcast_to(line, out.shape).astype(out.numpy_dtype)


def _concatenate(lhs, rhs, attrs, out):
    return np.concatenate([lhs, rhs], axis=attrs["axis"])


def _constant(attrs, out):
    return attrs["value"]


def _dim(x, attrs, out):
    """An ``index`` value: a plain Python int."""
    return int(x.shape[attrs["axis"]])


# ----------------------------------------------------------------------------- sizes


def _size_constant(attrs, out):
    return int(attrs["value"])


def _size_arith(lhs, rhs, attrs, out):
    """Python's int arithmetic (``ops.SIZE_ARITH``): ``//`` floors, ``% 0`` raises."""
    return ops.SIZE_ARITH[attrs["op"]](lhs, rhs)


def _to_index(x, attrs, out):
    return int(x[()])


def _from_index(size, attrs, out):
    return np.array(size, dtype=np.int64)


# ----------------------------------------------------------------------------- scans


def _scan(x, attrs, out):
    """NumPy's own sequential loop, in the operand's dtype (bool sums and products: or / and)."""
    return ops.SCAN_KINDS[attrs["kind"]].accumulate(x, axis=attrs["axis"], dtype=x.dtype)


# ----------------------------------------------------------------------------- sorting (issue 12)


def _sort(x, attrs, out):
    """NumPy's stable sort: NaN last, ``-0.0`` and ``0.0`` keep their order."""
    return np.sort(x, axis=attrs["axis"], kind="stable")


def _argsort(x, attrs, out):
    return np.argsort(x, axis=attrs["axis"], kind="stable").astype(np.int64)


def _partition(x, kth, attrs, out):
    """NumPy's ``np.partition`` (the parts' order is unspecified: any arrangement with the
    kth elements in place is an answer)."""
    if x.shape[attrs["axis"]] == 0 or kth.size == 0:
        return x.copy()
    return np.partition(x, kth, axis=attrs["axis"])


SORTING: dict[str, Callable] = {"sort": _sort, "argsort": _argsort, "partition": _partition}


# ----------------------------------------------------------------------------- advanced indexing


def _indexed_view(x, indices, attrs):
    """``x`` with the indexed axes first (a view) and the index arrays, one per axis:
    negatives count from the end, and what is still outside is clamped into range, as
    the lowering does (the frontend checks the bounds and never uses such a result)."""
    axes = list(attrs["axes"])
    rest = [i for i in range(x.ndim) if i not in axes]
    moved = np.transpose(x, axes + rest)
    index = []
    for j, a in enumerate(axes):
        i = indices[..., j]
        i = np.where(i < 0, i + x.shape[a], i)  # negatives count from the end
        index.append(np.clip(i, 0, max(x.shape[a] - 1, 0)))
    return moved, tuple(index)


def _batch_perm(batch: int, at: int, rank: int) -> list:
    """The permutation moving the ``batch`` leading dims of a rank-``rank`` array to ``at``."""
    return list(range(batch, batch + at)) + list(range(batch)) + list(range(batch + at, rank))


def _gather(x, indices, attrs, out):
    """``x[i0, i1, ...]`` of the indexed axes moved first, the batch dims moved to ``at``."""
    moved, index = _indexed_view(x, indices, attrs)
    taken = moved[index]
    return np.transpose(taken, _batch_perm(indices.ndim - 1, attrs["at"], taken.ndim)).copy()


def _scatter(dest, indices, updates, attrs, out, add: bool = False):
    """``dest`` with ``updates`` written at the gathered positions, in row-major order of
    the index batch (a duplicate position keeps its last write); with ``add`` each update
    is added to what its position holds (``scatter_add``: NumPy's ``np.add.at``, and
    ``np.bincount`` adds in the same order)."""
    result = np.array(dest, copy=True)
    moved, index = _indexed_view(result, indices, attrs)
    batch, at = indices.ndim - 1, attrs["at"]
    perm = _batch_perm(batch, at, updates.ndim)
    first = np.transpose(updates, list(np.argsort(perm)))  # the batch dims first
    for b in np.ndindex(*indices.shape[:-1]):
        position = tuple(int(i[b]) for i in index)
        moved[position] = moved[position] + first[b] if add else first[b]
    return result


def _scatter_add(dest, indices, updates, attrs, out):
    return _scatter(dest, indices, updates, attrs, out, add=True)


# ----------------------------------------------------------------------------- LAPACK (np.linalg)


def _lapack_pack(out, batch_parts):
    """The packed ``(batch, parts, width)`` result: each part flattened (row-major) into its row."""
    dtype = out.numpy_dtype if isinstance(out, TensorType) else out.dtype  # (an array: its shape and dtype)
    packed = np.zeros(out.shape, dtype)
    for b, parts in enumerate(batch_parts):
        for k, part in enumerate(parts):
            flat = np.asarray(part, dtype).reshape(-1)
            packed[b, k, : flat.size] = flat
    return packed


def _lapack_one(routine: str, a):
    """The parts of ``routine`` for one matrix, by NumPy's own np.linalg (info 1 where it raises)."""
    family, _, option = routine.partition("_")
    try:
        if family == "slogdet":
            sign, logdet = np.linalg.slogdet(a)
            return [[sign, logdet]]
        if family == "inv":
            return [[0], np.linalg.inv(a)]
        if family == "cholesky":
            return [[0], np.linalg.cholesky(a, upper=option == "U")]
        if family == "eigh":
            w, v = np.linalg.eigh(a, UPLO=option)
            return [[0], w, v]
        if family == "eigvalsh":
            return [[0], np.linalg.eigvalsh(a, UPLO=option)]
        if family == "svd":
            if option == "N":
                return [[0], np.linalg.svd(a, compute_uv=False)]
            u, s, vh = np.linalg.svd(a, full_matrices=option == "A")
            return [[0], s, u, vh]
        if family == "qr":
            if option == "r":
                return [np.linalg.qr(a, mode="r")]
            return list(np.linalg.qr(a, mode=option))
    except np.linalg.LinAlgError:
        return [[1]]
    raise ValueError(f"unknown LAPACK routine {routine!r}")


def _lapack(a, attrs, out):
    return _lapack_pack(out, [_lapack_one(attrs["routine"], m) for m in a])


def _lapack_solve(a, b, attrs, out):
    parts = []
    for am, bm in zip(a, b):
        try:
            parts.append([[0], np.linalg.solve(am, bm)])
        except np.linalg.LinAlgError:
            parts.append([[1]])
    return _lapack_pack(out, parts)


def _lapack_lstsq(a, b, rcond, attrs, out):
    parts = []
    for am, bm in zip(a, b):
        try:
            x, resids, rank, s = np.linalg.lstsq(am, bm, rcond=float(rcond))
        except np.linalg.LinAlgError:
            parts.append([[1]])
            continue
        if resids.size == 0:  # NumPy drops them (rank-deficient or not tall): the frontend ignores them
            resids = np.zeros(bm.shape[1])
        parts.append([[0, rank], x, s, resids])
    return _lapack_pack(out, parts)


LAPACK: dict[str, Callable] = {"lapack": _lapack, "lapack_solve": _lapack_solve, "lapack_lstsq": _lapack_lstsq}


# ----------------------------------------------------------------------------- the table


def _complex_op(fn):
    """The complex ops (``complex_numbers.py``): ``fn(*operands, attrs)``."""
    return lambda *args: fn(*args[:-1])


def _table() -> dict[str, Callable]:
    table: dict[str, Callable] = {}
    table.update({n: _unary(n) for n in UNARY})
    table.update({n: _binary(n) for n in BINARY})
    table.update({n: _reduce(n) for n in REDUCE})
    table.update({n: _complex_op(fn) for n, fn in complex_numbers.UNARY.items()})
    table.update({n: _complex_op(fn) for n, fn in complex_numbers.BINARY.items()})
    table.update(
        {
            "cmp": _compare,
            "select": _select,
            "cast": _cast,
            "matmul": _matmul,
            "broadcast_to": _broadcast_to,
            "reshape": _reshape,
            "transpose": _transpose,
            "expand_dims": _expand_dims,
            "squeeze": _squeeze,
            "slice": _slice,
            "update_slice": _update_slice,
            "iota": _iota,
            "concatenate": _concatenate,
            "constant": _constant,
            "dim": _dim,
            "size_constant": _size_constant,
            "size_arith": _size_arith,
            "to_index": _to_index,
            "from_index": _from_index,
        }
    )
    table.update({"gather": _gather, "scatter": _scatter, "scatter_add": _scatter_add})  # advanced indexing
    table.update(SORTING)  # sort/argsort (issue 12)
    table["scan"] = _scan  # cumsum/cumprod, ufunc.accumulate
    table.update(LAPACK)  # np.linalg's LAPACK routines
    return table


# op name (without ``ember.``) -> impl(*tensor operands, *index operands, attrs, out) -> array
# (or an int for ops with an ``index`` result: ``dim`` and the size ops).
# ``out`` is the declared result type with its ``?`` sizes filled in from the size operands.
IMPLS: dict[str, Callable] = _table()


# ----------------------------------------------------------------------------- running

# Families whose operands have one type, hence must have one shape at run time.
ELEMENTWISE = ("binary", "compare", "select")


def run(module, *arrays, entry: str | None = None) -> tuple:
    """Execute ``entry`` (default: the first ``func.func``) of ``module`` on ``arrays``.

    ``module`` is an ``ir.Module``, a module ``ir.Operation`` or MLIR text. Inputs are
    checked against the function's argument types (``ValueError`` when they do not fit)
    and never converted. Returns a tuple of fresh arrays, one per function result.
    """
    if isinstance(module, str):
        context = ember.new_context()
        with context:
            module = ir.Module.parse(module)
    operation = module.operation if hasattr(module, "operation") else module
    with operation.context:
        fn = function_named(operation, entry)
        block = fn.regions[0].blocks[0]
        env: dict = dict(zip(block.arguments, _check_inputs(fn, block, arrays)))
        with np.errstate(all="ignore"), warnings.catch_warnings():
            warnings.simplefilter("ignore", RuntimeWarning)  # NumPy's "Mean of empty slice" & co.
            returned = _run_block(block, env)
    if returned is None:
        raise InterpreterError(f"function @{symbol_name(fn)} has no func.return")
    return tuple(_copy(x) for x in returned)


def _run_block(block, env: dict) -> list | None:
    """Run ``block``'s ops; the operand values of its terminator (None when it has none)."""
    for op in block.operations:
        op = op.operation
        if op.name in ("func.return", "scf.yield"):
            return [env[v] for v in op.operands]
        if op.name == "scf.for":
            _run_loop(op, env)
        else:
            _step(op, env)
    return None


def _run_loop(op, env: dict) -> None:
    """``scf.for``: the body once per index, its yielded values carried (a loop's body is
    the frontend's, traced once: ``frontend/loops.py``)."""
    lower, upper, step, *carried = (env[v] for v in op.operands)
    body = op.regions[0].blocks[0]
    for i in range(lower, upper, step):
        inner = dict(env)
        inner.update(zip(body.arguments, [i, *carried]))
        carried = [_copy(x) for x in _run_block(body, inner)]
    env.update(zip(op.results, carried))


def _check_inputs(fn, block, arrays) -> list:
    """Arguments as NumPy arrays, after checking them against the argument types."""
    types = [a.type for a in block.arguments]
    name = symbol_name(fn)
    if len(arrays) != len(types):
        raise ValueError(f"@{name} takes {len(types)} arguments, got {len(arrays)}")
    values = []
    for i, (t, value) in enumerate(zip(types, arrays)):
        if isinstance(t, ir.IndexType) or str(t) == "index":
            if not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
                raise ValueError(f"@{name} argument {i} is an index: expected an int, got {type(value).__name__}")
            values.append(int(value))
            continue
        expected = TensorType.from_mlir(t)
        array = np.asarray(value)
        problem = _mismatch(array, expected)
        if problem:
            raise ValueError(
                f"@{name} argument {i}: expected {expected}, got an array of "
                f"{array.dtype} with shape {array.shape}: {problem}"
            )
        values.append(array)
    return values


def _mismatch(array, expected: TensorType, sizes=None) -> str | None:
    """Why ``array`` does not fit ``expected`` (``None`` when it does)."""
    if not isinstance(array, np.ndarray):
        return f"not an array but {type(array).__name__}"
    if array.dtype != expected.numpy_dtype:
        return f"dtype {array.dtype} is not {expected.numpy_dtype}"
    if array.ndim != expected.rank:
        return f"rank {array.ndim} is not {expected.rank}"
    shape = sizes if sizes is not None else expected.shape
    for axis, (got, want) in enumerate(zip(array.shape, shape)):
        if want is not DYN and got != want:
            return f"size {got} of dimension {axis} is not {want}"
    return None


def _step(op: ir.Operation, env: dict) -> None:
    """Run one op: look up its impl, feed it operand values, check and store its result."""
    name = op.name
    if not name.startswith("ember.") or name.removeprefix("ember.") not in IMPLS:
        raise NotImplementedError(f"the interpreter cannot run '{name}' (at {op.location})")
    short = name.removeprefix("ember.")
    attrs = ember.op_attributes(op)
    operands = [env[v] for v in ember.tensor_operands(op) + ember.index_operands(op)]
    if ops.OPS[short].family in ELEMENTWISE and len({x.shape for x in operands}) > 1:
        # equal types, but ``?`` sizes that disagree: NumPy would broadcast a 1 silently
        raise ValueError(
            f"'{name}' at {op.location}: operand shapes differ at run time: "
            + " vs ".join(str(x.shape) for x in operands)
        )
    result = op.results[0]
    if ops.OPS[short].index_result:
        env[result] = IMPLS[short](*operands, attrs, None)
        return
    declared = TensorType.from_mlir(result.type)
    out = _resolve(declared, [env[v] for v in ember.size_operands(op)], op) if ops.OPS[short].sizes else declared
    try:
        value = np.asarray(IMPLS[short](*operands, attrs, out))
    except (ValueError, IndexError) as e:  # NumPy's own complaint, located at the op
        raise ValueError(f"'{name}' at {op.location}: {e}") from e
    if value.dtype == declared.numpy_dtype and value.dtype.char != declared.numpy_dtype.char:
        # MLIR's dense constants come back as ``longlong`` ('q'), equal to but not the same type as
        # ``int64`` ('l'): results would be np.longlong scalars where NumPy gives np.int64
        value = value.view(declared.numpy_dtype)
    problem = _mismatch(value, declared, out.shape)
    if problem:
        raise InterpreterError(
            f"'{name}' at {op.location}: the interpreter computed {value.dtype} "
            f"{value.shape} for result type {declared}: {problem}"
        )
    env[result] = value


def _resolve(declared: TensorType, sizes: list, op) -> TensorType:
    """The declared result type with each ``?`` replaced by its size operand, in order."""
    dynamic = declared.dynamic_axes()
    if len(sizes) != len(dynamic):
        raise InterpreterError(f"'{op.name}' at {op.location}: {len(dynamic)} '?' sizes but {len(sizes)} size operands")
    shape = list(declared.shape)
    for axis, size in zip(dynamic, sizes):
        if size < 0:
            raise ValueError(f"'{op.name}' at {op.location}: negative size {size} for dimension {axis}")
        shape[axis] = int(size)
    return declared.with_shape(shape)


def _copy(value):
    """Results never alias inputs or each other (views like ``transpose`` would)."""
    return np.array(value, copy=True) if isinstance(value, np.ndarray) else value
