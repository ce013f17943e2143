"""Tile temporaries allocated once per call, not once per tile (nor per loop iteration).

After tile-and-fuse, a fused kernel's intermediates (softmax's row maxima and sums,
layernorm's centred rows) are tile-sized buffers, and one-shot bufferization
allocates them inside the ``scf.forall`` — a ``malloc``/``free`` per tile. Their
sizes vary only through the last, partial tile (``affine.min(n - i, T)``), so each
can be allocated once before the loop at its largest size ``T`` and viewed at the
tile's actual size inside it (``memref.reinterpret_cast`` with the row-major strides
of the actual size keeps the original buffer type, so no user changes).
"""

from __future__ import annotations

from compiler.mlir import arith, collect, defined_inside, ir, memref, operation_of
from compiler.passes.buffers import VIEWS, identity_layout
from compiler.passes.scf_loops import loop_bodies


def _constant_bound(value) -> int | None:
    """``T`` when ``value`` is ``affine.min`` with a constant term ``T``."""
    owner = value.owner
    if not isinstance(owner, (ir.OpView, ir.Operation)) or owner.operation.name != "affine.min":
        return None
    bounds = [
        e.value
        for e in ir.AffineMapAttr(owner.operation.attributes["map"]).value.results
        if isinstance(e, ir.AffineConstantExpr)
    ]
    return min(bounds) if bounds else None


def _plan(alloc, loop):
    """(static shape of the hoisted buffer, its dynamic sizes) or None if not hoistable."""
    t = alloc.results[0].type
    dynamic = iter(alloc.operands)
    shape, outer_sizes = [], []
    for i in range(t.rank):
        if not t.is_dynamic_dim(i):
            shape.append(t.get_dim_size(i))
            continue
        size = next(dynamic)
        if not defined_inside(size, loop):
            shape.append(ir.ShapedType.get_dynamic_size())
            outer_sizes.append(size)
            continue
        bound = _constant_bound(size)
        if bound is None:
            return None
        shape.append(bound)
    return shape, outer_sizes


def _mixed_sizes(alloc) -> list:
    """Each dim's size: an int when static, else the alloc's ``index`` operand."""
    t = alloc.results[0].type
    dynamic = iter(alloc.operands)
    return [next(dynamic) if t.is_dynamic_dim(i) else t.get_dim_size(i) for i in range(t.rank)]


def _row_major_strides(sizes: list) -> list:
    """Row-major strides of ``sizes`` (ints where every inner size is static)."""
    strides, running = [], 1
    for size in reversed(sizes):
        strides.insert(0, running)
        if isinstance(running, int) and isinstance(size, int):
            running *= size
        else:
            as_value = [arith.constant(ir.IndexType.get(), x) if isinstance(x, int) else x for x in (running, size)]
            running = arith.muli(*as_value)
    return strides


def _split(mixed: list) -> tuple[list, list]:
    """(dynamic operands, static values with the dynamic marker) of a mixed list."""
    dyn = ir.ShapedType.get_dynamic_size()
    return [x for x in mixed if not isinstance(x, int)], [x if isinstance(x, int) else dyn for x in mixed]


def hoist(alloc, loop) -> bool:
    plan = _plan(alloc, loop)
    t = alloc.results[0].type
    if plan is None or not identity_layout(t):
        return False
    shape, outer_sizes = plan
    with ir.InsertionPoint(loop), loop.location:
        big = memref.alloc(
            ir.MemRefType.get(shape, t.element_type),
            outer_sizes,
            [],
            alignment=ir.IntegerAttr.get(ir.IntegerType.get_signless(64), 64),
        )
    with ir.InsertionPoint(alloc), alloc.location:
        sizes = _mixed_sizes(alloc)
        dyn_sizes, static_sizes = _split(sizes)
        dyn_strides, static_strides = _split(_row_major_strides(sizes))
        view = memref.reinterpret_cast(t, big, [], dyn_sizes, dyn_strides, [0], static_sizes, static_strides)
    alloc.results[0].replace_all_uses_with(view)
    alloc.erase()
    return True


def hoist_tile_buffers(module) -> int:
    """Hoist every hoistable allocation out of every ``scf.forall``; returns how many."""
    found = collect(module, lambda op: op.name == "memref.alloc" and op.parent.name == "scf.forall")
    return sum(hoist(alloc, alloc.parent) for alloc in found)


def _within_iteration(value) -> bool:
    """Whether ``value`` (a buffer, or a view of one) is only read and written where it is
    made: no user passes it on (an ``scf.yield`` carrying it to the next iteration, an
    ``scf.if`` or ``select`` returning it) but through views that do not either."""
    for use in value.uses:
        owner = operation_of(use.owner)
        if owner.name in VIEWS:
            if not _within_iteration(owner.results[0]):
                return False
        elif owner.name.endswith("yield") or any(isinstance(r.type, ir.MemRefType) for r in owner.results):
            return False
    return True


def hoist_loop_buffers(fn) -> int:
    """Allocate before an ``scf.for`` the fixed-size buffers each of its iterations
    allocates and uses up (a loop traced as a loop: its 0-d values, the index of
    ``a[i, i]``), innermost loops first; returns how many. Bufferized, such a body
    allocated and freed five small buffers per iteration: 0.35 ms of ``for i in
    range(2000): trace += np.tanh(a[i, i])``, against 0.19 with them hoisted. A buffer an
    iteration hands to the next (carried) stays, as do sizes only known in the loop."""
    hoisted = 0
    for loop in loop_bodies(fn)[1:]:  # the walk's order: inner loops before outer ones
        body = loop.regions[0].blocks[0]
        for op in [o.operation for o in body.operations]:
            if op.name == "memref.alloc" and not list(op.operands) and _within_iteration(op.results[0]):
                op.move_before(loop)
                hoisted += 1
    return hoisted
