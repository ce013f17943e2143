"""Both products of one matrix in one pass over it (``ember-matvec-pairs``).

Why: BiCG's step (``s = r @ A; q = A @ p``), PolyBench's mvt (``x1 + A @ y1``,
``x2 + A.T @ y2``) and atax (``A.T @ (A @ x)``, also written ``(A @ x) @ A``) read the
matrix twice, as NumPy does, and each product runs at memory speed: the second read is
half the time. Read once, each element of A does both multiply-adds while it is in a
register, or (atax) a group of rows is read again from the cache. Measured on a 2-core
AVX-512 Xeon (median ms, the two helpers of ``ember-matvec-loops`` one after the other
-> one call): benchmarks/run.py's ``bicg`` (A 4000x5000 float64) 6.6 -> 3.5-4.3
(NumPy 7.2-7.6) and ``matvec_chain`` (``(A @ x) @ A``) 6.2-6.7 -> 4.3-4.6 (NumPy
7.2-8.2); the corpus's bicg (1900x2100) 1.01 -> 0.60, mvt (2000x2000) 0.95 -> 0.60
and atax (1900x2100) 1.00-1.08 -> 0.78-0.80 (NumPy 0.88-1.06). A chain's groups of
eight rows were fastest (four: 4.5-6.9 ms, two: 5.2-5.5).

Two helpers, both forked loops on the worker pool:

* **pair** (``q += A @ p`` and ``s += r @ A``, neither reading the other's output):
  ``x @ A``'s helper (``matvec.py``), A's columns in blocks, eight rows at a time added
  into the block's part of ``s``, with the rows' dot products with ``p``'s block in
  eight vector accumulators beside it. Each block's part of a row's dot product goes
  to a scratch row of partials; after the blocks each ``q[i]`` gets its row's partials
  added, block after block, then added to it.
* **chain** (``y = A @ x`` into zeros, then ``z += y @ A``): A's rows in one block per
  part; eight rows at a time, their dot products with ``x`` (``A @ x``'s loop) stored
  in ``y``, then the same eight rows, now in the cache, times their ``y`` added into
  the part's scratch row; after the parts their rows are added up into ``z``.

So the products equal NumPy's up to rounding, as the single helpers' do. Like
``linalg.matvec`` and ``linalg.vecmat`` the helpers add into their outputs: the zero
fills before the products stay, and ``x1 + A @ y1`` (a product into a copy of ``x1``)
is the same call.

The two are a ``linalg.matvec`` and a ``linalg.vecmat`` of one block on the same matrix
value (``A.T @ y`` reaches here as a vecmat of A), whose outputs are memory of their
own (no input or other output shares their root buffer, but a chain's ``y`` that the
vecmat reads), where nothing between them touches the first's output or writes its
inputs: the call takes the second's place. Under the conditions of
``ember-matvec-loops`` (float32/float64; A's rows and the vectors the loops read whole
contiguous, checked at run time where the types do not say; for a pair, A wide enough
to split its columns or small; no other BLAS work in the function), else both stay
for that pass or BLAS.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import add_functions, declarations, functions, ir, public_definitions
from compiler.passes.base import EmberPass
from compiler.passes.blas import zero_fill_before
from compiler.passes.buffers import distinct_memory, root_buffer
from compiler.passes.loop_nest_fusion import pure
from compiler.passes.matvec import (
    BYTES,
    COLUMN_TILE_BYTES,
    LANES,
    PREFETCH_BYTES,
    SPLIT_MIN_BYTES,
    VECMAT_ROWS,
    checked_call,
    column_tiles,
    matrix_type,
    matvec_rows,
    other_library_work,
    parts_wanted,
    prelude,
    tile_block,
    unit_stride,
    vecmat_rows,
    vector_type,
    zero_columns,
)
from runtime.abi import POOL_THREADS


def helper_name(kind: str, element: str) -> str:
    """``ember_matvec_pair_loops_<element>`` or ``ember_matvec_chain_loops_<element>``."""
    return f"ember_matvec_{kind}_loops_{element}"


def _sweep(element: str, rows: int, vector: bool) -> list[str]:
    """One loop over the block's columns for rows ``%i0..``: in whole vectors from the
    block's first column (``vector``), else one by one over the columns after them. Each
    element of A is loaded once and feeds both sums: ``r[i] * A[i, j]`` added into
    ``s[j]``, ``A[i, j] * p[j]`` into row ``i``'s accumulator (``%sum0..``: vectors from
    zero, else the vector sums' lanes added); the accumulators come out as ``%<name>#k``."""
    mat, unit = matrix_type(element), vector_type(element, True)
    vec = f"vector<{LANES[element]}x{element}>"
    if vector:
        name, span, start, kind = "%acc", "%cols_first to %cols_full step %cV", "%vzero", vec
        load, fma, scale = (lambda b, i: f"vector.load {b}[{i}] : {{t}}, {vec}"), "vector.fma", "%b"
    else:
        name, span, start, kind = "%tail", "%cols_full to %cols_stop step %c1", "%sum{k}", element
        load, fma, scale = (lambda b, i: f"memref.load {b}[{i}] : {{t}}"), "math.fma", "%w"
    accs = ", ".join(f"%a{k} = {start.format(k=k)}" for k in range(rows))
    lines = [f"      {name}:{rows} = scf.for %j = {span} iter_args({accs}) -> ({', '.join([kind] * rows)}) {{"]
    lines.append("        %sj = " + load("%s", "%j").format(t=unit))
    lines.append("        %pj = " + load("%p", "%j").format(t=unit))
    last = "%sj"
    for k in range(rows):
        if vector:
            lines.append(f"        memref.prefetch %A[%pf{k}, %j], read, locality<3>, data : {mat}")
        lines.append(f"        %v{k} = " + load("%A", f"%i{k}, %j").format(t=mat))
        lines.append(f"        %y{k} = {fma} %v{k}, {scale}{k}, {last} : {kind}")
        lines.append(f"        %n{k} = {fma} %v{k}, %pj, %a{k} : {kind}")
        last = f"%y{k}"
    store = f"vector.store {last}, %s[%j] : {unit}, {vec}" if vector else f"memref.store {last}, %s[%j] : {unit}"
    lines.append(f"        {store}")
    lines.append(f"        scf.yield {', '.join(f'%n{k}' for k in range(rows))} : {', '.join([kind] * rows)}")
    lines.append("      }")
    return lines


