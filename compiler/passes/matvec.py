"""Matrix-vector products as Ember's own loops (``ember-matvec-loops``).

A matrix-vector product reads each matrix element once and does one multiply-add
with it: it runs at memory speed, whatever the library. What decides the speed is how
the matrix streams through the caches, and there OpenBLAS's ``dgemv`` leaves time on
the table. Measured with ``benchmarks/run.py`` on a 2-core AVX-512 Xeon, A 4000x5000
float64: ``A @ x`` 3.48 ms with NumPy's OpenBLAS, 2.95 ms with torch's MKL, 2.70 ms as
the loops below; ``y @ A`` 3.42, 3.15 and 2.94 ms. The loops run on Ember's worker pool
(``ember-fork-loops``) between the kernel's other work, with no second thread pool.

After bufferization, each float32/float64 ``linalg.matvec`` (``A @ x``) and
``linalg.vecmat`` (``x @ A``, and ``A.T @ y``, which ``ember-to-linalg`` passes as a
vecmat of the untransposed A) into a zero-filled output becomes a call of a helper,
when A's rows are contiguous (unit stride along them; checked at run time when the
type does not say, the product left to BLAS otherwise). The helpers are a library the
CPU backend compiles once per process (``helper_library.py``), as the BLAS helpers are:

* ``A @ x``: an ``scf.forall`` over blocks of 16 rows; eight rows at a time, one vector
  accumulator each, the vector of ``x`` loaded once for the eight, and each row's data
  512 bytes ahead prefetched (a row is a stream the hardware prefetcher picks up again at
  every 4 KiB page; a software prefetch keeps it ahead). Each row's sum is its
  accumulator's lanes added, then the columns past the last full vector. On a 2-core
  Zen 3, one thread, Ember's time over OpenBLAS's call by call: 0.87-0.90 prefetching
  512 bytes ahead, 1.07-1.09 at 1 KiB, 1.10-1.16 at 2 KiB (the A @ x and (A @ x) @ A
  pair loops likewise, 0.58-0.62 against 0.63-0.66). Eight rows rather than four, on a
  Zen 4 alternating processes: 1000x1000 float64 0.056 -> 0.051 ms, 100000x40 float32
  0.182 -> 0.170 ms, 4000x5000 (memory-bound) within noise.
* ``x @ A``: an ``scf.forall`` over blocks of about 20 KiB of columns, at least one per
  thread when A is large (``ember_pool_threads``: blocks of 64 columns or more), the
  columns dealt evenly to the blocks (a block's part of each row is a long stream, and
  its part of ``y`` stays in the L1 cache; blocks of 4 KiB ran 10 % slower); eight rows
  at a time add ``x[i] * A[i, cols]`` into the block's vectors of ``y`` (four: 5-10 %
  slower, each vector of ``y`` loaded and stored twice as often), the next eight rows'
  lines prefetched. A tall, narrow A (under 128 columns, 384 KiB or more) stays
  with BLAS, which splits its rows across threads: the columns cannot be split.

On a Zen 4 the CPU backend compiles the helpers without their prefetches
(``helper_library.UNPREFETCHED_CPUS``: they cost time there); the pass's
``define-helpers`` output keeps them.

The sums are in another order than BLAS's (each vector lane sums its own columns,
then the lanes are added), so results equal NumPy's up to rounding.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import add_functions, arith, collect, declarations, func, functions, ir, memref, public_definitions
from compiler.passes.base import EmberPass
from compiler.passes.blas import blas_op, calls_threaded_library, serial_dot, zero_fill_before
from compiler.passes.scf_loops import if_then
from runtime.abi import POOL_THREADS
from runtime.threads import PARALLEL_MIN_BYTES

LANES = {"f32": 16, "f64": 8}  # one 64-byte vector
BYTES = {"f32": 4, "f64": 8}
ROWS_PER_TILE = 16
MATVEC_ROWS = 8  # rows whose dot products one pass over x computes (see the module doc)
VECMAT_ROWS = 8  # rows added into a column block's y per pass over it (4: 5-10 % slower)
PREFETCH_BYTES = 512  # (2 KiB: 5-20 % slower on a Zen 3, one thread and two)
COLUMN_TILE_BYTES = 20480
MIN_COLUMNS = 64  # a narrower column block is not worth a thread
SPLIT_MIN_BYTES = PARALLEL_MIN_BYTES  # a smaller matrix runs its columns on one thread


def matrix_type(element: str) -> str:
    return f"memref<?x?x{element}, strided<[?, 1], offset: ?>>"


def vector_type(element: str, unit: bool) -> str:
    return f"memref<?x{element}, strided<[{1 if unit else '?'}], offset: ?>>"


def helper_name(kind: str, element: str) -> str:
    return f"ember_{kind}_loops_{element}"


def matvec_rows(element: str, rows: int) -> str:
    """The body handling ``rows`` rows from ``%r``: their dot products with ``x`` into ``y``."""
    lanes = LANES[element]
    vec = f"vector<{lanes}x{element}>"
    mat = matrix_type(element)
    r = [f"%r{k}" for k in range(rows)]
    lines = ["      %r0 = arith.addi %r, %c0 : index"]
    lines += [f"      %r{k} = arith.addi %r, %c{k} : index" for k in range(1, rows)]
    accs = ", ".join(f"%a{k} = %vzero" for k in range(rows))
    types = ", ".join([vec] * rows)
    lines.append(f"      %acc:{rows} = scf.for %j = %c0 to %nv step %cV iter_args({accs}) -> ({types}) {{")
    lines.append("        %ahead = arith.addi %j, %cPF : index")
    lines.append("        %p = arith.minui %ahead, %last : index")
    lines.append(f"        %xv = vector.load %x[%j] : {vector_type(element, True)}, {vec}")
    for k in range(rows):
        lines.append(f"        memref.prefetch %A[{r[k]}, %p], read, locality<3>, data : {mat}")
        lines.append(f"        %v{k} = vector.load %A[{r[k]}, %j] : {mat}, {vec}")
        lines.append(f"        %n{k} = vector.fma %v{k}, %xv, %a{k} : {vec}")
    lines.append(f"        scf.yield {', '.join(f'%n{k}' for k in range(rows))} : {types}")
    lines.append("      }")
    for k in range(rows):
        lines.append(f"      %s{k} = vector.reduction <add>, %acc#{k} fastmath<reassoc> : {vec} into {element}")
    sums = ", ".join(f"%t{k} = %s{k}" for k in range(rows))
    scalars = ", ".join([element] * rows)
    lines.append(f"      %tail:{rows} = scf.for %j = %nv to %n step %c1 iter_args({sums}) -> ({scalars}) {{")
    lines.append(f"        %xj = memref.load %x[%j] : {vector_type(element, True)}")
    for k in range(rows):
        lines.append(f"        %e{k} = memref.load %A[{r[k]}, %j] : {mat}")
        lines.append(f"        %u{k} = math.fma %e{k}, %xj, %t{k} : {element}")
    lines.append(f"        scf.yield {', '.join(f'%u{k}' for k in range(rows))} : {scalars}")
    lines.append("      }")
    for k in range(rows):
        lines.append(f"      memref.store %tail#{k}, %y[{r[k]}] : {vector_type(element, False)}")
    return "\n".join(lines)


def prelude(element: str) -> str:
    """What both helpers start with: index constants, a zero vector, A's sizes."""
    lanes, mat = LANES[element], matrix_type(element)
    constants = "\n".join(
        f"  %c{k} = arith.constant {k} : index" for k in range(max(5, VECMAT_ROWS + 1, MATVEC_ROWS + 1))
    )
    return f"""{constants}
  %cV = arith.constant {lanes} : index
  %vzero = arith.constant dense<0.0> : vector<{lanes}x{element}>
  %m = memref.dim %A, %c0 : {mat}
  %n = memref.dim %A, %c1 : {mat}"""


