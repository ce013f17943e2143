"""``X.T @ X`` as one triangle on Ember's packed kernel, then mirrored (``ember-gram-loops``).

Why: NumPy hands ``X.T @ X`` to BLAS ``?syrk``, which computes one triangle (half of
gemm's multiply-adds), and so did Ember. In a kernel that also runs loops of its own
(centring the data before a covariance, scaling after) OpenBLAS's threads, spinning
for about 0.1 s after each call, compete with Ember's pool for the two cores. With the
product on the pool too, measured on a 2-core Zen 4 (the corpus, ms, two runs each,
``?syrk`` -> this helper): covariance of (3000, 500) data 14.2-15.2 -> 10.5-13.2,
correlation 17.8-18.5 -> 12.6-14.6. Alone it is level with OpenBLAS's ``dsyrk``:
``A.T @ A`` of a (1000, 800) float64 ``A``, best of 60 calls interleaved in one
process, 14.3 / 14.4 ms on one thread, 8.6-8.9 / 8.7-9.2 on two.

The helper runs ``ember-gemm-loops``'s micro-kernel (``gemm.py``: packed panels of A
and B, an ``mr x nr`` tile of C in registers) with three differences:

* A is ``X.T``: a panel of A's rows is ``mr`` columns of X, packed from X's rows (each
  step of k reads ``mr`` neighbouring elements of one row of X, stored k-major);
* a tile wholly below the diagonal (``col0 + nr <= row0``) is skipped, and B is packed
  from the first column a chunk of row panels needs;
* the parts split the row panels so that each has the same share of the triangle's
  tiles (part ``t`` starts at ``panels * (1 - sqrt(1 - t / parts))``), not the same
  number of rows.

A second parallel loop then copies the upper triangle into the lower one, in blocks of
``MIRROR`` x ``MIRROR`` (both in the L1 cache). ``C[i, j]`` and ``C[j, i]`` sum the same
products in the same order (multiplication commutes exactly), so the result is
symmetric to the bit, as NumPy's is. Sums are reordered against NumPy's as in
``ember-gemm-loops``.

Only with 512-bit vectors (AVX-512), where it was measured; elsewhere the product stays
``?syrk``. Float32 and float64; ``X`` with contiguous rows (checked at run time), the
product into zeros (``X.T @ X + lam * I`` adds to its init: ``?syrk`` into scratch).
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace

from compiler.mlir import add_functions, arith, collect, declarations, functions, ir, memref, public_definitions
from compiler.passes.base import EmberPass, PassFailure
from compiler.passes.blas import matmul_transposes, zero_fill_before
from compiler.passes.gemm import (
    GEOMETRIES,
    MIN_MACS,
    SPLIT_MACS,
    Geometry,
    accumulate_lines,
    block_loops,
    constants_text,
    host_vector_bits,
    mat_type,
    store_tile_lines,
)
from compiler.passes.matvec import checked_call, other_library_work, unit_stride
from runtime.abi import POOL_THREADS

MIRROR = 32  # rows and columns of a block the mirror copies
# X.T @ X of n * n * k multiply-adds goes to the helper above this many: it computes
# half of them, so the same rule as ember-gemm-loops' MIN_MACS.
PRODUCT_MIN_MACS = 2 * MIN_MACS

# The blocking per element type: ember-gemm-loops' 512-bit one, A's panels k-major;
# float64's tile is 6 x 32 (24 registers of 8 lanes), B's block half as many columns
# (the same bytes).
_FLOAT32 = replace(GEOMETRIES[512], k_major_a=True)
GRAM_GEOMETRIES = {
    "f32": _FLOAT32,
    "f64": replace(_FLOAT32, element="f64", lanes=_FLOAT32.lanes // 2, nb=_FLOAT32.nb // 2),
}
ELEMENTS = tuple(GRAM_GEOMETRIES)


def helper_name(element: str) -> str:
    return f"ember_gram_loops_{element}"


def _pack_transposed_a(g: Geometry) -> str:
    """Panels ``%pch`` to ``%pche`` of A = X.T, k from ``%pc``, into ``%Ap``, k-major:
    for each k, a panel's ``mr`` rows of A are ``mr`` neighbouring elements of one row
    of X, copied as one vector (zeros past A's last row, in the last panel). The loop
    over k is outside the loop over panels, so the copies run along each row of X in
    order. Panel by panel (k inside), they went down X's columns, a cache line from the
    L3 cache per step of k: 1.5 of 15 ms on one thread, (1000, 800) float64."""
    run = f"vector<{g.mr}x{g.element}>"
    return f"""        scf.for %kk = %c0 to %kc step %c1 {{
          %kx = arith.addi %pc, %kk : index
          %kbase = arith.muli %kk, %c{g.mr} : index
          scf.for %pa = %pch to %pche step %c1 {{
            %pl = arith.subi %pa, %pch : index
            %abase = arith.muli %pl, %pstride : index
            %at = arith.addi %abase, %kbase : index
            %rowp = arith.muli %pa, %c{g.mr} : index
            %panel_end = arith.addi %rowp, %c{g.mr} : index
            %whole = arith.cmpi ule, %panel_end, %m : index
            scf.if %whole {{
              %v = vector.load %B[%kx, %rowp] : {g.mat}, {run}
              vector.store %v, %Ap[%at] : {g.a_pack}, {run}
            }} else {{
              scf.for %r = %c0 to %c{g.mr} step %c1 {{
                %row = arith.addi %rowp, %r : index
                %in_a = arith.cmpi ult, %row, %m : index
                %e = scf.if %in_a -> ({g.element}) {{
                  %x = memref.load %B[%kx, %row] : {g.mat}
                  scf.yield %x : {g.element}
                }} else {{
                  scf.yield %zero : {g.element}
                }}
                %ar = arith.addi %at, %r : index
                memref.store %e, %Ap[%ar] : {g.a_pack}
              }}
            }}
          }}
        }}"""


def _part_start(name: str, t: str) -> str:
    """``%<name>``: the first row panel of part ``t``, ``panels * (1 - sqrt(1 - t / parts))``
    rounded (the triangle's rows above it hold ``t / parts`` of its tiles)."""
    return f"""    %{name}_i = arith.index_cast {t} : index to i64
    %{name}_f = arith.uitofp %{name}_i : i64 to f64
    %{name}_share = arith.divf %{name}_f, %parts_f : f64
    %{name}_rest = arith.subf %one, %{name}_share : f64
    %{name}_root = math.sqrt %{name}_rest : f64
    %{name}_above = arith.subf %one, %{name}_root : f64
    %{name}_exact = arith.mulf %{name}_above, %panels_f : f64
    %{name}_round = arith.addf %{name}_exact, %half : f64
    %{name}_r = arith.fptoui %{name}_round : f64 to i64
    %{name}_x = arith.index_cast %{name}_r : i64 to index
    %{name} = arith.minui %{name}_x, %panels : index"""


def _mirror(g: Geometry) -> str:
    """``C[i, j] = C[j, i]`` below the diagonal, a block row of ``MIRROR`` rows a part."""
    return f"""  %blocks = arith.ceildivui %n, %mirror : index
  scf.forall (%bi) in (%blocks) {{
    %i0 = arith.muli %bi, %mirror : index
    %i1e = arith.addi %i0, %mirror : index
    %i1 = arith.minui %i1e, %n : index
    %bj_end = arith.addi %bi, %c1 : index
    scf.for %bj = %c0 to %bj_end step %c1 {{
      %j0 = arith.muli %bj, %mirror : index
      %j1e = arith.addi %j0, %mirror : index
      %j1 = arith.minui %j1e, %n : index
      scf.for %i = %i0 to %i1 step %c1 {{
        %jend = arith.minui %j1, %i : index
        scf.for %j = %j0 to %jend step %c1 {{
          %v = memref.load %C[%j, %i] : {g.mat}
          memref.store %v, %C[%i, %j] : {g.mat}
        }}
      }}
    }}
  }}"""


def _diagonal_column(g: Geometry) -> str:
    """``%col_lo``: the chunk's first column panel, the one holding its first row's
    diagonal element (the panels left of it are below the diagonal for every row of
    the chunk)."""
    return f"""      %chunk_row = arith.muli %pch, %c{g.mr} : index
      %diagonal_panel = arith.divui %chunk_row, %c{g.nr} : index
      %col_lo = arith.muli %diagonal_panel, %c{g.nr} : index"""


def gram_text(g: Geometry) -> str:
    """``C = X.T @ X`` for X with contiguous rows (see the module doc)."""
    kernel = "\n".join(f"  {line}" for line in accumulate_lines(g) + store_tile_lines(g, bias=False))
    reaching = f"""              %tile_end = arith.addi %col0, %c{g.nr} : index
              %reaches = arith.cmpi ugt, %tile_end, %row0 : index
              scf.if %reaches {{
{kernel}
              }}"""
    return f"""
func.func private @{helper_name(g.element)}(%B: {g.mat}, %C: {g.mat}) {{
{constants_text(g)}
  %cSplit = arith.constant {2 * SPLIT_MACS} : index
  %mirror = arith.constant {MIRROR} : index
  %zero = arith.constant 0.0 : {g.element}
  %one = arith.constant 1.0 : f64
  %half = arith.constant 0.5 : f64
  %k = memref.dim %B, %c0 : {g.mat}
  %n = memref.dim %B, %c1 : {g.mat}
  // C is n x n; %m, its rows, is what the micro-kernel's edge checks name them
  %m = memref.dim %B, %c1 : {g.mat}
  %panels = arith.ceildivui %n, %c{g.mr} : index
  %panels_i = arith.index_cast %panels : index to i64
  %panels_f = arith.uitofp %panels_i : i64 to f64
  %threads64 = func.call @{POOL_THREADS}() : () -> i64
  %threads = arith.index_cast %threads64 : i64 to index
  %nn = arith.muli %n, %n : index
  %nnk = arith.muli %nn, %k : index
  %big = arith.cmpi uge, %nnk, %cSplit : index
  %parts = arith.select %big, %threads, %c1 : index
  %parts_i = arith.index_cast %parts : index to i64
  %parts_f = arith.uitofp %parts_i : i64 to f64
  %Ap = memref.alloc() {{alignment = 64 : i64}} : {g.a_pack}
  %Bp = memref.alloc() {{alignment = 64 : i64}} : {g.b_pack}
  %T = memref.alloc() {{alignment = 64 : i64}} : {g.tile}
  %fresh = arith.constant true
  %no_k = arith.cmpi eq, %k, %c0 : index
  scf.if %no_k {{
    linalg.fill ins(%zero : {g.element}) outs(%C : {g.mat})
  }}
  scf.forall (%t) in (%parts) {{
    %vzero = arith.constant dense<0.0> : {g.vec}
    %t_next = arith.addi %t, %c1 : index
{_part_start("p_lo", "%t")}
{_part_start("p_hi", "%t_next")}
{block_loops(g, _pack_transposed_a(g), reaching, chunk_head=_diagonal_column(g), col_hi="%n")}
  }}
{_mirror(g)}
  memref.dealloc %Ap : {g.a_pack}
  memref.dealloc %Bp : {g.b_pack}
  memref.dealloc %T : {g.tile}
  return
}}
"""


def library_text(element: str) -> str:
    """The helper for ``element`` as a library of public definitions, compiled once per
    process by the CPU backend (``backends/llvm_cpu/helper_library.py``)."""
    return public_definitions(_module_text(GRAM_GEOMETRIES[element]))


def _module_text(g: Geometry) -> str:
    return f"func.func private @{POOL_THREADS}() -> i64\n" + gram_text(g)


def entry_points(element: str) -> frozenset[str]:
    return frozenset([helper_name(element)])


def _target(op) -> bool:
    """``X.T @ X`` into zeros, float32 or float64, X's rows not strided by its type, more
    than ``PRODUCT_MIN_MACS`` multiply-adds (``n * n * k``) where the static shape says."""
    if op.name != "linalg.matmul" or not all(isinstance(v.type, ir.MemRefType) for v in op.operands):
        return False
    x = op.operands[0]
    if x != op.operands[1] or matmul_transposes(op) != (True, False) or zero_fill_before(op) is None:
        return False
    elements = {str(v.type.element_type) for v in op.operands}
    if len(elements) != 1 or not elements <= set(ELEMENTS):
        return False
    if any(unit_stride(v)[1] for v in (x, op.operands[2])):
        return False
    k, n = x.type.shape
    dynamic = ir.ShapedType.get_dynamic_size()
    return dynamic in (k, n) or n * n * k > PRODUCT_MIN_MACS


def _large(x):
    """``n * n * k > PRODUCT_MIN_MACS`` read at run time, or None when the static shape says so."""
    if ir.ShapedType.get_dynamic_size() not in x.type.shape:
        return None
    index = ir.IndexType.get()
    k, n = (memref.dim(x, arith.constant(index, axis)) for axis in (0, 1))
    macs = arith.muli(arith.muli(n, n), k)
    return arith.cmpi(arith.CmpIPredicate.ugt, macs, arith.constant(index, PRODUCT_MIN_MACS))


def _replace(op) -> None:
    """The fill and the product become a call of the helper, behind run-time checks of
    X's and C's unit strides along rows and the size; the two ops stay as the other
    branch (``?syrk``)."""
    fill = zero_fill_before(op)
    x, c = op.operands[0], op.operands[2]
    element = str(x.type.element_type)

    def fallback():
        fill.clone(ip=ir.InsertionPoint.current)
        op.clone(ip=ir.InsertionPoint.current)

    with ir.InsertionPoint(op), op.location:
        mat = mat_type(element)
        checked_call(helper_name(element), [mat, mat], [x, c], [x, c], None, fallback, extra=_large(x))
    op.erase()
    fill.erase()


@dataclass
class EmberGramLoops(EmberPass):
    """``X.T @ X`` (float32, float64) as one triangle of Ember's packed kernel, mirrored."""

    name = "ember-gram-loops"
    summary = "linalg.matmul X.T @ X into zeros -> a call of the packed kernel on one triangle, mirrored"
    # Put the helper's definition into the module (see ``ember-gemm-loops``).
    define_helpers: bool = False
    # The host's vector width by default; the pass runs with 512-bit vectors only.
    vector_bits: int = field(default_factory=host_vector_bits)

    def run(self, module):
        if self.vector_bits not in GEOMETRIES:
            raise PassFailure(f"vector-bits must be one of {sorted(GEOMETRIES)}, not {self.vector_bits}")
        if self.vector_bits != 512:
            return
        found = []
        for fn in functions(module):
            targets = collect(fn, _target)
            if targets and not other_library_work(fn, besides=frozenset(targets)):
                found += targets
        for element in sorted({str(op.operands[0].type.element_type) for op in found}):
            text = _module_text(GRAM_GEOMETRIES[element])
            add_functions(module, text if self.define_helpers else declarations(text))
        for op in found:
            _replace(op)
