"""Float32 matrix products as Ember's own packed kernel (``ember-gemm-loops``).

Why: a product handed to OpenBLAS runs on OpenBLAS's threads, which spin for about
0.1 s after each call, against Ember's own pool running the rest of the kernel; and
OpenBLAS's float32 kernel is not the fastest on AVX-512. Measured on a 2-core AVX-512
Xeon, each library in a process of its own (median ms, best of 5;
``python benchmarks/products.py``):

                        one thread                 two threads
float32 product         Ember  OpenBLAS  MKL       Ember  OpenBLAS  MKL
1024^3                  10.70  11.21     10.21     5.54   5.72      5.16
256x512 @ 512x2048      2.84   3.02      2.71      1.35   1.51      1.48
256x2048 @ 2048x512     2.92   3.30      2.69      1.45   1.57      1.37

MKL is torch's ``torch.mm``. On a 2-core AVX2 EPYC (Zen 3), one thread, Ember's time
over OpenBLAS's call by call in one process: 1.01-1.11 (``Geometry``: the AVX-512
blocking there, each vector two halves, was 2.5-3x OpenBLAS's time).

The algorithm is Goto's (as in BLIS), for row-major operands, with the blocking of the
host's vector width (``GEOMETRIES``; the numbers below are AVX-512's):

* each part of the pool takes a range of C's rows or of its columns (whichever split
  copies less, see ``_partition``) and works alone: no barrier between parts;
* per block of ``kc`` along the shared dimension, the part packs its rows of A into
  panels of ``mr`` rows, each row's ``kc`` elements after the other (zero rows past
  A's end), and per block of ``nb`` columns of B, panels of ``nr`` columns, element
  ``[k][col]`` (zero columns past the block's end);
* the micro-kernel keeps an ``mr x nr`` (6 x 64) tile of C in 24 vector registers: per
  step of k, four vectors of B's panel and six broadcasts of A's, 24 fused
  multiply-adds, four steps per loop iteration. A's panel (6 KiB) stays in the L1
  cache while B's block (512 KiB, in the L2 cache) streams past it. (12 x 32, twice
  the broadcasts per step, was 3-4 % slower; the block sizes are flat within 2 %);
* the tile is stored (first block of k) or added to C; a tile past C's edge goes
  through a scratch tile. A product accumulating into C (``ember-to-linalg`` puts a
  bias into C before the product: ``x @ w + b``) adds from the first block on;
* ``relu(x @ w + b)``: an elementwise loop right after the product that reads it
  only as ``product + bias[j]`` (then ``max(., 0)``) is folded into a second helper,
  which applies it to each tile as its last block of k is stored: no temporary product
  and no second pass over it.

Each product sums its k-blocks in order, each block with fused multiply-adds: the
result equals NumPy's up to the rounding of a reordered sum (as the matrix-vector
loops' do); NaN and infinities propagate as in NumPy."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field

from compiler.mlir import (
    add_functions,
    arith,
    collect,
    declarations,
    functions,
    ir,
    linalg,
    memref,
    operation_of,
    public_definitions,
)
from compiler.passes.base import EmberPass, PassFailure
from compiler.passes.blas import matmul_transposes, rows_kind, zero_fill_before
from compiler.passes.buffers import distinct_memory, identity_layout, root_buffer
from compiler.passes.linalg_utils import indexing_maps, is_plus_zero
from compiler.passes.matvec import checked_call, other_library_work, unit_stride
from compiler.passes.parallel import normalized
from runtime.abi import POOL_THREADS
from runtime.target import has_512_bit_vectors

ELEMENT = "f32"
UNROLL = 4
CHUNK_PANELS = 128  # panels of A packed at once per part
MIN_MACS = 1 << 18  # up to this many, BLAS (one call on one thread, or row blocks on ours: blas_library.py)
SPLIT_MACS = 1 << 21  # a smaller one runs on one thread


@dataclass(frozen=True)
class Geometry:
    """The blocking for one width of vector register (float32 lanes per vector): an
    ``mr x nv`` tile of vectors of C in registers, with ``nv`` vectors of B's panel and
    a broadcast of A's beside them, so ``mr * nv + nv + 1`` registers at most."""

    lanes: int  # lanes per vector
    mr: int  # rows of A per panel
    nv: int  # vectors of C per row of the tile
    kc: int  # the shared dimension's block (A's panel: mr * kc elements, in the L1 cache)
    nb: int  # columns of B per packed block (kc * nb elements, in the L2 cache)
    element: str = ELEMENT  # f32, or f64 (``A.T @ A`` only: ``gram.GRAM_GEOMETRIES``)
    # A's panels k-major (``mr`` rows' elements for one k, then the next k) instead of
    # each row's ``kc`` after the other: what packing the columns of ``X`` in ``X.T``
    # writes as contiguous runs.
    k_major_a: bool = False

    @property
    def nr(self) -> int:
        """Columns of B per panel."""
        return self.lanes * self.nv

    @property
    def row_chunk(self) -> int:
        """Rows of A packed at once per part."""
        return CHUNK_PANELS * self.mr

    @property
    def vec(self) -> str:
        return f"vector<{self.lanes}x{self.element}>"

    @property
    def a_pack(self) -> str:
        return f"memref<{self.row_chunk * self.kc}x{self.element}>"

    @property
    def b_pack(self) -> str:
        return f"memref<{self.nb * self.kc}x{self.element}>"

    @property
    def tile(self) -> str:
        return f"memref<{self.mr}x{self.nr}x{self.element}>"

    @property
    def mat(self) -> str:
        """A matrix operand: contiguous rows."""
        return mat_type(self.element)

    @property
    def bias(self) -> str:
        return bias_type(self.element)


