"""Lowerings of the gather/scatter family (NumPy's advanced indexing).

``ember.gather(x, indices) {axes, at}`` reads, for each position ``r`` of its result,
``x`` at the coordinates ``indices[b, :]`` along ``axes`` (``b``: the result's dims
``at .. at + batch rank``) and the result's other dims along the rest of ``x``. It
becomes one ``linalg.generic`` over the result: the index tensor is an input read
once per indexed axis (a map whose last coordinate is that axis' constant column),
and the body reads ``x`` with ``tensor.extract``, so the gather fuses with its
elementwise consumers and producers like any parallel loop.

``ember.scatter(dest, indices, updates) {axes, at}`` writes ``updates[r]`` into
``dest`` at the position ``gather`` would read ``r`` from, in row-major order of
``updates``, so that of two writes to one position the last wins (NumPy's
``x[idx] = v``). That order is sequential by nature: a nest of ``scf.for`` loops
carrying the tensor, one ``tensor.insert`` per element. One-shot bufferization
(``ember-bufferize``) turns the loop-carried tensor into one buffer written in
place: a copy of ``dest`` when ``dest`` is read-only or read later, ``dest``'s
own buffer otherwise (an in-out argument, ``ember.inout``). ``ember.scatter_add`` is
the same loops adding each update to what its position holds (``np.bincount``).

Index semantics (both ops): an index in ``[-size, size)`` counts from the end when
negative, as in NumPy; any other index is clamped into ``[0, size - 1]``, so no
kernel ever reads or writes outside its arrays. The frontend checks the range with
a run-time status output (``numpy_indexing``) and never uses a clamped result:
the call is then re-run in CPython, which raises NumPy's ``IndexError``.
"""

from __future__ import annotations

from compiler.dialects import ember
from compiler.dialects.types import DYN, INTEGERS, TensorType
from compiler.mlir import arith, index_constant, ir, linalg, operation_of, scf, tensor
from compiler.passes.linalg_utils import generic
from compiler.passes.scf_loops import for_loop

# ember_to_linalg imports this module to merge ``LOWERINGS``: its helpers are looked up
# when a lowering runs, so that either module may be imported first.


def _as_index(size):
    return _base()._as_index(size)


def _dim(value, axis):
    return _base()._dim(value, axis)


def _empty(t, sizes):
    return _base()._empty(t, sizes)


def _map(rank, exprs):
    return _base()._map(rank, exprs)


def _type(value):
    return _base()._type(value)


def _base():
    from compiler.passes import ember_to_linalg

    return ember_to_linalg


__all__ = ["LOWERINGS"]


def _layout(result_rank: int, x_rank: int, attrs, batch: int):
    """For each dim of ``x``: ('index', j) for the j-th indexed axis, else ('dim', d)
    with ``d`` the result dim it comes from; and the result dims of the batch."""
    axes, at = list(attrs["axes"]), attrs["at"]
    batch_dims = list(range(at, at + batch))
    rest_dims = [d for d in range(result_rank) if d not in batch_dims]
    coords, it = [], iter(rest_dims)
    for a in range(x_rank):
        coords.append(("index", axes.index(a)) if a in axes else ("dim", next(it)))
    return coords, batch_dims


def _in_range(i: ir.Value, size) -> ir.Value:
    """An i64 index as an ``index`` in ``[0, size)``: negatives count from the end
    (NumPy's), anything still outside is clamped (never read or written)."""
    i = arith.index_cast(ir.IndexType.get(), i)
    size = _as_index(size)
    zero = index_constant(0)
    negative = arith.cmpi(arith.CmpIPredicate.slt, i, zero)
    i = arith.select(negative, arith.addi(i, size), i)
    last = arith.maxsi(arith.subi(size, index_constant(1)), zero)
    return arith.minsi(arith.maxsi(i, zero), last)


def _result_sizes(result: TensorType, x, indices, coords, batch_dims) -> list:
    sizes = [None] * result.rank
    for a, (kind, d) in enumerate(coords):
        if kind == "dim":
            sizes[d] = _dim(x, a)
    for k, d in enumerate(batch_dims):
        sizes[d] = _dim(indices, k)
    return sizes


def _one_position(indices, coords, sizes: list) -> tuple | None:
    """For ``indices`` of one coordinate per indexed axis (no batch dims: ``x[:, :, k]``
    with ``k`` a traced number): the region it names, ``(offsets, region sizes)`` with
    the clamped coordinate and 1 along each indexed axis, 0 and the whole dim along the
    others. None when an indexed axis is statically empty (no offset into it verifies)."""
    offsets, region = [], []
    for a, (kind, d) in enumerate(coords):
        if kind == "dim":
            offsets.append(0)
            region.append(sizes[a])
        elif sizes[a] == 0:
            return None
        else:
            offsets.append(_in_range(tensor.extract(indices, [index_constant(d)]), sizes[a]))
            region.append(1)
    return offsets, region