def tile_block(name: str, size: str, limit: str, multiple: str) -> str:
    """Tile ``%t``'s block of rows or columns: ``%<name>_first`` to ``%<name>_stop``
    (``size`` long, clipped at ``limit``), and ``%<name>_full``, where its part made of
    whole groups of ``multiple`` ends."""
    return f"""    %{name}_first = arith.muli %t, {size} : index
    %{name}_end = arith.addi %{name}_first, {size} : index
    %{name}_stop = arith.minui %{name}_end, {limit} : index
    %{name}_count = arith.subi %{name}_stop, %{name}_first : index
    %{name}_rem = arith.remui %{name}_count, {multiple} : index
    %{name}_full = arith.subi %{name}_stop, %{name}_rem : index"""


def matvec_text(element: str) -> str:
    """``y = A @ x`` for A with contiguous rows and a contiguous ``x`` (see the module doc)."""
    mat = matrix_type(element)
    return f"""
func.func private @{helper_name("matvec", element)}(%A: {mat}, %x: {vector_type(element, True)}, %y: {vector_type(element, False)}) {{
{prelude(element)}
  %cPF = arith.constant {PREFETCH_BYTES // BYTES[element]} : index
  %cRB = arith.constant {ROWS_PER_TILE} : index
  %nrem = arith.remui %n, %cV : index
  %nv = arith.subi %n, %nrem : index
  %last = arith.subi %n, %c1 : index
  %tiles = arith.ceildivui %m, %cRB : index
  scf.forall (%t) in (%tiles) {{
{tile_block("rows", "%cRB", "%m", f"%c{MATVEC_ROWS}")}
    scf.for %r = %rows_first to %rows_full step %c{MATVEC_ROWS} {{
{matvec_rows(element, MATVEC_ROWS)}
    }}
    scf.for %r = %rows_full to %rows_stop step %c1 {{
{matvec_rows(element, 1)}
    }}
  }}
  return
}}
"""


