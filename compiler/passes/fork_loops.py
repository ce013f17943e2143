"""Run the parallel loops of a many-loop kernel on every thread (``ember-fork-loops``).

``ember-parallel-parts`` splits a kernel across threads only when its work is one
top-level ``scf.forall``: the runtime then calls the whole kernel once per thread.
A kernel with anything else beside the loop (a second loop reading the first one's
output, a BLAS call, a time-step ``scf.for`` around its stencil loops) ran on one
thread: the corpus's log-softmax over (200000, 10) float64 took 11 ms alone and 22 ms
with its mask returned beside it, a second loop.

Such kernels fork and join per loop instead, as OpenMP runs a ``parallel for``. Each
outermost ``scf.forall`` moves into a function of its own, ``ember_forked_<kernel>_<k>``,
taking the values it uses from around it, then ``(part, parts)``, and running only its
part's tiles (``parallel.guard_body``, the same contiguous blocks a parallel kernel
runs). In its place the kernel calls ``ember_fork_<kernel>_<k>`` with those values and
the loop's trip count. The CPU backend defines that function (``runtime/entry_glue.py``,
``fork_glue``): it packs the values and hands the forked function to the worker pool
in ``threads.FORK_PARTS_PER_THREAD`` parts per thread (at most one per tile), and returns when every part is done. The
kernel's other ops stay where they were, on the calling thread, between the loops:
each loop still sees everything the ops before it wrote.

What the loop uses from around it travels as the forked function's arguments, except
constants and views (``memref.subview``, reshapes, casts), which it makes again from
what they are made of: a stencil's five shifted windows of one grid are one argument,
the grid. Two loops whose forked functions come out the same text (an unrolled
time-step loop: every step the same stencil, on the other grid every other step) share
one: the later calls the earlier's fork, and LLVM compiles the loop once.

A loop stays in place when its iterations are not one normalized dimension, when it
yields results, or when it uses a value the backend cannot pass by pointer or by value
(a vector, a half-precision float). Scratch of a symbolic size (a sort's lines of the
row's length) is allocated per part from the size passed along: with symbolic sizes a
sort beside another loop had stayed in the kernel, on one thread (an argsort of (1000,
1000) float64 whose keys were a loop of their own: 19 ms on one thread or two; 9-12
on two with the fork). Kernels the runtime already splits
(``ember.parallel``) are left alone.

Kernels that call BLAS or LAPACK fork their loops too. OpenBLAS's threads spin for
about 0.1 s after each call (``YIELDING`` is a few ``nop``s on x86-64), so a pool
worker woken between two calls may get its core late; the pool's parts are claimed,
not assigned (``runtime/worker_pool.ll``), and the calling thread runs what a late
worker has not taken. Measured on 2 cores (best of 3, ms, not forking -> forking):
the corpus's correlation (normalise, then ``data.T @ data``) 14.0-14.8 -> 10.8-12.0,
dft 7.6-7.8 -> 7.0-7.5, ``relu(A @ B + bias)`` 1024^3 float32 7.1-7.7 -> 6.9-7.2,
a ``tanh`` between two 512^2 float64 products 5.85-6.19 -> 5.64-6.00; with parts
assigned to threads that last one took 6.46-6.87.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import func, functions, ir, memref, module_text, operation_of, symbol_name, walk_ops
from compiler.passes.base import EmberPass
from compiler.passes.buffers import alignment_of
from compiler.passes.parallel import VIEW_OPS, guard_body, normalized, trip_count
from compiler.passes.scf_loops import inside_forall
from runtime.abi import FORKED_PREFIX, PARALLEL_ATTR, fork_name, forked_name

C_INTERFACE = "llvm.emit_c_interface"


def passable(t: ir.Type) -> bool:
    """A type the fork's glue can hand to the forked function: a buffer (by descriptor
    pointer), an index, an integer or a float32/float64 (by value)."""
    return isinstance(t, (ir.MemRefType, ir.IndexType, ir.IntegerType, ir.F32Type, ir.F64Type))


def _outermost_loops(fn) -> list[ir.Operation]:
    """The ``scf.forall`` ops of ``fn`` not nested in another one."""
    return [op for op in walk_ops(fn) if op.name == "scf.forall" and not inside_forall(op)]


def captures(loop, inner: list) -> list:
    """The values ``loop`` uses that are defined outside it (``inner``: the ops nested in
    it, in walk order), in first-use order."""
    nested = {loop, *inner}
    seen, found = set(), []
    for op in [loop, *inner]:
        for value in op.operands:
            owner = value.owner
            defining = operation_of(owner) if not isinstance(owner, ir.Block) else operation_of(owner.owner)
            if defining in nested or value in seen:
                continue
            seen.add(value)
            found.append(value)
    return found


def _scratch(value, inner) -> ir.Operation | None:
    """The ``memref.alloc`` of ``value`` when it is scratch of the loop whose ops are
    ``inner``: used only inside it (and freed after it). Such a buffer is a tile's
    temporary hoisted out of the loop (``tile_buffers.py``): every tile reuses it, so
    every part needs its own."""
    owner = operation_of(value.owner)
    if owner is None or owner.name != "memref.alloc":
        return None
    for use in value.uses:
        user = operation_of(use.owner)
        if user not in inner and user.name != "memref.dealloc":
            return None
    return owner


def _constant(value) -> bool:
    """A constant the forked function makes itself: the loop's code folds it (a static
    trip count, a comparison's bound), which an argument would hide."""
    owner = operation_of(value.owner)
    return owner is not None and owner.name == "arith.constant"