# 32 registers of 16 lanes (AVX-512): 24 accumulators (12 x 2 was 3-4 % slower, with
# twice the broadcasts of A per step); 16 of 8 (AVX2): 12 accumulators, 3 vectors of B
# and a broadcast. 6 x 2 there was 5 % slower, and the AVX-512 blocking run as two
# 8-lane halves (48 accumulators in 16 registers) ran at 40 % of OpenBLAS.
GEOMETRIES = {
    512: Geometry(lanes=16, mr=6, nv=4, kc=256, nb=512),
    256: Geometry(lanes=8, mr=4, nv=3, kc=256, nb=240),
}


def host_vector_bits() -> int:
    """The widest float vector the host's kernels use: 512 on AVX-512, else 256."""
    return 512 if has_512_bit_vectors() else 256


def mat_type(element: str) -> str:
    return f"memref<?x?x{element}, strided<[?, 1], offset: ?>>"


def bias_type(element: str) -> str:
    return f"memref<?x{element}, strided<[1], offset: ?>>"


MAT, BIAS = mat_type(ELEMENT), bias_type(ELEMENT)
HELPER = f"ember_gemm_loops_{ELEMENT}"
BIAS_HELPER = f"ember_gemm_bias_loops_{ELEMENT}"


def constants_text(g: Geometry) -> str:
    values = sorted(
        {0, 1, 2, 3, 4, g.mr, g.nr, g.kc, g.nb, UNROLL, CHUNK_PANELS}
        | set(range(g.mr))
        | {g.lanes * v for v in range(g.nv)}
    )
    return "\n".join(f"  %c{v} = arith.constant {v} : index" for v in values)


def _k_step(g: Geometry, k: str, tag: str, accumulators: list[str]) -> tuple[list[str], list[str]]:
    """One step of the shared dimension: the lines, and the new accumulators."""
    lines = [
        f"          %bo{tag}0 = arith.muli {k}, %c{g.nr} : index",
        f"          %bo{tag} = arith.addi %bo{tag}0, %bbase : index",
    ]
    if g.k_major_a:
        lines += [
            f"          %ao{tag}0 = arith.muli {k}, %c{g.mr} : index",
            f"          %ao{tag} = arith.addi %ao{tag}0, %abase : index",
        ]
    else:
        lines.append(f"          %ao{tag} = arith.addi {k}, %abase : index")
    for v in range(g.nv):
        lines.append(f"          %bi{v}{tag} = arith.addi %bo{tag}, %c{g.lanes * v} : index")
        lines.append(f"          %b{v}{tag} = vector.load %Bp[%bi{v}{tag}] : {g.b_pack}, {g.vec}")
    new = []
    for r in range(g.mr):
        lines.append(f"          %ai{r}{tag} = arith.addi %ao{tag}, %arow{r} : index")
        lines.append(f"          %s{r}{tag} = memref.load %Ap[%ai{r}{tag}] : {g.a_pack}")
        lines.append(f"          %x{r}{tag} = vector.broadcast %s{r}{tag} : {g.element} to {g.vec}")
        for v in range(g.nv):
            acc = accumulators[r * g.nv + v]
            lines.append(f"          %n{r}_{v}{tag} = vector.fma %x{r}{tag}, %b{v}{tag}, {acc} : {g.vec}")
            new.append(f"%n{r}_{v}{tag}")
    return lines, new


def accumulate_lines(g: Geometry) -> list[str]:
    """``%acc#i``: the tile's vectors summed over ``%kc`` steps, ``UNROLL`` per iteration."""
    accumulators = [f"%a{r}_{v}" for r in range(g.mr) for v in range(g.nv)]
    types = ", ".join([g.vec] * len(accumulators))
    count = len(accumulators)
    lines = [
        f"        %kc_rem = arith.remui %kc, %c{UNROLL} : index",
        "        %kc_full = arith.subi %kc, %kc_rem : index",
        f"        %unrolled:{count} = scf.for %kk = %c0 to %kc_full step %c{UNROLL} "
        f"iter_args({', '.join(f'{a} = %vzero' for a in accumulators)}) -> ({types}) {{",
    ]
    current = accumulators
    for u in range(UNROLL):
        lines.append(f"          %kk{u} = arith.addi %kk, %c{u} : index")
        step, current = _k_step(g, f"%kk{u}", f"u{u}", current)
        lines += step
    lines += [f"          scf.yield {', '.join(current)} : {types}", "        }"]
    lines.append(
        f"        %acc:{count} = scf.for %kk = %kc_full to %kc step %c1 "
        f"iter_args({', '.join(f'{a} = %unrolled#{i}' for i, a in enumerate(accumulators))}) -> ({types}) {{"
    )
    step, current = _k_step(g, "%kk", "r", accumulators)
    lines += step
    lines += [f"          scf.yield {', '.join(current)} : {types}", "        }"]
    return lines