def vecmat_rows(element: str, rows: int, x: str = "%x", y: str = "%y") -> str:
    """The body adding rows ``%i..`` times their ``x`` into the column block's ``y``."""
    lanes = LANES[element]
    vec = f"vector<{lanes}x{element}>"
    mat = matrix_type(element)
    lines = [f"      %i{k} = arith.addi %i, %c{k} : index" for k in range(rows)]
    for k in range(rows):
        lines.append(f"      %w{k} = memref.load {x}[%i{k}] : {vector_type(element, False)}")
        lines.append(f"      %b{k} = vector.broadcast %w{k} : {element} to {vec}")
        lines.append(f"      %ahead{k} = arith.addi %i{k}, %c{rows} : index")
        lines.append(f"      %q{k} = arith.minui %ahead{k}, %mlast : index")
    lines.append("      scf.for %j = %cols_first to %cols_full step %cV {")
    lines.append(f"        %yv = vector.load {y}[%j] : {vector_type(element, True)}, {vec}")
    last = "%yv"
    for k in range(rows):
        lines.append(f"        memref.prefetch %A[%q{k}, %j], read, locality<3>, data : {mat}")
        lines.append(f"        %v{k} = vector.load %A[%i{k}, %j] : {mat}, {vec}")
        lines.append(f"        %y{k} = vector.fma %v{k}, %b{k}, {last} : {vec}")
        last = f"%y{k}"
    lines.append(f"        vector.store {last}, {y}[%j] : {vector_type(element, True)}, {vec}")
    lines.append("      }")
    lines.append("      scf.for %j = %cols_full to %cols_stop step %c1 {")
    lines.append(f"        %yj = memref.load {y}[%j] : {vector_type(element, True)}")
    last = "%yj"
    for k in range(rows):
        lines.append(f"        %e{k} = memref.load %A[%i{k}, %j] : {mat}")
        lines.append(f"        %z{k} = math.fma %e{k}, %w{k}, {last} : {element}")
        last = f"%z{k}"
    lines.append(f"        memref.store {last}, {y}[%j] : {vector_type(element, True)}")
    lines.append("      }")
    return "\n".join(lines)


def parts_wanted(most: str) -> str:
    """``%wanted``: the pool's threads (``ember_pool_threads``), at most ``most``, when A has
    ``%cBig`` elements or more; else 1 (a small A is not worth a second thread)."""
    return f"""  %parts64 = func.call @{POOL_THREADS}() : () -> i64
  %parts = arith.index_cast %parts64 : i64 to index
  %shared = arith.minui %parts, {most} : index
  %mn = arith.muli %m, %n : index
  %big = arith.cmpi uge, %mn, %cBig : index
  %wanted = arith.select %big, %shared, %c1 : index"""


def column_tiles(element: str, block_bytes: int) -> str:
    """How ``x @ A``'s helpers split A's columns: ``%tiles`` blocks of ``%width0``
    columns (a multiple of the vector), about ``block_bytes`` of a row each, at least one
    per thread when A is large (see the module doc); ``%mfull`` rows in whole groups of
    ``VECMAT_ROWS``, ``%mlast`` the last row (for the prefetches)."""
    return f"""  %cCB = arith.constant {block_bytes // BYTES[element]} : index
  %cNB = arith.constant {MIN_COLUMNS} : index
  %cBig = arith.constant {SPLIT_MIN_BYTES // BYTES[element]} : index
  %zero = arith.constant 0.0 : {element}
  %mlast0 = arith.subi %m, %c1 : index
  %mlast = arith.maxsi %mlast0, %c0 : index
  %mrem = arith.remui %m, %c{VECMAT_ROWS} : index
  %mfull = arith.subi %m, %mrem : index
  %blocks = arith.ceildivui %n, %cCB : index
  %narrow = arith.ceildivui %n, %cNB : index
{parts_wanted("%narrow")}
  %tiles = arith.maxui %blocks, %wanted : index
  %some = arith.maxui %tiles, %c1 : index
  %even = arith.ceildivui %n, %some : index
  %vectors = arith.ceildivui %even, %cV : index
  %width0 = arith.muli %vectors, %cV : index"""