def _view(value) -> ir.Operation | None:
    """The op making ``value`` when it is a view (``VIEW_OPS``): the forked function
    makes it again from its operands (passed in its place), so a fork passes a kernel's
    arguments, not the five shifted windows of one grid a stencil reads (each one more
    descriptor the kernel builds per call)."""
    owner = operation_of(value.owner)
    return owner if owner is not None and owner.name in VIEW_OPS else None


@dataclass
class _Uses:
    """What a loop uses from around it: values passed to the forked function, constants
    and views it makes again (views after their operands), scratch buffers it
    allocates per part."""

    values: list
    constants: list
    views: list  # view ops
    scratch: dict  # value -> its memref.alloc

    @classmethod
    def of(cls, loop) -> _Uses:
        inner = walk_ops(loop)[:-1]
        used = captures(loop, inner)
        nested = set(inner)
        scratch = {v: alloc for v in used if (alloc := _scratch(v, nested)) is not None}
        uses, seen = cls([], [], [], scratch), set(scratch)
        for value in used:
            uses._add(value, seen)
        for alloc in scratch.values():  # a scratch line of a symbolic length: the length goes too
            for size in alloc.opview.dynamicSizes:
                uses._add(size, seen)
        return uses

    def _add(self, value, seen: set) -> None:
        if value in seen:
            return
        seen.add(value)
        if _constant(value):
            self.constants.append(value)
        elif (view := _view(value)) is not None:
            for operand in view.operands:
                self._add(operand, seen)
            self.views.append(view)
        else:
            self.values.append(value)

    def passable(self) -> bool:
        return all(passable(v.type) for v in self.values) and not any(
            len(a.opview.symbolOperands) for a in self.scratch.values()
        )


def forkable(loop) -> _Uses | None:
    """What ``loop`` uses, when it can be forked; else None."""
    body = loop.regions[0].blocks[0]
    if len(body.arguments) != 1 or len(loop.results) or not normalized(loop):
        return None
    uses = _Uses.of(loop)
    return uses if uses.passable() else None


def _declare(name: str, types: list[ir.Type], before):
    with ir.InsertionPoint(before):
        decl = func.FuncOp(name, (types, []), visibility="private")
    decl.attributes[C_INTERFACE] = ir.UnitAttr.get()
    return decl


def _forked_function(module_block, name: str, uses: _Uses):
    """The function taking ``uses.values`` and ``(part, parts)``, its constants and
    scratch buffers made at its start; returns it with the mapping of outside values
    to its own, and its ``return``."""
    index = ir.IndexType.get()
    with ir.InsertionPoint(module_block):
        forked = func.FuncOp(name, ([v.type for v in uses.values] + [index, index], []))
    forked.attributes[C_INTERFACE] = ir.UnitAttr.get()
    block = forked.add_entry_block()
    mapping = dict(zip(uses.values, block.arguments, strict=False))
    with ir.InsertionPoint(block):
        for value in uses.constants:
            mapping[value] = operation_of(value.owner).clone(ir.InsertionPoint.current).results[0]
        for view in uses.views:
            made = view.clone(ir.InsertionPoint.current)
            for i, operand in enumerate(view.operands):
                made.operands[i] = mapping[operand]
            mapping[view.results[0]] = made.results[0]
        for value, alloc in uses.scratch.items():
            sizes = [mapping[size] for size in alloc.opview.dynamicSizes]
            mapping[value] = memref.AllocOp(value.type, sizes, [], alignment=alignment_of(alloc)).result
        ret = func.ReturnOp([])
    return forked, mapping, ret


