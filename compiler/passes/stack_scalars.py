"""A function's small buffers on its stack (``ember-stack-scalars``).

Why: bufferized, a loop traced as a loop keeps its 0-d values (the running sum, the
index-check flag, the index vector of ``a[i, i]``) in small buffers allocated once
before the loop. On the heap, LLVM knows nothing of them: the runtime's allocator
aligns each block by integer arithmetic on its address (``memref.alloc``'s lowering),
which hides where the pointer came from, so every store to one may change any other,
and each iteration stores the running value and loads it back. A stack slot
(``memref.alloca``) that is only loaded and stored is what LLVM's SROA turns into a
register: ``s += x[i] * y[i]`` over 100000 elements went from 4.8 ns an iteration
to 0.87 (and the heap buffers it carried from one iteration to the
next before ``ember-scalar-carries``: 23 ns).

Only buffers of at most ``MAX_BYTES`` with a static shape, allocated in the function's
entry block (so once per call, never in a loop), whose every use is a load, a store, a
``linalg`` op (lowered to loads and stores in this function), a view of it used the
same way, or its ``memref.dealloc`` (erased); at most ``MAX_FRAME_BYTES`` of them per
function. A buffer handed to a call, yielded, returned or taken apart for its pointer
stays on the heap.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from compiler.mlir import functions, ir, memref, operation_of
from compiler.passes.base import EmberPass
from compiler.passes.buffers import VIEWS, alignment_of

MAX_BYTES = 64  # one cache line: 0-d values and short index vectors
# All of them in one function: a graph of a thousand ops unrolled from a loop holds a
# small buffer or two per op, and the kernel may run on a worker thread's stack.
MAX_FRAME_BYTES = 16 << 10
_ACCESSES = {"memref.load", "memref.store", "memref.dim"}


def _element_bytes(t: ir.Type) -> int | None:
    if isinstance(t, ir.IntegerType):
        return max(1, t.width // 8)
    if isinstance(t, ir.IndexType):
        return 8
    if isinstance(t, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)):
        return t.width // 8
    return None


def _slot_bytes(alloc: ir.Operation) -> int | None:
    """Its bytes on the stack (a whole aligned slot) when it is a small buffer of a static
    shape and a plain element type, else None."""
    t = ir.MemRefType(alloc.results[0].type)
    element = _element_bytes(t.element_type)
    if alloc.operands or not t.has_static_shape or element is None or math.prod(t.shape) * element > MAX_BYTES:
        return None
    align = alignment_of(alloc)
    step = align.value if align is not None else 1
    return -(-math.prod(t.shape) * element // step) * step


def _used_in_place(buffer: ir.Value, deallocs: list) -> bool:
    """Whether every use of ``buffer`` (and of its views) reads or writes it here;
    its ``memref.dealloc`` ops are collected into ``deallocs``."""
    for use in buffer.uses:
        owner = operation_of(use.owner)
        if owner.name == "memref.dealloc":
            deallocs.append(owner)
        elif owner.name in VIEWS:
            if not _used_in_place(owner.results[0], deallocs):
                return False
        elif owner.name not in _ACCESSES and not owner.name.startswith("linalg."):
            return False
    return True


def to_stack(alloc: ir.Operation) -> bool:
    """``alloc`` (a small buffer: ``_slot_bytes``) as a ``memref.alloca`` when it is only
    read and written in place; whether it was changed."""
    t = ir.MemRefType(alloc.results[0].type)
    deallocs: list = []
    if not _used_in_place(alloc.results[0], deallocs):
        return False
    with ir.InsertionPoint(alloc), alloc.location:
        slot = memref.alloca(t, [], [], alignment=alignment_of(alloc))
    alloc.results[0].replace_all_uses_with(slot)
    for dealloc in deallocs:
        dealloc.erase()
    alloc.erase()
    return True


def stack_scalars(module) -> int:
    """Move every qualifying buffer of every function to its stack; returns how many."""
    moved = 0
    for fn in functions(module):
        entry = fn.regions[0].blocks[0]
        frame = 0
        for alloc in [op.operation for op in entry.operations if op.operation.name == "memref.alloc"]:
            size = _slot_bytes(alloc)
            if size is not None and frame + size <= MAX_FRAME_BYTES and to_stack(alloc):
                frame += size
                moved += 1
    return moved


@dataclass
class EmberStackScalars(EmberPass):
    """Small buffers allocated once per call and only read and written in place: on
    the stack, where LLVM keeps them in registers."""

    name = "ember-stack-scalars"
    summary = "small buffers of the entry block, only loaded and stored: memref.alloca"

    def run(self, module):
        stack_scalars(module)