def _lower_gather(op, result: TensorType, attrs):
    """One coordinate per indexed axis: a slice (a view once bufferized, which the
    loops around it read in place and fuse with); several (a batch): a generic."""
    x, indices = ember.tensor_operands(op)
    xt, it = _type(x), _type(indices)
    batch = it.rank - 1
    coords, batch_dims = _layout(result.rank, xt.rank, attrs, batch)
    region = _one_position(indices, coords, [_dim(x, a) for a in range(xt.rank)]) if batch == 0 else None
    if region is not None:
        return _base()._extract_slice(x, result, *region, [1] * xt.rank)
    init = _empty(result, _result_sizes(result, x, indices, coords, batch_dims))
    k = len(attrs["axes"])
    rank = result.rank
    index_maps = [
        _map(rank, [ir.AffineDimExpr.get(d) for d in batch_dims] + [ir.AffineConstantExpr.get(j)]) for j in range(k)
    ]
    out_map = _map(rank, [ir.AffineDimExpr.get(d) for d in range(rank)])
    x_sizes = [_dim(x, a) for a in range(xt.rank)]

    def body(*args):
        picked = args[:k]
        where = []
        for a, (kind, d) in enumerate(coords):
            if kind == "index":
                where.append(_in_range(picked[d], x_sizes[a]))
            else:
                where.append(_linalg_index(d))
        return tensor.extract(x, where)

    return generic([indices] * k, init, index_maps + [out_map], ["parallel"] * rank, body)


def _linalg_index(d: int) -> ir.Value:
    return linalg.IndexOp(d).result


def _a_slice(value) -> bool:
    """``value`` is a slice of another tensor (``A[:, 1:-1]``). Inserting into it in place
    is what one-shot bufferization then refuses when the rows the loop reads are views
    of it too (a Gauss-Seidel row update): it copied the whole slice for every row (the
    corpus's seidel_2d, 0.07 -> 7 ms). The element loops write it in place."""
    owner = operation_of(value.owner)
    return owner is not None and owner.name == "tensor.extract_slice"


def _lower_scatter(op, result: TensorType, attrs, add: bool = False):
    """One coordinate per indexed axis: ``tensor.insert_slice`` of the updates (every
    position written once, so the order does not matter); a batch: loops in NumPy's
    order, the last write to a position winning (``add``: each update added to what the
    position holds, in that order)."""
    dest, indices, updates = ember.tensor_operands(op)
    dt, it, ut = _type(dest), _type(indices), _type(updates)
    batch = it.rank - 1
    coords, batch_dims = _layout(ut.rank, dt.rank, attrs, batch)
    if 0 in ut.shape:  # nothing to write
        return dest
    dest_sizes = [_dim(dest, a) for a in range(dt.rank)]
    if batch == 0 and not add and not _a_slice(dest):
        sizes = [_dim(updates, d) if kind == "dim" else dest_sizes[a] for a, (kind, d) in enumerate(coords)]
        region = _one_position(indices, coords, sizes)
        if region is not None:
            return _base()._insert_slice(updates, dest, *region)
    splat = _broadcast_scalar(updates)
    if add and _interleavable(dt, it, ut):
        return _interleaved_sums(dest, indices, updates, splat)
    bounds = [_as_index(_dim(updates, d)) for d in range(ut.rank)]
    zero, one = index_constant(0), index_constant(1)

    def write(acc, ivs):
        b = [ivs[d] for d in batch_dims]
        where = []
        for a, (kind, d) in enumerate(coords):
            if kind == "index":
                i = tensor.extract(indices, b + [index_constant(d)])
                where.append(_in_range(i, dest_sizes[a]))
            else:
                where.append(ivs[d])
        value = _update_at(updates, splat, list(ivs))
        if add:
            value = _base().binary_rule("add", dt.dtype)(tensor.extract(acc, where), value)
        return tensor.insert(value, acc, where)

    def nest(depth, acc, ivs):
        if depth == ut.rank:
            return write(acc, ivs)
        (acc,) = for_loop(zero, bounds[depth], one, [acc], lambda iv, acc: [nest(depth + 1, acc, ivs + [iv])])
        return acc

    return nest(0, dest, [])


def _broadcast_scalar(value):
    """The 0-d tensor ``value`` broadcasts (``np.bincount``'s ones, ``x[idx] = 5``), else
    None: the loops read it instead, so the broadcast is never written to memory (a
    million counts had filled and read back 8 MB of ones)."""
    owner = operation_of(value.owner)
    if owner is None or owner.name != "linalg.generic" or len(owner.operands) != 2:
        return None
    source = owner.operands[0]
    if not isinstance(source.type, ir.RankedTensorType) or source.type.rank != 0:
        return None
    block = owner.regions[0].blocks[0]
    yielded = list(block.operations)[-1].operands
    return source if len(yielded) == 1 and yielded[0] == block.arguments[0] else None