def _epilogue(g: Geometry, value: str, bias_at: str, tag: str, vector: bool) -> tuple[list[str], str]:
    """After the last block of k: ``value + bias[j]``, then ``max(., 0)`` where ``%relu``
    says (the elementwise loop ``ember-gemm-loops`` folds in, op for op)."""
    kind = g.vec if vector else g.element
    zero = "%vzero" if vector else "%zero"
    load = f"vector.load %bias[{bias_at}] : {g.bias}, {g.vec}" if vector else f"memref.load %bias[{bias_at}] : {g.bias}"
    lines = [
        f"          %e{tag} = scf.if %last -> ({kind}) {{",
        f"            %bv{tag} = {load}",
        f"            %bs{tag} = arith.addf {value}, %bv{tag} : {kind}",
        f"            %bm{tag} = arith.maximumf %bs{tag}, {zero} : {kind}",
        f"            %br{tag} = arith.select %relu, %bm{tag}, %bs{tag} : {kind}",
        f"            scf.yield %br{tag} : {kind}",
        "          } else {",
        f"            scf.yield {value} : {kind}",
        "          }",
    ]
    return lines, f"%e{tag}"


def store_tile_lines(g: Geometry, bias: bool) -> list[str]:
    """The tile into C at ``(%row0, %col0)``: stored on the first block of k (unless the
    product accumulates into C), else added; with ``bias``, the epilogue applied on the
    last block; through the scratch tile ``%T`` where it crosses C's edge."""
    lines = [
        f"        %row_end = arith.addi %row0, %c{g.mr} : index",
        f"        %col_end = arith.addi %col0, %c{g.nr} : index",
        "        %rows_in = arith.cmpi ule, %row_end, %m : index",
        "        %cols_in = arith.cmpi ule, %col_end, %n : index",
        "        %inside = arith.andi %rows_in, %cols_in : i1",
        "        scf.if %inside {",
    ]
    for r in range(g.mr):
        lines.append(f"          %R{r} = arith.addi %row0, %c{r} : index")
        for v in range(g.nv):
            i, at = r * g.nv + v, f"%R{r}, %C{r}_{v}"
            lines += [
                f"          %C{r}_{v} = arith.addi %col0, %c{g.lanes * v} : index",
                f"          %o{r}_{v} = scf.if %first -> ({g.vec}) {{",
                f"            scf.yield %acc#{i} : {g.vec}",
                "          } else {",
                f"            %old{r}_{v} = vector.load %C[{at}] : {g.mat}, {g.vec}",
                f"            %sum{r}_{v} = arith.addf %old{r}_{v}, %acc#{i} : {g.vec}",
                f"            scf.yield %sum{r}_{v} : {g.vec}",
                "          }",
            ]
            value = f"%o{r}_{v}"
            if bias:
                epilogue, value = _epilogue(g, value, f"%C{r}_{v}", f"{r}_{v}", vector=True)
                lines += epilogue
            lines.append(f"          vector.store {value}, %C[{at}] : {g.mat}, {g.vec}")
    lines.append("        } else {")
    for r in range(g.mr):
        for v in range(g.nv):
            lines.append(f"          vector.store %acc#{r * g.nv + v}, %T[%c{r}, %c{g.lanes * v}] : {g.tile}, {g.vec}")
    lines += [
        "          %rows_left = arith.subi %m, %row0 : index",
        f"          %tile_rows = arith.minui %rows_left, %c{g.mr} : index",
        "          %cols_left = arith.subi %n, %col0 : index",
        f"          %tile_cols = arith.minui %cols_left, %c{g.nr} : index",
        "          scf.for %i = %c0 to %tile_rows step %c1 {",
        "            scf.for %j = %c0 to %tile_cols step %c1 {",
        f"              %tv = memref.load %T[%i, %j] : {g.tile}",
        "              %ci = arith.addi %row0, %i : index",
        "              %cj = arith.addi %col0, %j : index",
        f"              %out = scf.if %first -> ({g.element}) {{",
        f"                scf.yield %tv : {g.element}",
        "              } else {",
        f"                %prior = memref.load %C[%ci, %cj] : {g.mat}",
        f"                %added = arith.addf %prior, %tv : {g.element}",
        f"                scf.yield %added : {g.element}",
        "              }",
    ]
    value = "%out"
    if bias:
        epilogue, value = _epilogue(g, value, "%cj", "s", vector=False)
        lines += [f"    {line}" for line in epilogue]
    lines += [
        f"              memref.store {value}, %C[%ci, %cj] : {g.mat}",
        "            }",
        "          }",
        "        }",
    ]
    return lines