def fork(module_block, fn, loop, number: int, uses: _Uses) -> tuple:
    """Move ``loop`` (which uses ``uses``) into ``ember_forked_<function>_<number>`` and
    call it through the fork in its place. Its scratch buffers move with it: allocated
    once per part. Returns (the forked function, the fork's declaration, the call)."""
    name = symbol_name(fn)
    with loop.location:
        forked, mapping, ret = _forked_function(module_block, forked_name(name, number), uses)
        decl = _declare(fork_name(name, number), [v.type for v in uses.values] + [ir.IndexType.get()], fn)
        with ir.InsertionPoint(loop):
            tiles = trip_count(loop)  # a constant made here, or the bound the loop uses
            call = func.CallOp([], ir.FlatSymbolRefAttr.get(fork_name(name, number)), uses.values + [tiles])
        streams = any("nontemporal" in op.attributes for op in walk_ops(loop))
        loop.move_before(ret.operation)
        for op in walk_ops(loop):
            for i, operand in enumerate(op.operands):
                if operand in mapping:
                    op.operands[i] = mapping[operand]
        with ir.InsertionPoint(ret):
            for value in uses.scratch:
                memref.DeallocOp(mapping[value])
            if streams:  # each part's streaming stores drained on its own thread
                for fence in _fences(fn):
                    fence.clone(ir.InsertionPoint.current)
        for value, alloc in uses.scratch.items():
            for use in list(value.uses):  # its deallocation
                operation_of(use.owner).erase()
            alloc.erase()
        for view in reversed(uses.views):  # those only the loop used
            if not list(view.results[0].uses):
                view.erase()
        part, parts = list(forked.regions[0].blocks[0].arguments)[-2:]
        guard_body(loop, part, parts)
    return forked, decl, call


def _fences(fn) -> list[ir.Operation]:
    """The fence ``ember-nontemporal-stores`` puts before ``fn`` returns, if any."""
    block = fn.regions[0].blocks[0]
    ops = [op.operation for op in block.operations]
    found = []
    for op in reversed(ops[:-1]):
        if op.name == "llvm.fence" or (op.name == "llvm.call_intrinsic" and "sfence" in str(op.attributes["intrin"])):
            found.append(op)
        else:
            break
    return found


def fork_loops(module) -> int:
    """Fork every forkable outermost loop of every function the runtime does not split
    whole; returns how many."""
    module_block = module.regions[0].blocks[0]
    count = 0
    for fn in functions(module):
        attrs = fn.attributes
        if PARALLEL_ATTR in attrs and ir.BoolAttr(attrs[PARALLEL_ATTR]).value:
            continue
        if symbol_name(fn).startswith(FORKED_PREFIX):
            continue
        number, made = 0, {}
        loops = [(loop, uses) for loop in _outermost_loops(fn) if (uses := forkable(loop)) is not None]
        for loop, uses in loops:
            forked, decl, call = fork(module_block, fn, loop, number, uses)
            key = _text_without_name(forked) if len(loops) > 1 else None
            if key in made:
                _call_earlier_fork(forked, decl, call, fork_name(symbol_name(fn), made[key]))
            else:
                made[key] = number
                number += 1
            count += 1
    return count


def _text_without_name(forked) -> str:
    """The forked function as text, its name left out: two loops with the same text
    compute the same on their arguments."""
    return module_text(forked).replace(f"@{symbol_name(forked.operation)}(", "@(", 1)  # unverified: 2 ms less


def _call_earlier_fork(forked, decl, call, earlier: str) -> None:
    """A loop identical to one forked before (a time-step loop unrolled: every step the
    same stencil, on the other grid every other step) calls that one's fork: LLVM
    compiles one function where it compiled one per step (a 10-step Jacobi's cold
    compile was 1.8 s, 0.8 of it LLVM on ten copies)."""
    call.attributes["callee"] = ir.FlatSymbolRefAttr.get(earlier)
    forked.operation.erase()
    decl.operation.erase()


@dataclass
class EmberForkLoops(EmberPass):
    """Fork and join each parallel loop of a kernel the runtime does not split whole."""

    name = "ember-fork-loops"
    summary = "run each outermost scf.forall of a many-loop kernel on the worker pool, one call per loop"

    def run(self, module):
        fork_loops(module)