def _pair_rows(element: str, rows: int) -> str:
    """The body handling rows ``%i..``: ``r[i] * A[i, cols]`` added into the block's
    ``s``, and ``A[i, cols] . p[cols]`` stored in the block's partials."""
    vec = f"vector<{LANES[element]}x{element}>"
    lines = []
    for k in range(rows):
        lines.append(f"      %i{k} = arith.addi %i, %c{k} : index")
        lines.append(f"      %w{k} = memref.load %r[%i{k}] : {vector_type(element, False)}")
        lines.append(f"      %b{k} = vector.broadcast %w{k} : {element} to {vec}")
        lines.append(f"      %ahead{k} = arith.addi %i{k}, %c{rows} : index")
        lines.append(f"      %pf{k} = arith.minui %ahead{k}, %mlast : index")
    lines += _sweep(element, rows, vector=True)
    for k in range(rows):
        lines.append(f"      %sum{k} = vector.reduction <add>, %acc#{k} fastmath<reassoc> : {vec} into {element}")
    lines += _sweep(element, rows, vector=False)
    for k in range(rows):
        lines.append(f"      memref.store %tail#{k}, %partials[%t, %i{k}] : memref<?x?x{element}>")
    return "\n".join(lines)


def _add_partials(element: str, out: str, count: str) -> str:
    """After the forked loop: each block's row of ``%partials`` (``count`` long) added up,
    block after block, and the total added into ``out``; the scratch freed."""
    scratch, strided = f"memref<?x?x{element}>", vector_type(element, False)
    return f"""  scf.for %i = %c0 to {count} step %c1 {{
    %first = memref.load %partials[%c0, %i] : {scratch}
    %total = scf.for %b = %c1 to %tiles step %c1 iter_args(%sum = %first) -> ({element}) {{
      %part = memref.load %partials[%b, %i] : {scratch}
      %more = arith.addf %sum, %part : {element}
      scf.yield %more : {element}
    }}
    %old = memref.load {out}[%i] : {strided}
    %new = arith.addf %old, %total : {element}
    memref.store %new, {out}[%i] : {strided}
  }}
  memref.dealloc %partials : {scratch}"""


def pair_text(element: str) -> str:
    """``q += A @ p`` and ``s += r @ A`` in one pass over A (see the module doc)."""
    mat, unit, strided = matrix_type(element), vector_type(element, True), vector_type(element, False)
    scratch = f"memref<?x?x{element}>"
    return f"""
func.func private @{helper_name("pair", element)}(%A: {mat}, %p: {unit}, %q: {strided}, %r: {strided}, %s: {unit}) {{
{prelude(element)}
{column_tiles(element, COLUMN_TILE_BYTES)}
  %partials = memref.alloc(%tiles, %m) : {scratch}
  scf.forall (%t) in (%tiles) {{
{tile_block("cols", "%width0", "%n", "%cV")}
    scf.for %i = %c0 to %mfull step %c{VECMAT_ROWS} {{
{_pair_rows(element, VECMAT_ROWS)}
    }}
    scf.for %i = %mfull to %m step %c1 {{
{_pair_rows(element, 1)}
    }}
  }}
{_add_partials(element, "%q", "%m")}
  return
}}
"""


