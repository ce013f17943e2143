"""Make a kernel's parallel loop splittable by the runtime (``ember-parallel-parts``).

After tiling, a kernel whose work is one top-level ``scf.forall`` (an elementwise
chain, a fused softmax or layernorm, a matmul with its epilogue) can run on several
threads with no synchronisation: its tiles are independent. We give such a function
two trailing ``index`` arguments, ``part`` and ``parts``, and each call runs only its
own contiguous block of tiles (``[n*part/parts, n*(part+1)/parts)``, round-robin where
the trip count is not known). The runtime then calls the same kernel ``parts`` times
concurrently, one call per worker thread (ctypes releases the GIL), each writing its
own tiles of the output buffers; the check costs one comparison per tile, not per
element. Contiguous blocks matter: dealt round-robin, two threads of a layernorm
interleave 124 KiB tiles and ran no faster than one.

A kernel with anything else at the top level (a reduction to a scalar, several
loop nests that depend on each other) is left alone; it gets ``ember.parallel =
false`` and runs on one thread, unless ``ember-parallel-reduction`` later splits it
(a reduction to one value, see ``parallel_reduction.py``). A GPU backend reads the
same ``scf.forall`` as its grid instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import arith, functions, ir, scf
from compiler.passes.base import EmberPass
from compiler.passes.signature import add_arguments, sync_signature
from runtime.abi import PARALLEL_ATTR

BOOKKEEPING_OPS = (
    "arith.",
    "memref.dim",
    "memref.alloc",
    "memref.dealloc",
    "affine.apply",  # cheap set-up
    "affine.min",
    "affine.max",
    "index.",
    "func.return",
)
# Ops making a view of a buffer: pure, cheap, made again wherever the view is needed.
VIEW_OPS = ("memref.subview", "memref.expand_shape", "memref.collapse_shape", "memref.cast", "memref.reinterpret_cast")


def _only_loop(fn):
    """The function's single top-level scf.forall, if the rest is cheap bookkeeping."""
    block = fn.regions[0].blocks[0]
    loops = [op.operation for op in block.operations if op.operation.name == "scf.forall"]
    if len(loops) != 1:
        return None
    for op in block.operations:
        name = op.operation.name
        if op.operation != loops[0] and not name.startswith(BOOKKEEPING_OPS):
            return None
    return loops[0]


def normalized(loop) -> bool:
    """Whether ``loop`` is ``scf.forall (%i) in (%n)``: one dimension from 0 by 1."""
    lower = list(ir.DenseI64ArrayAttr(loop.attributes["staticLowerBound"]))
    step = list(ir.DenseI64ArrayAttr(loop.attributes["staticStep"]))
    return lower == [0] and step == [1]


def trip_count(loop):
    """The tile count of a normalized ``scf.forall (%i) in (%n)`` (built before the loop)."""
    if not normalized(loop):
        return None
    bounds = list(ir.DenseI64ArrayAttr(loop.attributes["staticUpperBound"]))
    if bounds[0] != ir.ShapedType.get_dynamic_size():
        with ir.InsertionPoint(loop), loop.location:
            return arith.constant(ir.IndexType.get(), bounds[0])
    return loop.operands[0]


def _my_tiles(loop, tile, part, parts):
    """``lo <= tile < hi`` for this part's contiguous block of tiles (neighbouring tiles
    on one thread: each thread streams through its own stretch of memory); where the
    trip count is unknown, tiles are dealt round-robin (``tile mod parts == part``)."""
    n = trip_count(loop)
    if n is None:
        return arith.cmpi(arith.CmpIPredicate.eq, arith.remui(tile, parts), part)
    with ir.InsertionPoint(loop), loop.location:
        one = arith.constant(ir.IndexType.get(), 1)
        lo = arith.divui(arith.muli(n, part), parts)
        hi = arith.divui(arith.muli(n, arith.addi(part, one)), parts)
    return arith.andi(arith.cmpi(arith.CmpIPredicate.uge, tile, lo), arith.cmpi(arith.CmpIPredicate.ult, tile, hi))


def guard_body(loop, part, parts) -> None:
    """Wrap the loop body in ``scf.if`` (this part's tiles only)."""
    body = loop.regions[0].blocks[0]
    ops = list(body.operations)
    terminator = ops[-1]
    tile = body.arguments[0]
    with ir.InsertionPoint(terminator), loop.location:
        guard = scf.IfOp(_my_tiles(loop, tile, part, parts))
    then = guard.then_block
    with ir.InsertionPoint(then), loop.location:
        scf.YieldOp([])
    yield_op = list(then.operations)[-1]
    for op in ops[:-1]:
        op.operation.move_before(yield_op)


def is_private(fn) -> bool:
    return "sym_visibility" in fn.attributes and ir.StringAttr(fn.attributes["sym_visibility"]).value == "private"


def split_into_parts(fn) -> bool:
    loop = _only_loop(fn)
    if loop is None or len(loop.regions[0].blocks[0].arguments) != 1:
        fn.attributes[PARALLEL_ATTR] = ir.BoolAttr.get(False)
        return False
    part, parts = add_arguments(fn, [ir.IndexType.get()] * 2)
    guard_body(loop, part, parts)
    sync_signature(fn)
    fn.attributes[PARALLEL_ATTR] = ir.BoolAttr.get(True)
    return True


@dataclass
class EmberParallelParts(EmberPass):
    """Let the runtime split a kernel's single parallel loop across threads."""

    name = "ember-parallel-parts"
    summary = "add (part, parts) arguments so tiles of the one top-level scf.forall run on many threads"

    def run(self, module):
        for fn in functions(module):
            if PARALLEL_ATTR not in fn.attributes and not is_private(fn):  # helpers are called, not launched
                split_into_parts(fn)