def _pack_a(g: Geometry) -> str:
    """Rows ``%pch*mr..`` (panels ``%pch`` to ``%pche``) of A, k from ``%pc``, into
    ``%Ap``: each panel its rows one after the other (zeros past A's last row), copies
    of contiguous runs that LLVM vectorizes."""
    return f"""        scf.for %pa = %pch to %pche step %c1 {{
          %pl = arith.subi %pa, %pch : index
          %abase = arith.muli %pl, %pstride : index
          %rowp = arith.muli %pa, %c{g.mr} : index
          scf.for %r = %c0 to %c{g.mr} step %c1 {{
            %row = arith.addi %rowp, %r : index
            %in_a = arith.cmpi ult, %row, %m : index
            %rbase0 = arith.muli %r, %kc : index
            %rbase = arith.addi %rbase0, %abase : index
            scf.if %in_a {{
              scf.for %kk = %c0 to %kc step %c1 {{
                %kx = arith.addi %pc, %kk : index
                %e = memref.load %A[%row, %kx] : {g.mat}
                %at = arith.addi %rbase, %kk : index
                memref.store %e, %Ap[%at] : {g.a_pack}
              }}
            }} else {{
              scf.for %kk = %c0 to %kc step %c1 {{
                %at = arith.addi %rbase, %kk : index
                memref.store %zero, %Ap[%at] : {g.a_pack}
              }}
            }}
          }}
        }}"""


def pack_b_text(g: Geometry) -> str:
    """Columns ``%cb`` to ``%cbe`` of B, k from ``%pc``, into ``%Bp``'s panels (vector
    copies for whole panels, zeros past the block's end)."""
    whole = "\n".join(
        f"""              %bc{v} = arith.addi %qcol, %c{g.lanes * v} : index
              %bv{v} = vector.load %B[%kx, %bc{v}] : {g.mat}, {g.vec}
              %bd{v} = arith.addi %d, %c{g.lanes * v} : index
              vector.store %bv{v}, %Bp[%bd{v}] : {g.b_pack}, {g.vec}"""
        for v in range(g.nv)
    )
    return f"""          scf.for %q = %c0 to %qn step %c1 {{
            %qc0 = arith.muli %q, %c{g.nr} : index
            %qcol = arith.addi %cb, %qc0 : index
            %qbase = arith.muli %q, %qstride : index
            %qend = arith.addi %qcol, %c{g.nr} : index
            %qwhole = arith.cmpi ule, %qend, %cbe : index
            scf.for %kk = %c0 to %kc step %c1 {{
              %kx = arith.addi %pc, %kk : index
              %d0 = arith.muli %kk, %c{g.nr} : index
              %d = arith.addi %d0, %qbase : index
              scf.if %qwhole {{
{whole}
              }} else {{
                scf.for %j = %c0 to %c{g.nr} step %c1 {{
                  %col = arith.addi %qcol, %j : index
                  %in_b = arith.cmpi ult, %col, %cbe : index
                  %bv = scf.if %in_b -> ({g.element}) {{
                    %e = memref.load %B[%kx, %col] : {g.mat}
                    scf.yield %e : {g.element}
                  }} else {{
                    scf.yield %zero : {g.element}
                  }}
                  %dj = arith.addi %d, %j : index
                  memref.store %bv, %Bp[%dj] : {g.b_pack}
                }}
              }}
            }}
          }}"""


def row_offsets_text(g: Geometry) -> str:
    """``%arow<r>``: where row ``r`` of a packed panel of A starts (``r * kc``; ``r``
    when the panels are k-major)."""
    step = "%c1" if g.k_major_a else "%kc"
    return "\n".join(f"        %arow{r} = arith.muli {step}, %c{r} : index" for r in range(g.mr))


def _partition(g: Geometry) -> str:
    """``%parts`` parts (the pool's threads; one for a small product), each ``%tr``'s
    share of the row panels (``%p_lo`` to ``%p_hi``) and ``%tc``'s of the columns
    (``%col_lo`` to ``%col_hi``). Every part packs all of what it does not split: split
    rows, each packs all of B and its share of A (``k * (n + m / parts)`` elements),
    split columns, all of A and its share of B (``k * (m + n / parts)``). The columns
    are split when that copies under 2/3 as much, and there are four column panels a
    part (or too few row panels to split). Measured on 2 cores: 256x512 @ 512x2048
    1.56 -> 1.48 ms split by columns; 256x2048 @ 2048x512 stays split by rows (by
    columns 1.68 -> 1.71)."""
    return f"""  %threads64 = func.call @{POOL_THREADS}() : () -> i64
  %threads = arith.index_cast %threads64 : i64 to index
  %mn = arith.muli %m, %n : index
  %mnk = arith.muli %mn, %k : index
  %big = arith.cmpi uge, %mnk, %cSplit : index
  %parts = arith.select %big, %threads, %c1 : index
  %four = arith.muli %parts, %c4 : index
  %col_panels = arith.ceildivui %n, %c{g.nr} : index
  %rows_split = arith.cmpi uge, %panels, %four : index
  %cols_split = arith.cmpi uge, %col_panels, %four : index
  %cols_short = arith.xori %cols_split, %true : i1
  %m_parts = arith.muli %m, %parts : index
  %n_parts = arith.muli %n, %parts : index
  %col_copies = arith.addi %m_parts, %n : index
  %row_copies = arith.addi %n_parts, %m : index
  %col_cost = arith.muli %col_copies, %c3 : index
  %row_cost = arith.muli %row_copies, %c2 : index
  %cols_cheaper = arith.cmpi ult, %col_cost, %row_cost : index
  %rows_cheaper = arith.xori %cols_cheaper, %true : i1
  %rows_better = arith.ori %rows_cheaper, %cols_short : i1
  %tall = arith.andi %rows_split, %rows_better : i1
  %row_parts = arith.select %tall, %parts, %c1 : index
  %col_parts = arith.select %tall, %c1, %parts : index
  %panels_each = arith.ceildivui %panels, %row_parts : index
  %col_panels_each = arith.ceildivui %col_panels, %col_parts : index
  %cols_each = arith.muli %col_panels_each, %c{g.nr} : index"""


