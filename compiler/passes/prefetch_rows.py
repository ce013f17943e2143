"""The next row fetched while this one is written (``ember-prefetch-rows``).

Why: a loop over rows that reads each row more than once (layer norm: the row's sum,
its sum of squared deviations, then the normalized output; softmax: the max, the sum of
exponentials, then the quotients) reads a row from memory in its first pass only: the
later ones find it in the L1 cache. The hardware prefetcher follows a stream within one
4 KiB page, and a row of 1024 float32 is a page: at each row it starts again, and while
a row's later passes compute, no line of the next row is on its way. Measured on a
2-core AVX-512 Xeon, (4096, 1024) float32, side by side in one process: layer norm
0.72 -> 0.64 ms, row softmax 1.10 -> 1.00 ms, ``x - x.mean(1, keepdims=True)`` 0.595
-> 0.582 ms (a copy of the array: 0.58). A few lines of the next row prefetched before
the second pass (the prefetcher then follows) gained 2-4 %; the whole next row at
once, nothing (the prefetches wait for the line-fill buffers, and the loop with them);
prefetching the output's next row for writing cost 20-30 %.

The rewrite: in an ``scf.for`` over rows whose body holds loops over a row, when the
first of them loads a buffer at ``[row, column]`` and a later one loads it there again,
the last of them that stores without carrying values (the pass that writes the row)
runs in chunks of ``LINES`` cache lines, each chunk preceded by one ``memref.prefetch``
of each of those lines in the next row of that buffer. So the next row arrives while
this row's output is computed and written, spread over the pass as the loads of a
fused loop would be. The chunk loop carries no values; LLVM vectorizes it as it did
the whole row.

Prefetches change no value and never fault; the column is clamped to the row and the
last row prefetches itself, so every address is inside the buffer. Only rows of
``MIN_ROW_BYTES`` to ``MAX_ROW_BYTES`` get them (shorter rows share a page with the
next one, longer ones leave the L1 cache); with a row length known at run time only,
the chunks ask that condition.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import arith, collect, constant_index, defined_inside, index_constant, ir, memref, scf
from compiler.passes.base import EmberPass

LINE_BYTES = 64
LINES = 4  # per chunk: one 512-bit vector per line, the unrolled vector loop's step
MIN_ROW_BYTES = 1 << 10
MAX_ROW_BYTES = 32 << 10  # two rows and the output's row stay in a 48 KiB L1 cache


def _loops_over_row(row_loop: ir.Operation) -> list:
    return [op.operation for op in row_loop.regions[0].blocks[0].operations if op.operation.name == "scf.for"]


def _row_reads(loop: ir.Operation, row: ir.Value) -> list:
    """The buffers ``loop`` loads at ``[row, column]``, ``column`` its own variable."""
    column = loop.regions[0].blocks[0].arguments[0]
    found = []
    for op in loop.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "memref.load" and list(op.operands)[1:] == [row, column] and op.operands[0] not in found:
            found.append(op.operands[0])
    return found


def _unit_stride_rows(buffer: ir.Value) -> bool:
    t = buffer.type
    if not isinstance(t, ir.MemRefType) or t.rank != 2 or not isinstance(t.element_type, ir.FloatType):
        return False
    strides, _ = ir.MemRefType(t).get_strides_and_offset()
    return strides[-1] == 1


def _writing_pass(loops: list, first: ir.Operation) -> ir.Operation | None:
    """The last loop over the row after ``first`` that carries no values, has ``first``'s
    bounds and a unit step, and holds no loop: the pass that writes the row."""
    for loop in reversed(loops[1:]):
        if len(loop.operands) != 3 or loop.results:
            continue
        same = all(
            a == b or (constant_index(a) is not None and constant_index(a) == constant_index(b))
            for a, b in zip(loop.operands[:2], first.operands[:2])
        )
        innermost = not collect(loop, lambda op, loop=loop: op != loop and op.name == "scf.for")
        if same and constant_index(loop.operands[2]) == 1 and innermost:
            return loop
        return None
    return None


def _static_row_fits(loop: ir.Operation, element_bytes: int) -> bool | None:
    """Whether the row's length is in range, when it is static; None when it is not."""
    lower, upper = (constant_index(v) for v in loop.operands[:2])
    if lower is None or upper is None:
        return None
    return MIN_ROW_BYTES <= (upper - lower) * element_bytes <= MAX_ROW_BYTES