def zero_columns(element: str, y: str) -> str:
    """The column block's part of ``y`` (``%cols_first`` to ``%cols_stop``) zeroed."""
    vec = f"vector<{LANES[element]}x{element}>"
    return f"""    scf.for %j = %cols_first to %cols_full step %cV {{
      vector.store %vzero, {y}[%j] : {vector_type(element, True)}, {vec}
    }}
    scf.for %j = %cols_full to %cols_stop step %c1 {{
      memref.store %zero, {y}[%j] : {vector_type(element, True)}
    }}"""


def vecmat_text(element: str) -> str:
    """``y = x @ A`` for A with contiguous rows and a contiguous ``y`` (see the module doc)."""
    mat = matrix_type(element)
    return f"""
func.func private @{POOL_THREADS}() -> i64
func.func private @{helper_name("vecmat", element)}(%x: {vector_type(element, False)}, %A: {mat}, %y: {vector_type(element, True)}) {{
{prelude(element)}
{column_tiles(element, COLUMN_TILE_BYTES)}
  scf.forall (%t) in (%tiles) {{
{tile_block("cols", "%width0", "%n", "%cV")}
{zero_columns(element, "%y")}
    scf.for %i = %c0 to %mfull step %c{VECMAT_ROWS} {{
{vecmat_rows(element, VECMAT_ROWS)}
    }}
    scf.for %i = %mfull to %m step %c1 {{
{vecmat_rows(element, 1)}
    }}
  }}
  return
}}
"""


_KINDS = {
    "linalg.matvec": ("matvec", (0, 1)),  # A @ x: A's rows and x contiguous
    "linalg.vecmat": ("vecmat", (1, 2)),  # x @ A: A's rows and y contiguous
}


def unit_stride(value) -> tuple[bool, bool]:
    """(whether the type says the last dim has unit stride, whether it says it has not)."""
    strides, _ = value.type.get_strides_and_offset()
    last = strides[-1]
    dynamic = ir.ShapedType.get_dynamic_stride_or_offset()
    return last == 1, last not in (1, dynamic)


def _target(op):
    """``(kind, element)`` of a product this pass replaces, else None."""
    if op.name not in _KINDS or not all(isinstance(v.type, ir.MemRefType) for v in op.operands):
        return None
    elements = {str(v.type.element_type) for v in op.operands}
    if len(elements) != 1 or next(iter(elements)) not in LANES:
        return None
    kind, contiguous = _KINDS[op.name]
    if any(unit_stride(op.operands[i])[1] for i in contiguous) or zero_fill_before(op) is None:
        return None
    if kind == "vecmat" and _narrow(op.operands[1]):
        return None
    return kind, next(iter(elements))


def _narrow(matrix) -> bool:
    """A tall matrix too narrow for ``x @ A``'s column split (see ``_wide_or_small``),
    by its static shape."""
    rows, cols = matrix.type.shape
    limit = SPLIT_MIN_BYTES // BYTES[str(matrix.type.element_type)]
    dynamic = ir.ShapedType.get_dynamic_size()
    return dynamic not in (rows, cols) and cols < 2 * MIN_COLUMNS and rows * cols >= limit


def checked_call(name: str, types, values, contiguous, split, fallback, extra=None) -> None:
    """At the insertion point: a call of the helper ``name`` with ``values`` cast to
    ``types``, behind a run-time check of what the types do not fix (that each of
    ``contiguous`` has unit stride; that ``split``, a matrix whose columns the helper
    splits, is wide or small: None when it splits none; ``extra``, a condition of the
    caller's, when not None); ``fallback()`` builds the other branch."""
    element = str(values[0].type.element_type)
    checks = [_stride_is_one(v) for v in contiguous if not unit_stride(v)[0]]
    if split is not None and (wide := _wide_or_small(split, element)) is not None:
        checks.append(wide)
    if extra is not None:
        checks.append(extra)

    def call():
        casts = [_cast(ir.Type.parse(t), v) for t, v in zip(types, values, strict=True)]
        func.CallOp([], ir.FlatSymbolRefAttr.get(name), casts)

    if not checks:
        call()
        return
    ok = checks[0]
    for check in checks[1:]:
        ok = arith.andi(ok, check)
    if_then(ok, call, fallback)


