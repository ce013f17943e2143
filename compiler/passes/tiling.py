"""Tile-and-fuse along the outermost parallel dimension (``ember-tile``).

Each *root* — a linalg op whose result no other linalg op of its function consumes —
is tiled along its first parallel loop into an ``scf.forall``
(``transform.structured.tile_using_forall``), and the producers of its *fusion
group* are fused into the loop body (``fuse_into_containing_op``; ``fusion_group``
says which). That gives:

* one loop nest per root, whose iterations are independent: the runtime splits the
  ``scf.forall`` range across threads (and a GPU backend maps it to a grid);
  independent roots over the same tiles then share one loop (``sibling_loops.py``);
* a producer its readers' loops leave out (computed once, before them) is tiled in a
  later round, as a root of its own once its readers are in loops: a time-stepped
  stencil's earlier steps ran as single-threaded untiled loop nests, and the corpus's
  ``wave_2d`` (600x600, 20 steps) took 28 ms where it now takes 20;
* the loop tiled is the first parallel one, unless one iteration of it overflows the
  tile budget and one of a later parallel loop fits (``tile_loop``): ``(X - mu).T`` of
  a (100000, 16) ``X`` is 16 rows of 100000, tiled by columns so that each tile reads
  rows of ``X``, not a column of every row;
* tiles sized for cache: the tile size is the number of outer-dimension slices whose
  operands fit in ``tile_bytes`` (default 256 KiB, about half an L2), so the
  temporaries a fused kernel keeps per tile stay cached; roots with results of one
  shape get one size (the smallest), so their loops can merge.

The transforms are upstream MLIR's (the transform dialect, applied from Python);
the choice of roots and tile sizes is ours.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from compiler.mlir import functions, ir, operation_of
from compiler.passes import op_costs
from compiler.passes.base import EmberPass, PassFailure, run_upstream
from compiler.passes.linalg_utils import (
    has_reduction,
    is_elementwise,
    is_library_call,
    is_linalg,
    iterator_types,
    linalg_ops,
    producers,
    roots,
)
from compiler.passes.scf_loops import loop_bodies
from compiler.passes.sibling_loops import fuse_sibling_loops
from compiler.passes.transform_scripts import apply, clear_marks, module_of, script

ROOT_MARK = "ember.tile_root"
TRIED_MARK = "ember.tile_tried"  # a root of an earlier round (tiled, or left whole)
PENDING_MARK = "ember.tile_pending"  # a root of this round not tiled yet
ROWS_MARK = "ember.tile_rows"  # its tile size, shared with its siblings
LOOP_MARK = "ember.tile_loop"
PRODUCER_MARK = "ember.fuse_producer"
LIGHT_ROOT = 4  # fused producers this many times a root's bytes size its tiles (_light_root_rows)
# A root in a loop's body is tiled when its results fill this many tiles: its loop is then
# handed to the worker pool every iteration. A smaller one stays whole, and fused with
# its neighbours into one loop nest (ember-fuse-loop-nests), as before loop bodies were
# tiled: on the corpus's cavity_flow (201x201 grids, 2 tiles each) the tiled body ran
# 1.6x slower; a 5-point stencil's step on 362x362 (4 tiles) 1.5x faster.
LOOP_BODY_MIN_TILES = 4

_TILE = """
    %op = transform.structured.match attributes{ROOT} in %root : (!transform.any_op) -> !transform.any_op
    %tiled, %loop = transform.structured.tile_using_forall %op tile_sizes [SIZES]
        : (!transform.any_op) -> (!transform.any_op, !transform.any_op)
    transform.annotate %loop "LOOP" : !transform.any_op
"""
_FUSE = """
    %loop = transform.structured.match attributes{LOOP} in %root : (!transform.any_op) -> !transform.any_op
    %producer = transform.structured.match attributes{PRODUCER} in %root : (!transform.any_op) -> !transform.any_op
    %fused, %new_loop = transform.structured.fuse_into_containing_op %producer into %loop
        : (!transform.any_op, !transform.any_op) -> (!transform.any_op, !transform.any_op)
"""


def result_bytes(op) -> int:
    """Bytes of ``op``'s results (0 where a size is only known at run time)."""
    total = 0
    for value in op.results:
        t = value.type
        if not isinstance(t, ir.ShapedType) or not t.has_static_shape:
            return 0
        total += math.prod(t.shape) * _element_bytes(t)
    return total


