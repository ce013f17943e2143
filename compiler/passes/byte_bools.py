"""Loads and stores of bools as bytes (``ember-byte-bools``).

Why: a NumPy bool is a byte, 0 or 1, and ``finalize-memref-to-llvm`` reads and writes
one as an ``i1`` (``load i1`` / ``store i1``). LLVM's loop vectorizer does not take a
memory access of a type whose bits do not fill its bytes, so every loop that read or
wrote a bool array ran one element at a time: ``board.astype(np.int32)`` of a
(1000, 1000) bool array took 0.97 ms where NumPy takes 0.095 ms, and a game-of-life
step on it was slower than NumPy's eight temporaries.

The rewrite, on the LLVM dialect before ``convert-arith-to-llvm``: a scalar ``i1``
load becomes an ``i8`` load compared with 0 (a nonzero byte is True, as NumPy reads
one), a scalar ``i1`` store stores the bool zero-extended to ``i8``. The memory is the
same bytes, and the loops vectorize.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import arith, collect, ir
from compiler.passes.base import EmberPass


def _is_bool(t: ir.Type) -> bool:
    return isinstance(t, ir.IntegerType) and ir.IntegerType(t).width == 1


def _byte_load(load: ir.Operation, byte: ir.Type) -> None:
    named = (load.attributes[i] for i in range(len(load.attributes)))
    attributes = {attribute.name: attribute.attr for attribute in named}
    with ir.InsertionPoint(load), load.location:
        loaded = ir.Operation.create("llvm.load", results=[byte], operands=[load.operands[0]], attributes=attributes)
        truth = arith.cmpi(arith.CmpIPredicate.ne, loaded.results[0], arith.constant(byte, 0))
    load.results[0].replace_all_uses_with(truth)
    load.erase()


def _byte_store(store: ir.Operation, byte: ir.Type) -> None:
    with ir.InsertionPoint(store), store.location:
        store.operands[0] = arith.extui(byte, store.operands[0])


@dataclass
class EmberByteBools(EmberPass):
    """Scalar ``i1`` loads and stores (NumPy bools) as ``i8`` ones, so LLVM vectorizes
    the loops over bool arrays."""

    name = "ember-byte-bools"
    summary = "scalar i1 llvm.load/llvm.store (NumPy bools, a byte each) as i8 ones, so bool loops vectorize"

    def run(self, module):
        byte = ir.IntegerType.get_signless(8)
        for load in collect(module, lambda op: op.name == "llvm.load" and _is_bool(op.results[0].type)):
            _byte_load(load, byte)
        for store in collect(module, lambda op: op.name == "llvm.store" and _is_bool(op.operands[0].type)):
            _byte_store(store, byte)
