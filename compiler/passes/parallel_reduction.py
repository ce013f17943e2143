"""Split a reduction to one value across threads (``ember-parallel-reduction``).

``sum``, ``mse``, ``max``... reduce a whole array into a 0-d output: no parallel loop,
so ``ember-parallel-parts`` leaves them on one thread, which on a 2-core machine runs
``((x-y)**2).sum()`` over 16M floats at two thirds of torch.compile's speed. After
``convert-linalg-to-loops`` such a kernel is ``acc = init; for i: acc = acc (+) f(i)``,
after some set-up (constants, sizes, the views its loop reads: the columns of a
Monte Carlo path loop), then perhaps a few scalar ops on the total (``mean`` divides
it into the output; ``np.exp(-r * T) * payoff.mean()`` discounts it). We
give it two scratch arguments that the kernel's launcher allocates (zeroed, on its
stack, per call; ``runtime/abi.py``) and every part of the call shares —
``partials`` (one slot per part) and a ``counter`` — and rewrite it to:

    partials[part] = init
    for i in this part's contiguous block of the outer loop: partials[part] (+)= f(i)
    if atomic_add(counter, 1) == parts - 1:          # the last part to finish
        acc = init
        for p in 0..parts: acc = acc (+) partials[p]
        <the ops on the total>

The atomic add is acquire-release, so the last part sees every other part's slot.
The parts combine in a fixed order; the result is the same for a given number of
parts (the order of the additions differs from one thread's, within the tolerance
reassociation already has). ``(+)`` must be associative and commutative: only the
combiners listed below qualify. Anything else keeps running on one thread.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import arith, constant_attr, constant_index, functions, index_constant, ir, memref, operation_of, scf
from compiler.passes.base import EmberPass
from compiler.passes.parallel import BOOKKEEPING_OPS, VIEW_OPS
from compiler.passes.signature import add_arguments, sync_signature
from runtime.abi import MAX_PARTS, PARALLEL_ATTR, SCRATCH_ATTR

INF = float("inf")
# combiner -> its identity: floats as Python floats, integers as functions of the bit width
# (unsigned bit patterns). Every part's slot starts from the output's initial value, so
# that value must be the identity (it is, for Ember's reductions) or parts would count it
# once each.
COMBINERS = {
    "arith.addf": 0.0,
    "arith.mulf": 1.0,
    "arith.maximumf": -INF,
    "arith.minimumf": INF,
    "arith.addi": lambda w: 0,
    "arith.muli": lambda w: 1,
    "arith.ori": lambda w: 0,
    "arith.xori": lambda w: 0,
    "arith.maxui": lambda w: 0,
    "arith.minui": lambda w: (1 << w) - 1,
    "arith.andi": lambda w: (1 << w) - 1,
    "arith.maxsi": lambda w: 1 << (w - 1),
    "arith.minsi": lambda w: (1 << (w - 1)) - 1,
}


def is_identity(combiner: str, value) -> bool:
    attr, identity = constant_attr(value), COMBINERS[combiner]
    if isinstance(attr, ir.FloatAttr):
        return not callable(identity) and ir.FloatAttr(attr).value == identity
    if isinstance(attr, ir.BoolAttr) and callable(identity):  # i1 constants come back as BoolAttr
        return int(ir.BoolAttr(attr).value) == identity(1)
    if isinstance(attr, ir.IntegerAttr) and callable(identity):
        width = ir.IntegerType(attr.type).width
        return ir.IntegerAttr(attr).value % (1 << width) == identity(width)
    return False


@dataclass
class _Reduction:
    acc: ir.Value  # the 0-d accumulator: the output argument, or a buffer (mean's sum)
    init: object  # the memref.store of the initial value, before the loop
    loop: object  # the outer scf.for
    combiner: object  # the op folding one value into the accumulator
    finish: list  # ops after the loop that read the total (mean's division, its store)


_FINISH_OK = ("arith.", "math.", "memref.load", "memref.store")  # np.exp(-r * T) * total.mean()


def _nested_in(op, loop) -> bool:
    while op is not None and op != loop:
        op = op.parent if op.name != "func.func" else None
    return op is not None


def _match(fn) -> _Reduction | None:
    """``fn`` as ``acc[] = init; scf.for { ... acc[] = acc[] (+) v ... }; finish``, or None."""
    body = [op.operation for op in fn.regions[0].blocks[0].operations]
    loops = [op for op in body if op.name == "scf.for"]
    if len(loops) != 1:
        return None
    loop = loops[0]
    before, after = body[: body.index(loop)], body[body.index(loop) + 1 : -1]
    stores = [op for op in before if op.name == "memref.store"]
    set_up = BOOKKEEPING_OPS + VIEW_OPS  # the columns a fused loop reads: views made before it
    if len(stores) != 1 or any(op not in stores and not op.name.startswith(set_up) for op in before):
        return None
    finish = [op for op in after if op.name != "memref.dealloc"]
    if not all(op.name.startswith(_FINISH_OK) for op in finish):
        return None
    init = stores[0]
    acc = init.operands[1]
    if not isinstance(acc.type, ir.MemRefType) or acc.type.rank != 0:
        return None
    if constant_index(loop.operands[0]) != 0 or constant_index(loop.operands[2]) != 1:
        return None
    users = [operation_of(use.owner) for use in acc.uses]
    inside = [op for op in users if _nested_in(op, loop)]
    outside = [op for op in users if op not in inside and op != init]
    if not all(op in after and op.name in ("memref.load", "memref.dealloc") for op in outside):
        return None
    loads = [op for op in inside if op.name == "memref.load"]
    writes = [op for op in inside if op.name == "memref.store"]
    if len(writes) != 1 or len(loads) != 1 or len(inside) != 2:
        return None
    combiner = operation_of(writes[0].operands[0].owner)
    if combiner is None or combiner.name not in COMBINERS:
        return None
    reads = {operation_of(o.owner) for o in combiner.operands} - {None}
    if loads[0] not in reads or len(list(loads[0].results[0].uses)) != 1:
        return None
    if not is_identity(combiner.name, init.operands[0]):
        return None
    return _Reduction(acc, init, loop, combiner, finish)


def _rewrite(fn, r: _Reduction) -> None:
    element = ir.MemRefType(r.acc.type).element_type
    partials, counter, part, parts = add_arguments(
        fn,
        [
            ir.MemRefType.get([MAX_PARTS], element),
            ir.MemRefType.get([1], ir.IntegerType.get_signless(64)),
            ir.IndexType.get(),
            ir.IndexType.get(),
        ],
    )
    with ir.InsertionPoint(r.init), r.loop.location:
        view_type = ir.MemRefType.get([], element, ir.Attribute.parse("strided<[], offset: ?>"))
        mine = memref.ReinterpretCastOp(
            view_type, partials, [part], [], [], [ir.ShapedType.get_dynamic_stride_or_offset()], [], []
        ).result
    for use in list(r.acc.uses):  # the accumulator becomes this part's slot
        op = operation_of(use.owner)
        if op == r.init or _nested_in(op, r.loop):
            op.operands[use.operand_number] = mine
    with ir.InsertionPoint(r.loop), r.loop.location:  # this part's block of the outer loop
        n = r.loop.operands[1]
        one = index_constant(1)
        r.loop.operands[0] = arith.divui(arith.muli(n, part), parts)
        r.loop.operands[1] = arith.divui(arith.muli(n, arith.addi(part, one)), parts)
    _merge_when_last(r, partials, counter, parts)
    sync_signature(fn)


def _merge_when_last(r: _Reduction, partials, counter, parts) -> None:
    block = [op.operation for op in r.loop.parent.regions[0].blocks[0].operations]
    with ir.InsertionPoint(block[block.index(r.loop) + 1]), r.loop.location:
        zero, one = index_constant(0), index_constant(1)
        i64 = ir.IntegerType.get_signless(64)
        old = memref.AtomicRMWOp(arith.AtomicRMWKind.addi, arith.constant(i64, 1), counter, [zero]).result
        last = arith.cmpi(arith.CmpIPredicate.eq, old, arith.index_cast(i64, arith.subi(parts, one)))
        branch = scf.IfOp(last)
        with ir.InsertionPoint(branch.then_block):
            memref.StoreOp(r.init.operands[0], r.acc, [])
            loop = scf.ForOp(zero, parts, one)
            with ir.InsertionPoint(loop.body):
                acc = memref.LoadOp(r.acc, []).result
                value = memref.LoadOp(partials, [loop.induction_variable]).result
                combined = r.combiner.clone(ip=ir.InsertionPoint.current)
                combined.operands[0], combined.operands[1] = acc, value
                memref.StoreOp(combined.results[0], r.acc, [])
                scf.YieldOp([])
            done = scf.YieldOp([])
        for op in r.finish:  # what reads the total runs once, on the total
            op.move_before(done)


def split_reduction(fn) -> bool:
    found = _match(fn)
    if found is None:
        return False
    _rewrite(fn, found)
    fn.attributes[PARALLEL_ATTR] = ir.BoolAttr.get(True)
    fn.attributes[SCRATCH_ATTR] = ir.DenseI64ArrayAttr.get([MAX_PARTS, 1])
    return True


@dataclass
class EmberParallelReduction(EmberPass):
    """Split a whole-array reduction across threads (see module doc)."""

    name = "ember-parallel-reduction"
    summary = "reductions to one value: per-part partials in runtime scratch, combined by the last part"

    def run(self, module):
        for fn in functions(module):
            if PARALLEL_ATTR in fn.attributes and not ir.BoolAttr(fn.attributes[PARALLEL_ATTR]).value:
                split_reduction(fn)
