"""Make a kernel's parallel loop splittable by the runtime (``ember-parallel-parts``).

After tiling, a kernel whose work is one top-level ``scf.forall`` (an elementwise
chain, a fused softmax or layernorm, a matmul with its epilogue) can run on several
threads with no synchronisation: its tiles are independent. We give such a function
two trailing ``index`` arguments, ``part`` and ``parts``, and each tile runs only in
the call whose ``part`` equals ``tile mod parts``. The runtime then calls the same
kernel ``parts`` times concurrently, one call per worker thread (ctypes releases the
GIL), each writing its own tiles of the output buffers. Tiles are dealt round-robin,
so no call needs to know how many tiles there are, and the cost of the check is one
remainder per tile, not per element.

A kernel with anything else at the top level (a reduction to a scalar, several
loop nests that depend on each other) is left alone and runs on one thread; it
gets ``ember.parallel = false``. A GPU backend reads the same ``scf.forall`` as its
grid instead.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import arith, ir, scf
from compiler.passes.registry import EmberPass, register
from compiler.passes.signature import add_arguments, sync_signature
from compiler.passes.tiling import functions

PARALLEL_ATTR = "ember.parallel"
_SERIAL_OK = ("arith.", "memref.dim", "memref.alloc", "memref.dealloc", "affine.apply",
              "affine.min", "affine.max", "index.", "func.return")


def _only_loop(fn):
    """The function's single top-level scf.forall, if the rest is cheap bookkeeping."""
    block = fn.regions[0].blocks[0]
    loops = [op.operation for op in block.operations if op.operation.name == "scf.forall"]
    if len(loops) != 1:
        return None
    for op in block.operations:
        name = op.operation.name
        if op.operation != loops[0] and not name.startswith(_SERIAL_OK):
            return None
    return loops[0]


def _guard_body(loop, part, parts) -> None:
    """Wrap the loop body in ``scf.if (tile mod parts == part)``."""
    body = loop.regions[0].blocks[0]
    ops = list(body.operations)
    terminator = ops[-1]
    tile = body.arguments[0]
    with ir.InsertionPoint(terminator), loop.location:
        mine = arith.cmpi(arith.CmpIPredicate.eq, arith.remui(tile, parts), part)
        guard = scf.IfOp(mine)
    then = guard.then_block
    with ir.InsertionPoint(then), loop.location:
        scf.YieldOp([])
    yield_op = list(then.operations)[-1]
    for op in ops[:-1]:
        op.operation.move_before(yield_op)


def split_into_parts(fn) -> bool:
    loop = _only_loop(fn)
    if loop is None or len(loop.regions[0].blocks[0].arguments) != 1:
        fn.attributes[PARALLEL_ATTR] = ir.BoolAttr.get(False)
        return False
    part, parts = add_arguments(fn, [ir.IndexType.get()] * 2)
    _guard_body(loop, part, parts)
    sync_signature(fn)
    fn.attributes[PARALLEL_ATTR] = ir.BoolAttr.get(True)
    return True


@register
@dataclass
class EmberParallelParts(EmberPass):
    """Let the runtime split a kernel's single parallel loop across threads."""

    name = "ember-parallel-parts"
    summary = "add (part, parts) arguments so tiles of the one top-level scf.forall run on many threads"

    def run(self, module):
        for fn in functions(module):
            if PARALLEL_ATTR not in fn.attributes:
                split_into_parts(fn)