def _cast(to: ir.Type, value):
    """A buffer cast to the helper's parameter type; any other value as it is."""
    return memref.cast(to, value) if isinstance(value.type, ir.MemRefType) else value


def _replace(op, kind: str, element: str) -> None:
    """The zero fill and the op become a call of the helper, behind a run-time check of
    what the types do not fix (the strides; for ``x @ A`` that A is wide or small); the
    fill and the op stay as the other branch."""
    fill = zero_fill_before(op)
    _, contiguous = _KINDS[op.name]
    types = {
        "matvec": (matrix_type(element), vector_type(element, True), vector_type(element, False)),
        "vecmat": (vector_type(element, False), matrix_type(element), vector_type(element, True)),
    }[kind]

    def fallback():
        fill.clone(ip=ir.InsertionPoint.current)
        op.clone(ip=ir.InsertionPoint.current)

    with ir.InsertionPoint(op), op.location:
        split = op.operands[1] if kind == "vecmat" else None
        checked_call(
            helper_name(kind, element), types, list(op.operands), [op.operands[i] for i in contiguous], split, fallback
        )
    op.erase()
    fill.erase()


def other_library_work(fn, besides=frozenset()) -> bool:
    """Whether ``fn`` also has a product for BLAS or a LAPACK call (``besides`` those
    ops): then its matrix-vector products go to BLAS too, whose threads, spinning after
    each call, would otherwise compete with the loops' for the whole of each product. A
    short dot product does not count: BLAS runs it on the calling thread."""
    products = [op for op in collect(fn, blas_op) if op not in besides and not serial_dot(op)]
    return any(_target(op) is None for op in products) or calls_threaded_library(fn)


def _wide_or_small(matrix, element: str):
    """``x @ A``'s loops split A's columns across threads; a tall, narrow A (``X.T @ r``
    with X of 20000 x 32) would run on one thread, where BLAS splits its rows. So the
    loops take A when it has at least ``2 * MIN_COLUMNS`` columns or fits one thread
    anyway: ``cols >= 128 or rows * cols < SPLIT_MIN_BYTES / itemsize``, folded to None
    (always) when the static shape says so, else the condition, read at run time."""
    rows, cols = matrix.type.shape
    limit = SPLIT_MIN_BYTES // BYTES[element]
    dynamic = ir.ShapedType.get_dynamic_size()
    if dynamic not in (rows, cols):
        return None  # _target took it: it is wide or small
    index = ir.IndexType.get()
    m, n = (memref.dim(matrix, arith.constant(index, k)) for k in (0, 1))
    wide = arith.cmpi(arith.CmpIPredicate.uge, n, arith.constant(index, 2 * MIN_COLUMNS))
    small = arith.cmpi(arith.CmpIPredicate.ult, arith.muli(m, n), arith.constant(index, limit))
    return arith.ori(wide, small)


def _stride_is_one(value):
    """``stride(value, last dim) == 1``, read at run time."""
    rank = value.type.rank
    metadata = memref.ExtractStridedMetadataOp(value)
    stride = metadata.results[2 + 2 * rank - 1]
    one = arith.constant(ir.IndexType.get(), 1)
    return arith.cmpi(arith.CmpIPredicate.eq, stride, one)


ELEMENTS = tuple(LANES)


def library_text(element: str) -> str:
    """Both helpers of ``element`` as a library of public definitions, which the CPU
    backend compiles once per process (``backends/llvm_cpu/helper_library.py``)."""
    return public_definitions(matvec_text(element) + vecmat_text(element))


def entry_points(element: str) -> frozenset[str]:
    return frozenset(helper_name(kind, element) for kind in ("matvec", "vecmat"))


@dataclass
class EmberMatvecLoops(EmberPass):
    """Float matrix-vector products with contiguous rows as Ember's own parallel loops."""

    name = "ember-matvec-loops"
    summary = "f32/f64 linalg.matvec/vecmat into zeros -> calls of vector-loop helpers with prefetches"
    # Put the helpers' definitions into the module (to read them, or to compile the module
    # on its own); by default it declares them and the CPU backend links its helper library.
    define_helpers: bool = False

    def run(self, module):
        found = []
        for fn in functions(module):
            if not other_library_work(fn):  # asked once per function, not per product
                found += [(op, _target(op)) for op in collect(fn, _target)]
        for element in sorted({element for _, (_, element) in found}):
            text = matvec_text(element) + vecmat_text(element)
            add_functions(module, text if self.define_helpers else declarations(text))
        for op, (kind, element) in found:
            _replace(op, kind, element)
