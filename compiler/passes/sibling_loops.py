"""Fuse sibling tile loops: independent ``scf.forall``s over the same tiles become one.

A function returning several arrays (``return t * 2, t + 1``) has several roots, and
``ember-tile`` gives each its own loop. Run one after the other, each loop streams
the shared inputs through the cache again, and a function with more than one loop
cannot be split across threads (``compiler/passes/parallel.py``). When two loops
have the same iteration count and neither reads what the other writes, upstream's
``transform.loop.fuse_sibling`` merges their bodies into one loop with both sets of
shared outputs: each iteration then does tile ``i`` of both.

The transform checks no legality itself, so we do: the later loop must not read
the earlier one's results (no data flows between siblings), and nothing between
the two may read them either (the fused loop stands where the later one was).
"""

from __future__ import annotations

from compiler.mlir import ir, operation_of, walk_ops
from compiler.passes.transform_scripts import apply, clear_marks, module_of, script

FIRST_MARK = "ember.sibling_first"
SECOND_MARK = "ember.sibling_second"

_FUSE_SIBLING = """
    %first = transform.structured.match attributes{FIRST} in %root : (!transform.any_op) -> !transform.any_op
    %second = transform.structured.match attributes{SECOND} in %root : (!transform.any_op) -> !transform.any_op
    %fused = transform.loop.fuse_sibling %first into %second : (!transform.any_op, !transform.any_op) -> !transform.any_op
"""


def _bounds(loop) -> tuple:
    """What fixes a normalized forall's iterations: its static bounds and the dynamic
    bound values (the operands before its shared outputs)."""
    n_bounds = len(loop.operands) - len(loop.results)
    static = tuple(str(loop.attributes[a]) for a in ("staticLowerBound", "staticUpperBound", "staticStep"))
    mapping = str(loop.attributes["mapping"]) if "mapping" in loop.attributes else None
    return static, mapping, [loop.operands[i] for i in range(n_bounds)]


def _same_iterations(a, b) -> bool:
    (sa, ma, da), (sb, mb, db) = _bounds(a), _bounds(b)
    return sa == sb and ma == mb and len(da) == len(db) and all(x == y for x, y in zip(da, db))


def _reads_results_of(op, loop) -> bool:
    """Does ``op`` (or anything nested in it) read a result of ``loop``?"""
    owners = (operation_of(operand.owner) for inner in walk_ops(op) for operand in inner.operands)
    return any(owner is not None and owner == loop for owner in owners)


def _fusable(first, second, between: list) -> bool:
    return (
        _same_iterations(first, second)
        and not _reads_results_of(second, first)
        and not any(_reads_results_of(op, first) for op in between)
    )


def fuse_sibling_loops(fn) -> int:
    """Merge ``fn``'s independent top-level foralls with equal iterations, greedily in
    order (each into the next one it can join); returns the number of merges."""
    merges, refused = 0, set()
    while (pair := _next_pair(fn, refused)) is not None:
        if _fuse(*pair):
            merges += 1
        else:
            refused.add(pair)
    return merges


def _next_pair(fn, refused: set):
    body = [op.operation for op in fn.regions[0].blocks[0].operations]
    loops = [op for op in body if op.name == "scf.forall"]
    for i, first in enumerate(loops):
        for second in loops[i + 1 :]:
            between = body[body.index(first) + 1 : body.index(second)]
            if (first, second) not in refused and _fusable(first, second, between):
                return first, second
    return None


def _fuse(first, second) -> bool:
    """Upstream's fusion; False (IR untouched) where it refuses."""
    module = module_of(first)
    first.attributes[FIRST_MARK] = ir.UnitAttr.get()
    second.attributes[SECOND_MARK] = ir.UnitAttr.get()
    try:
        apply(module, script(_FUSE_SIBLING, FIRST=FIRST_MARK, SECOND=SECOND_MARK))
        return True
    except ValueError:
        return False
    finally:
        clear_marks(module, FIRST_MARK, SECOND_MARK)
