"""Lowerings of ``ember.sort`` and ``ember.argsort`` (a stable bottom-up merge sort per
line) and of ``ember.partition`` (a selection per line and position).

Both ops sort every 1-d line of their operand along ``axis`` (ascending, NumPy's order:
NaN after everything else, ``-0.0`` and ``0.0`` equal, bools ``False < True``), stably;
``sort`` gives the values, ``argsort`` the i64 positions the values came from. The
lowering is tensor-level ``scf`` code that one-shot bufferization turns into in-place
loops over buffers:

* each op sorts into buffers of its own (a key tensor, for ``argsort`` an i64 index
  tensor, and two scratch lines), filled line by line from the operand (and the
  positions) inside the loops: no linalg init that CSE could share between two sorts,
  which eliminate-empty-tensors would then place in one output buffer. The result is a
  ``tensor.empty``; the others are ``bufferization.alloc_tensor`` (``_fresh``), which
  CSE cannot merge with a tensor of the same type and size;
* an ``scf.forall`` walks the first other dim, each iteration sorting its slab of the
  key (and index) tensor with two scratch lines of the axis' length of its own, and
  nested ``scf.for`` loops walk the lines of the slab (every index of the remaining
  dims), carrying the slab and the scratch lines;
* per line, the elements are loaded in groups of 8, each group sorted in registers
  (odd-even transposition: compare-exchanges of neighbours, stable) and stored in the
  key line; then passes of widths 8, 16, 32, ... merge adjacent sorted runs: the even
  passes from the line into the scratch line, the odd ones back, two per iteration of
  an ``scf.for`` over at most 30 double passes (each guarded by ``width < n`` in an
  ``scf.if``), so the sorted line always ends where it started. A merge takes the
  right element only when it is strictly less than the left one (stable), and runs
  from both ends of each pair of runs at once (two independent chains of compares),
  with no bounds checks but in the last pair of a pass (shorter than the others);
* ``n`` is read from the operand (static or ``tensor.dim``), so symbolic sizes need
  nothing else: ``O(n log n)`` compares per line and ``n`` extra elements of scratch.

The loops are not linalg ops, so fusion and tiling leave them alone; the forall is
shared by the kernel's threads like a tile loop (``ember-parallel-parts``, or
``ember-fork-loops`` beside other loops). A 1-d sort of 32768 elements or more is
sorted in up to ``MAX_PARTS`` parts, one per forall iteration, then the parts merged by
the passes of the whole line (``_sort_one_line``).

``np.sort(x, axis=1)`` of a (256, 2048) float64 array took 30 ms on one thread and 16 on
two; with the groups and the two-ended unchecked merges 5.8 ms on two (NumPy: 8.8).
Rows of (2000, 501) float32: 27 -> 8.8-9.2 ms (NumPy's AVX-512 sort: 1.3); (1000, 1000)
int64: 20.7 -> 7.7-8.0 ms (NumPy: 12.7); one line of 1M float64: 121 -> 50-54 ms on one
thread, 28 ms in parts on two (NumPy: 53); a stable ``argsort`` of each is faster than
NumPy's. Float lines are merged as integer keys of the float's width that order like
the floats: one integer compare a step where floats take two and an ``and``. An
``argsort``'s keys tie ``-0.0`` with ``0.0`` and every NaN with every other
(``sort_keys.argsort_key``); a ``sort``'s are one to one and written back as floats
(``sort_keys.value_key``), its zeros and NaNs, which the keys order by sign and bits, put back
in the line's order after the merges (``_ties_in_order``); both are made as each
element is loaded. 2 threads, float64 (1000, 1000) rows: sort 12.2 -> 7.8 ms
(NumPy 13.0), argsort 14.8 -> 9.7 (19.8); float32: 11.9 -> 7.6 (5.5), 28.1 -> 9.4 (18.0).

``partition`` (what ``np.median`` and ``np.percentile`` read: a few positions of each
sorted line) walks the lines the same way. Each line is loaded, then for each position
``k`` of ``kth`` (ascending): at either end of what is left, one scan for the least or
greatest element and a swap; elsewhere rounds of a branch-free three-way split around
the median of three elements (what sorts before the pivot to the front, then, if ``k``
is past it, the pivot's equals), until ``k`` is among the equals or alone; the next
position searches past ``k``. ``O(n)`` compares a position on average, against
``O(n log n)`` for the sort: the median of each row of a (256, 2048) float64 array went
from 15 ms to 3.3 (Hoare's selection) to 2.4 (NumPy: 6.1); of 1M float64 17.7 -> 9.9
ms (NumPy: 12.6).
"""

