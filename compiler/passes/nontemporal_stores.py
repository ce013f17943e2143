"""Outputs larger than the last-level cache written with non-temporal stores
(``ember-nontemporal-stores``).

Why: an ordinary store first reads its cache line from memory (read-for-ownership),
then writes it back when it is evicted. For an output that does not fit in the cache
that read is pure waste, and the output also evicts the inputs the next tile needs.
A non-temporal (streaming) store writes whole lines to memory without reading them.
Measured on the development machine (16M elements, outputs reused from the output
cache, median of 15 calls): ``x * 1.5 + y`` float32 6.4 -> 4.1-4.7 ms on 2 threads
(12.5-12.9 -> 9.1-9.4 on 1), ``np.where(x > 0, x, 0.1 * x)`` 4.7-4.9 -> 2.6 ms,
``np.sqrt(x*x + y*y)`` and ``x / (y + 3)`` 1.4-1.6x, float64 the same.
In a raw loop the gain starts between 24 and 32 MiB per array and reaches 1.6x at 64.
Measured again with outputs below 32 MiB (float64, 2 threads, best of 40 calls):
``a + 1.5`` 8 MiB 0.51-0.54 -> 0.40-0.44 ms, 16 MiB 1.3-1.4 -> 0.8-0.9, 31 MiB
3.4-3.9 -> 2.2-3.1; but a caller that reads the output next (``y.sum()`` in NumPy)
loses below 16 MiB (8 MiB: 1.25-1.30 -> 1.6-1.8 ms) and comes out even at 16, where
the output no longer stays in this machine's share of the cache either way.

Only cheap bodies: with a transcendental in the body (``tanh``, ``exp``, inlined by
``ember-expand-math``) the stores come slowly, and streaming them was slower, up to
1.75x (``np.tanh(x * 1.5 + b) * 0.5 + x`` float64: 25 -> 44 ms); such a kernel is
compute-bound and its stores cost little anyway.

LLVM's loop vectorizer refuses ``!nontemporal`` stores it cannot prove aligned to the
vector, and a tile of an output starts anywhere. So this pass vectorizes such loops
itself: an innermost elementwise ``scf.for`` whose every store goes to an output that
nothing in the function reads (a function argument written only by stores) is split,
at run time, into

* a vector loop over the part of the range where the first output's address is
  aligned to a whole vector (64 bytes: a cache line; 1-4 % faster than 32 measured with
  512-bit vectors, and an AVX2 machine splits it in two):
  ``vector.load`` of each input, the body's arith ops on vectors,
  ``vector.store {nontemporal}`` of each output;
* the original scalar loop, run twice by a two-trip loop around it: over the elements
  before the aligned part and over the elements after it. When the outputs are
  smaller than ``min-bytes``, not congruent modulo their vector size, not aligned
  to their element, or the range is too short, the first trip runs the whole range and
  the vector loop none (the scalar loop is what LLVM vectorizes as before).

Streaming stores are weakly ordered: a fence before the function returns makes them
visible to the thread that waits for the kernel.

Only what is sure to vectorize to the same values is rewritten: loads and stores
indexed by the loop's variable in the last position of a buffer whose last stride is 1
(no ``i1`` buffers: a vector of ``i1`` is packed bits in memory), loads of loop
invariants (broadcast), arith ops other than index ones, and the cheap math ops.

``min-bytes`` defaults to ``EMBER_STREAMING_STORES`` (a size such as ``64M``, or
``off``), else the smaller of the last-level cache and 16 MiB: a virtual machine
reports its host's whole cache (480 MiB on the development machine) while its share is
far smaller. ``-1`` turns the pass off.
"""

from __future__ import annotations

import functools
import math
import os
from dataclasses import dataclass, field
from pathlib import Path

from compiler.mlir import (
    arith,
    collect,
    constant_index,
    defined_inside,
    index_constant,
    ir,
    llvm,
    memref,
    operation_of,
    scf,
    vector,
)
from compiler.passes.base import EmberPass
from compiler.passes.buffers import VIEWS, root_buffer
from compiler.passes.op_costs import CHEAP_MATH
from runtime.cache import parse_size
from runtime.target import host_target

VECTOR_BYTES = 64  # one cache line, what a streaming store writes whole
FALLBACK_MIN_BYTES = 16 << 20  # where streaming stops costing a caller that reads the output
OFF = -1