def chain_text(element: str) -> str:
    """``y = A @ x`` and ``z += y @ A`` in one pass over A (see the module doc)."""
    mat, unit, strided = matrix_type(element), vector_type(element, True), vector_type(element, False)
    scratch, rows = f"memref<?x?x{element}>", VECMAT_ROWS
    return f"""
func.func private @{helper_name("chain", element)}(%A: {mat}, %x: {unit}, %y: {strided}, %z: {strided}) {{
{prelude(element)}
  %cPF = arith.constant {PREFETCH_BYTES // BYTES[element]} : index
  %cBig = arith.constant {SPLIT_MIN_BYTES // BYTES[element]} : index
  %zero = arith.constant 0.0 : {element}
  %nrem = arith.remui %n, %cV : index
  %nv = arith.subi %n, %nrem : index
  %last = arith.subi %n, %c1 : index
  %mlast0 = arith.subi %m, %c1 : index
  %mlast = arith.maxsi %mlast0, %c0 : index
  %cols_first = arith.constant 0 : index
  %cols_full = arith.addi %nv, %c0 : index
  %cols_stop = arith.addi %n, %c0 : index
  %groups = arith.ceildivui %m, %c{rows} : index
{parts_wanted("%groups")}
  %some = arith.maxui %wanted, %c1 : index
  %per0 = arith.ceildivui %groups, %some : index
  %per = arith.maxui %per0, %c1 : index
  %size = arith.muli %per, %c{rows} : index
  %tiles0 = arith.ceildivui %groups, %per : index
  %tiles = arith.maxui %tiles0, %c1 : index
  %partials = memref.alloc(%tiles, %n) : {scratch}
  scf.forall (%t) in (%tiles) {{
{tile_block("rows", "%size", "%m", f"%c{rows}")}
    %row = memref.subview %partials[%t, 0] [1, %n] [1, 1] : {scratch} to {unit}
{zero_columns(element, "%row")}
    scf.for %r = %rows_first to %rows_full step %c{rows} {{
{matvec_rows(element, rows)}
      %i = arith.addi %r, %c0 : index
{vecmat_rows(element, rows, x="%y", y="%row")}
    }}
    scf.for %r = %rows_full to %rows_stop step %c1 {{
{matvec_rows(element, 1)}
      %i = arith.addi %r, %c0 : index
{vecmat_rows(element, 1, x="%y", y="%row")}
    }}
  }}
{_add_partials(element, "%z", "%n")}
  return
}}
"""


def helpers_text(element: str) -> str:
    """Both helpers of ``element``, with the declaration of what they call."""
    return f"func.func private @{POOL_THREADS}() -> i64\n" + pair_text(element) + chain_text(element)


def library_text(element: str) -> str:
    """The helper of ``element`` as a library the CPU backend compiles once per process
    (``backends/llvm_cpu/helper_library.py``)."""
    return public_definitions(helpers_text(element))


def entry_points(element: str) -> frozenset[str]:
    return frozenset(helper_name(kind, element) for kind in ("pair", "chain"))


def _element(op) -> str | None:
    elements = {str(v.type.element_type) for v in op.operands if isinstance(v.type, ir.MemRefType)}
    if len(elements) != 1 or len(op.operands) != 3 or not all(isinstance(v.type, ir.MemRefType) for v in op.operands):
        return None
    element = next(iter(elements))
    return element if element in LANES else None


def _own_memory(outputs, inputs) -> bool:
    """Each output's root buffer is memory of its own, shared with no input and no other output."""
    roots = [root_buffer(v) for v in outputs]
    others = {root_buffer(v) for v in inputs}
    return all(distinct_memory(r) for r in roots) and len(set(roots)) == len(roots) and not others & set(roots)


def _written(op) -> list:
    """The buffers a linalg op writes: its ``outs``."""
    if "operandSegmentSizes" not in op.attributes:
        return list(op.operands)
    ins = ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])[0]
    return list(op.operands)[ins:]


