"""``ember.matmul`` -> linalg's product ops, for ``ember-to-linalg`` (its ``lowerings()``).

Which op a product becomes decides which later pass takes it: ``linalg.matmul`` (a
transposed operand read in place through its indexing maps) for Ember's gemm kernel or
BLAS's ``?gemm``, ``matvec``/``vecmat``/``dot`` for the matrix-vector loops or ``?gemv``,
``batch_matmul`` and a batched ``linalg.contract`` for one call per batch entry, a
stack of rows times one matrix as one ``linalg.contract`` over all its rows, and a
product summing at most ``SMALL_K`` terms as an elementwise loop of fused multiply-adds.
``f16`` accumulates in ``f32`` and rounds once, as NumPy's half matmul loop.
"""

from __future__ import annotations

from compiler.dialects import ember
from compiler.dialects.library_products import SMALL_K
from compiler.dialects.types import DYN, TensorType, mlir_element_type
from compiler.mlir import arith, ir, linalg, math, operation_of
from compiler.passes import scalar_semantics as scalar
from compiler.passes.ember_to_linalg import _dim, _elementwise, _filled, _map, _single_value, _type
from compiler.passes.linalg_utils import generic


def _lower_matmul(op, result: TensorType, attrs):
    lhs, rhs = ember.tensor_operands(op)
    lt, rt = _type(lhs), _type(rhs)
    dyn = []  # (operand, axis) that each result dim comes from
    if lt.rank <= 2 and rt.rank <= 2:
        if lt.rank == 2:
            dyn.append((lhs, 0))
        if rt.rank == 2:
            dyn.append((rhs, 1))
    elif rt.rank <= 2:  # a stack of rows times one matrix or vector
        dyn = [(lhs, i) for i in range(lt.rank - 1)] + ([(rhs, 1)] if rt.rank == 2 else [])
    else:
        dyn = [(lhs, i) for i in range(lt.rank - 1)] + [(rhs, rt.rank - 1)]
    # A 2-D operand that is a transpose is read in place (strided), not copied first.
    lhs_t, rhs_t = transposed_source(lhs), transposed_source(rhs)
    dyn = [(v, a) if (t := transposed_source(v)) is None else (t, 1 - a) for v, a in dyn]
    sizes = [d if d is not DYN else _dim(v, a) for d, (v, a) in zip(result.shape, dyn)]
    if result.dtype == "f16":  # NumPy's half matmul/dot sum in float and round once
        acc = result.with_dtype("f32")
        product = _single_value(_lower_matmul_into(lhs, rhs, lhs_t, rhs_t, _filled(acc, sizes, 0), lt, rt, "f16"))
        return _elementwise([product], result, lambda a, _: scalar.cast(a, "f32", "f16"))
    return _lower_matmul_into(lhs, rhs, lhs_t, rhs_t, _filled(result, sizes, 0), lt, rt, result.dtype)


def _lower_matmul_into(lhs, rhs, lhs_t, rhs_t, init, lt: TensorType, rt: TensorType, dtype: str):
    """The named linalg op of the ranks into ``init`` (its element type may be wider:
    the named ops extend their operands to it)."""
    k = lt.shape[-1]
    if dtype in ("f32", "f64") and k is not DYN and k <= SMALL_K and lt.rank >= 2 and rt.rank <= 2 and lhs_t is None:
        return _unrolled_matmul(rhs_t if rhs_t is not None else rhs, init, lhs, lt.rank, rt.rank, k, rhs_t is not None)
    if lt.rank > 2 and rt.rank <= 2:
        return _rows_matmul(lhs, rhs, init, lt.rank, rt.rank, dtype)
    if lt.rank == 1 and rt.rank == 1:
        return linalg.dot(lhs, rhs, outs=[init])
    if lt.rank == 1:  # y @ A.T == A @ y
        return linalg.matvec(rhs_t, lhs, outs=[init]) if rhs_t is not None else linalg.vecmat(lhs, rhs, outs=[init])
    if rt.rank == 1:  # A.T @ y == y @ A
        return linalg.vecmat(rhs, lhs_t, outs=[init]) if lhs_t is not None else linalg.matvec(lhs, rhs, outs=[init])
    if lt.rank == 2:
        return matrix_product(lhs, rhs, lhs_t, rhs_t, init)
    if lt.rank == 3:
        return linalg.batch_matmul(lhs, rhs, outs=[init])
    return _batched_matmul_generic(lhs, rhs, init, lt.rank, dtype)


def matrix_product(lhs, rhs, lhs_t, rhs_t, init):
    """``linalg.matmul`` of two matrices into ``init``, reading an operand that is a
    transpose (``lhs_t``/``rhs_t``: its source, from ``transposed_source``) in place
    through transposed indexing maps: BLAS's transpose flag, no copy."""
    if lhs_t is None and rhs_t is None:
        return linalg.matmul(lhs, rhs, outs=[init])
    m, n, k = (ir.AffineDimExpr.get(i) for i in range(3))
    maps = [
        _map(3, [k, m] if lhs_t is not None else [m, k]).value,
        _map(3, [n, k] if rhs_t is not None else [k, n]).value,
        _map(3, [m, n]).value,
    ]
    a = lhs_t if lhs_t is not None else lhs
    b = rhs_t if rhs_t is not None else rhs
    return linalg.matmul(a, b, outs=[init], indexing_maps=maps)


