"""Transposes that move the innermost axis as register blocks (``ember-vector-transpose``).

Why: ``linalg.transpose`` lowers to a loop nest whose innermost loop runs along the
output's rows, reading the input at a stride of a whole row (or plane) per element:
one scalar load and store per element, each load from another cache line. Measured on
a 2-core Zen 4 (median ms, 2 threads, before -> after): ``np.ascontiguousarray(x.T)``
of 2048 x 2048 float32 12.2 -> 2.4-2.5 and float64 13.3 -> 4.9-5.1 (NumPy 24 and 30; a
plain copy 0.8-1.4 and 4.0-5.1); a convolution's window
``x[:, :, 1:63, 1:63].transpose(0, 2, 3, 1)`` (8 x 16 x 64 x 64 float32) 0.2-0.39 ->
0.07-0.11, and the whole convolution of nine such products (``benchmarks/corpus``'s
``conv2d``) 9.0-9.4 -> 3.6 (NumPy 6.1).

The rewrite, for a transpose whose input and output both have unit-stride rows and
whose output's innermost axis is not the input's: the two axes that trade places are
walked in square blocks of ``V x V`` elements, ``V`` one vector register's lanes
(16 float32 on AVX-512; at most 16, so bytes and halves go in 16 x 16 blocks of
128- and 256-bit rows). Each block is ``V`` vector loads along the input's rows, a
transpose in registers (``log2 V`` rounds of two-input shuffles, each round trading one
bit of the row number for one bit of the column number: ``V log2 V`` shuffles a
block), and ``V`` vector stores along the output's rows. The other axes are plain
loops around the blocks. A whole block moves with plain loads and stores; a block at
an edge (one branch a block decides which) through lane masks: its rows past the
input's edge read the last row again (valid memory, lanes the store masks off), and
its rows past the output's edge are stored first, to the last row, so the block's real
last row overwrites them: every access stays inside both buffers, with no branch per
row.

Values are moved, never computed: the result is the transpose's, bit for bit, NaN
payloads included. Elements of 1, 2, 4 or 8 bytes (floats, integers); bools (``i1``
until ``ember-byte-bools``), complex numbers, a strided innermost axis, and transposes
that keep the innermost axis (rows copied whole, which LLVM vectorizes already) stay
with ``convert-linalg-to-loops``. Bytes and halves of 2048 x 2048: uint8 8.8 -> 0.43
ms, int16 19.2 -> 0.74, float16 16.8 -> 0.80 (NumPy 13.7, 22, 22.6).
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.mlir import arith, collect, index_constant, ir, memref, scf, vector
from compiler.passes.base import EmberPass, PassFailure
from compiler.passes.gemm import host_vector_bits
from compiler.passes.matvec import unit_stride

ELEMENT_BITS = (8, 16, 32, 64)
MAX_LANES = 16  # a block of bytes or halves stays 16 x 16: 64 x 64 would take 64 registers


def _element_bits(t: ir.Type) -> int | None:
    if isinstance(t, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)):
        return ir.FloatType(t).width
    if isinstance(t, ir.IntegerType):
        return ir.IntegerType(t).width
    return None


def _permutation(op: ir.Operation) -> list[int]:
    return list(ir.DenseI64ArrayAttr(op.attributes["permutation"]))


def lanes_for(op: ir.Operation, vector_bits: int) -> int | None:
    """The block's side ``V`` for this transpose, or None when the pass leaves it."""
    if op.name != "linalg.transpose":
        return None
    source, init = op.operands[0], op.operands[1]
    if not all(isinstance(v.type, ir.MemRefType) for v in (source, init)):
        return None
    bits = _element_bits(ir.MemRefType(source.type).element_type)
    if bits not in ELEMENT_BITS or not (unit_stride(source)[0] and unit_stride(init)[0]):
        return None
    perm = _permutation(op)
    if perm[-1] == len(perm) - 1:
        return None
    return min(vector_bits // bits, MAX_LANES)


def _size(value: ir.Value, axis: int) -> ir.Value:
    static = ir.MemRefType(value.type).shape[axis]
    if static != ir.ShapedType.get_dynamic_size():
        return index_constant(static)
    return memref.dim(value, index_constant(axis))


def transpose_in_registers(rows: list[ir.Value]) -> list[ir.Value]:
    """The ``V x V`` block whose rows are ``rows``, transposed: round ``w`` (V/2, ...,
    1) pairs rows ``i`` and ``i + w`` and trades, within each run of ``2w`` columns, the
    second half of row ``i`` for the first half of row ``i + w``."""
    n = len(rows)
    rows = list(rows)
    w = n // 2
    while w >= 1:
        second = [(c // w) % 2 == 1 for c in range(n)]  # the column's bit w
        low = [n + c - w if s else c for c, s in zip(range(n), second)]
        high = [n + c if s else c + w for c, s in zip(range(n), second)]
        for i in range(n):
            if not i & w:
                a, b = rows[i], rows[i + w]
                rows[i], rows[i + w] = vector.shuffle(a, b, low), vector.shuffle(a, b, high)
        w //= 2
    return rows


def _rewrite(op: ir.Operation, lanes: int) -> None:
    """``op`` as loops over the output's other axes around the loops over blocks."""
    source, init = op.operands[0], op.operands[1]
    perm = _permutation(op)
    last = len(perm) - 1
    outer = [d for d in range(len(perm)) if d not in (perm.index(last), last)]
    element = ir.MemRefType(source.type).element_type
    row_type = ir.VectorType.get([lanes], element)
    mask_type = ir.VectorType.get([lanes], ir.IntegerType.get_signless(1))
    at = ir.InsertionPoint(op)
    with op.location:
        with at:
            zero, one, step = index_constant(0), index_constant(1), index_constant(lanes)
            sizes = {d: _size(init, d) for d in outer}
            rows_in, cols_in = _size(source, perm[last]), _size(source, last)
        out_index: dict[int, ir.Value] = {}
        for d in outer:
            with at:
                loop = scf.ForOp(zero, sizes[d], one)
            out_index[d] = loop.induction_variable
            with ir.InsertionPoint(loop.body):
                scf.YieldOp([])
            at = ir.InsertionPoint.at_block_terminator(loop.body)
        with at:
            block_rows = scf.ForOp(zero, rows_in, step)
            with ir.InsertionPoint(block_rows.body):
                i0 = block_rows.induction_variable
                block_cols = scf.ForOp(zero, cols_in, step)
                with ir.InsertionPoint(block_cols.body):
                    j0 = block_cols.induction_variable
                    _block(source, init, perm, out_index, (i0, j0), (rows_in, cols_in), row_type, mask_type)
                    scf.YieldOp([])
                scf.YieldOp([])
    op.erase()


def _block(source, init, perm, out_index, start, extent, row_type, mask_type) -> None:
    """One block: input rows ``i0..`` (along the axis the output's rows run along),
    columns ``j0..`` of each, into output rows ``j0..`` (along the axis the input's
    rows run along), columns ``i0..``. A whole block moves with plain loads and stores;
    one at an edge through masks."""
    (i0, j0), (rows_in, cols_in) = start, extent
    lanes = row_type.shape[0]
    rows_here = arith.minsi(arith.subi(rows_in, i0), index_constant(lanes))
    cols_here = arith.minsi(arith.subi(cols_in, j0), index_constant(lanes))
    full = arith.andi(*(arith.cmpi(arith.CmpIPredicate.eq, n, index_constant(lanes)) for n in (rows_here, cols_here)))
    branch = scf.IfOp(full, [], has_else=True)
    with ir.InsertionPoint(branch.then_block):
        rows = [vector.load(row_type, source, _source_index(perm, out_index, _plus(i0, r), j0)) for r in range(lanes)]
        for c, column in enumerate(transpose_in_registers(rows)):
            vector.StoreOp(column, init, _init_index(perm, out_index, _plus(j0, c), i0))
        scf.YieldOp([])
    with ir.InsertionPoint(branch.else_block):
        load_mask = vector.CreateMaskOp(mask_type, [cols_here]).result
        store_mask = vector.CreateMaskOp(mask_type, [rows_here]).result
        zeros = arith.constant(row_type, ir.DenseElementsAttr.get_splat(row_type, _zero(row_type.element_type)))
        last_row, last_col = arith.subi(rows_in, index_constant(1)), arith.subi(cols_in, index_constant(1))
        rows = []
        for r in range(lanes):
            index = _source_index(perm, out_index, arith.minsi(_plus(i0, r), last_row), j0)
            rows.append(vector.MaskedLoadOp(row_type, source, index, load_mask, zeros).result)
        columns = transpose_in_registers(rows)
        for c in reversed(range(lanes)):
            index = _init_index(perm, out_index, arith.minsi(_plus(j0, c), last_col), i0)
            vector.MaskedStoreOp(init, index, store_mask, columns[c])
        scf.YieldOp([])


def _plus(base: ir.Value, offset: int) -> ir.Value:
    return arith.addi(base, index_constant(offset)) if offset else base


def _source_index(perm, out_index, row, column) -> list:
    """The input's index of a block row: the other axes at the loops', ``row`` on the
    axis the output's rows run along, ``column`` on its own innermost axis."""
    index = [None] * len(perm)
    for d, v in out_index.items():
        index[perm[d]] = v
    index[perm[-1]], index[-1] = row, column
    return index


def _init_index(perm, out_index, row, column) -> list:
    """The output's index of a block row: ``row`` on the axis the input's rows run along."""
    index = [None] * len(perm)
    for d, v in out_index.items():
        index[d] = v
    index[perm.index(len(perm) - 1)], index[-1] = row, column
    return index


def _zero(element: ir.Type) -> ir.Attribute:
    if isinstance(element, ir.IntegerType):
        return ir.IntegerAttr.get(element, 0)
    return ir.FloatAttr.get(element, 0.0)


@dataclass
class EmberVectorTranspose(EmberPass):
    """Transposes moving the innermost axis as blocks transposed in vector registers."""

    name = "ember-vector-transpose"
    summary = "memref linalg.transpose across the innermost axis -> V x V register-block shuffles"
    # The vector width the blocks fill; the host's by default.
    vector_bits: int = field(default_factory=host_vector_bits)

    def run(self, module):
        if self.vector_bits not in (128, 256, 512):
            raise PassFailure(f"vector-bits must be 128, 256 or 512, not {self.vector_bits}")
        for op in collect(module, lambda o: o.name == "linalg.transpose"):
            if (lanes := lanes_for(op, self.vector_bits)) is not None:
                _rewrite(op, lanes)
