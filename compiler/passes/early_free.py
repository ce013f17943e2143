"""Free each temporary right after the last op that uses it (``ember-free-early``).

Upstream's ``buffer-deallocation-pipeline`` frees a buffer at the end of the block
that allocates it. A kernel that is a long sequence of steps (a time-stepped stencil
unrolled by the frontend, an iterative solver's fixed number of sweeps) then holds
every step's temporaries at once: the corpus's ``wave_2d`` (600x600 float64, 20
steps) kept about a hundred 2.9 MB buffers alive until its return, each one fresh
memory paying its page faults, and ran at half NumPy's speed, slower per step the
more steps it had (20 ms now; it took 108). Freed after their last use, the buffers go
back to the allocator (the runtime's cache of large blocks, ``runtime/temporaries.py``),
which hands the same memory to the next step's temporaries.

The pass moves each ``memref.dealloc`` of a ``memref.alloc`` in the same block up to
just after the last op of that block that uses the buffer or anything derived from it
(views, casts, a loop's or a call's results; every result of a user but a load is
taken for one). It runs last in ``lower-to-loops``: passes that move loops (fusion,
forking) have run, and nothing after it reorders ops.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import functions, ir, operation_of, walk_ops
from compiler.passes.base import EmberPass

# Users whose results are values read from the buffer, not the buffer again.
_READS = {"memref.load", "affine.load", "vector.load", "vector.transfer_read", "vector.maskedload", "memref.dim"}


def _users(buffer: ir.Value) -> list[ir.Operation]:
    """Every op using ``buffer`` or a value derived from it."""
    found, seen, stack = [], set(), [buffer]
    while stack:
        for use in stack.pop().uses:
            user = operation_of(use.owner)
            if user in seen:
                continue
            seen.add(user)
            found.append(user)
            if user.name not in _READS:
                stack.extend(user.results)
    return found


def _in_block(op: ir.Operation, block: ir.Block) -> ir.Operation | None:
    """The op of ``block`` that is ``op`` or contains it; None when ``op`` is outside."""
    while op is not None:
        if op.block == block:
            return op
        op = op.parent
    return None


def free_early(dealloc: ir.Operation) -> bool:
    """Move ``dealloc`` to just after its buffer's last use in its block; whether it moved."""
    alloc = operation_of(dealloc.operands[0].owner)
    if alloc is None or alloc.name != "memref.alloc" or alloc.block != dealloc.block:
        return False
    block = dealloc.block
    ops = [o.operation for o in block.operations]
    position = {op: i for i, op in enumerate(ops)}
    last = alloc
    for user in _users(alloc.results[0]):
        if user == dealloc:
            continue
        mine = _in_block(user, block)
        if mine is None or mine.parent != alloc.parent or mine == ops[-1]:
            return False  # used outside the block, or by its terminator: left where upstream put it
        if position[mine] > position[last]:
            last = mine
    if position[last] + 1 == position[dealloc]:
        return False
    dealloc.move_after(last)
    return True


@dataclass
class EmberFreeEarly(EmberPass):
    """Free each buffer after its last use instead of at the end of its block (module doc)."""

    name = "ember-free-early"
    summary = "move each memref.dealloc up to just after the last use of its buffer"

    def run(self, module):
        for fn in functions(module):
            for op in walk_ops(fn):
                if op.name == "memref.dealloc":
                    free_early(op)
