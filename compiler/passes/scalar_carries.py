"""The 0-d values an ``scf.for`` carries, carried as scalars (``ember-scalar-carries``).

Why: a loop traced as a loop (``for i in range(n): s += x[i] * y[i]``) carries its
Python numbers as 0-d tensors, and bufferized, each iteration allocated a new 0-d
buffer for the next one and freed the last (an iteration hands it on, so
``hoist_loop_buffers`` must keep it inside). That loop ran at 23 ns an iteration on
a Zen 4, two ``malloc``/``free`` pairs and a store and load of the running value; a
Numba loop takes about one.

So before bufferization each 0-d ``tensor<T>`` iter_arg of a scalar type becomes a
``T`` iter_arg: the loop takes ``tensor.extract`` of its initial value, the body
begins with ``tensor.from_elements`` of the scalar for the ops that read the tensor,
yields ``tensor.extract`` of the tensor it yielded, and the loop's result is wrapped
back with ``tensor.from_elements`` for its users. The value is the same; only where
it lives changes. Bufferized, the body's 0-d tensors are buffers used up within
their iteration, which ``ember-bufferize`` allocates once before the loop; the
canonicalizer folds ``tensor.extract`` of ``tensor.from_elements``.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import collect, ir, operation_of, tensor
from compiler.passes.base import EmberPass

_SCALARS = (ir.IntegerType, ir.IndexType, ir.F16Type, ir.BF16Type, ir.F32Type, ir.F64Type)


def _zero_d_scalar(t: ir.Type) -> bool:
    return isinstance(t, ir.RankedTensorType) and t.rank == 0 and isinstance(t.element_type, _SCALARS)


def _wrapped(value: ir.Value, t: ir.RankedTensorType) -> ir.Value:
    """``tensor.from_elements`` of the scalar ``value`` at the insertion point,
    standing in for every other use of ``value`` (now of ``t``'s element type)."""
    as_tensor = tensor.from_elements(t, [value])
    value.replace_all_uses_except(as_tensor, operation_of(as_tensor.owner))
    return as_tensor


def carry_as_scalar(loop, i: int) -> None:
    """Make ``loop``'s ``i``-th iter_arg (a 0-d tensor of a scalar) a scalar."""
    t = ir.RankedTensorType(loop.results[i].type)
    body = loop.regions[0].blocks[0]
    operand = 3 + i  # lower bound, upper bound, step, then the initial values
    with ir.InsertionPoint(loop), loop.location:
        loop.operands[operand] = tensor.extract(loop.operands[operand], [])
    argument = body.arguments[1 + i]  # the induction variable, then the carried values
    argument.set_type(t.element_type)
    with ir.InsertionPoint.at_block_begin(body), loop.location:
        _wrapped(argument, t)
    terminator = operation_of(list(body.operations)[-1])
    with ir.InsertionPoint(terminator), loop.location:
        terminator.operands[i] = tensor.extract(terminator.operands[i], [])
    result = loop.results[i]
    result.set_type(t.element_type)
    with ir.InsertionPoint.after(loop), loop.location:
        _wrapped(result, t)


def scalar_carries(module) -> int:
    """Carry every 0-d scalar iter_arg of every ``scf.for`` as a scalar; returns how many."""
    done = 0
    for loop in collect(module, lambda op: op.name == "scf.for"):
        for i, result in enumerate(loop.results):
            if _zero_d_scalar(result.type):
                carry_as_scalar(loop, i)
                done += 1
    return done


@dataclass
class EmberScalarCarries(EmberPass):
    """An ``scf.for``'s 0-d tensor iter_args as scalars: no buffer handed from one
    iteration to the next once bufferized."""

    name = "ember-scalar-carries"
    summary = "0-d tensor iter_args of scf.for carried as scalars (before bufferization)"

    def run(self, module):
        scalar_carries(module)
