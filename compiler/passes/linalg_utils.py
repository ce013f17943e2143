"""What Ember's passes ask about linalg ops and the functions holding them.

Which loops of a linalg op are parallel or reductions, which ops of a function are
*roots* (their results read by no other linalg op of the body) and which are their
producers: fusion, tiling and the BLAS rewrite all decide from these.
"""

from __future__ import annotations

import math

from compiler.mlir import arith, constant_attr, ir, linalg, operation_of, tensor


def is_linalg(op) -> bool:
    return op.name.startswith("linalg.") and op.name != "linalg.yield"


def indexing_maps(op) -> list[ir.AffineMap]:
    """The affine maps of a ``linalg.generic`` (or any op carrying ``indexing_maps``)."""
    return [ir.AffineMapAttr(m).value for m in ir.ArrayAttr(op.attributes["indexing_maps"])]


def generic(inputs, init, maps, iterators, body) -> ir.Value:
    """A new ``linalg.generic`` (``maps``: AffineMapAttrs, ``iterators``: "parallel" /
    "reduction") whose region is ``body(*input_scalars, out_scalar) -> value``."""
    kinds = ir.ArrayAttr.get([ir.Attribute.parse(f"#linalg.iterator_type<{k}>") for k in iterators])
    op = linalg.GenericOp([init.type], list(inputs), [init], ir.ArrayAttr.get(maps), kinds)
    element_types = [ir.RankedTensorType(v.type).element_type for v in list(inputs) + [init]]
    block = op.regions[0].blocks.append(*element_types)
    with ir.InsertionPoint(block):
        linalg.YieldOp([body(*block.arguments)])
    return op.results[0]


def iterator_types(op) -> list[str]:
    """Loop kinds of a linalg op, named or generic (``parallel`` / ``reduction``)."""
    attr = op.attributes["iterator_types"] if "iterator_types" in op.attributes else None
    if attr is not None:
        return [str(a).split("<")[-1].rstrip(">") for a in ir.ArrayAttr(attr)]
    return _named_iterators(op)


def _named_iterators(op) -> list[str]:
    """Named linalg ops carry no iterator attribute; derive it from their kind."""
    out_rank = op.results[0].type.rank if len(op.results) else 0
    reductions = {
        "linalg.matmul": 1,
        "linalg.batch_matmul": 1,
        "linalg.matvec": 1,
        "linalg.vecmat": 1,
        "linalg.dot": 1,
        "linalg.contract": 1,  # ember-to-linalg's: one contracted dim, the last loop
    }.get(op.name, 0)
    if op.name == "linalg.reduce":
        reductions = len(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
        in_rank = op.operands[0].type.rank
        return ["parallel"] * (in_rank - reductions) + ["reduction"] * reductions
    return ["parallel"] * out_rank + ["reduction"] * reductions


def has_reduction(op) -> bool:
    return "reduction" in iterator_types(op)


def linalg_ops(fn) -> list:
    """Linalg ops directly in the function body (not inside loops already made)."""
    return [op.operation for op in fn.regions[0].blocks[0].operations if is_linalg(op.operation)]


_LIBRARY_OPS = (
    "linalg.matmul",
    "linalg.matvec",
    "linalg.vecmat",
    "linalg.batch_matmul",
    "linalg.contract",
    "linalg.dot",
)


def is_library_call(op) -> bool:
    """Float matmuls and matrix-vector products become BLAS calls (passes/blas.py):
    never tiled, never fused. Only where every operand has that one element type (an f16
    matmul accumulates into f32 and stays a generated loop, like integer ones)."""
    if op.name not in _LIBRARY_OPS:
        return False
    elements = {str(v.type.element_type) for v in op.operands}
    if len(elements) == 1 and elements <= {"complex<f32>", "complex<f64>"}:  # ?gemm: matrix times matrix
        return op.name in ("linalg.matmul", "linalg.batch_matmul", "linalg.contract") and op.operands[1].type.rank >= 2
    return len(elements) == 1 and elements <= {"f32", "f64"}


def roots(fn) -> list:
    """Linalg ops of ``fn``'s body whose results no other linalg op of the body reads.
    A fill read only by BLAS-bound ops is none: ``ember-matmul-to-blas`` drops a zero
    fill of a product's output (BLAS's ``beta = 0``), which it cannot once tiled."""
    every = linalg_ops(fn)
    ops = [op for op in every if not is_library_call(op)]
    consumed, library_inits = set(), set()
    for op in every:
        for operand in op.operands:
            owner = operation_of(operand.owner)
            if owner is None:
                continue
            if op in ops:
                consumed.add(owner)
            elif owner.name == "linalg.fill":
                library_inits.add(owner)
    return [op for op in ops if op not in consumed and op not in library_inits]


def producers(op) -> list:
    """Transitive linalg producers of ``op`` through tensor values."""
    seen, stack, out = set(), [op], []
    while stack:
        current = stack.pop()
        for operand in current.operands:
            owner = operation_of(operand.owner)
            if owner is None or owner in seen or not is_linalg(owner):
                continue
            seen.add(owner)
            out.append(owner)
            stack.append(owner)
    return out


def is_elementwise(op) -> bool:
    return all(k == "parallel" for k in iterator_types(op))


def is_plus_zero(value: ir.Value) -> bool:
    """Whether ``value`` is an ``arith.constant`` float ``+0.0`` (not ``-0.0``): a product's
    zero init, which BLAS's ``beta = 0`` or an accumulation may replace."""
    attr = constant_attr(value)
    if not isinstance(attr, ir.FloatAttr):
        return False
    return plus_zero(ir.FloatAttr(attr).value)


def plus_zero(number: float) -> bool:
    """``+0.0``, not ``-0.0``."""
    return number == 0.0 and math.copysign(1.0, number) > 0


def copy_of(value: ir.Value) -> ir.Value:
    """A ``linalg.copy`` of the tensor ``value`` into a fresh ``tensor.empty`` of its
    shape (its dynamic sizes read with ``tensor.dim``), at the insertion point."""
    t = ir.RankedTensorType(value.type)
    index = ir.IndexType.get()
    sizes = [
        tensor.dim(value, arith.constant(index, i)) if t.is_dynamic_dim(i) else t.get_dim_size(i) for i in range(t.rank)
    ]
    return linalg.copy(value, outs=[tensor.EmptyOp(sizes, t.element_type).result])