_METADATA = {"memref.dim", "memref.extract_strided_metadata", "memref.extract_aligned_pointer_as_index"}
_INDEX_ARITH = {"arith.index_cast", "arith.index_castui"}


@functools.cache
def _last_level_cache() -> int | None:
    """The L3 size Linux reports ("491520K"), read once: every compile's cache key asks."""
    try:
        return parse_size(Path("/sys/devices/system/cpu/cpu0/cache/index3/size").read_text())
    except (OSError, ValueError):
        return None


def streaming_min_bytes() -> int:
    """The outputs' size from which stores stream (``OFF``: never); see the module's text."""
    configured = os.environ.get("EMBER_STREAMING_STORES", "").strip().lower()
    if configured == "off":
        return OFF
    if configured:
        try:
            return parse_size(configured) or 0
        except ValueError as e:
            raise ValueError(f"EMBER_STREAMING_STORES must be a size such as 64M, or off: {e}") from None
    cache = _last_level_cache()
    return FALLBACK_MIN_BYTES if cache is None else min(cache, FALLBACK_MIN_BYTES)


def _element_bytes(t: ir.Type) -> int | None:
    """Bytes of a vectorizable element type (no i1, no index, no complex)."""
    if isinstance(t, (ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)):
        return t.width // 8
    if isinstance(t, ir.IntegerType) and t.width in (8, 16, 32, 64):
        return t.width // 8
    return None


def _unit_last_stride(t: ir.Type) -> bool:
    if not isinstance(t, ir.MemRefType) or t.rank == 0:
        return False
    strides, _ = ir.MemRefType(t).get_strides_and_offset()
    return strides[-1] == 1


def _write_only(buffer: ir.Value) -> bool:
    """Nothing but stores (and shape queries) use ``buffer`` or a view of it."""
    for use in buffer.uses:
        owner = operation_of(use.owner)
        if owner is None:
            return False
        if owner.name in VIEWS:
            if not all(_write_only(r) for r in owner.results):
                return False
        elif owner.name == "memref.store":
            if use.operand_number != 1:  # stored as a value (impossible for a memref) or used as an index
                return False
        elif owner.name not in _METADATA:
            return False
    return True


def _streamable_output(buffer: ir.Value) -> bool:
    """A function argument (an output the caller passed in) written by stores only."""
    root = root_buffer(buffer)
    if not isinstance(root.owner, ir.Block):
        return False
    owner = operation_of(root.owner.owner)
    return owner is not None and owner.name == "func.func" and _write_only(root)


def _static_bytes(buffer: ir.Value) -> int | None:
    t = ir.MemRefType(buffer.type)
    if any(d == ir.ShapedType.get_dynamic_size() for d in t.shape):
        return None
    return math.prod(t.shape) * _element_bytes(t.element_type)


@dataclass
class _Plan:
    """What one loop's rewrite needs: the stores that stream, the lane count."""

    loop: ir.Operation
    streaming: list
    lanes: int


def _indexed_by(access: ir.Operation, iv: ir.Value, loop: ir.Operation) -> bool:
    """``access`` is a load or store at ``[invariant..., iv]`` of a buffer with unit last stride."""
    indices = list(access.opview.indices)
    t = access.opview.memref.type
    return (
        bool(indices)
        and indices[-1] == iv
        and all(not defined_inside(i, loop) for i in indices[:-1])
        and not defined_inside(access.opview.memref, loop)
        and _unit_last_stride(t)
        and _element_bytes(ir.MemRefType(t).element_type) is not None
    )


def _invariant_load(op: ir.Operation, loop: ir.Operation) -> bool:
    return all(not defined_inside(v, loop) for v in op.operands)


def _body_vectorizes(loop: ir.Operation, iv: ir.Value) -> bool:
    for op in loop.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "scf.yield":
            continue
        if op.name in ("memref.load", "memref.store"):
            if not (_indexed_by(op, iv, loop) or (op.name == "memref.load" and _invariant_load(op, loop))):
                return False
        elif op.name.startswith("arith.") and op.name not in _INDEX_ARITH:
            types = [v.type for v in list(op.operands) + list(op.results)]
            if op.regions or any(isinstance(t, (ir.IndexType, ir.VectorType)) for t in types):
                return False
        elif op.name not in CHEAP_MATH:
            return False
    return all(operation_of(use.owner).name in ("memref.load", "memref.store") for use in iv.uses)


