"""Which memory a memref value is: the buffer a chain of views starts from.

The loop-level passes (``ember-nontemporal-stores``, ``ember-fuse-loop-nests``) reason
about stores and loads by buffer; two views of one allocation are the same memory.
"""

from __future__ import annotations

from compiler.mlir import ir, operation_of

# Ops whose result is a view of their first operand's memory.
VIEWS = {
    "memref.subview",
    "memref.collapse_shape",
    "memref.expand_shape",
    "memref.reinterpret_cast",
    "memref.cast",
}


def root_buffer(buffer: ir.Value) -> ir.Value:
    """The buffer a chain of views starts from."""
    owner = operation_of(buffer.owner)
    while owner is not None and owner.name in VIEWS:
        buffer = owner.operands[0]
        owner = operation_of(buffer.owner)
    return buffer


def distinct_memory(root: ir.Value) -> bool:
    """A root that shares its memory with no other root: an allocation, or a function
    argument (Ember's kernels mark them ``noalias``)."""
    if isinstance(root.owner, ir.Block):
        owner = operation_of(root.owner.owner)
        return owner is not None and owner.name == "func.func"
    owner = operation_of(root.owner)
    return owner is not None and owner.name in ("memref.alloc", "memref.alloca")


def identity_layout(t: ir.Type) -> bool:
    """A memref of the row-major layout its shape gives (no strides or offset of its own)."""
    return (
        isinstance(t, ir.MemRefType)
        and isinstance(t.layout, ir.AffineMapAttr)
        and t.layout.value == ir.AffineMap.get_identity(t.rank)
    )


def alignment_of(alloc: ir.Operation) -> ir.IntegerAttr | None:
    """The ``alignment`` of a ``memref.alloc``/``alloca``, to give a copy of it."""
    attr = alloc.attributes["alignment"] if "alignment" in alloc.attributes else None
    return ir.IntegerAttr(attr) if attr is not None else None
