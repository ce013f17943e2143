"""Loops of sin, cos and tan run a cheap argument reduction when a scan finds every
argument small (``ember-trig-fast-path``).

Why: sin, cos and tan reduce their argument modulo pi/2 first, and what that costs
depends on the argument's size. ``ember-expand-math`` computes float32 ones with a
reduction exact for every float32 (Payne-Hanek: eight products and sums in float64) and
leaves float64 ones to libm (one call per element, no vectors), because an elementwise
expansion has no per-vector branch: LLVM vectorizes the scalar loop, so both paths of
a select would run. Measured on 1M elements against NumPy, whose SIMD loops reduce small
arguments cheaply and branch per vector to a slow path for the rare large ones: float32
sin 0.40x, cos 0.34x, tan 0.24x; float64 tan 0.15x.

The branch goes around the loop instead: an innermost ``scf.for`` whose sin, cos and tan
arguments are computed from the loop's index, values from outside and loads of buffers
the loop does not write (``_argument_ops``) is preceded by a scan: a loop computing just
the arguments and or-ing ``|argument| > SMALL_ARGUMENT`` (2**20; NaN is small, its
result NaN either way). Then ``scf.if`` runs the loop as it was where some argument is
large, else a copy whose sin, cos and tan carry ``ember.small_argument``:
``ember-expand-math`` gives those Cody-Waite's reduction with pi/2 in exact pieces, as
precise below 2**20 as the exact one (float32 results the same, float64 within an ulp).
The scan reads the loop's inputs once more (from cache, for a tile) and vectorizes.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import arith, clone_ops, collect, defined_inside, ir, operation_of, scf, walk_ops
from compiler.mlir import math as math_ops
from compiler.passes.base import EmberPass
from compiler.passes.buffers import VIEWS, root_buffer
from compiler.passes.expand_trig import SMALL_ARGUMENT, SMALL_ARGUMENT_ATTR
from compiler.passes.math_emitter import float_width

TRIG = ("math.sin", "math.cos", "math.tan")
# ops a scan may repeat: no effect but reading memory the loop does not write
_PURE_PREFIXES = ("arith.", "math.", "index.")
_PURE = {"affine.apply", "memref.load", "memref.dim", *VIEWS}
# ops a loop may hold and still be run twice over its memory's first state (scan, loop)
_ALLOWED_IN_LOOP = {*_PURE, "memref.store", "scf.yield", "scf.if", "scf.for"}


SCANNED_ATTR = "ember.trig_scanned"  # on both copies: a second run leaves them alone


def _is_trig(op: ir.Operation) -> bool:
    return op.name in TRIG and float_width(op.results[0].type) is not None


def _pure(op: ir.Operation) -> bool:
    return op.name.startswith(_PURE_PREFIXES) or op.name in _PURE


def _innermost_loop(op: ir.Operation) -> ir.Operation | None:
    parent = operation_of(op.parent)
    while parent is not None and parent.name not in ("scf.for", "scf.forall", "scf.parallel", "func.func"):
        parent = operation_of(parent.parent)
    return parent if parent is not None and parent.name == "scf.for" else None


def _written_buffers(loop: ir.Operation) -> set | None:
    """The root buffers ``loop`` stores to; None if it holds an op of other effects."""
    written = set()
    for op in walk_ops(loop)[:-1]:  # the loop itself is last
        if not (_pure(op) or op.name in _ALLOWED_IN_LOOP):
            return None
        if op.name == "memref.store":
            written.add(root_buffer(op.operands[1]))
    return written


def _argument_ops(loop: ir.Operation, trigs: list[ir.Operation]) -> list[ir.Operation] | None:
    """The ops of ``loop``'s body that compute ``trigs``' arguments, in order; None if
    one of them is not in the body's own block, reads a value the loop carries, or loads
    from a buffer the loop writes (the scan would see other values than the loop)."""
    written = _written_buffers(loop)
    if written is None:
        return None
    body = loop.regions[0].blocks[0]
    induction = body.arguments[0]
    needed: set = set()
    pending = [op.operands[0] for op in trigs]
    while pending:
        value = pending.pop()
        if not defined_inside(value, loop):
            continue
        if isinstance(value.owner, ir.Block):
            if value == induction:
                continue
            return None  # an iter_arg, or an argument of a nested block
        op = operation_of(value.owner)
        if operation_of(op.parent) != loop or not _pure(op):
            return None
        if op.name == "memref.load" and root_buffer(op.operands[0]) in written:
            return None
        if op not in needed:
            needed.add(op)
            pending.extend(op.operands)
    return [op.operation for op in body.operations if op.operation in needed]


def _any_large(loop: ir.Operation, trigs: list[ir.Operation], ops: list[ir.Operation]) -> ir.Value:
    """A loop over ``loop``'s range computing the arguments (``ops``), or-ing whether any
    is above SMALL_ARGUMENT in magnitude; its result."""
    bounds = {str(t): arith.constant(t, SMALL_ARGUMENT) for t in (trig.operands[0].type for trig in trigs)}
    lower, upper, step = loop.operands[:3]
    for_op = scf.ForOp(lower, upper, step, [arith.constant(ir.IntegerType.get_signless(1), 0)])
    with ir.InsertionPoint(for_op.body):
        mapping = clone_ops(ops, {loop.regions[0].blocks[0].arguments[0]: for_op.induction_variable})
        found = for_op.inner_iter_args[0]
        for trig in trigs:
            argument = mapping.get(trig.operands[0], trig.operands[0])
            large = arith.cmpf(arith.CmpFPredicate.OGT, math_ops.absf(argument), bounds[str(argument.type)])
            found = arith.ori(found, large)
        scf.YieldOp([found])
    return for_op.results[0]


def _version(loop: ir.Operation, trigs: list[ir.Operation], ops: list[ir.Operation]) -> None:
    """``scf.if any_large { loop } else { loop with small-argument trig }``."""
    loop.attributes[SCANNED_ATTR] = ir.UnitAttr.get()
    with ir.InsertionPoint(loop), loop.location:
        large = _any_large(loop, trigs, ops)
        choice = scf.IfOp(large, [r.type for r in loop.results], has_else=True)
    for old, new in zip(loop.results, choice.results):
        old.replace_all_uses_with(new)
    with ir.InsertionPoint(choice.else_block), loop.location:
        fast = loop.clone()
        for op in walk_ops(fast):
            if op.name in TRIG:
                op.attributes[SMALL_ARGUMENT_ATTR] = ir.UnitAttr.get()
        scf.YieldOp(list(fast.results))
    with ir.InsertionPoint(choice.then_block), loop.location:
        kept = scf.YieldOp(list(loop.results))
    loop.move_before(kept)


@dataclass
class EmberTrigFastPath(EmberPass):
    """Innermost loops of sin/cos/tan: a scan of the arguments first, and a copy of the
    loop with the cheap reduction (``ember.small_argument``) where all are below 2**20."""

    name = "ember-trig-fast-path"
    summary = "loops of sin/cos/tan: the arguments scanned, a copy with a cheap reduction run where all are small"

    def run(self, module):
        loops: dict = {}
        for trig in collect(module, _is_trig):
            loop = _innermost_loop(trig)
            if loop is not None:
                loops.setdefault(loop, []).append(trig)
        for loop, trigs in loops.items():
            if SCANNED_ATTR in loop.attributes:
                continue
            every = [op for op in walk_ops(loop) if op.name in TRIG]
            if len(every) != len(trigs) or any(_innermost_loop(op) != loop for op in every):
                continue  # a trig op of a nested loop too: leave the loop as it is
            ops = _argument_ops(loop, trigs)
            if ops is not None:
                _version(loop, trigs, ops)