def _plan(loop: ir.Operation, min_bytes: int) -> _Plan | None:
    if len(loop.operands) != 3 or constant_index(loop.operands[2]) != 1:
        return None  # loop-carried values (a reduction) or a step other than 1
    iv = loop.regions[0].blocks[0].arguments[0]
    if not _body_vectorizes(loop, iv):
        return None
    stores = [op.operation for op in loop.regions[0].blocks[0].operations if op.operation.name == "memref.store"]
    if not all(_streamable_output(store.opview.memref) for store in stores):
        return None  # a buffer something reads: the vector loop runs before the head, so no order may matter
    streaming = []
    for store in stores:
        size = _static_bytes(root_buffer(store.opview.memref))
        if size is None or size >= min_bytes:
            streaming.append(store)
    if not streaming:
        return None
    widest = max(_element_bytes(ir.MemRefType(s.opview.memref.type).element_type) for s in streaming)
    return _Plan(loop, streaming, VECTOR_BYTES // widest)


# ----------------------------------------------------------------------------- run-time split


def _address(access: ir.Operation, position: ir.Value) -> ir.Value:
    """The byte address of ``access``'s element with its last index at ``position``."""
    buffer = access.opview.memref
    t = ir.MemRefType(buffer.type)
    metadata = memref.ExtractStridedMetadataOp(buffer)
    offset, strides = metadata.offset, list(metadata.strides)
    element = list(access.opview.indices[:-1]) + [position]
    linear = offset
    for index, stride in zip(element, strides, strict=True):
        linear = arith.addi(linear, arith.muli(index, stride))
    base = memref.extract_aligned_pointer_as_index(buffer)
    return arith.addi(base, arith.muli(linear, index_constant(_element_bytes(t.element_type))))


def _total_bytes(buffer: ir.Value) -> ir.Value:
    root = root_buffer(buffer)
    t = ir.MemRefType(root.type)
    total = index_constant(_element_bytes(t.element_type))
    for axis in range(t.rank):
        total = arith.muli(total, memref.dim(root, index_constant(axis)))
    return total


def _all(conditions: list) -> ir.Value:
    result = conditions[0]
    for c in conditions[1:]:
        result = arith.andi(result, c)
    return result


def _split(plan: _Plan, min_bytes: int) -> tuple[ir.Value, ir.Value]:
    """(start, end) of the aligned vector part, computed before the loop; start = end =
    the loop's end when the vector part must not run."""
    lower, upper = plan.loop.operands[0], plan.loop.operands[1]
    lanes = index_constant(plan.lanes)
    first = plan.streaming[0]
    first_bytes = _element_bytes(ir.MemRefType(first.opview.memref.type).element_type)
    address = _address(first, lower)
    misalign = arith.remui(address, index_constant(VECTOR_BYTES))
    head = arith.divui(
        arith.remui(arith.subi(index_constant(VECTOR_BYTES), misalign), index_constant(VECTOR_BYTES)),
        index_constant(first_bytes),
    )
    count = arith.subi(upper, lower)
    start = arith.addi(lower, head)
    ok = [arith.cmpi(arith.CmpIPredicate.sle, arith.addi(head, lanes), count)]  # signed: an empty range
    for store in plan.streaming:
        size = _element_bytes(ir.MemRefType(store.opview.memref.type).element_type)
        if _static_bytes(root_buffer(store.opview.memref)) is None:
            ok.append(arith.cmpi(arith.CmpIPredicate.uge, _total_bytes(store.opview.memref), index_constant(min_bytes)))
        # every streaming output lands on a whole vector where the first one does
        aligned = arith.remui(_address(store, start), index_constant(plan.lanes * size))
        ok.append(arith.cmpi(arith.CmpIPredicate.eq, aligned, index_constant(0)))
    go = _all(ok)
    vectors = arith.muli(arith.divui(arith.subi(upper, start), lanes), lanes)
    start = arith.select(go, start, upper)
    end = arith.select(go, arith.addi(start, vectors), upper)
    return start, end


# ----------------------------------------------------------------------------- vector body


def _vector_type(t: ir.Type, lanes: int) -> ir.Type:
    return ir.VectorType.get([lanes], t)


def _vector_body(plan: _Plan, start: ir.Value, end: ir.Value) -> None:
    loop = plan.loop
    iv = loop.regions[0].blocks[0].arguments[0]
    vector_loop = scf.ForOp(start, end, index_constant(plan.lanes))
    with ir.InsertionPoint(vector_loop.body):
        i = vector_loop.induction_variable
        vectors: dict = {}  # scalar value of the old body -> its vector in the new one
        scalars: dict = {}  # loop-invariant value of the old body -> its clone

        def scalar(v):
            return scalars.get(v, v)

        def vec(v):
            if v in vectors:
                return vectors[v]
            s = scalar(v)
            return vector.broadcast(_vector_type(s.type, plan.lanes), s)

        for op in loop.regions[0].blocks[0].operations:
            op = op.operation
            if op.name == "scf.yield":
                continue
            if op.name == "memref.store":
                access = op.opview
                indices = [scalar(x) for x in access.indices[:-1]] + [i]
                nt = any(op == s for s in plan.streaming)
                size = _element_bytes(ir.MemRefType(access.memref.type).element_type)
                vector.StoreOp(
                    vec(access.value),
                    access.memref,
                    indices,
                    nontemporal=True if nt else None,
                    alignment=plan.lanes * size if nt else None,
                )
            elif op.name == "memref.load" and list(op.opview.indices) and op.opview.indices[-1] == iv:
                access = op.opview
                indices = [scalar(x) for x in access.indices[:-1]] + [i]
                t = _vector_type(op.results[0].type, plan.lanes)
                vectors[op.results[0]] = vector.load(t, access.memref, indices)
            elif all(v not in vectors for v in op.operands):
                clone = op.clone()
                for k, v in enumerate(op.operands):
                    clone.operands[k] = scalar(v)
                scalars[op.results[0]] = clone.results[0]
            else:
                new = ir.Operation.create(
                    op.name,
                    results=[_vector_type(r.type, plan.lanes) for r in op.results],
                    operands=[vec(v) for v in op.operands],
                    attributes={name: op.attributes[name] for name in op.attributes},
                )
                vectors[op.results[0]] = new.results[0]
        scf.YieldOp([])


def _rewrite(plan: _Plan, min_bytes: int) -> None:
    loop = plan.loop
    with ir.InsertionPoint(loop), loop.location:
        start, end = _split(plan, min_bytes)
        _vector_body(plan, start, end)
        # the scalar loop twice: [lower, start) and [end, upper)
        lower, upper = loop.operands[0], loop.operands[1]
        twice = scf.ForOp(index_constant(0), index_constant(2), index_constant(1))
        with ir.InsertionPoint(twice.body):
            first = arith.cmpi(arith.CmpIPredicate.eq, twice.induction_variable, index_constant(0))
            loop.operands[0] = arith.select(first, lower, end)
            loop.operands[1] = arith.select(first, start, upper)
            scf.YieldOp([])
    loop.move_before(twice.body.operations[len(twice.body.operations) - 1])


def _fence(function: ir.Operation) -> None:
    """Streaming stores drained before the kernel returns: ``sfence`` on x86, a
    release fence elsewhere."""
    for ret in collect(function, lambda op: op.name == "func.return"):
        with ir.InsertionPoint(ret), ret.location:
            if host_target().triple.startswith("x86_64"):  # the machine the kernel is compiled for
                llvm.CallIntrinsicOp(None, "llvm.x86.sse.sfence", [], [], [])
            else:
                llvm.FenceOp(ir.Attribute.parse("#llvm.atomic_ordering<release>"))


@dataclass
class EmberNontemporalStores(EmberPass):
    """Elementwise loops writing outputs larger than ``min-bytes`` as an aligned vector
    loop of streaming stores, the scalar loop kept for the ends and small outputs."""

    name = "ember-nontemporal-stores"
    summary = "elementwise loops writing outputs larger than the cache -> aligned vector loops of non-temporal stores"
    min_bytes: int = field(default_factory=streaming_min_bytes)

    def run(self, module):
        if self.min_bytes == OFF:
            return
        for function in collect(module, lambda op: op.name == "func.func"):
            plans = [
                p
                for loop in collect(function, lambda op: op.name == "scf.for")
                if not any(o.operation.name == "scf.for" for o in loop.regions[0].blocks[0].operations)
                and (p := _plan(loop, self.min_bytes)) is not None
            ]
            for plan in plans:
                _rewrite(plan, self.min_bytes)
            if plans:
                _fence(function)
