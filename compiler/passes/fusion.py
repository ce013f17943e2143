"""Ember's fusion (``ember-fuse``).

Three steps; upstream covers the second:

0. An elementwise result read by several linalg ops (layernorm's ``x - mean``, read
   by the variance and by the normalisation) is duplicated, one copy per reader: each
   reader then fuses its own copy and recomputes it, instead of one op storing it to
   memory for the others to read back (what inductor does too). Recomputing a few
   flops per element is cheaper than a store and a load per element; the limits below
   keep a shared chain from being copied along every path of a large graph. Not
   duplicated: a transcendental (softmax's ``exp``, read by the sum and by the
   division) whose readers step 2 puts in one tile loop. There the shared value is
   stored to the tile (in the cache, or the output's own tile, which the division
   then overwrites in place) and read back, cheaper than a second ``exp`` per element:
   softmax ran compute-bound at 1.67 ms, 1.32 ms with one ``exp``; nor one that calls
   a function per element (``op_costs.library_call``), wherever its readers are. Nor is
   a transcendental fused into a loop that reads it broadcast (``np.cos(lat)[:, None]``
   over a matrix): it runs once per element of its own (``keep_costly_broadcasts``).
1. Elementwise producer–consumer chains (and elementwise producers of reductions,
   such as the ``exp`` under softmax's ``sum``) become one ``linalg.generic`` —
   upstream ``linalg-fuse-elementwise-ops`` does this well, so we run it.
2. Elementwise *consumers* of reductions (softmax's division by its sum,
   layernorm's normalisation, a matmul's bias+relu epilogue) cannot be merged into
   one generic: the reduction must finish before its consumer reads it. We fuse
   them into one loop nest instead: the consumer is tiled along its outer parallel
   dimension and the reductions (and their producers) are computed inside each
   tile, so every intermediate stays in cache (see ``tiling.tile_and_fuse``).
   ``tile-bytes=0`` skips this step: the GPU's kernels (``ember-gpu-kernels``) run
   each linalg op over the whole array, one block per row of a reduction.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import constant_attr, functions, ir, operation_of, tensor
from compiler.passes import op_costs
from compiler.passes.base import EmberPass, run_upstream
from compiler.passes.linalg_utils import (
    copy_of,
    has_reduction,
    indexing_maps,
    is_elementwise,
    is_library_call,
    is_plus_zero,
    linalg_ops,
    plus_zero,
    producers,
    roots,
)
from compiler.passes.tiling import tile_and_fuse

MAX_READERS = 4  # an elementwise result read by more linalg ops than this stays shared
MAX_COPIES = 32  # copies made per function


def _readers(op) -> dict | None:
    """{reader: operand numbers} of ``op``'s result when every reader is a
    ``linalg.generic`` taking it as an input (what elementwise fusion can absorb)."""
    readers = {}
    for use in op.results[0].uses:
        owner = operation_of(use.owner)
        if owner.name != "linalg.generic" or use.operand_number >= len(owner.opview.inputs):
            return None
        readers.setdefault(owner, []).append(use.operand_number)
    return readers


def _transcendental(op, depth: int = 8, seen: dict | None = None) -> bool:
    """Whether ``op``'s elementwise chain (its body, and the elementwise generics that
    fusion will merge into it, up to ``depth`` producers back) evaluates a costly math
    function. ``seen`` remembers the answer per (op, depth): chains share producers
    (the unrolled iterations of ``z = z * z + c``), and walking every path again took
    6.4 of the corpus's mandelbrot's 7.3 s compile. A producer read broadcast is not
    part of the chain: ``keep_costly_broadcasts`` keeps a costly one out of it."""
    return _chain_has(op, op_costs.costly, depth, {} if seen is None else seen)


def _calls_library(op, seen: dict) -> bool:
    """Whether ``op``'s elementwise chain (``_transcendental``'s) calls a function per
    element: libm's scalar ``sin``, ``cexp`` & co., anything ``ember-expand-math`` does
    not write inline."""
    return _chain_has(op, op_costs.library_call, 8, seen)


def _chain_has(op, costly, depth: int, seen: dict) -> bool:
    key = (op, depth)
    if key not in seen:
        found = op_costs.body_has(op, costly)
        for n, operand in enumerate(op.opview.inputs) if depth and not found else ():
            producer = operation_of(operand.owner)
            if (
                producer is not None
                and producer.name == "linalg.generic"
                and is_elementwise(producer)
                and not _broadcast_operand(op, n)
                and _chain_has(producer, costly, depth - 1, seen)
            ):
                found = True
                break
        seen[key] = found
    return seen[key]


def _one_tile_loop(readers) -> bool:
    """Whether step 2 puts the readers in one tile loop: one of them is a reduction that
    another (the consumer of its result) reads through its producers."""
    return any(
        other is not reader and has_reduction(other) and other in producers(reader)
        for reader in readers
        for other in readers
    )


def duplicate_shared_elementwise(fn, tiled: bool = True) -> int:
    """Step 0 of the module doc; returns the number of copies made. Readers come
    after their producers, so walking the body backwards copies a shared chain from
    its end: the copies then read the chain's earlier ops, which get copied next.
    ``tiled``: step 2 runs (not for the GPU), so a costly value may stay shared: where
    its readers share one tile loop, or always where it calls a function per element
    (a copy per reader would call it once per reader, and the calls are not merged
    again: a call may have side effects for cse). The butterflies of an FFT,
    ``X[:, :h] = even + odd; X[:, h:] = even - odd`` with ``odd = X[:, h:] * w`` and
    ``w = np.exp(-1j * np.pi * np.arange(h) / h)``, called ``cexp`` twice per element.
    The answers are remembered (a copy changes no op's producers)."""
    copies, seen, calls = 0, {}, {}
    for op in reversed([op.operation for op in fn.regions[0].blocks[0].operations]):
        if op.name != "linalg.generic" or len(op.results) != 1 or not is_elementwise(op):
            continue
        readers = _readers(op)
        if not readers or not 2 <= len(readers) <= MAX_READERS or copies + len(readers) - 1 > MAX_COPIES:
            continue
        if tiled and _transcendental(op, seen=seen) and (_one_tile_loop(readers) or _calls_library(op, calls)):
            continue
        for reader, numbers in list(readers.items())[1:]:
            copy = op.clone(ip=ir.InsertionPoint(reader))
            for n in numbers:
                reader.operands[n] = copy.results[0]
            copies += 1
    return copies


def _broadcast_operand(reader, n: int) -> bool:
    """Whether ``reader`` reads its input ``n`` broadcast: its indexing map leaves out one
    of the loop's dimensions (``x[:, None]`` read over ``(i, j)``)."""
    m = ir.AffineMapAttr(ir.ArrayAttr(reader.attributes["indexing_maps"])[n]).value
    used = {e.position for e in m.results if isinstance(e, ir.AffineDimExpr)}
    return len(used) < m.n_dims


BARRIER = "ember.fusion_barrier"


def _barrier(value: ir.Value) -> ir.Value:
    """``value`` through a ``linalg.copy`` marked ``BARRIER``: a named op, which
    elementwise fusion neither fuses into nor sees through, whatever the shapes (a
    ``tensor.cast`` shield between equal dynamic types folds away); ``drop_barriers``
    removes it after fusion."""
    copied = copy_of(value)
    operation_of(copied.owner).attributes[BARRIER] = ir.UnitAttr.get()
    return copied


def drop_barriers(fn) -> None:
    """Each ``_barrier`` copy replaced by what it copies; its destination, and the sizes
    of it, go too where nothing else uses them (cse may have shared them)."""
    for op in linalg_ops(fn):
        if op.name != "linalg.copy" or BARRIER not in op.attributes:
            continue
        init = operation_of(op.operands[1].owner)
        op.results[0].replace_all_uses_with(op.operands[0])
        op.erase()
        _erase_unused(init)


def _erase_unused(op) -> None:
    """``op`` if none of its results is used, then the same for the ops defining its operands."""
    if op is None or op.regions or any(list(r.uses) for r in op.results):
        return
    operands = [operation_of(v.owner) for v in op.operands if not isinstance(v.owner, ir.Block)]
    op.erase()
    for operand in operands:
        _erase_unused(operand)


def keep_costly_broadcasts(fn) -> int:
    """A costly elementwise value (``_transcendental``) read broadcast into a larger loop
    is computed at its own size, not once per element of the loop: the read goes through
    a barrier (``_barrier``) that elementwise fusion does not see through. Why: the
    haversine distances between two sets of points, ``np.cos(lat1)[:, None] *
    np.cos(lat2)[None, :] * ...``, took 2000 + 500 ``cos`` in NumPy and 2 x 1M fused:
    the corpus's haversine_matrix (2000 x 500 float64) 37 -> 30 ms on one thread,
    18.5 -> 15.0 on two (NumPy 24-25). Returns the reads behind a barrier."""
    count, seen = 0, {}
    for op in linalg_ops(fn):
        if op.name != "linalg.generic" or len(op.results) != 1 or not is_elementwise(op):
            continue
        if not _transcendental(op, seen=seen):
            continue
        result = op.results[0]
        for use in list(result.uses):
            reader = operation_of(use.owner)
            if _read_broadcast(reader, use.operand_number):
                with ir.InsertionPoint(reader), reader.location:
                    reader.operands[use.operand_number] = _barrier(result)
                count += 1
    return count


def _read_broadcast(reader, n: int) -> bool:
    """Whether ``reader`` reads its operand ``n`` broadcast, itself (a ``linalg.generic``)
    or through a reshape (``x[:, None]``) that a generic reads broadcast."""
    if reader.name in ("tensor.expand_shape", "tensor.collapse_shape"):
        return any(_read_broadcast(operation_of(use.owner), use.operand_number) for use in reader.results[0].uses)
    return (
        reader.name == "linalg.generic"
        and n < len(reader.opview.inputs)
        and is_elementwise(reader)
        and _broadcast_operand(reader, n)
    )


def _zero_fill(value: ir.Value) -> bool:
    """Whether ``value`` is a ``linalg.fill`` of a ``+0.0`` constant (a product's init)."""
    fill = operation_of(value.owner)
    return fill is not None and fill.name == "linalg.fill" and is_plus_zero(fill.operands[0])


def _zeros(value: ir.Value) -> bool:
    """``_zero_fill``, or ``np.zeros``'s broadcast of a 0-d ``+0.0`` constant."""
    if _zero_fill(value):
        return True
    op = operation_of(value.owner)
    if op is None or op.name != "linalg.generic" or len(op.opview.inputs) != 1:
        return False
    attr = constant_attr(op.opview.inputs[0])
    if not isinstance(attr, ir.DenseFPElementsAttr) or not attr.is_splat or op.opview.inputs[0].type.rank != 0:
        return False
    body = [o.operation for o in op.regions[0].blocks[0].operations]
    passed = len(body) == 1 and body[0].operands[0] == op.regions[0].blocks[0].arguments[0]
    return passed and plus_zero(ir.FloatAttr(attr.get_splat_value()).value)


def _plain_sum(op) -> tuple | None:
    """``(x, y)`` when ``op`` is an elementwise ``x + y`` of two same-shaped tensors (identity
    maps, a body of one ``arith.addf``), else None."""
    if op.name != "linalg.generic" or len(op.opview.inputs) != 2 or len(op.results) != 1 or not is_elementwise(op):
        return None
    maps = indexing_maps(op)
    if not all(_identity(m) for m in maps):
        return None
    body = [o.operation for o in op.regions[0].blocks[0].operations]
    args = list(op.regions[0].blocks[0].arguments)
    if [o.name for o in body] != ["arith.addf", "linalg.yield"] or set(body[0].operands) != set(args[:2]):
        return None
    x, y = op.opview.inputs
    return (x, y) if x.type == y.type == op.results[0].type else None


def _identity(m) -> bool:
    return all(isinstance(e, ir.AffineDimExpr) and e.position == i for i, e in enumerate(m.results))


def accumulate_into_products(fn) -> int:
    """``x + A @ B`` (``x += A @ B``: a convolution's ``out += patch @ w``) as the product
    accumulated into ``x``: the BLAS call's ``beta = 1`` instead of a zero fill, a product
    written to a temporary and an elementwise pass adding it. Only where the product's
    init is a zero fill and the sum is its one reader. The rounding is NumPy's where
    BLAS does not split the summed dimension into blocks (and in the last bit otherwise,
    as between BLAS builds).

    Where the sum's one reader is itself elementwise (``relu(A @ B + bias)``), only when
    ``x`` is in memory already (zeros, or another product: a chain of sums of products,
    each product then accumulating into the one before, as the nine of a 3x3
    convolution's ``out += patch @ w`` do). Otherwise that reader is a pass over the
    product anyway, and the sum fuses into it, so accumulating would only add the pass
    that writes ``x`` (a broadcast bias) into the output first. The chain had kept all
    nine products until one pass summed them: 35 MB of temporaries written and read
    back, against one output accumulated in the cache (the corpus's conv2d, 0.7-0.9x
    NumPy's time)."""
    count = 0
    for op in linalg_ops(fn):
        terms = _plain_sum(op)
        if terms is None:
            continue
        chained = _feeds_elementwise(op)
        for i, term in enumerate(terms):
            product = operation_of(term.owner)
            if product is None or not is_library_call(product) or len(list(term.uses)) != 1:
                continue
            init = product.operands[len(product.operands) - 1]
            if not _zero_fill(init) or terms[1 - i].type != init.type:
                continue
            other = terms[1 - i]
            if chained and not (_zeros(other) or _is_product(other)):
                continue
            product.move_before(op)  # after the other term, which becomes its init
            product.operands[len(product.operands) - 1] = other
            op.results[0].replace_all_uses_with(product.results[0])
            op.erase()
            count += 1
            break
    return count


def _is_product(value: ir.Value) -> bool:
    owner = operation_of(value.owner)
    return owner is not None and is_library_call(owner)


def _feeds_elementwise(op) -> bool:
    """Whether ``op``'s result is read once, by an elementwise ``linalg.generic`` taking it
    as an input (``_readers``: upstream elementwise fusion merges ``op`` into it)."""
    readers = _readers(op)
    if not readers or len(readers) != 1:
        return False
    ((reader, numbers),) = readers.items()
    return len(numbers) == 1 and is_elementwise(reader)


def _shield(value: ir.Value) -> ir.Value:
    """``value`` through a cast to dynamic sizes and back: the same tensor, which
    canonicalization restores, but no longer produced or read by the op itself."""
    t = ir.RankedTensorType(value.type)
    dynamic = ir.RankedTensorType.get([ir.ShapedType.get_dynamic_size()] * t.rank, t.element_type)
    return tensor.cast(t, tensor.cast(dynamic, value))


def shield_library_calls(fn) -> None:
    """Put a pair of ``tensor.cast``s between each BLAS-bound op (``is_library_call``) and
    its operands and results while upstream fusion runs. Why: its reshape propagation
    (``tensor.collapse_shape`` of ``w[:, :, r, s]`` read by a matmul, an ``expand_shape``
    of a matmul's result) rewrites a named matmul into a ``linalg.generic`` that elementwise
    fusion then merges with its neighbours, and ``ember-matmul-to-blas`` never sees it: a
    convolution written as ``patches @ w`` ran as loops, 10x slower than NumPy."""
    for op in linalg_ops(fn):
        if not is_library_call(op) or not all(isinstance(v.type, ir.RankedTensorType) for v in op.operands):
            continue
        with ir.InsertionPoint(op), op.location:
            for i, operand in enumerate(list(op.opview.inputs)):
                op.operands[i] = _shield(operand)
        result = op.results[0]
        with ir.InsertionPoint.after(op), op.location:
            shielded = _shield(result)
        first = operation_of(shielded.owner).operands[0].owner  # the cast to dynamic sizes, reading result
        for use in list(result.uses):
            user = operation_of(use.owner)
            if user != operation_of(first):
                user.operands[use.operand_number] = shielded


@dataclass
class EmberFuse(EmberPass):
    """Fuse elementwise chains, then reductions with their elementwise consumers."""

    name = "ember-fuse"
    summary = "fuse elementwise chains (upstream; shared results recomputed per reader) and reductions with their consumers into one loop nest"
    tile_bytes: int = 256 * 1024

    def run(self, module):
        for fn in functions(module):
            accumulate_into_products(fn)
            duplicate_shared_elementwise(fn, tiled=self.tile_bytes > 0)
            shield_library_calls(fn)
            if self.tile_bytes:  # the GPU's threads recompute rather than read memory
                keep_costly_broadcasts(fn)
        # canonicalize: drops the shields; cse: rejoins unfused copies
        run_upstream(module, "func.func(linalg-fuse-elementwise-ops),canonicalize,cse")
        for fn in functions(module):
            drop_barriers(fn)
        for fn in functions(module):
            for root in roots(fn):
                if self.tile_bytes and any(has_reduction(p) for p in producers(root)):
                    tile_and_fuse(root, self.tile_bytes)