def _part_ranges() -> str:
    return """    %tr = arith.divui %t, %col_parts : index
    %tc = arith.remui %t, %col_parts : index
    %p_lo = arith.muli %tr, %panels_each : index
    %p_hi0 = arith.addi %p_lo, %panels_each : index
    %p_hi = arith.minui %p_hi0, %panels : index
    %col_lo0 = arith.muli %tc, %cols_each : index
    %col_lo = arith.minui %col_lo0, %n : index
    %col_hi0 = arith.addi %col_lo, %cols_each : index
    %col_hi = arith.minui %col_hi0, %n : index"""


def _no_k(g: Geometry, bias: bool) -> str:
    """C when k is 0: zeros, or the epilogue of zeros."""
    if not bias:
        return f"    linalg.fill ins(%zero : {g.element}) outs(%C : {g.mat})"
    return f"""    scf.for %i = %c0 to %m step %c1 {{
      scf.for %j = %c0 to %n step %c1 {{
        %bz = memref.load %bias[%j] : {g.bias}
        %sz = arith.addf %zero, %bz : {g.element}
        %mz = arith.maximumf %sz, %zero : {g.element}
        %rz = arith.select %relu, %mz, %sz : {g.element}
        memref.store %rz, %C[%i, %j] : {g.mat}
      }}
    }}"""


def block_loops(g: Geometry, pack_a: str, kernel: str, chunk_head: str = "", col_hi: str = "%col_hi") -> str:
    """Goto's loops around the micro-kernel, inside a part: chunks of ``CHUNK_PANELS``
    row panels from ``%p_lo`` to ``%p_hi`` (``chunk_head`` first, in each), blocks of
    ``kc`` along k (the chunk's panels of A packed by ``pack_a``), blocks of ``nb`` of
    B's columns from ``%col_lo`` to ``col_hi`` (packed), then ``kernel`` for each panel
    of the chunk and each of the block (``%row0``, ``%col0``; ``%first`` and ``%last``
    say which block of k this is: ``%fresh`` false, C is added to from the first)."""
    return f"""    scf.for %pch = %p_lo to %p_hi step %c{CHUNK_PANELS} {{
      %pche0 = arith.addi %pch, %c{CHUNK_PANELS} : index
      %pche = arith.minui %pche0, %p_hi : index
{chunk_head}
      scf.for %pc = %c0 to %k step %c{g.kc} {{
        %k_left = arith.subi %k, %pc : index
        %kc = arith.minui %k_left, %c{g.kc} : index
        %first_k = arith.cmpi eq, %pc, %c0 : index
        %first = arith.andi %first_k, %fresh : i1
        %k_end = arith.addi %pc, %kc : index
        %last = arith.cmpi eq, %k_end, %k : index
        %pstride = arith.muli %kc, %c{g.mr} : index
        %qstride = arith.muli %kc, %c{g.nr} : index
{row_offsets_text(g)}
{pack_a}
        scf.for %cb = %col_lo to {col_hi} step %c{g.nb} {{
          %cbe0 = arith.addi %cb, %c{g.nb} : index
          %cbe = arith.minui %cbe0, {col_hi} : index
          %ncb = arith.subi %cbe, %cb : index
          %qn = arith.ceildivui %ncb, %c{g.nr} : index
{pack_b_text(g)}
          scf.for %pa = %pch to %pche step %c1 {{
            %pl = arith.subi %pa, %pch : index
            %abase = arith.muli %pl, %pstride : index
            %row0 = arith.muli %pa, %c{g.mr} : index
            scf.for %q = %c0 to %qn step %c1 {{
              %bbase = arith.muli %q, %qstride : index
              %qc0 = arith.muli %q, %c{g.nr} : index
              %col0 = arith.addi %cb, %qc0 : index
{kernel}
            }}
          }}
        }}
      }}
    }}"""


def gemm_text(g: Geometry, bias: bool = False) -> str:
    """``C = A @ B`` (``C += A @ B`` where ``%accumulate``) for float32 A, B, C with
    contiguous rows (see the module doc); with ``bias``, ``C = A @ B + bias`` and, where
    ``%relu``, ``max(., 0)`` of it, applied to each tile as its last block is stored."""
    kernel = "\n".join(accumulate_lines(g) + store_tile_lines(g, bias))
    if bias:
        signature = f"@{BIAS_HELPER}(%A: {g.mat}, %B: {g.mat}, %bias: {g.bias}, %C: {g.mat}, %relu: i1)"
        accumulate = "  %accumulate = arith.constant false"
    else:
        signature = f"@{HELPER}(%A: {g.mat}, %B: {g.mat}, %C: {g.mat}, %accumulate: i1)"
        accumulate = ""
    return f"""
func.func private {signature} {{
{accumulate}
{constants_text(g)}
  %cSplit = arith.constant {SPLIT_MACS} : index
  %zero = arith.constant 0.0 : {g.element}
  %true = arith.constant true
  %m = memref.dim %A, %c0 : {g.mat}
  %k = memref.dim %A, %c1 : {g.mat}
  %n = memref.dim %B, %c1 : {g.mat}
  %panels = arith.ceildivui %m, %c{g.mr} : index
{_partition(g)}
  %Ap = memref.alloc() {{alignment = 64 : i64}} : {g.a_pack}
  %Bp = memref.alloc() {{alignment = 64 : i64}} : {g.b_pack}
  %T = memref.alloc() {{alignment = 64 : i64}} : {g.tile}
  %fresh = arith.xori %accumulate, %true : i1
  %no_k0 = arith.cmpi eq, %k, %c0 : index
  %no_k = arith.andi %no_k0, %fresh : i1
  scf.if %no_k {{
{_no_k(g, bias)}
  }}
  scf.forall (%t) in (%parts) {{
    %vzero = arith.constant dense<0.0> : {g.vec}
{_part_ranges()}
{block_loops(g, _pack_a(g), kernel)}
  }}
  memref.dealloc %Ap : {g.a_pack}
  memref.dealloc %Bp : {g.b_pack}
  memref.dealloc %T : {g.tile}
  return
}}
"""