def _row_bytes_condition(loop: ir.Operation, element_bytes: int) -> ir.Value:
    """The run-time ``i1``: the row's length (not known statically) is in range."""
    length = arith.subi(loop.operands[1], loop.operands[0])
    return arith.andi(
        arith.cmpi(arith.CmpIPredicate.sge, length, index_constant(-(-MIN_ROW_BYTES // element_bytes))),
        arith.cmpi(arith.CmpIPredicate.sle, length, index_constant(MAX_ROW_BYTES // element_bytes)),
    )


def _prefetch_chunk(buffers: list, next_row: ir.Value, start: ir.Value, last_column: ir.Value, per_line: int):
    for buffer in buffers:
        for line in range(LINES):
            column = arith.minsi(arith.addi(start, index_constant(line * per_line)) if line else start, last_column)
            memref.prefetch(buffer, [next_row, column], False, 3, True)


def _chunked(row_loop: ir.Operation, writing: ir.Operation, buffers: list) -> None:
    """``writing`` as a loop over chunks of ``LINES`` lines, each after the prefetch of
    the same lines of the next row of ``buffers``."""
    element_bytes = ir.FloatType(ir.MemRefType(buffers[0].type).element_type).width // 8
    per_line = LINE_BYTES // element_bytes
    row = row_loop.regions[0].blocks[0].arguments[0]
    lower, upper = writing.operands[0], writing.operands[1]
    static_fits = _static_row_fits(writing, element_bytes)
    if static_fits is False:
        return
    with ir.InsertionPoint(writing), writing.location:
        fits = None if static_fits else _row_bytes_condition(writing, element_bytes)
        following = arith.addi(row, row_loop.operands[2])
        has_next = arith.cmpi(arith.CmpIPredicate.slt, following, row_loop.operands[1])
        next_row = arith.select(has_next, following, row)
        last_column = arith.subi(upper, index_constant(1))
        chunks = scf.ForOp(lower, upper, index_constant(LINES * per_line))
        with ir.InsertionPoint(chunks.body):
            start = chunks.induction_variable
            if fits is None:
                _prefetch_chunk(buffers, next_row, start, last_column, per_line)
            else:
                guard = scf.IfOp(fits)
                with ir.InsertionPoint(guard.then_block):
                    _prefetch_chunk(buffers, next_row, start, last_column, per_line)
                    scf.YieldOp([])
            end = arith.minsi(arith.addi(start, index_constant(LINES * per_line)), upper)
            chunk = scf.ForOp(start, end, writing.operands[2])
            with ir.InsertionPoint(chunk.body):
                end_of_body = scf.YieldOp([])
            scf.YieldOp([])
    body = writing.regions[0].blocks[0]
    body.arguments[0].replace_all_uses_with(chunk.induction_variable)
    for op in list(body.operations)[:-1]:  # all but its scf.yield
        op.operation.move_before(end_of_body)
    writing.erase()


def _rewrite(row_loop: ir.Operation) -> None:
    loops = _loops_over_row(row_loop)
    if len(loops) < 2:
        return
    row = row_loop.regions[0].blocks[0].arguments[0]
    read_again = {buffer for loop in loops[1:] for buffer in _row_reads(loop, row)}
    buffers = [
        buffer
        for buffer in _row_reads(loops[0], row)
        if buffer in read_again and not defined_inside(buffer, row_loop) and _unit_stride_rows(buffer)
    ]
    element_types = {str(ir.MemRefType(b.type).element_type) for b in buffers}
    writing = _writing_pass(loops, loops[0])
    if buffers and writing is not None and len(element_types) == 1:
        _chunked(row_loop, writing, buffers)


@dataclass
class EmberPrefetchRows(EmberPass):
    """Row loops that read each row in several passes: the last pass prefetches the next
    row, a chunk of lines at a time."""

    name = "ember-prefetch-rows"
    summary = "a row read in several passes: the next row prefetched during the pass that writes this one"

    def run(self, module):
        for loop in collect(module, lambda op: op.name == "scf.for" and len(op.operands) == 3):
            _rewrite(loop)