def transposed_source(value: ir.Value) -> ir.Value | None:
    """``x`` when ``value`` is ``linalg.transpose`` of a 2-D ``x`` (``x.T``), else None.

    The matmul then reads ``x`` with swapped indices (BLAS's transpose flag, or a
    strided view in the loop fallback); the transpose, left without readers, is dead.
    """
    owner = operation_of(value.owner)
    if owner is None or owner.name != "linalg.transpose" or _type(value).rank != 2:
        return None
    return owner.operands[0]


def _batched_matmul_generic(lhs, rhs, init, rank, dtype):
    """Matmul over several batch dims: (b.., m, k) x (b.., k, n) -> (b.., m, n)."""
    d = [ir.AffineDimExpr.get(i) for i in range(rank + 1)]
    batch, m, n, k = d[: rank - 2], d[rank - 2], d[rank - 1], d[rank]
    maps = [_map(rank + 1, batch + [m, k]), _map(rank + 1, batch + [k, n]), _map(rank + 1, batch + [m, n])]
    return _contraction(lhs, rhs, init, maps, rank + 1, dtype)


def _rows_matmul(lhs, rhs, init, rank, rhs_rank, dtype):
    """A stack of rows times one matrix or vector: (b.., m, k) x (k, n) -> (b.., m, n), or
    x (k,) -> (b.., m). ``ember-matmul-to-blas`` makes it one ``gemm``/``gemv`` over all
    rows when the stack's rows are evenly spaced (as in a contiguous array), not one call
    per batch entry (``patches @ w`` of a convolution: 500 calls of 62x16x32)."""
    loops = rank + (1 if rhs_rank == 2 else 0)
    d = [ir.AffineDimExpr.get(i) for i in range(loops)]
    rows, k = d[: rank - 1], d[loops - 1]
    if rhs_rank == 2:
        n = d[rank - 1]
        maps = [_map(loops, rows + [k]), _map(loops, [k, n]), _map(loops, rows + [n])]
    else:
        maps = [_map(loops, rows + [k]), _map(loops, [k]), _map(loops, rows)]
    return _contraction(lhs, rhs, init, maps, loops, dtype)


def _unrolled_matmul(rhs, init, lhs, rank, rhs_rank, k, rhs_transposed):
    """``lhs @ rhs`` summing ``k`` (static, at most ``SMALL_K``) terms as an elementwise
    generic over the result, the sum unrolled in order (``fma(a1, b1, fma(a0, b0, 0))``...). Why: a gemv/gemm call per 2 million rows of 3 terms (an RGB image
    ``img @ weights``) is BLAS's slowest case, 6x NumPy's time; this is a vectorized,
    tiled, parallel loop like any elementwise op. Fused multiply-adds, as BLAS's kernels
    accumulate: the same values as NumPy's gemv/gemm calls here."""
    out_rank = rank - 1 + (1 if rhs_rank == 2 else 0)
    d = [ir.AffineDimExpr.get(i) for i in range(out_rank)]
    rows = d[: rank - 1]
    maps, inputs = [], []
    for term in range(k):
        kk = ir.AffineConstantExpr.get(term)
        maps.append(_map(out_rank, rows + [kk]))
        if rhs_rank == 2:
            maps.append(_map(out_rank, [d[-1], kk] if rhs_transposed else [kk, d[-1]]))
        else:
            maps.append(_map(out_rank, [kk]))
        inputs += [lhs, rhs]
    maps.append(_map(out_rank, d))

    def body(*xs):
        # from a constant 0, not the output's value: an op that reads its init is fused and
        # bufferized as an accumulation, and a broadcast consumer then added it twice
        total = arith.ConstantOp(xs[-1].type, ir.FloatAttr.get(xs[-1].type, 0.0)).result
        for term in range(k):
            total = math.fma(xs[2 * term], xs[2 * term + 1], total)
        return total

    return generic(inputs, init, maps, ["parallel"] * out_rank, body)


def _contraction(lhs, rhs, init, maps, loops, dtype):
    """``init += lhs * rhs`` summed over the last of ``loops`` loops.

    For BLAS's types a ``linalg.contract`` (a named op), not a ``linalg.generic``:
    elementwise fusion (``ember-fuse``) merges producers into a generic consumer, and a
    matmul with a softmax fused into its operand (``attention``: ``(e / e.sum(...)) @ v``)
    is no longer the product ``ember-matmul-to-blas`` hands to ``gemm``: 30x slower loops."""
    if dtype in ("f32", "f64"):
        return linalg.contract(lhs, rhs, outs=[init], indexing_maps=[m.value for m in maps])
    mul, add = scalar.BINARY["mul"], scalar.BINARY["add"]
    iterators = ["parallel"] * (loops - 1) + ["reduction"]
    if dtype == "f16":  # into an f32 init
        f32 = mlir_element_type("f32")
        return generic(
            [lhs, rhs],
            init,
            maps,
            iterators,
            lambda a, b, acc: add(acc, mul(arith.extf(f32, a), arith.extf(f32, b), "f32"), "f32"),
        )
    return generic([lhs, rhs], init, maps, iterators, lambda a, b, acc: add(acc, mul(a, b, dtype), dtype))


LOWERINGS = {"matmul": _lower_matmul}