def library_text(element: str = ELEMENT) -> str:
    """Both helpers (plain, and with the bias epilogue) as a library of public
    definitions, compiled once per process by the CPU backend
    (``backends/llvm_cpu/helper_library.py``)."""
    assert element == ELEMENT
    return public_definitions(_both(GEOMETRIES[host_vector_bits()]))


def _both(g: Geometry) -> str:
    return f"func.func private @{POOL_THREADS}() -> i64\n" + gemm_text(g) + gemm_text(g, bias=True)


def entry_points(element: str = ELEMENT) -> frozenset[str]:
    return frozenset([HELPER, BIAS_HELPER])


def _target(op, g: Geometry) -> bool:
    """A float32 ``A @ B`` (into zeros, or accumulating into C) this pass replaces: no
    operand's type says its rows are strided, and its static sizes (where known) make
    more than ``MIN_MACS`` multiply-adds, with at least a panel's ``nr`` columns.

    A narrower product fills part of each tile of the micro-kernel, which then does
    work for the columns it lacks and stores through the scratch tile: measured on a
    Zen 4 (2 threads, ms, best of 3 in processes of their own, kernel / BLAS), 30752 x
    16 @ 16 x 32 0.41-0.46 / 0.25, 30752 x 64 @ 64 x 32 1.52-1.57 / 1.08-1.19, 4096 x
    256 @ 256 x 32 0.70-0.72 / 0.42-0.44, 2048 x 512 @ 512 x 48 0.71-0.85 / 0.58-0.66;
    at 64 columns even (30752 x 16 @ 16 x 64 0.45 / 0.45-0.55, 8192 x 64 @ 64 x 64
    0.35-0.37 / 0.38-0.39). Those go to BLAS."""
    if op.name != "linalg.matmul" or not all(isinstance(v.type, ir.MemRefType) for v in op.operands):
        return False
    if {str(v.type.element_type) for v in op.operands} != {ELEMENT} or matmul_transposes(op) != (False, False):
        return False
    if any(unit_stride(v)[1] for v in op.operands):
        return False
    (m, k), (_, n) = op.operands[0].type.shape, op.operands[1].type.shape
    return _kernel_sized(m, k, n, g)


def _kernel_sized(m: int, k: int, n: int, g: Geometry) -> bool:
    """Static sizes the kernel takes (``_target``); a dynamic one is decided at run time."""
    dynamic = ir.ShapedType.get_dynamic_size()
    if n != dynamic and n < g.nr:
        return False
    return dynamic in (m, n, k) or m * n * k > MIN_MACS


def _large(op):
    """``m * n * k > MIN_MACS`` read at run time, or None when the static shape says so."""
    (m, k), (_, n) = op.operands[0].type.shape, op.operands[1].type.shape
    if ir.ShapedType.get_dynamic_size() not in (m, n, k):
        return None
    index = ir.IndexType.get()
    dims = [memref.dim(op.operands[0], arith.constant(index, 0)), memref.dim(op.operands[0], arith.constant(index, 1))]
    dims.append(memref.dim(op.operands[1], arith.constant(index, 1)))
    macs = arith.muli(arith.muli(dims[0], dims[1]), dims[2])
    return arith.cmpi(arith.CmpIPredicate.ugt, macs, arith.constant(index, MIN_MACS))


def _replace(op, fill) -> None:
    """The matmul (and ``fill``, the zero fill before it, if any: else it accumulates
    into C) becomes a call of the helper, behind run-time checks of what the types do
    not fix (unit strides along rows, the size); the fill and the matmul stay as the
    other branch (for BLAS)."""

    def fallback():
        if fill is not None:
            fill.clone(ip=ir.InsertionPoint.current)
        op.clone(ip=ir.InsertionPoint.current)

    with ir.InsertionPoint(op), op.location:
        operands = list(op.operands)
        accumulate = arith.constant(ir.IntegerType.get_signless(1), int(fill is None))
        checked_call(HELPER, [MAT] * 3 + ["i1"], operands + [accumulate], operands, None, fallback, extra=_large(op))
    op.erase()
    if fill is not None:
        fill.erase()