from __future__ import annotations

from compiler.dialects import ember
from compiler.dialects.types import DYN, FLOATS, INTEGERS, TensorType, is_unsigned, mlir_element_type
from compiler.mlir import arith, bufferization, index_constant, ir, scf, tensor
from compiler.passes import scalar_semantics as scalar
from compiler.passes.ember_to_linalg import (
    _as_index,
    _dim,
    _empty,
    _extract_slice,
    _filled,
    _result_sizes,
    _type,
    split_mixed,
)
from compiler.passes.scf_loops import for_loop, while_loop
from compiler.passes.sort_keys import KEY_TYPES, argsort_key, float_of_key, value_key

CmpF = arith.CmpFPredicate
CmpI = arith.CmpIPredicate

# Elements per group sorted in registers before the merges: (2000, 501) float32 rows
# 12.2 ms with 8, 14.3 with 4, 13.7 with 16 (its compare-exchanges grow as its square);
# one line of 1M float64 within 10 % for all three.
GROUP = 8
# Double passes per line: widths up to GROUP * 4**29 = 2**61 and past, more than any
# size (a width grows only while it is below the line's length).
MAX_DOUBLE_PASSES = 30
# A 1-d sort's parts (_sort_one_line): at most this many, of at least this many elements
MAX_PARTS = 4
PART_MIN = 16384


def _before(b: ir.Value, a: ir.Value, dtype: str) -> ir.Value:
    """Whether ``b`` sorts strictly before ``a`` (NumPy's order: NaN last; -0.0 == 0.0)."""
    if dtype in ("f16", "f32", "f64"):  # f16: cmpf is exact on half, no rounding involved
        # a > b or a NaN (ugt), and b not NaN: two compares
        return arith.andi(arith.cmpf(CmpF.UGT, a, b), arith.cmpf(CmpF.ORD, b, b))
    return arith.cmpi(CmpI.ult if dtype == "i1" or dtype.startswith("ui") else CmpI.slt, b, a)  # uiN: unsigned


# Batcher's odd-even merge sort of a group of 8: 19 compare-exchanges where the stable
# transposition takes 28; for sorts whose equal keys are equal elements (integers, the
# one-to-one value keys of floats), which no order of ties can tell apart
_NETWORK = [(0, 1), (2, 3), (4, 5), (6, 7), (0, 2), (1, 3), (4, 6), (5, 7), (1, 2), (5, 6)]
_NETWORK += [(0, 4), (1, 5), (2, 6), (3, 7), (2, 4), (3, 5), (1, 2), (3, 4), (5, 6)]


def _exchanged(a: ir.Value, b: ir.Value, dtype: str) -> tuple:
    """``(first, second)`` of ``a`` and ``b`` in sort order: a signed min and max, else
    the compare and two selects."""
    if dtype in INTEGERS and not is_unsigned(dtype):
        return arith.minsi(a, b), arith.maxsi(a, b)
    swap = _before(b, a, dtype)
    return arith.select(swap, b, a), arith.select(swap, a, b)


def _yield(values) -> None:
    scf.YieldOp(list(values))