def _element_bytes(t: ir.ShapedType) -> int:
    return max(getattr(t.element_type, "width", 32) // 8, 1)


def slice_bytes(op, loop: int | None) -> int:
    """Bytes of one iteration of ``op``'s loop ``loop``: each operand's elements at one
    value of it (``?`` sizes counted as 1024). An operand the loop does not index (a
    broadcast row: read once, not per iteration) and a named op's operand count as if
    the loop walked their dim 0. ``loop`` None: as if it walked every operand's dim 0,
    the model of the first parallel loop; for a column reduction (its only parallel loop
    walks dim 1) that keeps the reduction one vectorized pass over the rows instead of
    a tile per column."""
    per_slice = 0
    for number, value in enumerate(op.operands):
        t = value.type
        if not isinstance(t, ir.ShapedType) or t.rank == 0:
            continue
        walked = {0} if loop is None else _walked_dims(op, number, loop) or {0}
        inner = 1
        for i in range(t.rank):
            if i not in walked:
                inner *= 1024 if t.is_dynamic_dim(i) else max(t.get_dim_size(i), 1)
        per_slice += inner * _element_bytes(t)
    return per_slice


def _walked_dims(op, number: int, loop: int) -> set:
    """The dims of operand ``number`` that ``op``'s loop ``loop`` walks (from its indexing
    map; a ``linalg.transpose``'s from its permutation; empty for other named ops)."""
    if "indexing_maps" in op.attributes:
        results = ir.AffineMapAttr(ir.ArrayAttr(op.attributes["indexing_maps"])[number]).value.results
        return {i for i, e in enumerate(results) if isinstance(e, ir.AffineDimExpr) and e.position == loop}
    if op.name == "linalg.transpose":
        permutation = list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))
        return {permutation[loop]} if number == 0 else {loop}  # output dim i is input dim perm[i]
    return set()


def tile_loop(op, tile_bytes: int) -> int:
    """The parallel loop to tile: the first, unless one iteration of it overflows
    ``tile_bytes`` and one of a later parallel loop fits. ``(X - mu).T`` of a (100000,
    16) ``X`` is 16 rows of 100000: tiled by row, each tile read a column of ``X``, and
    the 16 tiles read all of ``X`` 16 times, one element per cache line; tiled by
    column, each tile reads rows of ``X``. A (4, 10**6) array gets more tiles than 4."""
    kinds = iterator_types(op)
    parallel = [i for i, kind in enumerate(kinds) if kind == "parallel"]
    if slice_bytes(op, parallel[0]) <= tile_bytes or not _walked_dims(op, 0, parallel[0]):
        return parallel[0]
    return next((d for d in parallel[1:] if slice_bytes(op, d) <= tile_bytes), parallel[0])