@dataclass
class _Epilogue:
    """The elementwise loop (a ``linalg.generic``, or a forall of its tiles) right after
    a product that reads it only as ``product + bias[j]`` (then ``max(., 0)`` where
    ``relu``), writing ``out``."""

    loop: ir.Operation
    bias: ir.Value
    out: ir.Value
    relu: bool


_IDENTITY, _ROW = "(d0, d1) -> (d0, d1)", "(d0, d1) -> (d1)"


def _body_kind(generic, product_arg, bias_arg) -> bool | None:
    """Whether the loop's body is ``product + bias`` then ``max(., +0.0)`` (True) or the
    sum alone (False); None for anything else."""
    ops = [o.operation for o in generic.regions[0].blocks[0].operations]
    if len(ops) not in (2, 3) or ops[0].name != "arith.addf" or set(ops[0].operands) != {product_arg, bias_arg}:
        return None
    if len(ops) == 2:
        return False if list(ops[1].operands) == [ops[0].result] else None
    relu, ret = ops[1], ops[2]
    if relu.name != "arith.maximumf" or list(ret.operands) != [relu.result] or len(relu.operands) != 2:
        return None
    others = [v for v in relu.operands if v != ops[0].result]
    return True if len(others) == 1 and is_plus_zero(others[0]) else None


_TILE_OPS = ("affine.apply", "affine.min", "memref.subview", "linalg.generic", "scf.forall.in_parallel")


def _elementwise_after(op) -> tuple[ir.Operation, ir.Operation, list] | None:
    """``(loop, generic, body)``: the op after ``op`` when it is one elementwise
    ``linalg.generic`` of two inputs, or a forall of tiles holding one (and the views
    of its tile); ``body`` the ops nested in the loop."""
    block_ops = [o.operation for o in op.operation.block.operations]
    at = block_ops.index(op.operation)
    loop = block_ops[at + 1] if at + 1 < len(block_ops) else None
    if loop is None or len(loop.results):
        return None
    if loop.name == "linalg.generic":
        generic, body = loop, []
    elif loop.name == "scf.forall":
        body = [o.operation for o in loop.regions[0].blocks[0].operations]
        generics = [o for o in body if o.name == "linalg.generic"]
        if len(generics) != 1 or any(o.name not in _TILE_OPS for o in body):
            return None
        generic = generics[0]
    else:
        return None
    if ir.DenseI32ArrayAttr(generic.attributes["operandSegmentSizes"]) != ir.DenseI32ArrayAttr.get([2, 1]):
        return None
    return loop, generic, body


def _reads_product_rows(product, value, out_value) -> bool:
    """``value`` is the product (or a tile of its rows) where ``out_value`` is the same
    rows of a buffer shaped as the product."""
    if value == product:
        return out_value.type == product.type
    view, out_view = operation_of(value.owner), operation_of(out_value.owner)
    if view is None or out_view is None or "memref.subview" not in (view.name, out_view.name):
        return False
    if view.name != out_view.name or view.operands[0] != product or out_view.operands[0].type != product.type:
        return False
    attrs = ("static_offsets", "static_sizes", "static_strides")
    same = all(str(view.attributes[a]) == str(out_view.attributes[a]) for a in attrs)
    return same and list(view.operands)[1:] == list(out_view.operands)[1:]


def _covers_all_rows(loop, view, rows: int) -> bool:
    """Whether the forall's tiles, as ``ember-tile`` makes them (``scf.forall (%i) in
    (T)``, offset ``%i * t``, size ``min(rows - %i * t, t)``), take every one of the
    product's ``rows`` (a static count): the helper writes every row of the output, so
    the loop must have written them all too."""
    if rows == ir.ShapedType.get_dynamic_size() or not normalized(loop):
        return False
    (count,) = list(ir.DenseI64ArrayAttr(loop.attributes["staticUpperBound"]))
    offset, size = (operation_of(v.owner) for v in list(view.operands)[1:3])
    if offset is None or size is None or (offset.name, size.name) != ("affine.apply", "affine.min"):
        return False
    iv = loop.regions[0].blocks[0].arguments[0]
    if list(offset.operands) != [iv] or list(size.operands) != [iv]:
        return False
    offset_map, size_map = (str(ir.AffineMapAttr(o.attributes["map"]).value) for o in (offset, size))
    tile = re.fullmatch(r"\(d0\) -> \(d0 \* (\d+)\)", offset_map)
    if tile is None:
        return False
    t = int(tile.group(1))
    return size_map == f"(d0) -> (d0 * -{t} + {rows}, {t})" and count * t >= rows