def _movable_past(first, between) -> bool:
    """Whether ``first`` (a matvec or vecmat) can run after the ops ``between``: none of
    them touches its output or writes its inputs. A linalg op writes its ``outs``; any
    other op using those buffers (but as a view or for a size), or with a body, is taken
    to touch them."""
    output = root_buffer(first.operands[2])
    mine = {output} | {root_buffer(v) for v in first.operands[:2]}
    for op in between:
        if pure(op):
            continue
        if op.regions and not op.name.startswith("linalg."):
            return False
        roots = [root_buffer(v) for v in op.operands if isinstance(v.type, ir.MemRefType)]
        if not op.name.startswith("linalg."):
            if mine & set(roots):
                return False
        elif output in roots or mine & {root_buffer(v) for v in _written(op)}:
            return False
    return True


def _blocks(fn) -> list[list]:
    """The ops of each block in ``fn``, outermost first."""
    blocks, stack = [], [fn]
    while stack:
        op = stack.pop()
        for region in op.regions:
            for block in region.blocks:
                ops = [o.operation for o in block.operations]
                blocks.append(ops)
                stack.extend(o for o in ops if o.regions and not o.name.startswith("linalg."))
    return blocks


def _kind(mv, vm, first, between) -> str | None:
    """``"pair"`` when the products are independent, ``"chain"`` when the vecmat reads
    the matvec's output, if they can be one call (see the module doc); else None."""
    matrix, p, q = mv.operands
    r, _, s = vm.operands
    if vm.operands[1] != matrix or _element(mv) is None or _element(mv) != _element(vm):
        return None
    if not _movable_past(first, between) or unit_stride(matrix)[1] or unit_stride(p)[1]:
        return None
    if r == q and first == mv:
        chain = zero_fill_before(mv) is not None and _own_memory([q, s], [matrix, p])
        return "chain" if chain else None
    pair = _own_memory([q, s], [matrix, p, r]) and not unit_stride(s)[1]
    return "pair" if pair else None


def _pairs(fn) -> list:
    """``(kind, matvec, vecmat, the second of them)`` of ``fn`` that can become one call."""
    found, taken = [], set()
    for block_ops in _blocks(fn):
        for n, first in enumerate(block_ops):
            if first.name not in ("linalg.matvec", "linalg.vecmat") or first in taken:
                continue
            other = "linalg.vecmat" if first.name == "linalg.matvec" else "linalg.matvec"
            for m, second in enumerate(block_ops[n + 1 :], start=n + 1):
                if second.name != other or second in taken:
                    continue
                mv, vm = (first, second) if first.name == "linalg.matvec" else (second, first)
                if (kind := _kind(mv, vm, first, block_ops[n + 1 : m])) is not None:
                    found.append((kind, mv, vm, second))
                    taken |= {mv, vm}
                    break
    return found


def _replace(kind: str, mv, vm, second) -> None:
    """The products become one call at ``second``'s place, behind a run-time check of
    what the types do not fix; both stay as the other branch."""
    element = _element(mv)
    matrix, p, q = mv.operands
    r, _, s = vm.operands
    mat, unit, strided = matrix_type(element), vector_type(element, True), vector_type(element, False)
    first = vm if second == mv else mv

    def fallback():
        first.clone(ip=ir.InsertionPoint.current)
        second.clone(ip=ir.InsertionPoint.current)

    with ir.InsertionPoint(second), second.location:
        if kind == "pair":
            types, values, contiguous, split = (
                (mat, unit, strided, strided, unit),
                [matrix, p, q, r, s],
                [matrix, p, s],
                matrix,
            )
        else:
            types, values, contiguous, split = (mat, unit, strided, strided), [matrix, p, q, s], [matrix, p], None
        checked_call(helper_name(kind, element), types, values, contiguous, split, fallback)
    mv.erase()
    vm.erase()


@dataclass
class EmberMatvecPairs(EmberPass):
    """Both products of one matrix, side by side or chained, as one helper call reading
    the matrix once."""

    name = "ember-matvec-pairs"
    summary = "A @ p and r @ A (or (A @ x) @ A) of one f32/f64 matrix -> one call of a helper reading it once"
    # as ember-matvec-loops: define the helpers in the module (to read them), else declare them
    define_helpers: bool = False

    def run(self, module):
        found = []
        for fn in functions(module):
            pairs = _pairs(fn)
            if pairs and not other_library_work(fn, besides={op for _, mv, vm, _ in pairs for op in (mv, vm)}):
                found += pairs
        for element in sorted({_element(mv) for _, mv, _, _ in found}):
            text = helpers_text(element)
            add_functions(module, text if self.define_helpers else declarations(text))
        for kind, mv, vm, second in found:
            _replace(kind, mv, vm, second)