def tile_rows(op, tile_bytes: int, loop: int | None = None) -> int:
    """Iterations of ``loop`` (the tiled one by default) per tile so that one tile's
    operands fit ``tile_bytes``: a cache model, not an exact count."""
    loop = tile_loop(op, tile_bytes) if loop is None else loop
    first = iterator_types(op).index("parallel")
    return max(1, tile_bytes // max(slice_bytes(op, None if loop == first else loop), 1))


def _users(op) -> set:
    """Ops reading ``op``'s results, ignoring ``tensor.dim`` (sizes are not data)."""
    out = set()
    for result in op.results:
        for use in result.uses:
            if use.owner.name != "tensor.dim":
                out.add(operation_of(use.owner))
    return out


def _upstream(root) -> set:
    """Every op of ``root``'s function body whose results ``root`` reads, directly or
    through other ops (linalg or not): all of them run before ``root``'s tile loop."""
    seen, stack = set(), [root]
    while stack:
        for operand in stack.pop().operands:
            owner = operation_of(operand.owner)
            if owner is not None and owner.parent == root.parent and owner not in seen:
                seen.add(owner)
                stack.append(owner)
    return seen


def fusion_group(root, loop: int, recompute: bool = True) -> list:
    """Producers to compute inside ``root``'s tiles, consumers first.

    A producer joins when the group reads it and either it is elementwise (cheap to
    recompute per tile, even if other linalg ops read it too; not when ``recompute``
    is false) or only the group reads it. ``loop`` is the root's tiled loop. A reduction or matmul that something outside also
    reads is computed once, before the loop, instead of once per consumer; so is an elementwise op
    that something outside the group needs before the loop (a reader ``root``
    itself depends on): it is computed in full there anyway, and a copy in the loop
    would repeat it and its whole producer chain. A multi-step stencil is such a
    chain (step ``k`` reads step ``k - 1`` directly, and through the
    ``tensor.insert_slice`` of it into its grid): fused, the last step's tile loop
    recomputed every earlier step, also computed before the loop, and ``n`` steps
    cost about ``2n`` passes over the grid. A reader after the loop (a
    ``func.return``) is no obstacle: fusion then yields the tile loop's copy.
    Nor is a costly producer (``op_costs``) recomputed: not one that every tile reads
    whole (an FFT stage's twiddle factors ``np.exp(-1j * np.pi * np.arange(h) / h)``,
    read broadcast over its rows: ``cexp`` ran once per factor per tile), nor one
    another op outside the group reads too (it is computed once for that one anyway).
    """
    block = root.parent.regions[0].blocks[0] if root.parent.name == "func.func" else None
    position = {op.operation: i for i, op in enumerate(block.operations)} if block else {}
    group, order = {root}, []
    loops = {root: loop}
    before_loop = _upstream(root)
    for p in sorted(producers(root), key=lambda op: -position.get(op, 0)):
        if is_library_call(p):
            continue
        users = _users(p)
        shared = recompute and is_elementwise(p) and not (users - group) & before_loop
        if not (users & group and (users <= group or shared)):
            continue
        loop = _tiled_loop(p, loops)
        if loop is None and has_reduction(p):
            continue
        if op_costs.body_has(p, op_costs.costly) and (loop is None or _computed_elsewhere(users - group)):
            continue  # once, before the loop: each tile would evaluate all of it, or a copy
        group.add(p)
        order.append(p)
        loops[p] = loop
    return order


def _computed_elsewhere(readers: set) -> bool:
    """Whether a producer fused into a tile loop would also be computed in full for these
    readers outside it: any but the function's return (fusion yields the loop's copy)."""
    return any(r.name not in ("func.return", "scf.yield") for r in readers)


def _indexing_map(op, operand_number: int):
    """The affine map of ``op``'s operand (a ``linalg.generic``'s; None for other ops)."""
    if "indexing_maps" not in op.attributes:
        return None
    return ir.AffineMapAttr(ir.ArrayAttr(op.attributes["indexing_maps"])[operand_number]).value


def _tiled_loop(p, loops: dict) -> int | None:
    """The loop of producer ``p`` that its group readers' tile loop walks (``loops``: the
    readers' own), or None when a tile reads all of ``p``.

    Why: fusing a producer computes, in every tile, the slice of it that tile reads. A
    reduction read whole by each tile (a mean broadcast over a grid, the 0-d threshold
    of an iterative algorithm, a column sum read by row tiles) would be recomputed in
    full per tile, and every reduction behind it too: an iterative chain of ``k`` such
    steps cost exponential compile time and ``tiles**k`` work. Those run once, before
    the loop."""
    found = set()
    for number, result in enumerate(p.results):
        for use in result.uses:
            user = operation_of(use.owner)
            if user not in loops:
                continue
            m = _indexing_map(user, use.operand_number)
            if loops[user] is None or m is None:
                return None
            dims = [k for k, e in enumerate(m.results) if isinstance(e, ir.AffineDimExpr) and e.position == loops[user]]
            if len(dims) != 1:
                return None
            found.add((number, dims[0]))
    if len(found) != 1:
        return None
    ((number, dim),) = found
    if p.name == "linalg.fill":
        return dim
    m = _indexing_map(p, len(p.opview.inputs) + number) if "indexing_maps" in p.attributes else None
    if m is None or not m.is_projected_permutation:
        # a constant in the result's map (x.sum(0, keepdims=True) writes row 0): upstream
        # cannot tile it and fused a whole copy into every tile instead (x.var(0) of
        # (1000, 1000): the column sums 125 times over, 7.3 ms)
        return None
    e = m.results[dim]
    return e.position if isinstance(e, ir.AffineDimExpr) else None


def _has_empty_operand(op) -> bool:
    """Whether an operand or result of ``op`` has a static size 0."""
    for value in [*op.operands, *op.results]:
        t = value.type
        if isinstance(t, ir.ShapedType) and any(
            not t.is_dynamic_dim(i) and t.get_dim_size(i) == 0 for i in range(t.rank)
        ):
            return True
    return False


def static_extent(op, loop: int) -> int | None:
    """The static trip count of ``op``'s loop ``loop``, when an operand shows it."""
    if "indexing_maps" not in op.attributes:  # named ops: their first loop is the output's dim 0
        t = op.results[0].type if len(op.results) else op.operands[-1].type
        return None if loop != 0 or t.rank == 0 or t.is_dynamic_dim(0) else t.get_dim_size(0)
    for operand, m in zip(op.operands, ir.ArrayAttr(op.attributes["indexing_maps"])):
        t = operand.type
        for position, expr in enumerate(ir.AffineMapAttr(m).value.results):
            if (
                isinstance(t, ir.ShapedType)
                and isinstance(expr, ir.AffineDimExpr)
                and expr.position == loop
                and not t.is_dynamic_dim(position)
            ):
                return t.get_dim_size(position)
    return None


def tile_and_fuse(op, tile_bytes: int, rows: int | None = None, recompute: bool = True) -> bool:
    """Tile ``op`` along the loop ``tile_loop`` picks into an scf.forall (``rows``
    slices per tile, else as many as ``tile_bytes`` holds); fuse its group in
    (``recompute``: see ``fusion_group``).

    An op that fits in one tile is left alone: a single-iteration loop is folded
    away by canonicalization, and that folding (upstream ``scf.forall``) swaps the
    results of loops whose shared outputs start from the same tensor.
    """
    kinds = iterator_types(op)
    if "parallel" not in kinds:
        return False
    loop = tile_loop(op, tile_bytes)
    group = fusion_group(op, loop, recompute)
    sizes = [0] * len(kinds)
    sizes[loop] = rows or tile_rows(op, tile_bytes, loop)
    if (light := _light_root_rows(op, loop, group, tile_bytes)) is not None:
        sizes[loop] = min(sizes[loop], light)
    extent = static_extent(op, loop)
    if extent is not None and extent <= sizes[loop]:
        return False
    if any(_has_empty_operand(o) for o in [op, *group]):
        return False  # no work, and upstream tiling crashed (segfault) on a loop of 0 iterations
    module = module_of(op)
    op.attributes[ROOT_MARK] = ir.UnitAttr.get()
    try:
        apply(module, script(_TILE, ROOT=ROOT_MARK, LOOP=LOOP_MARK, SIZES=", ".join(map(str, sizes))))
    except ValueError as e:
        raise PassFailure(f"tiling failed: {e}", op) from None
    finally:
        clear_marks(module, ROOT_MARK, PRODUCER_MARK)
    for producer in group:
        _fuse_into_loop(module, producer)
    clear_marks(module, LOOP_MARK)
    # Canonicalize drops the untiled originals that fusion left without users.
    run_upstream(module, "canonicalize,cse")
    return True


def _light_root_rows(op, loop: int, group: list, tile_bytes: int) -> int | None:
    """Rows per tile for a root much lighter than the producers fused into it: a row
    reduction's result under an elementwise op (``np.sqrt((x * x).sum(1))``, a
    variance's division by ``n``). Sized by the root alone, one iteration is a few
    bytes, the whole (4096, 1024) reduction fit one tile and ran on one thread (0.57 ms
    on one thread or two; tiled by the producers' bytes, 0.31 on two). A root carrying
    a fair share of the work (layer norm's output) keeps its own size (None)."""
    own = slice_bytes(op, loop)
    fused = sum(slice_bytes(p, None) for p in group if p.name != "linalg.fill")
    if fused <= LIGHT_ROOT * own:
        return None
    return max(1, tile_bytes // (own + fused))


def _fuse_into_loop(module, producer) -> None:
    producer.attributes[PRODUCER_MARK] = ir.UnitAttr.get()
    try:
        apply(module, script(_FUSE, LOOP=LOOP_MARK, PRODUCER=PRODUCER_MARK))
    except ValueError:
        pass  # not reachable from the loop through slices: it stays outside, computed once
    finally:
        clear_marks(module, PRODUCER_MARK)


def shared_tile_rows(ops, tile_bytes: int) -> dict:
    """One tile size for the roots whose results have the same shape (the smallest
    any of them wants): equal tile counts let their loops fuse (sibling_loops.py)."""
    groups: dict[tuple, list] = {}
    for op in ops:
        kinds = iterator_types(op)
        if "parallel" in kinds and len(op.results) == 1 and isinstance(op.results[0].type, ir.ShapedType):
            groups.setdefault((tuple(op.results[0].type.shape), tile_loop(op, tile_bytes)), []).append(op)
    rows = {}
    for (_, loop), members in groups.items():
        smallest = min(tile_rows(op, tile_bytes, loop) for op in members)
        rows.update({op: smallest for op in members})
    return rows


def _stranded(body) -> list:
    """Ops read only by linalg ops that are never tiled, having no parallel loop of more
    than one iteration (a full reduction to one value, kept as a 1-element array or
    not): no loop takes them in; they are roots themselves. A product for a library is
    none (as in ``roots``): ``v @ A``'s columns in tiles of 21 had each tile read all of
    A's rows, 2x its whole call's time (``(v @ A) @ v``, A 1500x1500)."""

    def untiled(reader) -> bool:
        if reader is None or not is_linalg(reader):
            return False
        kinds = iterator_types(reader)
        return all(static_extent(reader, i) == 1 for i, kind in enumerate(kinds) if kind == "parallel")

    stranded = []
    for op in linalg_ops(body):
        readers = [operation_of(use.owner) for result in op.results for use in result.uses]
        if readers and all(untiled(r) for r in readers) and not is_library_call(op):
            stranded.append(op)
    return stranded


def _next_root(fn):
    """The first root of this round still to tile (top level: a copy fused into a loop
    is not one)."""
    return next((op for op in linalg_ops(fn) if PENDING_MARK in op.attributes), None)


@dataclass
class EmberTile(EmberPass):
    """Tile every remaining root along its outermost parallel dimension (see module doc)."""

    name = "ember-tile"
    summary = "tile roots' outermost parallel loop into scf.forall, fusing producers, tiles sized for cache, sibling loops merged"
    tile_bytes: int = 256 * 1024

    def run(self, module):
        for fn in functions(module):
            for body in loop_bodies(fn):
                self._tile_roots(body, 0 if body == fn else LOOP_BODY_MIN_TILES * self.tile_bytes)

    def _tile_roots(self, body, smallest: int) -> None:
        """Tile the roots of ``body`` (a function, or an ``scf.for`` a loop traced as a
        loop became: its roots are the ops its iteration yields), round after round;
        those whose results are under ``smallest`` bytes stay whole."""
        first = True
        while found := [
            op
            for op in roots(body) + _stranded(body)
            if TRIED_MARK not in op.attributes and (first or not has_reduction(op))
        ]:
            small = [op for op in found if result_bytes(op) < smallest]
            for op in small:
                op.attributes[TRIED_MARK] = ir.UnitAttr.get()
            found = [op for op in found if op not in small]
            # A producer left out of its readers' loops (computed once, before them)
            # is a root of the next round, as its readers are in loops now. It takes
            # in only the producers nothing else reads: recomputing shared ones
            # would recompute a stencil's earlier steps. Reductions stay whole: a
            # column mean tiled by column read its matrix with a column's stride,
            # not as one vectorized pass over the rows.
            rows = shared_tile_rows(found, self.tile_bytes)
            sizes = [rows.get(op) for op in found]  # before marking: an op's hash covers its attributes
            for op, size in zip(found, sizes):
                op.attributes[TRIED_MARK] = ir.UnitAttr.get()
                op.attributes[PENDING_MARK] = ir.UnitAttr.get()
                if size is not None:
                    op.attributes[ROWS_MARK] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), size)
            # One at a time, each found again in the IR: tiling a root erases the
            # roots fused into its loop, and a handle to an erased op is not safe
            # to touch (the frontend tests crashed on one).
            while (root := _next_root(body)) is not None:
                size = ir.IntegerAttr(root.attributes[ROWS_MARK]).value if ROWS_MARK in root.attributes else None
                del root.attributes[PENDING_MARK]
                tile_and_fuse(root, self.tile_bytes, size, recompute=first)
            first = False
        clear_marks(body, TRIED_MARK, PENDING_MARK, ROWS_MARK)  # fused copies carry them too
        fuse_sibling_loops(body)
