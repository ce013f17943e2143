"""Float matmuls and matrix-vector products as calls into BLAS (``ember-matmul-to-blas``).

After bufferization, every ``linalg.matmul``, ``linalg.matvec``, ``linalg.vecmat`` and
``linalg.dot`` on ``f32``/``f64`` buffers becomes a call to a small helper function (a
``linalg.batch_matmul`` or batched ``linalg.contract`` a loop of them, one per batch
entry, a parallel loop where the entries are small: ``_parallel_batch``; a stack of
rows times one matrix or vector one call over all rows), added once per element type
(their source: ``blas_library.py``), that asks BLAS's ``?gemm``, ``?gemv`` resp.
``?dot`` to do it (see ``runtime/blas_symbols.py`` for where the BLAS comes from).
Linalg accumulates into its output, which is ``alpha = beta = 1``; where Ember fills it
with zeros right before (every product it makes), the fill goes and ``beta = 0``.

The helpers read each operand's strides at run time. A matrix whose rows have unit
stride is row-major, one whose columns have unit stride is column-major (``x.T`` of
a row-major ``x``, as ``ember-to-linalg`` passes a transposed operand: a matmul with
transposed indexing maps, ``matvec`` of a transpose as ``vecmat``), each with its
other stride as leading dimension; the output's layout picks CBLAS's order and each
input's layout its transpose flag. Vectors pass their stride as increment (negative
ones too, as BLAS defines them). Anything else — an overlapping or broadcast stride,
a non-unit stride in both dims, an empty dimension — runs the original linalg op as
loops, so any NumPy view still works.

Matmuls are library calls, so ``ember-fuse`` and ``ember-tile`` leave them whole
(``linalg_utils.is_library_call``); their elementwise epilogues form their own loop nest.
Without a BLAS in the process the pass does nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import (
    add_functions,
    arith,
    collect,
    declarations,
    func,
    functions,
    ir,
    linalg,
    memref,
    operation_of,
    scf,
    symbol_name,
)
from compiler.passes import scalar_semantics as scalar
from compiler.passes.base import EmberPass
from compiler.passes.blas_library import (
    COMPLEX_PART,
    ELEMENTS,
    HELPER_NAMES,
    LAYOUT,
    SERIAL_MACS,
    generic_memref,
    helper_name,
    helper_text,
    rows_view_name,
    rows_view_text,
)
from compiler.passes.buffers import root_buffer
from compiler.passes.linalg_utils import indexing_maps, is_plus_zero
from compiler.passes.scf_loops import for_loop, if_then, inside_forall
from runtime import blas_symbols

# A batch of small products forks onto the pool from this many multiply-adds in all
# (the pool's hand-off costs about a microsecond; a 32 x 32 x 32 product about eight).
BATCH_MIN_MACS = 1 << 17
_OPS = ("linalg.matmul", "linalg.matvec", "linalg.vecmat", "linalg.batch_matmul", "linalg.dot")
# OpenBLAS computes a dot product of up to this many elements on the calling thread (its
# x86-64 ?dot kernels start threads only above it): such a dot wakes none of its threads.
SERIAL_DOT_MAX = 10_000


def serial_dot(op) -> bool:
    """A ``linalg.dot`` that BLAS runs on the calling thread: its length fixed and at most
    ``SERIAL_DOT_MAX`` (``np.linalg.norm(w)``, ``v @ A @ v``'s last product)."""
    if op.name != "linalg.dot":
        return False
    size = op.operands[0].type.shape[0]
    return size != ir.ShapedType.get_dynamic_size() and size <= SERIAL_DOT_MAX


def calls_threaded_library(fn) -> bool:
    """Whether ``fn`` calls BLAS or LAPACK (the helpers of this pass, or LAPACK's from
    ``ember-to-linalg``) outside an ``scf.forall``: work that runs on the library's own
    threads (``ember-matvec-loops`` then leaves the kernel's matrix-vector products to
    BLAS too; it asks about the products still to become calls itself)."""
    for op in collect(fn, lambda o: o.name == "func.call"):
        if inside_forall(op):
            continue  # one call per part, on the pool's threads (ember_gemm_rows_*)
        callee = ir.FlatSymbolRefAttr(op.attributes["callee"]).value
        if callee in HELPER_NAMES or callee.startswith("ember_lapack_"):
            return True
    return False


def _map_results(op) -> list[str]:
    """Each indexing map's results as text: ``"(d2, d0)"`` of ``(d0, d1, d2) -> (d2, d0)``."""
    maps = [str(m) for m in indexing_maps(op)]
    return [m.split("->")[1].strip() for m in maps]


_M, _N, _K = "d0", "d1", "d2"
_PLAIN_A, _TRANSPOSED_A = f"({_M}, {_K})", f"({_K}, {_M})"
_PLAIN_B, _TRANSPOSED_B = f"({_K}, {_N})", f"({_N}, {_K})"


def matmul_transposes(op) -> tuple[bool, bool] | None:
    """Whether a matmul reads A resp. B transposed; None for any other indexing."""
    if "indexing_maps" not in op.attributes:
        return False, False
    a, b, c = _map_results(op)
    if c != f"({_M}, {_N})" or a not in (_PLAIN_A, _TRANSPOSED_A) or b not in (_PLAIN_B, _TRANSPOSED_B):
        return None
    return a == _TRANSPOSED_A, b == _TRANSPOSED_B


def blas_op(op) -> bool:
    """A product this pass hands to BLAS (when the process has one)."""
    if op.name not in _OPS + ("linalg.generic", "linalg.contract") or not all(
        isinstance(v.type, ir.MemRefType) for v in op.operands
    ):
        return False
    elements = {str(v.type.element_type) for v in op.operands}
    if len(elements) != 1 or next(iter(elements)) not in ELEMENTS:
        return False
    if next(iter(elements)) in COMPLEX_PART and not _is_complex_gemm(op):
        return False
    if op.name == "linalg.generic":
        return _is_batched_generic(op)
    if op.name == "linalg.contract":
        return _is_batched(op) or rows_kind(op) is not None
    if op.name == "linalg.batch_matmul":  # the plain one (no transposing maps)
        plain = ["(d0, d1, d3)", "(d0, d3, d2)", "(d0, d1, d2)"]
        return "indexing_maps" not in op.attributes or _map_results(op) == plain
    return op.name != "linalg.matmul" or matmul_transposes(op) is not None


def _is_complex_gemm(op) -> bool:
    """The complex products that go to ``?gemm``: matrix times matrix, batched or not."""
    if op.name == "linalg.contract":
        return _is_batched(op) or rows_kind(op) == "matmul"
    return op.name in ("linalg.matmul", "linalg.batch_matmul") and matmul_transposes(op) is not None


def _add_helpers(module, element: str, define: bool) -> None:
    """Add the helpers of ``element`` (and the shared ones) not already in ``module``:
    their definitions, or (``define`` false) declarations of them, which the CPU backend
    links to its compiled helper library."""
    text = LAYOUT + helper_text(element)
    add_functions(module, text if define else declarations(text))


def _add_rows_helpers(module, ops) -> None:
    """The ``rows_view_text`` helpers the stacks of rows in ``ops`` need."""
    for op in ops:
        element = str(op.operands[0].type.element_type)
        kept_c = 1 if rows_kind(op) == "matmul" else 0
        for rank, kept in ((op.operands[0].type.rank, 1), (op.operands[2].type.rank, kept_c)):
            add_functions(module, rows_view_text(element, rank, kept))


def _as_generic(value, element: str, transpose: bool = False):
    rank = value.type.rank
    generic = ir.Type.parse(generic_memref(element, rank))
    cast = memref.cast(generic, value)
    if transpose:
        cast = memref.transpose(generic, cast, ir.AffineMap.get_permutation([1, 0]))
    return cast


def _entry_type(t) -> ir.MemRefType:
    """The 2-D view type of one batch entry of a batched memref (rank-reducing subview)."""
    t = ir.MemRefType(t)
    dynamic = ir.ShapedType.get_dynamic_size()
    if isinstance(t.layout, ir.StridedLayoutAttr):
        strides = list(t.layout.strides)[-2:]
    else:  # row-major
        strides = [t.shape[-1], 1]
    layout = ir.StridedLayoutAttr.get(dynamic, strides)
    return ir.MemRefType.get([dynamic, dynamic], t.element_type, layout=layout)


def _is_batched(op) -> bool:
    """Whether ``op``'s indexing is ``C[b.., m, n] += A[b.., m, k] * B[b.., k, n]`` (a
    ``linalg.contract``, which ``ember-to-linalg`` makes of ``a @ b`` with several batch
    dims, multiplies and adds by definition)."""
    if len(op.operands) != 3:
        return False
    loops = ir.AffineMapAttr(ir.ArrayAttr(op.attributes["indexing_maps"])[0]).value.n_dims
    batch = [f"d{i}" for i in range(loops - 3)]
    m, n, k = (f"d{i}" for i in range(loops - 3, loops))
    want = [(*batch, m, k), (*batch, k, n), (*batch, m, n)]
    return _map_results(op) == ["(" + ", ".join(w) + ")" for w in want]


def rows_kind(op) -> str | None:
    """``matmul`` for ``C[r.., n] += A[r.., k] * B[k, n]``, ``matvec`` for
    ``y[r..] += A[r.., k] * x[k]`` (a stack of rows times one matrix or vector, as
    ``ember-to-linalg`` makes it), None for any other ``linalg.contract``."""
    if len(op.operands) != 3:
        return None
    loops = ir.AffineMapAttr(ir.ArrayAttr(op.attributes["indexing_maps"])[0]).value.n_dims
    a, b, c = _map_results(op)
    k = f"d{loops - 1}"
    if b.count(",") == 1:  # B is (k, n)
        rows, n = [f"d{i}" for i in range(loops - 2)], f"d{loops - 2}"
        matmul = (a, b, c) == (f"({', '.join([*rows, k])})", f"({k}, {n})", f"({', '.join([*rows, n])})")
        return "matmul" if matmul else None
    rows = [f"d{i}" for i in range(loops - 1)]
    matvec = (a, b, c) == (f"({', '.join([*rows, k])})", f"({k})", f"({', '.join(rows)})")
    return "matvec" if matvec else None


def _is_batched_generic(op) -> bool:
    """A ``linalg.generic`` (on buffers of one BLAS type: ``blas_op``) that is a matmul
    over batch dims: ``C[b.., m, n] += A[b.., m, k] * B[b.., k, n]`` (what
    ``ember-to-linalg`` makes of ``a @ b`` with several batch dims)."""
    if not _is_batched(op):
        return False
    body = list(op.regions[0].blocks[0].operations)
    if [o.operation.name for o in body] != ["arith.mulf", "arith.addf", "linalg.yield"]:
        return False
    a, b, out = op.regions[0].blocks[0].arguments
    product, total = body[0].operation, body[1].operation
    return set(product.operands) == {a, b} and set(total.operands) == {out, product.results[0]}


def _parallel_batch(op) -> bool:
    """Whether a batched product's entries go to the worker pool: each one small enough
    that BLAS runs it on one thread (``SERIAL_MACS``, static sizes), together worth a
    fork (``BATCH_MIN_MACS``), and not already inside a parallel loop. Why: one
    ``?gemm`` after the other left the other cores idle (``np.matmul`` of 256 32 x 32
    float64 pairs ran as fast as NumPy's, which loops the same way)."""
    a, b, c = (ir.MemRefType(v.type).shape for v in op.operands)
    m, k, n = a[-2], a[-1], b[-1]
    batch = c[0]  # the extent of the loop that would be parallel (``_replace_batched``)
    if any(ir.ShapedType.is_dynamic_size(d) for d in (m, k, n, batch)) or inside_forall(op):
        return False
    macs = m * n * k
    return macs <= SERIAL_MACS and batch * macs >= BATCH_MIN_MACS and batch >= 2


def _replace_batched(op, beta) -> None:
    """A batched matmul (``batch_matmul``, or its generic over several batch dims): one
    ``?gemm`` per batch entry, on the entries' 2-D views; each call threaded by BLAS
    itself, or, for small entries (``_parallel_batch``), the first batch dim a parallel
    loop, each entry's call on one thread of the pool. Every entry is the same call
    either way: the bits do not depend on the threads."""
    element = str(op.operands[0].type.element_type)
    matrix = ir.Type.parse(generic_memref(element, 2))
    dynamic = ir.ShapedType.get_dynamic_size()
    rank = op.operands[2].type.rank
    parallel = _parallel_batch(op)
    with ir.InsertionPoint(op), op.location:

        def index(v):
            return arith.ConstantOp(ir.IndexType.get(), v).result

        def call(batch):
            views = []
            for v in op.operands:
                rows, cols = memref.dim(v, index(rank - 2)), memref.dim(v, index(rank - 1))
                offsets = [dynamic] * len(batch) + [0, 0]
                sizes = [1] * len(batch) + [dynamic, dynamic]
                view = memref.SubViewOp(_entry_type(v.type), v, batch, [rows, cols], [], offsets, sizes, [1] * rank)
                views.append(memref.cast(matrix, view.result))
            func.CallOp([], ir.FlatSymbolRefAttr.get(helper_name("matmul", element)), [*views, beta])

        def nest(batch):
            if len(batch) == rank - 2:
                call(batch)
                return
            extent = memref.dim(op.operands[2], index(len(batch)))
            if parallel and not batch:
                loop = scf.ForallOp([0], [extent], [1], [])
                with ir.InsertionPoint(loop.body):
                    nest([loop.induction_variables[0]])
                    scf.InParallelOp()
                return
            for_loop(index(0), extent, index(1), [], lambda b: nest([*batch, b]) or [])

        nest([])
    op.erase()


def zero_fill_before(op):
    """The ``linalg.fill`` of ``+0.0`` into ``op``'s output before ``op`` (how
    ``ember-to-linalg`` starts a product), with nothing between them touching the
    output's buffer (another product's fill and product may be), or None. The call
    then passes ``beta = 0`` and the fill goes: BLAS does not read C then, and the
    output is written once."""
    block_ops = [o.operation for o in op.operation.block.operations]
    output = op.operands[-1]
    root = root_buffer(output)
    fill = None
    for before in reversed(block_ops[: block_ops.index(op.operation)]):
        if before.name == "linalg.fill" and before.operands[1] == output:
            fill = before
            break
        # an op with a body (a loop) may touch anything, but a linalg op's operands say all it touches
        nested = len(before.regions) and not before.name.startswith("linalg.")
        if nested or any(root_buffer(v) == root for v in before.operands if isinstance(v.type, ir.MemRefType)):
            return None
    if fill is None:
        return None
    value = operation_of(fill.operands[0].owner)
    parts = list(value.operands) if value is not None and value.name == "complex.create" else [fill.operands[0]]
    return fill if all(is_plus_zero(p) for p in parts) else None


def _gram_kind(op, transposes, fill) -> str | None:
    """``"gram"`` for ``A.T @ A`` or ``A @ A.T`` into a zero-filled output: BLAS ``?syrk``
    computes one triangle (half gemm's flops, as NumPy does), the helper mirrors it into
    the other. ``"gram_add"`` when it adds to an initial value (``X.T @ X + lam * I``,
    whose ``lam * I`` is the product's init): mirroring in place would lose a
    non-symmetric init, so the product goes to scratch and is added, as NumPy adds it
    (on a (20000, 300) ``X``, 28 ms as ``?gemm``, 18 as ``?syrk``). Real only (the
    complex helpers have no ``?syrk``): a complex one stays ``?gemm``."""
    a, b, _ = op.operands
    real = str(a.type.element_type) not in COMPLEX_PART
    if not (real and a == b and transposes in ((True, False), (False, True))):
        return None
    return "gram" if fill is not None else "gram_add"


def _rows_view(value, element: str, kept: int):
    """``(evenly spaced, (rows, ...) view)`` of a stack of rows (``rows_view_text``)."""
    rank = value.type.rank
    generic = memref.cast(ir.Type.parse(generic_memref(element, rank)), value)
    result_types = [ir.IntegerType.get_signless(1), ir.Type.parse(generic_memref(element, 1 + kept))]
    return func.CallOp(result_types, ir.FlatSymbolRefAttr.get(rows_view_name(element, rank, kept)), [generic]).results


def _row_major_copy(value):
    """A new row-major buffer holding ``value`` (a ``linalg.copy``): its rows are evenly
    spaced whatever ``value``'s strides."""
    t = ir.MemRefType(value.type)
    index = ir.IndexType.get()
    sizes = [memref.dim(value, arith.constant(index, i)) for i in range(t.rank) if t.is_dynamic_dim(i)]
    copy = memref.alloc(ir.MemRefType.get(t.shape, t.element_type), sizes, [])
    linalg.copy(value, outs=[copy])
    return copy


def _replace_rows(op, kind: str, beta, fill) -> None:
    """A stack of rows times a matrix or vector: one ``?gemm``/``?gemv`` on the
    ``(rows, k)`` and ``(rows, n)`` views where the rows are evenly spaced (checked at run
    time by the ``rows_view_text`` helpers). Where A's are not (a transposed or windowed
    N-d view), the call reads a row-major copy of A, as NumPy's product copies it: the
    contraction as scalar loops had run (30752, 144) @ (144, 32) in 108 ms against
    NumPy's 4.7. Where the output's rows are not evenly spaced, the loops stay."""
    element = str(op.operands[0].type.element_type)
    a, b, c = op.operands
    c_kept = 1 if kind == "matmul" else 0
    helper = ir.FlatSymbolRefAttr.get(helper_name(kind, element))
    with ir.InsertionPoint(op), op.location:
        a_ok, a_rows = _rows_view(a, element, 1)
        c_ok, c_rows = _rows_view(c, element, c_kept)
        b_generic = _as_generic(b, element)

        def packed():
            copy = _row_major_copy(a)
            _, copy_rows = _rows_view(copy, element, 1)
            func.CallOp([], helper, [copy_rows, b_generic, c_rows, beta])
            memref.dealloc(copy)

        def loops():
            if fill is not None:
                fill.clone(ip=ir.InsertionPoint.current)
            op.clone(ip=ir.InsertionPoint.current)

        if_then(
            arith.andi(a_ok, c_ok),
            lambda: func.CallOp([], helper, [a_rows, b_generic, c_rows, beta]),
            lambda: if_then(c_ok, packed, loops),
        )
    op.erase()


def _replace(op) -> None:
    element = str(op.operands[0].type.element_type)
    fill = zero_fill_before(op)
    with ir.InsertionPoint(op), op.location:
        beta = scalar.const(element, 0.0 if fill is not None else 1.0)
    if op.name == "linalg.contract" and rows_kind(op) is not None:
        _replace_rows(op, rows_kind(op), beta, fill)
    elif op.name in ("linalg.batch_matmul", "linalg.generic", "linalg.contract"):
        _replace_batched(op, beta)
    else:
        kind = op.name.removeprefix("linalg.")
        transposes = matmul_transposes(op) if kind == "matmul" else (False, False)
        if kind == "matmul":
            kind = _gram_kind(op, transposes, fill) or kind
        with ir.InsertionPoint(op), op.location:
            args = [_as_generic(v, element, i < 2 and transposes[i]) for i, v in enumerate(op.operands)]
            func.CallOp([], ir.FlatSymbolRefAttr.get(helper_name(kind, element)), [*args, beta])
        op.erase()
    if fill is not None:
        fill.erase()


@dataclass
class EmberMatmulToBlas(EmberPass):
    """Float matmuls and matrix-vector products on buffers call BLAS ``?gemm``/``?gemv``
    (with a loop fallback for strides BLAS cannot take)."""

    name = "ember-matmul-to-blas"
    summary = (
        "f32/f64 linalg.matmul/matvec/vecmat/batch_matmul on memrefs -> BLAS gemm/gemv calls "
        "(transposed operands by flag), checked at run time, loops otherwise"
    )
    force: bool = False  # emit the calls even if this process has no BLAS (for tests of the IR)
    # Put the helpers' definitions into the module (to read them, or to compile the module
    # on its own); by default it declares them, and the CPU backend links the helper
    # library it compiles once per process instead of compiling them into every kernel.
    define_helpers: bool = False

    def run(self, module):
        if not (self.force or blas_symbols.available()):
            return
        found = [
            op
            for fn in functions(module)
            if symbol_name(fn) not in HELPER_NAMES  # their loop fallbacks stay loops
            for op in collect(fn, blas_op)
        ]
        for element in sorted({str(op.operands[0].type.element_type) for op in found}):
            _add_helpers(module, element, self.define_helpers)
        _add_rows_helpers(module, [op for op in found if op.name == "linalg.contract" and rows_kind(op)])
        for op in found:
            _replace(op)