def _epilogue_of(op) -> _Epilogue | None:
    """The epilogue of the product ``op`` (into zeros, in a buffer of its own that only
    the loop reads), when the next op is that loop (see ``_Epilogue``), over the same
    rows of the product and of an output that is memory of its own, not an operand's."""
    product = op.operands[2]
    owner = operation_of(product.owner)
    found = _elementwise_after(op) if owner is not None and owner.name == "memref.alloc" else None
    if found is None:
        return None
    loop, generic, body = found
    maps = [str(m) for m in indexing_maps(generic)]
    if maps[2] != _IDENTITY or sorted(maps[:2]) != sorted([_IDENTITY, _ROW]):
        return None
    p, b = (0, 1) if maps[0] == _IDENTITY else (1, 0)
    bias, out_value = generic.operands[b], generic.operands[2]
    if not _reads_product_rows(product, generic.operands[p], out_value):
        return None
    view = operation_of(generic.operands[p].owner) if body else None
    if view is not None and not _covers_all_rows(loop, view, product.type.shape[0]):
        return None
    bias_owner = None if isinstance(bias.owner, ir.Block) else operation_of(bias.owner)
    if not isinstance(bias.type, ir.MemRefType) or (bias_owner is not None and any(bias_owner == o for o in body)):
        return None
    args = list(generic.regions[0].blocks[0].arguments)
    relu = _body_kind(generic, args[p], args[b])
    out = out_value if out_value.type == product.type else operation_of(out_value.owner).operands[0]
    root = root_buffer(out)
    operands = {root_buffer(v) for v in (op.operands[0], op.operands[1], bias)}
    users = [operation_of(u.owner).name for u in product.uses]
    expected = ["linalg.fill", "linalg.matmul", "memref.dealloc", "memref.subview" if body else "linalg.generic"]
    if relu is None or sorted(users) != sorted(expected) or not distinct_memory(root) or root in operands:
        return None
    return _Epilogue(loop, bias, out, relu)


def _replace_with_epilogue(op, fill, epilogue: _Epilogue) -> None:
    """``fill`` (the zero fill before the product), the product and its elementwise loop
    become one call of the bias helper, writing the loop's output; behind the run-time
    checks, the three ops as the other branch."""

    def fallback():
        for kept in (fill, op, epilogue.loop):
            kept.clone(ip=ir.InsertionPoint.current)

    with ir.InsertionPoint(op), op.location:
        a, b = op.operands[0], op.operands[1]
        relu = arith.constant(ir.IntegerType.get_signless(1), int(epilogue.relu))
        values = [a, b, epilogue.bias, epilogue.out, relu]
        contiguous = [a, b, epilogue.bias, epilogue.out]
        checked_call(BIAS_HELPER, [MAT, MAT, BIAS, MAT, "i1"], values, contiguous, None, fallback, extra=_large(op))
    epilogue.loop.erase()
    op.erase()
    fill.erase()


def _as_matrix(value):
    """A contiguous buffer ``(r.., n)`` viewed as the matrix ``(r, n)``."""
    t = value.type
    flat = ir.MemRefType.get([math.prod(t.shape[:-1]), t.shape[-1]], t.element_type)
    return memref.collapse_shape(flat, value, [list(range(t.rank - 1)), [t.rank - 1]])


def rows_to_matrices(fn, g: Geometry) -> int:
    """A stack of contiguous rows times a matrix (``patches @ w`` of a convolution:
    ``linalg.contract`` on ``(8, 62, 62, 16) x (16, 32)``) as the ``linalg.matmul`` of
    its rows viewed as one matrix, when it is float32 and the kernel takes it
    (``_target``: ``MIN_MACS``, ``nr`` columns; static shapes); its zero fill fills the
    same view. Otherwise BLAS takes it as one call over all rows (``ember_rows``).
    Returns how many."""
    done = 0
    for op in collect(fn, lambda o: o.name == "linalg.contract" and rows_kind(o) == "matmul"):
        a, b, c = op.operands
        if not all(identity_layout(v.type) and v.type.has_static_shape for v in (a, b, c)):
            continue
        if {str(v.type.element_type) for v in (a, b, c)} != {ELEMENT}:
            continue
        if not _kernel_sized(math.prod(a.type.shape[:-1]), *b.type.shape, g):
            continue
        fill = zero_fill_before(op)
        with ir.InsertionPoint(fill if fill is not None else op), op.location:
            rows_a, rows_c = _as_matrix(a), _as_matrix(c)
            if fill is not None:
                linalg.fill(fill.operands[0], outs=[rows_c])
        with ir.InsertionPoint(op), op.location:
            linalg.matmul(rows_a, b, outs=[rows_c])
        op.erase()
        if fill is not None:
            fill.erase()
        done += 1
    return done


@dataclass
class EmberGemmLoops(EmberPass):
    """Float32 matrix products with contiguous rows as Ember's own packed kernel."""

    name = "ember-gemm-loops"
    summary = "f32 linalg.matmul -> a call of a packed, register-tiled kernel on the worker pool"
    # Put the helper's definition into the module (to read it, or to compile the module
    # on its own); by default it declares it and the CPU backend links its helper library.
    define_helpers: bool = False
    # The blocking's vector width (``GEOMETRIES``); the host's by default, as the
    # helper library the backend compiles.
    vector_bits: int = field(default_factory=host_vector_bits)

    def run(self, module):
        if self.vector_bits not in GEOMETRIES:
            raise PassFailure(f"vector-bits must be one of {sorted(GEOMETRIES)}, not {self.vector_bits}")
        g = GEOMETRIES[self.vector_bits]
        found = []
        for fn in functions(module):
            rows_to_matrices(fn, g)
            targets = collect(fn, lambda op: _target(op, g))
            if targets and not other_library_work(fn, besides=frozenset(targets)):
                found += targets
        if found:
            text = _both(g)
            add_functions(module, text if self.define_helpers else declarations(text))
        for op in found:
            fill = zero_fill_before(op)
            epilogue = _epilogue_of(op) if fill is not None else None
            if epilogue is not None:
                _replace_with_epilogue(op, fill, epilogue)
            else:
                _replace(op, fill)
