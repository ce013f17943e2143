"""Float matmuls as calls into BLAS (``ember-matmul-to-blas``).

After bufferization, every ``linalg.matmul`` on ``f32``/``f64`` buffers becomes a
call to a small helper function, added once per element type, that asks BLAS's
``?gemm`` to do it (see ``runtime/blas_symbols.py`` for where the BLAS
comes from). The helper checks at run time what BLAS needs — unit stride along rows,
leading dimensions of at least the row length, no empty dimension — and otherwise
runs the original ``linalg.matmul`` as loops, so any NumPy view still works.
``linalg.matmul`` accumulates into its output (Ember fills it with zeros first), which
is ``gemm`` with ``alpha = beta = 1``.

Matmuls are library calls, so ``ember-fuse`` and ``ember-tile`` leave them whole
(``linalg_utils.is_library_call``); their elementwise epilogues form their own loop nest.
Without a BLAS in the process the pass does nothing.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import collect, func, functions, ir, memref, symbol_name
from compiler.passes.base import EmberPass
from runtime import blas_symbols

_HELPER = """
func.func private @ember_blas_GEMM(i32, i32, i32, i64, i64, i64, ELEM, !llvm.ptr, i64, !llvm.ptr, i64, ELEM, !llvm.ptr, i64)
func.func private @ember_matmul_ELEM(%a: MEMREF, %b: MEMREF, %c: MEMREF) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %one = arith.constant 1.0 : ELEM
  %row_major = arith.constant 101 : i32
  %no_trans = arith.constant 111 : i32
  %ba, %oa, %ma, %ka, %lda, %sa = memref.extract_strided_metadata %a : MEMREF -> memref<ELEM>, index, index, index, index, index
  %bb, %ob, %kb, %nb, %ldb, %sb = memref.extract_strided_metadata %b : MEMREF -> memref<ELEM>, index, index, index, index, index
  %bc, %oc, %mc, %nc, %ldc, %sc = memref.extract_strided_metadata %c : MEMREF -> memref<ELEM>, index, index, index, index, index
  %unit_a = arith.cmpi eq, %sa, %c1 : index
  %unit_b = arith.cmpi eq, %sb, %c1 : index
  %unit_c = arith.cmpi eq, %sc, %c1 : index
  %lda_ok = arith.cmpi sge, %lda, %ka : index
  %ldb_ok = arith.cmpi sge, %ldb, %nb : index
  %ldc_ok = arith.cmpi sge, %ldc, %nb : index
  %m_ok = arith.cmpi sgt, %ma, %c0 : index
  %n_ok = arith.cmpi sgt, %nb, %c0 : index
  %k_ok = arith.cmpi sgt, %ka, %c0 : index
  %ok1 = arith.andi %unit_a, %unit_b : i1
  %ok2 = arith.andi %ok1, %unit_c : i1
  %ok3 = arith.andi %ok2, %lda_ok : i1
  %ok4 = arith.andi %ok3, %ldb_ok : i1
  %ok5 = arith.andi %ok4, %ldc_ok : i1
  %ok6 = arith.andi %ok5, %m_ok : i1
  %ok7 = arith.andi %ok6, %n_ok : i1
  %ok = arith.andi %ok7, %k_ok : i1
  scf.if %ok {
    %pa = func.call @ember_elem_ptr_ELEM(%a) : (MEMREF) -> !llvm.ptr
    %pb = func.call @ember_elem_ptr_ELEM(%b) : (MEMREF) -> !llvm.ptr
    %pc = func.call @ember_elem_ptr_ELEM(%c) : (MEMREF) -> !llvm.ptr
    %m = arith.index_cast %ma : index to i64
    %n = arith.index_cast %nb : index to i64
    %k = arith.index_cast %ka : index to i64
    %la = arith.index_cast %lda : index to i64
    %lb = arith.index_cast %ldb : index to i64
    %lc = arith.index_cast %ldc : index to i64
    func.call @ember_blas_GEMM(%row_major, %no_trans, %no_trans, %m, %n, %k, %one, %pa, %la, %pb, %lb, %one, %pc, %lc)
        : (i32, i32, i32, i64, i64, i64, ELEM, !llvm.ptr, i64, !llvm.ptr, i64, ELEM, !llvm.ptr, i64) -> ()
  } else {
    linalg.matmul ins(%a, %b : MEMREF, MEMREF) outs(%c : MEMREF)
  }
  return
}
func.func private @ember_elem_ptr_ELEM(%x: MEMREF) -> !llvm.ptr {
  %base, %offset, %s0, %s1, %t0, %t1 = memref.extract_strided_metadata %x : MEMREF -> memref<ELEM>, index, index, index, index, index
  %address = memref.extract_aligned_pointer_as_index %x : MEMREF -> index
  %address64 = arith.index_cast %address : index to i64
  %offset64 = arith.index_cast %offset : index to i64
  %pointer = llvm.inttoptr %address64 : i64 to !llvm.ptr
  %element = llvm.getelementptr %pointer[%offset64] : (!llvm.ptr, i64) -> !llvm.ptr, ELEM
  return %element : !llvm.ptr
}
"""

_GEMM_LETTER = {"f32": "s", "f64": "d"}


def generic_memref(element: str) -> str:
    return f"memref<?x?x{element}, strided<[?, ?], offset: ?>>"


def helper_text(element: str) -> str:
    return (
        _HELPER.replace("MEMREF", generic_memref(element))
        .replace("GEMM", f"{_GEMM_LETTER[element]}gemm")
        .replace("ELEM", element)
    )


def _is_float_matmul(op) -> bool:
    return (
        op.name == "linalg.matmul"
        and isinstance(op.operands[0].type, ir.MemRefType)
        and str(op.operands[0].type.element_type) in _GEMM_LETTER
        and len({str(v.type.element_type) for v in op.operands}) == 1
    )


def _add_helper(module, element: str) -> None:
    if any(symbol_name(op) == f"ember_matmul_{element}" for op in functions(module)):
        return
    parsed = ir.Module.parse(helper_text(element))
    body = module.regions[0].blocks[0]
    for op in list(parsed.body.operations):
        op.operation.move_before(body.operations[0]) if len(body.operations) else None


def _replace(op) -> None:
    element = str(op.operands[0].type.element_type)
    generic = ir.Type.parse(generic_memref(element))
    with ir.InsertionPoint(op), op.location:
        args = [memref.cast(generic, v) for v in op.operands]
        func.CallOp([], ir.FlatSymbolRefAttr.get(f"ember_matmul_{element}"), args)
    op.erase()


@dataclass
class EmberMatmulToBlas(EmberPass):
    """Float matmuls on buffers call BLAS ``?gemm`` (with a loop fallback for odd strides)."""

    name = "ember-matmul-to-blas"
    summary = "f32/f64 linalg.matmul on memrefs -> BLAS gemm calls, checked at run time, loops otherwise"
    force: bool = False  # emit the calls even if this process has no BLAS (for tests of the IR)

    def run(self, module):
        if not (self.force or blas_symbols.available()):
            return
        matmuls = collect(module, _is_float_matmul)
        for element in sorted({str(op.operands[0].type.element_type) for op in matmuls}):
            _add_helper(module, element)
        for op in matmuls:
            _replace(op)
