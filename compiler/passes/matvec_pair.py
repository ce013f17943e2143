"""``A @ p`` and ``r @ A`` of one matrix in one pass over it (``ember-matvec-pairs``).

Why: BiCG's step (``s = r @ A; q = A @ p``), PolyBench's mvt (``x1 + A @ y1``,
``x2 + A.T @ y2``) and any code that takes both products of one matrix read it twice,
as NumPy does, and each product runs at memory speed: the matrix's second read is
half the time. Read once, each element of A does both multiply-adds while it is in a
register. Measured on a 2-core AVX-512 Xeon (median ms, the two helpers of
``ember-matvec-loops`` one after the other -> the pair): benchmarks/run.py's ``bicg``
(A 4000x5000 float64) 6.6 -> 3.5-4.3 (NumPy 7.2-7.6), the corpus's bicg (1900x2100)
1.01 -> 0.60 and mvt (2000x2000) 0.95 -> 0.60 (NumPy 0.99-1.05).

The helper is ``x @ A``'s (``matvec.py``): A's columns in blocks, at least one per
thread, eight rows at a time added into the block's part of ``s``, with the rows' dot
products with ``p``'s block in eight vector accumulators beside it. Each block's part
of a row's dot product is stored in a scratch row of partials; after the blocks, each
``q[i]`` gets its row's partials added, block after block, then added to it. So the
products equal NumPy's up to rounding, as the single helpers' do. Like ``linalg.matvec``
and ``linalg.vecmat`` the helper adds into ``q`` and ``s``: the zero fills before the
products stay, and ``x1 + A @ y1`` (a product into a copy of ``x1``) is the same call.

A pair is a ``linalg.matvec`` and a ``linalg.vecmat`` of one block, on the same matrix
value (``A.T @ y`` reaches here as a vecmat of A), whose outputs are memory of their
own (no input or other output shares their root buffer: ``A.T @ (A @ x)`` is not a
pair, its second product reads the first's output) and where nothing between them
touches the first's output or writes its inputs: the call takes the second's place.
Under the conditions of ``ember-matvec-loops`` (float32/float64, A's rows, ``p`` and
``s`` contiguous, checked at run time where the types do not say; A wide enough to
split its columns or small; no other BLAS work in the function), else both stay for
that pass or BLAS.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import add_functions, declarations, functions, ir, public_definitions
from compiler.passes.base import EmberPass
from compiler.passes.buffers import distinct_memory, root_buffer
from compiler.passes.loop_nest_fusion import pure
from compiler.passes.matvec import (
    COLUMN_TILE_BYTES,
    LANES,
    VECMAT_ROWS,
    checked_call,
    column_tiles,
    matrix_type,
    other_library_work,
    prelude,
    tile_block,
    unit_stride,
    vector_type,
)
from runtime.abi import POOL_PARTS

HELPER = "ember_matvec_pair_loops"


def helper_name(element: str) -> str:
    return f"{HELPER}_{element}"


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


def pair_text(element: str) -> str:
    """``q += A @ p`` and ``s += r @ A`` in one pass over A (see the module doc)."""
    mat, unit, strided = matrix_type(element), vector_type(element, True), vector_type(element, False)
    scratch = f"memref<?x?x{element}>"
    return f"""
func.func private @{POOL_PARTS}() -> i64
func.func private @{helper_name(element)}(%A: {mat}, %p: {unit}, %q: {strided}, %r: {strided}, %s: {unit}) {{
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
  scf.for %i = %c0 to %m step %c1 {{
    %first = memref.load %partials[%c0, %i] : {scratch}
    %total = scf.for %b = %c1 to %tiles step %c1 iter_args(%sum = %first) -> ({element}) {{
      %part = memref.load %partials[%b, %i] : {scratch}
      %more = arith.addf %sum, %part : {element}
      scf.yield %more : {element}
    }}
    %old = memref.load %q[%i] : {strided}
    %new = arith.addf %old, %total : {element}
    memref.store %new, %q[%i] : {strided}
  }}
  memref.dealloc %partials : {scratch}
  return
}}
"""


def library_text(element: str) -> str:
    """The helper of ``element`` as a library the CPU backend compiles once per process
    (``backends/llvm_cpu/helper_library.py``)."""
    return public_definitions(pair_text(element))


def entry_points(element: str) -> frozenset[str]:
    return frozenset([helper_name(element)])


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


def _pairs(fn) -> list:
    """``(matvec, vecmat, between-first-and-second)`` of ``fn`` that can become one call."""
    found, taken = [], set()
    for block_ops in _blocks(fn):
        for n, first in enumerate(block_ops):
            if first.name not in ("linalg.matvec", "linalg.vecmat") or first in taken:
                continue
            matrix = first.operands[0] if first.name == "linalg.matvec" else first.operands[1]
            other = "linalg.vecmat" if first.name == "linalg.matvec" else "linalg.matvec"
            for m, second in enumerate(block_ops[n + 1 :], start=n + 1):
                if second.name != other or second in taken:
                    continue
                mv, vm = (first, second) if first.name == "linalg.matvec" else (second, first)
                if (
                    mv.operands[0] != matrix
                    or vm.operands[1] != matrix
                    or _element(mv) is None
                    or _element(mv) != _element(vm)
                ):
                    continue
                if not _own_memory([mv.operands[2], vm.operands[2]], [matrix, mv.operands[1], vm.operands[0]]):
                    continue
                if not _movable_past(first, block_ops[n + 1 : m]):
                    continue
                if unit_stride(matrix)[1] or unit_stride(mv.operands[1])[1] or unit_stride(vm.operands[2])[1]:
                    continue
                found.append((mv, vm, second))
                taken |= {mv, vm}
                break
    return found


def _replace(mv, vm, second, element: str) -> None:
    """The pair becomes one call at ``second``'s place, behind a run-time check of what
    the types do not fix; both products stay as the other branch."""
    matrix, p, q = mv.operands
    r, _, s = vm.operands
    unit, strided = vector_type(element, True), vector_type(element, False)
    first = vm if second == mv else mv

    def fallback():
        first.clone(ip=ir.InsertionPoint.current)
        second.clone(ip=ir.InsertionPoint.current)

    with ir.InsertionPoint(second), second.location:
        types = (matrix_type(element), unit, strided, strided, unit)
        checked_call(helper_name(element), types, [matrix, p, q, r, s], [matrix, p, s], matrix, fallback)
    mv.erase()
    vm.erase()


@dataclass
class EmberMatvecPairs(EmberPass):
    """``A @ p`` and ``r @ A`` of one matrix as one helper call reading A once."""

    name = "ember-matvec-pairs"
    summary = "a linalg.matvec and a linalg.vecmat of one f32/f64 matrix -> one call of a helper reading it once"
    # as ember-matvec-loops: define the helper in the module (to read it), else declare it
    define_helpers: bool = False

    def run(self, module):
        found = []
        for fn in functions(module):
            pairs = _pairs(fn)
            if pairs and not other_library_work(fn, besides={op for mv, vm, _ in pairs for op in (mv, vm)}):
                found += pairs
        for element in sorted({_element(mv) for mv, _, _ in found}):
            text = pair_text(element)
            add_functions(module, text if self.define_helpers else declarations(text))
        for mv, vm, second in found:
            _replace(mv, vm, second, _element(mv))
