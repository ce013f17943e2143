"""Tile-and-fuse along the outermost parallel dimension (``ember-tile``).

Each *root* — a linalg op whose result no other linalg op of its function consumes —
is tiled along its first parallel loop into an ``scf.forall``, and its producers are
fused into the loop body (``transform.structured.fuse``). That gives:

* one loop nest per root, whose iterations are independent: the runtime splits the
  ``scf.forall`` range across threads (and a GPU backend maps it to a grid);
* tiles sized for cache: the tile size is the number of outer-dimension slices whose
  operands fit in ``tile_bytes`` (default 256 KiB, about half an L2), so the
  temporaries a fused kernel keeps per tile stay cached.

The transforms are upstream MLIR's (the transform dialect, applied from Python);
the choice of roots and tile sizes is ours.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import ir, transform_interpreter
from compiler.passes.registry import EmberPass, PassFailure, register, run_upstream

ROOT_MARK = "ember.tile_root"

_FUSE_SCRIPT = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
    %op = transform.structured.match attributes{MARK} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.fuse %op tile_sizes [SIZES] {use_forall}
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.yield
  }
}
"""


def is_linalg(op) -> bool:
    return op.name.startswith("linalg.") and op.name != "linalg.yield"


def iterator_types(op) -> list[str]:
    """Loop kinds of a linalg op, named or generic (``parallel`` / ``reduction``)."""
    attr = op.attributes["iterator_types"] if "iterator_types" in op.attributes else None
    if attr is not None:
        return [str(a).split("<")[-1].rstrip(">") for a in ir.ArrayAttr(attr)]
    return _named_iterators(op)


def _named_iterators(op) -> list[str]:
    """Named linalg ops carry no iterator attribute; derive it from their kind."""
    out_rank = op.results[0].type.rank if len(op.results) else 0
    reductions = {"linalg.matmul": 1, "linalg.batch_matmul": 1, "linalg.matvec": 1,
                  "linalg.vecmat": 1, "linalg.dot": 1}.get(op.name, 0)
    if op.name == "linalg.reduce":
        reductions = len(ir.DenseI64ArrayAttr(op.attributes["dimensions"]))
        in_rank = op.operands[0].type.rank
        return ["parallel"] * (in_rank - reductions) + ["reduction"] * reductions
    return ["parallel"] * out_rank + ["reduction"] * reductions


def has_reduction(op) -> bool:
    return "reduction" in iterator_types(op)


def functions(module: ir.Operation):
    for op in module.regions[0].blocks[0].operations:
        if op.operation.name == "func.func":
            yield op.operation


def linalg_ops(fn) -> list:
    """Linalg ops directly in the function body (not inside loops already made)."""
    return [op.operation for op in fn.regions[0].blocks[0].operations if is_linalg(op.operation)]


def roots(fn) -> list:
    """Linalg ops of ``fn``'s body whose results no other linalg op of the body reads."""
    ops = linalg_ops(fn)
    consumed = set()
    for op in ops:
        for operand in op.operands:
            owner = operand.owner
            if isinstance(owner, ir.OpView) or isinstance(owner, ir.Operation):
                consumed.add(owner.operation if isinstance(owner, ir.OpView) else owner)
    return [op for op in ops if op not in consumed]


def producers(op) -> list:
    """Transitive linalg producers of ``op`` through tensor values."""
    seen, stack, out = set(), [op], []
    while stack:
        current = stack.pop()
        for operand in current.operands:
            owner = operand.owner
            if not isinstance(owner, (ir.OpView, ir.Operation)):
                continue
            owner = owner.operation
            if owner in seen or not is_linalg(owner):
                continue
            seen.add(owner)
            out.append(owner)
            stack.append(owner)
    return out


def tile_rows(op, tile_bytes: int) -> int:
    """Loop iterations per tile so that one tile's operands fit ``tile_bytes``.

    A cache model, not an exact count: each operand contributes one slice along its
    first dimension (``?`` sizes counted as 1024) per iteration of the tiled loop.
    """
    per_slice = 0
    for value in op.operands:
        t = value.type
        if not isinstance(t, ir.ShapedType) or t.rank == 0:
            continue
        inner = 1
        for i in range(1, t.rank):
            inner *= 1024 if t.is_dynamic_dim(i) else max(t.get_dim_size(i), 1)
        per_slice += inner * max(getattr(t.element_type, "width", 32) // 8, 1)
    return max(1, tile_bytes // max(per_slice, 1))


def tile_and_fuse(op, tile_bytes: int) -> bool:
    """Tile ``op`` along its first parallel loop into an scf.forall, fusing producers in."""
    kinds = iterator_types(op)
    if "parallel" not in kinds:
        return False
    sizes = [0] * len(kinds)
    sizes[kinds.index("parallel")] = tile_rows(op, tile_bytes)
    op.attributes[ROOT_MARK] = ir.UnitAttr.get()
    script = ir.Module.parse(_FUSE_SCRIPT.replace("MARK", ROOT_MARK).replace("SIZES", ", ".join(map(str, sizes))))
    module = op
    while module.name != "builtin.module":
        module = module.parent
    try:
        transform_interpreter.apply_named_sequence(module, script.body.operations[0], script.operation)
    except ir.MLIRError as e:
        raise PassFailure(f"tiling failed: {e}", op) from None
    _clear_marks(module)
    # Fusing a producer once per consumer inside the tile duplicates it; CSE merges
    # the copies (same op on the same slice) and canonicalize drops the untiled originals.
    run_upstream(module, "canonicalize,cse")
    return True


def _clear_marks(module) -> None:
    def visit(op):
        if ROOT_MARK in op.attributes:
            del op.attributes[ROOT_MARK]
        return ir.WalkResult.ADVANCE

    module.walk(visit)


@register
@dataclass
class EmberTile(EmberPass):
    """Tile every remaining root along its outermost parallel dimension (see module doc)."""

    name = "ember-tile"
    summary = "tile roots' outermost parallel loop into scf.forall, fusing producers, tiles sized for cache"
    tile_bytes: int = 256 * 1024

    def run(self, module):
        for fn in functions(module):
            for root in roots(fn):
                tile_and_fuse(root, self.tile_bytes)
