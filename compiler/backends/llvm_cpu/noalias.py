"""The kernel's buffers as LLVM ``noalias`` pointers.

``ember-bufferize`` marks each buffer argument of a kernel ``llvm.noalias``: outputs are
fresh arrays, and an input the kernel writes overlaps no other input (the frontend
guards it); inputs only read may overlap each other, which ``noalias`` allows. But
``convert-func-to-llvm`` drops the attributes of an argument that becomes several LLVM
arguments, as a memref does (its descriptor: allocated and aligned pointer, offset,
sizes, strides), so the promise never reached LLVM: it guarded the kernel's vectorized
loops with run-time overlap checks and compiled a second, scalar version of each. Put
back on the aligned pointer, through which the kernel reads and writes (the allocated
one is only for freeing, and the kernel frees no argument), it spares both.
"""

from __future__ import annotations

from compiler.mlir import ir

NOALIAS = "llvm.noalias"


def aligned_pointer_positions(fn) -> list[int]:
    """The LLVM argument positions of the aligned pointers of ``fn``'s ``noalias`` memref
    arguments (``fn``: a ``func.func`` over memrefs, before conversion to LLVM); empty
    when an argument's expansion is not known."""
    attrs = list(ir.ArrayAttr(fn.attributes["arg_attrs"])) if "arg_attrs" in fn.attributes else []
    positions, at = [], 0
    for k, arg in enumerate(fn.regions[0].blocks[0].arguments):
        t = arg.type
        if isinstance(t, ir.MemRefType):
            if k < len(attrs) and NOALIAS in ir.DictAttr(attrs[k]):
                positions.append(at + 1)
            at += 3 + 2 * t.rank
        elif isinstance(t, (ir.IndexType, ir.IntegerType, ir.F32Type, ir.F64Type)):
            at += 1
        else:
            return []
    return positions


def mark_aligned_pointers(module: ir.Module, symbol: str, positions: list[int]) -> None:
    """Mark the arguments at ``positions`` of the ``llvm.func`` ``symbol`` ``noalias``;
    nothing where one of them is not a pointer."""
    for op in module.body.operations:
        if op.operation.name != "llvm.func" or ir.StringAttr(op.attributes["sym_name"]).value != symbol:
            continue
        args = op.regions[0].blocks[0].arguments
        if not positions or any(p >= len(args) or str(args[p].type) != "!llvm.ptr" for p in positions):
            return
        old = list(ir.ArrayAttr(op.attributes["arg_attrs"])) if "arg_attrs" in op.attributes else []
        dicts = []
        for p in range(len(args)):
            entries = {a.name: a.attr for a in ir.DictAttr(old[p])} if p < len(old) else {}
            if p in positions:
                entries[NOALIAS] = ir.UnitAttr.get()
            dicts.append(ir.DictAttr.get(entries))
        op.attributes["arg_attrs"] = ir.ArrayAttr.get(dicts)
        return