def _update_at(updates, splat, position: list):
    """The update at ``position``: the broadcast scalar itself where there is one."""
    return tensor.extract(splat, []) if splat is not None else tensor.extract(updates, position)


# Integer sums into a short vector (np.bincount's counts) go to INTERLEAVED copies of it in
# turn, then the copies are added: consecutive elements no longer wait on each other's
# read-add-write of one slot. Integer adds wrap the same in any order, so the result is
# NumPy's. 1M int64 values into 100 counts: 4 copies 27 % faster than one (a Numba loop
# measured both ways); at most INTERLEAVED_MAX_BYTES of copies, which stay in the L1 cache.
INTERLEAVED = 4
INTERLEAVED_MAX_BYTES = 32 << 10
PARALLEL_COUNTS_MIN = 1 << 17  # elements; fewer are added on one thread
COUNT_PARTS = 4  # parts the pool's threads take (as lower_sort's MAX_PARTS)


def _interleavable(dt: TensorType, it: TensorType, ut: TensorType) -> bool:
    """A 1-d integer destination of a fixed, short length, and one index per update."""
    if dt.rank != 1 or ut.rank != 1 or it.rank != 2 or dt.dtype not in INTEGERS:
        return False
    length = dt.shape[0]
    return length is not DYN and 0 < length * 8 * INTERLEAVED <= INTERLEAVED_MAX_BYTES


def _interleaved_sums(dest, indices, updates, splat):
    """``dest`` plus the updates added at their indices, element ``i`` into copy
    ``i % INTERLEAVED`` of a zeroed ``INTERLEAVED x len(dest)`` tensor (the elements past
    the last whole group into copy 0), the copies summed into ``dest`` at the end. From
    ``PARALLEL_COUNTS_MIN`` elements (a static count) the elements are cut into
    ``COUNT_PARTS`` parts, each added into copies of its own on the kernel's threads."""
    from compiler.passes.lower_sort import fresh, insert_in_parallel

    dt = _type(dest)
    (length,) = dt.shape
    element = ir.RankedTensorType(dest.type).element_type
    n = _as_index(_dim(updates, 0))
    size = index_constant(length)

    def add(acc, row, i):
        at = [index_constant(row), _in_range(tensor.extract(indices, [i, index_constant(0)]), size)]
        value = _update_at(updates, splat, [i])
        return tensor.insert(arith.addi(tensor.extract(acc, at), value), acc, at)

    def counted(lo, hi, copies):  # [lo, hi) into the copies: whole groups, then the rest
        group = index_constant(INTERLEAVED)
        whole = arith.subi(hi, arith.remui(arith.subi(hi, lo), group))

        def groups(iv, acc):
            for row in range(INTERLEAVED):
                acc = add(acc, row, arith.addi(iv, index_constant(row)))
            return [acc]

        (copies,) = for_loop(lo, whole, group, [copies], groups)
        return for_loop(whole, hi, index_constant(1), [copies], lambda iv, acc: [add(acc, 0, iv)])[0]

    def zeros(shape):
        return linalg.fill(arith.constant(element, 0), outs=[fresh(TensorType(tuple(shape), dt.dtype), [])])

    count = _type(updates).shape[0]
    if count is DYN or count < PARALLEL_COUNTS_MIN:
        copies = counted(index_constant(0), n, zeros([INTERLEAVED, length]))
        maps = [_map(2, [ir.AffineDimExpr.get(0), ir.AffineDimExpr.get(1)]), _map(2, [ir.AffineDimExpr.get(1)])]
        return generic([copies], dest, maps, ["reduction", "parallel"], lambda c, d: arith.addi(d, c))
    chunk = -(-count // COUNT_PARTS)
    loop = scf.ForallOp([0], [COUNT_PARTS], [1], [tensor.empty([COUNT_PARTS, INTERLEAVED, length], element)])
    with ir.InsertionPoint(loop.body):
        (p,) = loop.induction_variables
        lo = arith.muli(p, index_constant(chunk))
        hi = arith.minsi(arith.addi(lo, index_constant(chunk)), n)
        part = counted(lo, hi, zeros([INTERLEAVED, length]))
        insert_in_parallel(loop, [part], [p, 0, 0], [1, INTERLEAVED, length])
    dims = [ir.AffineDimExpr.get(d) for d in range(3)]
    maps = [_map(3, dims), _map(3, [dims[2]])]
    return generic(
        list(loop.results), dest, maps, ["reduction", "reduction", "parallel"], lambda c, d: arith.addi(d, c)
    )


def _lower_scatter_add(op, result: TensorType, attrs):
    return _lower_scatter(op, result, attrs, add=True)


LOWERINGS: dict = {"gather": _lower_gather, "scatter": _lower_scatter, "scatter_add": _lower_scatter_add}