def _merge_pass(n, width, src, dst, src_at, dst_at, dtype: str):
    """One merge pass of runs of ``width`` over a line of ``n``: ``src`` (keys and
    optionally indices, tensors) into ``dst``; ``src_at(k)``/``dst_at(k)`` are the
    tensor indices of the line's element ``k``. Returns the new ``dst`` tensors.

    Each pair of runs is merged from both ends at once: the front takes the smaller
    head, the back the greater tail, half the pair's length each. A merge step waits
    for the previous step's compare (which element comes next decides what is loaded);
    two independent chains keep the core busy while each waits. In sort's order with
    ties broken by position (left run first), the front's ``s``-th output is the
    ``s``-th element and the back's is the ``len - 1 - s``-th: disjoint, and when the
    length is odd both write the middle element, the same one, at the last step."""
    zero, one = index_constant(0), index_constant(1)
    span = arith.addi(width, width)

    def before(b, a):
        return _before(b, a, dtype)

    def run(lo, *dsts):
        mid = arith.minsi(arith.addi(lo, width), n)
        hi = arith.minsi(arith.addi(lo, span), n)
        last = arith.subi(hi, one)

        def ahead(k):  # clamped to the pair's end (the front)
            return arith.minsi(k, last)

        def behind(k):  # clamped to its start (the back)
            return arith.maxsi(k, lo)

        def after(o, t):  # the back takes the left tail when the right one sorts before it
            return before(t, o)

        def steps(checked: bool):
            """A merge step of both ends; ``checked``: where a run may run out (the
            last pair of a pass, shorter than ``span``), each end reads clamped inside
            the pair and takes from the other run once one is used up. A full pair
            needs no checks: in ``width`` steps neither end uses up a run of ``width``
            before its last step, so every read is inside its run."""

            def end(t, o, t_in, o_in, clamp, urgent, outs, k):
                """One end's step: the element at ``t`` (of the run that wins ties:
                the left one at the front, the right one at the back) or, when
                ``urgent(its element, t's)``, the one at ``o`` (the other run), written
                at ``k``. Returns whether ``o``'s was taken, and the outputs."""
                at_t, at_o = (clamp(t), clamp(o)) if checked else (t, o)
                take_o = urgent(tensor.extract(src[0], src_at(at_o)), tensor.extract(src[0], src_at(at_t)))
                if checked:
                    take_o = arith.andi(o_in, arith.ori(arith.xori(t_in, _true()), take_o))
                new = []
                for key, out in zip(src, outs):
                    picked = arith.select(take_o, tensor.extract(key, src_at(at_o)), tensor.extract(key, src_at(at_t)))
                    new.append(tensor.insert(picked, out, dst_at(k)))
                return take_o, new

            def step(s, i, j, j2, i2, *outs):
                # front: the right head only when it sorts strictly before the left one
                in_pair = (arith.cmpi(CmpI.slt, i, mid), arith.cmpi(CmpI.slt, j, hi)) if checked else (None, None)
                front, outs = end(i, j, *in_pair, ahead, before, outs, arith.addi(lo, s))
                # back: the left tail only when the right one sorts strictly before it
                in_pair = (arith.cmpi(CmpI.sge, j2, mid), arith.cmpi(CmpI.sge, i2, lo)) if checked else (None, None)
                back, outs = end(j2, i2, *in_pair, behind, after, outs, arith.subi(last, s))
                return [
                    arith.select(front, i, arith.addi(i, one)),
                    arith.select(front, arith.addi(j, one), j),
                    arith.select(back, j2, arith.subi(j2, one)),
                    arith.select(back, arith.subi(i2, one), i2),
                    *outs,
                ]

            return step

        starts = [lo, mid, last, arith.subi(mid, one)]
        full = arith.cmpi(CmpI.eq, arith.subi(hi, lo), span)
        branch = scf.IfOp(full, [v.type for v in dsts], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            _yield(for_loop(zero, width, one, [*starts, *dsts], steps(checked=False))[4:])
        with ir.InsertionPoint(branch.else_block):
            half = arith.divsi(arith.subi(hi, arith.subi(lo, one)), index_constant(2))  # ceil(len / 2)
            _yield(for_loop(zero, half, one, [*starts, *dsts], steps(checked=True))[4:])
        return list(branch.results)

    return for_loop(zero, n, span, dst, run)


def _greatest(dtype: str) -> ir.Value:
    """A key no element sorts after (NaN for floats): the padding of a short group."""
    if dtype in ("f16", "f32", "f64"):
        return scalar.const(dtype, float("nan"))
    return scalar.const(dtype, True if dtype == "i1" else scalar.int_max(dtype))


def _sorted_groups(n, x, in_x, in_line, lines, with_indices: bool, dtype: str, offset=None, key_of=None) -> list:
    """``lines`` (keys, and positions with ``with_indices``) holding ``x``'s line with
    each group of ``GROUP`` consecutive elements sorted (stably): the first merge passes,
    done in registers instead of through memory.

    Odd-even transposition: rounds of compare-exchanges of neighbours, each swapping
    only when the second sorts strictly before the first, so equal keys keep their
    order; where equal keys are equal elements (``_NETWORK``), Batcher's network. The
    group past the end of the line is padded with the greatest key, which no element
    passes; its stores go last to first, clamped to the line, so the element at ``n - 1``
    is written after any padding stored there. The positions are counted from
    ``offset`` (a part of a longer line), else from 0."""
    one = index_constant(1)
    last = arith.subi(n, one)
    i64 = mlir_element_type("i64")

    def group(g, *lines):
        keys, positions = [], []
        for t in range(GROUP):
            k = arith.addi(g, index_constant(t))
            at = arith.minsi(k, last)
            inside = arith.cmpi(CmpI.slt, k, n)
            value = tensor.extract(x, in_x(at))
            value = value if key_of is None else key_of(value)
            keys.append(arith.select(inside, value, _greatest(dtype)))
            positions.append(k if offset is None else arith.addi(offset, k))
        if GROUP == 8 and not with_indices and (key_of is not None or dtype not in FLOATS):
            for i, j in _NETWORK:  # equal keys are equal elements: no order to keep
                keys[i], keys[j] = _exchanged(keys[i], keys[j], dtype)
            neighbours = []
        else:
            neighbours = [p for r in range(GROUP) for p in range(r % 2, GROUP - 1, 2)]
        for p in neighbours:
            swap = _before(keys[p + 1], keys[p], dtype)
            keys[p], keys[p + 1] = (
                arith.select(swap, keys[p + 1], keys[p]),
                arith.select(swap, keys[p], keys[p + 1]),
            )
            if with_indices:
                positions[p], positions[p + 1] = (
                    arith.select(swap, positions[p + 1], positions[p]),
                    arith.select(swap, positions[p], positions[p + 1]),
                )
        lines = list(lines)
        for t in reversed(range(GROUP)):
            at = in_line(arith.minsi(arith.addi(g, index_constant(t)), last))
            lines[0] = tensor.insert(keys[t], lines[0], at)
            if with_indices:
                lines[1] = tensor.insert(arith.index_cast(i64, positions[t]), lines[1], at)
        return lines

    return for_loop(index_constant(0), n, index_constant(GROUP), lines, group)


def fresh(t: TensorType, sizes: list) -> ir.Value:
    """A tensor of its own (``bufferization.alloc_tensor``), for a line no result is
    built in: two ``tensor.empty`` of one type and size are one value after CSE, and
    one-shot bufferization then gave an int64 argsort's key and index scratch lines one
    buffer (wrong positions)."""
    return bufferization.alloc_tensor(t.to_mlir(), [s for d, s in zip(t.shape, sizes) if d is DYN])


def _true() -> ir.Value:
    return scalar.const("i1", True)


def _lines(xt: TensorType, dtypes: list, sizes: list) -> list:
    """The op's tensors shaped like ``x``, one per ``dtypes``: the last is its result
    (``tensor.empty``, which bufferization may place in the kernel's output), the
    others (argsort's keys) are ``fresh``."""
    return [(_empty if i == len(dtypes) - 1 else fresh)(xt.with_dtype(t), sizes) for i, t in enumerate(dtypes)]


def _each_line(x: ir.Value, axis: int, dtypes: list, scratch: list, line) -> list:
    """New tensors shaped like ``x`` (one per ``dtypes``), each line along ``axis`` made by
    ``line(n, in_x, in_line, *state)``: ``n`` is the line's length, ``in_x(k)``/``in_line(k)``
    the indices of its element ``k`` in ``x`` and in the state's tensors, ``state`` those
    tensors and the ``scratch`` lines (element types; of the axis' length, made per
    slab), and it returns them updated.

    The lines along the first other dim are an ``scf.forall``, each iteration walking
    its slab (nested ``scf.for`` over the remaining dims) with scratch lines of its own:
    the lines are independent, so the kernel's threads share them."""
    xt = _type(x)
    rank = xt.rank
    sizes = [_as_index(_dim(x, d)) for d in range(rank)]
    dynamic = [s for s, d in zip(sizes, xt.shape) if d is DYN]
    full = _lines(xt, dtypes, _result_sizes(xt, dynamic))
    others = [d for d in range(rank) if d != axis]
    if not others:
        return _each_slab_line(x, axis, sizes[axis], full, [], [], scratch, line)
    first = others[0]
    loop = scf.ForallOp([0], [sizes[first]], [1], full)
    with ir.InsertionPoint(loop.body):
        (o,) = loop.induction_variables
        offsets = [o if d == first else 0 for d in range(rank)]
        extent = [1 if d == first else (xt.shape[d] if xt.shape[d] is not DYN else sizes[d]) for d in range(rank)]
        slab_shape = tuple(1 if d == first else xt.shape[d] for d in range(rank))
        slabs = [
            _extract_slice(out, TensorType(slab_shape, t), offsets, extent, [1] * rank)
            for out, t in zip(loop.inner_iter_args, dtypes)
        ]
        remaining = [sizes[d] for d in others[1:]]
        done = _each_slab_line(x, axis, sizes[axis], slabs, [o], remaining, scratch, line, {first: index_constant(0)})
        insert_in_parallel(loop, done, offsets, extent)
    return list(loop.results)


def insert_in_parallel(loop: scf.ForallOp, values: list, offsets: list, sizes: list) -> None:
    """The forall's terminator: each of ``values`` into its shared output at ``offsets``
    (index values or ints), ``sizes`` long, unit strides."""
    in_parallel = scf.InParallelOp()
    with ir.InsertionPoint(in_parallel.regions[0].blocks[0]):
        dyn_off, st_off = split_mixed(offsets)
        dyn_size, st_size = split_mixed(sizes)
        for value, out in zip(values, loop.inner_iter_args):
            tensor.ParallelInsertSliceOp(value, out, dyn_off, dyn_size, [], st_off, st_size, [1] * len(offsets))


def _each_slab_line(x, axis, n, state, fixed, sizes, scratch, line, at_slab=None) -> list:
    """``line`` over every line of the tensors ``state``: ``fixed`` are the indices of the
    leading other dims already chosen (the forall's), ``sizes`` the extents of the
    remaining ones to loop over; in ``state`` the dims of ``at_slab`` are at those indices
    instead (a slab of size 1)."""
    xt = _type(x)
    count = len(state)
    zero, one = index_constant(0), index_constant(1)
    spare = [fresh(TensorType((xt.shape[axis],), t), [n]) for t in scratch]

    def each(outer: list, *state):
        def in_x(k):
            at = list(outer)
            at.insert(axis, k)
            return at

        def in_line(k):
            at = in_x(k)
            for d, index in (at_slab or {}).items():
                at[d] = index
            return at

        return line(n, in_x, in_line, *state)

    def nest(level: int, outer: list, state: list):
        if level == len(sizes):
            return each(outer, *state)
        return for_loop(zero, sizes[level], one, state, lambda iv, *s: nest(level + 1, [*outer, iv], list(s)))

    assert len(fixed) + len(sizes) == xt.rank - 1
    return nest(0, list(fixed), [*state, *spare])[:count]


def _merge_passes(n, first, lines: list, spares: list, line_at, spare_at, dtype: str) -> list:
    """``lines`` (keys, and positions) of length ``n`` made of sorted runs of ``first``,
    merged into one: double passes (width ``w`` from the lines into the ``spares``,
    ``2w`` back) while ``w < n``, ``w`` four times larger each time, so the result ends
    in the lines. Returns the lines, then the spares (scratch, to be carried on)."""
    count = len(lines)

    def double_pass(q, width, *state):
        line, spare = list(state[:count]), list(state[count:])
        active = arith.cmpi(CmpI.slt, width, n)
        branch = scf.IfOp(active, [v.type for v in state], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            spare2 = _merge_pass(n, width, line, spare, line_at, spare_at, dtype)
            line2 = _merge_pass(n, arith.addi(width, width), spare2, line, spare_at, line_at, dtype)
            _yield([*line2, *spare2])
        with ir.InsertionPoint(branch.else_block):
            _yield(state)
        wider = arith.shli(width, index_constant(2))  # only while width < n: no overflow
        return [arith.select(active, wider, width), *branch.results]

    passes = index_constant(MAX_DOUBLE_PASSES)
    results = for_loop(index_constant(0), passes, index_constant(1), [first, *lines, *spares], double_pass)
    return results[1:]


def _at(k):
    return [k]


def _sort_line(
    n, x, in_x, in_line, lines: list, spares: list, with_indices: bool, dtype: str, offset=None, key_of=None
) -> list:
    """One line of ``x`` (``in_x``) sorted into ``lines`` (``in_line``): the groups in
    registers, then the merges through the ``spares``. Returns the lines, then the spares.
    ``key_of``: what is sorted of each element loaded (``dtype``: its type), else the element."""
    lines = _sorted_groups(n, x, in_x, in_line, lines, with_indices, dtype, offset, key_of)
    return _merge_passes(n, index_constant(GROUP), lines, spares, in_line, _at, dtype)


def _sort_lines(x: ir.Value, axis: int, with_indices: bool, key_of=None, key: str | None = None) -> list:
    """The keys of ``x`` (``key_of`` of its elements, of type ``key``, else the elements)
    with every line along ``axis`` sorted (and the positions they came from, with
    ``with_indices``), as new tensors."""
    xt = _type(x)
    count = 2 if with_indices else 1
    dtypes = [key or xt.dtype, "i64"][:count]
    if xt.rank == 1:
        return _sort_one_line(x, dtypes, with_indices, key_of)

    def sort_line(n, in_x, in_line, *state):
        lines, spares = list(state[:count]), list(state[count:])
        return _sort_line(n, x, in_x, in_line, lines, spares, with_indices, dtypes[0], key_of=key_of)

    return _each_line(x, axis, dtypes, dtypes, sort_line)


def _sort_floats(x: ir.Value, axis: int) -> ir.Value:
    """``x``'s float lines sorted by their value keys (``value_key``): each line's keys
    made as it is loaded, merged, its tied zeros and NaNs put back in their order, then
    written as floats into the result's line."""
    xt = _type(x)
    key = KEY_TYPES[xt.dtype]
    if xt.rank == 1:
        n = _as_index(_dim(x, 0))
        (keys,) = _sort_one_line(x, [key], False, lambda v: value_key(v, xt.dtype))
        keys = _ties_in_order(n, x, _at, keys, _at)
        result = _empty(xt, [n])
        return _floats_of_keys(n, keys, result, _at)

    def sort_line(n, in_x, in_line, keys, result, spare):
        keys, spare = _sort_line(
            n, x, in_x, in_line, [keys], [spare], False, key, key_of=lambda v: value_key(v, xt.dtype)
        )
        keys = _ties_in_order(n, x, in_x, keys, in_line)
        return [keys, _floats_of_keys(n, keys, result, in_line), spare]

    return _each_line(x, axis, [key, xt.dtype], [key], sort_line)[1]


def _floats_of_keys(n, keys, result, at) -> ir.Value:
    """``result``'s line: the floats of the sorted line of value ``keys``."""
    dtype = _type(result).dtype

    def put(k, result):
        place = at(k)
        return [tensor.insert(float_of_key(tensor.extract(keys, place), dtype), result, place)]

    return for_loop(index_constant(0), n, index_constant(1), [result], put)[0]


def _sort_one_line(x: ir.Value, dtypes: list, with_indices: bool, key_of=None) -> list:
    """A 1-d ``x`` sorted in parts on the kernel's threads, then the parts merged: an
    ``scf.forall`` over up to ``MAX_PARTS`` parts of ``PART_MIN`` elements or more
    (``GROUP`` elements a multiple), each sorted as a line of its own (groups, then
    merges in a scratch line of its length), then the merge passes of the whole line
    from runs of a part's width. A single line had run on one thread."""
    xt = _type(x)
    one = index_constant(1)
    n = _as_index(_dim(x, 0))
    dynamic = [n] if xt.shape[0] is DYN else []
    full = _lines(xt, dtypes, _result_sizes(xt, dynamic))
    parts = arith.minsi(arith.maxsi(arith.divsi(n, index_constant(PART_MIN)), one), index_constant(MAX_PARTS))
    group = index_constant(GROUP)
    width = arith.muli(arith.ceildivsi(arith.ceildivsi(n, parts), group), group)
    loop = scf.ForallOp([0], [parts], [1], full)
    with ir.InsertionPoint(loop.body):
        (p,) = loop.induction_variables
        lo = arith.muli(p, width)
        size = arith.subi(arith.minsi(arith.addi(lo, width), n), lo)
        part_shape = (DYN,)
        lines = [
            _extract_slice(out, TensorType(part_shape, t), [lo], [size], [1])
            for out, t in zip(loop.inner_iter_args, dtypes)
        ]
        spares = [fresh(TensorType(part_shape, t), [size]) for t in dtypes]

        def in_x(k):
            return [arith.addi(lo, k)]

        lines = _sort_line(size, x, in_x, _at, lines, spares, with_indices, dtypes[0], lo, key_of)[: len(dtypes)]
        insert_in_parallel(loop, lines, [lo], [size])
    spares = [fresh(TensorType((xt.shape[0],), t), [n]) for t in dtypes]
    return _merge_passes(n, width, list(loop.results), spares, _at, _at, dtypes[0])[: len(dtypes)]


def _partition_lines(x: ir.Value, kth: ir.Value, axis: int) -> ir.Value:
    """``x`` with every line along ``axis`` partitioned at each position of ``kth``
    (ascending): a selection per position (``_select``), within what the previous one
    left."""
    xt = _type(x)
    zero, one = index_constant(0), index_constant(1)
    count = _as_index(_dim(kth, 0))

    def partition_line(n, in_x, in_line, line):
        def load(k, line):
            return [tensor.insert(tensor.extract(x, in_x(k)), line, in_line(k))]

        (line,) = for_loop(zero, n, one, [line], load)

        def place(q, lo, line):  # kth[q] in place, searching from lo (past the previous one)
            k = arith.index_cast(ir.IndexType.get(), tensor.extract(kth, [q]))
            line = _select(line, in_line, lo, n, k, xt.dtype)
            return [arith.maxsi(lo, arith.addi(k, one)), line]

        return [for_loop(zero, count, one, [zero, line], place)[1]]

    return _each_line(x, axis, [xt.dtype], [], partition_line)[0]


def _select(line, at, lo, hi, k, dtype: str) -> ir.Value:
    """``line`` with its ``[lo, hi)`` rearranged so that position ``k`` holds the element a
    sort would put there, none greater before it, none smaller after it (nothing done
    when ``k < lo``). At either end of the range that element is the least or the
    greatest: one branch-free scan finds it and a swap puts it there (``_extreme_to``:
    the median's second middle and its NaN check, each past the first middle, had cost
    a selection each, 17.7 ms for 1M float64 against NumPy's 12.6). Elsewhere
    ``_split_select``."""
    last = arith.subi(hi, index_constant(1))
    at_first = arith.cmpi(CmpI.eq, k, lo)
    at_last = arith.andi(arith.cmpi(CmpI.eq, k, last), arith.cmpi(CmpI.slt, lo, hi))
    branch = scf.IfOp(arith.ori(at_first, at_last), [line.type], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        _yield([_extreme_to(line, at, lo, hi, k, at_first, dtype)])
    with ir.InsertionPoint(branch.else_block):
        _yield([_split_select(line, at, lo, hi, k, dtype)])
    return branch.results[0]


def _median_of_three(a, b, c, dtype: str) -> ir.Value:
    """The one of three values that sorts between the others (branch-free): the pivot of
    a round, so that a range sorted either way, or first up then down, still halves."""
    low, high = arith.select(_before(b, a, dtype), b, a), arith.select(_before(b, a, dtype), a, b)
    capped = arith.select(_before(c, high, dtype), c, high)
    return arith.select(_before(capped, low, dtype), low, capped)


def _extreme_to(line, at, lo, hi, k, least, dtype: str) -> ir.Value:
    """``line`` with the element of ``[lo, hi)`` that sorts first (``least``) or last moved
    to ``k`` (swapped with what was there): a scan carrying the best value and its place."""
    first = tensor.extract(line, at(lo))

    def scan(i, best, where):
        value = tensor.extract(line, at(i))
        better = arith.select(least, _before(value, best, dtype), _before(best, value, dtype))
        return [arith.select(better, value, best), arith.select(better, i, where)]

    best, where = for_loop(arith.addi(lo, index_constant(1)), hi, index_constant(1), [first, lo], scan)
    displaced = tensor.extract(line, at(k))
    return tensor.insert(best, tensor.insert(displaced, line, at(where)), at(k))


def _split_select(line, at, lo, hi, k, dtype: str) -> ir.Value:
    """``_select`` by rounds of a branch-free three-way split around ``p``, the median of
    the first, middle and last elements of ``[lo, hi)``: first what sorts before ``p`` to the front (``[lo, i)``), then,
    only when ``k`` is past those, what does not sort after it (``p``'s equals,
    ``[i, e)``, never empty: ``p`` itself is there); the round ends with the part holding
    ``k``, or done when ``k`` is among the equals. Lomuto's scan with the exchange made
    unconditional (the element at ``i`` and the one read swap, ``i`` moves by the
    compare's outcome) has no branch to mispredict: Hoare's two scans, each stopping at
    an unpredictable element, had taken 15 ms to place the middle of 1M random float64
    (NumPy's introselect: 8.5)."""
    one = index_constant(1)

    def searching(lo, hi, line):
        wide = arith.cmpi(CmpI.sgt, arith.subi(hi, lo), one)
        return arith.andi(wide, arith.cmpi(CmpI.sle, lo, k))

    def split(lo, hi, line, pivot, keep_equal: bool):
        def step(j, i, line):
            value = tensor.extract(line, at(j))
            goes = _before(pivot, value, dtype) if keep_equal else _before(value, pivot, dtype)
            if keep_equal:
                goes = arith.xori(goes, arith.constant(ir.IntegerType.get_signless(1), 1))  # not after p
            line = tensor.insert(value, tensor.insert(tensor.extract(line, at(i)), line, at(j)), at(i))
            return [arith.select(goes, arith.addi(i, one), i), line]

        return for_loop(lo, hi, one, [lo, line], step)

    def round_(lo, hi, line):
        mid = arith.addi(lo, arith.divsi(arith.subi(arith.subi(hi, lo), one), index_constant(2)))
        ends = (tensor.extract(line, at(lo)), tensor.extract(line, at(arith.subi(hi, one))))
        pivot = _median_of_three(tensor.extract(line, at(mid)), *ends, dtype)
        i, line = split(lo, hi, line, pivot, keep_equal=False)
        below = arith.cmpi(CmpI.slt, k, i)
        branch = scf.IfOp(below, [lo.type, lo.type, line.type], has_else=True)
        with ir.InsertionPoint(branch.then_block):
            _yield([lo, i, line])
        with ir.InsertionPoint(branch.else_block):
            e, equal_line = split(i, hi, line, pivot, keep_equal=True)
            among = arith.cmpi(CmpI.slt, k, e)  # k holds an equal of p: nothing left to do
            _yield([arith.select(among, k, e), arith.select(among, k, hi), equal_line])
        return list(branch.results)

    return while_loop([lo, hi, line], searching, round_)[2]


def _lower_sort(op, result: TensorType, attrs):
    (x,) = ember.tensor_operands(op)
    xt = _type(x)
    axis = attrs["axis"]
    if 0 in xt.shape or xt.shape[axis] == 1:
        return x  # nothing to reorder
    return _sort_floats(x, axis) if xt.dtype in KEY_TYPES else _sort_lines(x, axis, False)[0]


def _first_not_below(line, at, n, key) -> ir.Value:
    """The first position of the sorted ``line`` whose key is not below ``key`` (n if none):
    a binary search."""

    def searching(lo, hi):
        return arith.cmpi(CmpI.slt, lo, hi)

    def step(lo, hi):
        mid = arith.divui(arith.addi(lo, hi), index_constant(2))
        right = arith.cmpi(CmpI.slt, tensor.extract(line, at(mid)), key)
        return [arith.select(right, arith.addi(mid, index_constant(1)), lo), arith.select(right, hi, mid)]

    return while_loop([index_constant(0), n], searching, step)[0]


def _ties_in_order(n, x, in_x, line, in_line) -> ir.Value:
    """The sorted value keys ``line`` with its zeros and NaNs rewritten in the order they
    have in ``x``'s line: the merges put ``-0.0`` before ``0.0`` and order NaNs by their
    bits, NumPy's stable sort keeps their order. Only where the line has two zeros or
    two NaNs (three binary searches find the runs); then one pass over ``x``."""
    dtype = _type(x).dtype
    one = index_constant(1)

    def first_past(value: float) -> ir.Value:  # the first position whose key is above value's
        return _first_not_below(
            line,
            in_line,
            n,
            arith.addi(value_key(scalar.const(dtype, value), dtype), scalar.const(KEY_TYPES[dtype], 1)),
        )

    zeros = _first_not_below(line, in_line, n, value_key(scalar.const(dtype, -0.0), dtype))
    zeros_end, nans = first_past(0.0), first_past(float("inf"))
    two = index_constant(2)
    mixed = arith.ori(
        arith.cmpi(CmpI.sge, arith.subi(zeros_end, zeros), two), arith.cmpi(CmpI.sge, arith.subi(n, nans), two)
    )
    branch = scf.IfOp(mixed, [line.type], has_else=True)
    with ir.InsertionPoint(branch.then_block):

        def put(k, line, z, q):
            v = tensor.extract(x, in_x(k))
            zero = arith.cmpf(CmpF.OEQ, v, scalar.const(dtype, 0.0))
            nan = arith.cmpf(CmpF.UNO, v, v)
            inner = scf.IfOp(arith.ori(zero, nan), [line.type], has_else=True)
            with ir.InsertionPoint(inner.then_block):
                _yield([tensor.insert(value_key(v, dtype), line, in_line(arith.select(zero, z, q)))])
            with ir.InsertionPoint(inner.else_block):
                _yield([line])
            z = arith.select(zero, arith.addi(z, one), z)
            q = arith.select(nan, arith.addi(q, one), q)
            return [inner.results[0], z, q]

        _yield([for_loop(index_constant(0), n, index_constant(1), [line, zeros, nans], put)[0]])
    with ir.InsertionPoint(branch.else_block):
        _yield([line])
    return branch.results[0]


def _lower_argsort(op, result: TensorType, attrs):
    (x,) = ember.tensor_operands(op)
    xt = _type(x)
    axis = attrs["axis"]
    if 0 in xt.shape or xt.shape[axis] == 1:  # every position is 0 (or there is none)
        return _filled(result, [_dim(x, d) for d in range(xt.rank)], 0)
    if xt.dtype in KEY_TYPES:
        return _sort_lines(x, axis, True, lambda a: argsort_key(a, xt.dtype), KEY_TYPES[xt.dtype])[1]
    return _sort_lines(x, axis, True)[1]


def _lower_partition(op, result: TensorType, attrs):
    x, kth = ember.tensor_operands(op)
    xt = _type(x)
    if 0 in xt.shape or xt.shape[attrs["axis"]] == 1:
        return x  # nothing to reorder
    return _partition_lines(x, kth, attrs["axis"])


# Ember op name -> lowering function (op, result TensorType, attrs) -> ir.Value, merged
# into ember_to_linalg.lowerings().
LOWERINGS: dict = {"sort": _lower_sort, "argsort": _lower_argsort, "partition": _lower_partition}
