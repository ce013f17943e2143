"""Concrete result shapes of an Ember function, from its input shapes (and values).

The runtime allocates a kernel's outputs before calling it (destination passing),
so it must know their shapes first. With dynamic (``?``) sizes those depend on the
inputs; this module replays the op type rules (``ops.py``) on concrete shapes, the
same rules that verified the function, so the two cannot disagree. The program is
built once per function; running it is a few rule calls per op, and the runtime
memoizes it per tuple of input shapes.

A size may also depend on an input's *value*: ``ember.to_index`` reads the int of a
0-d integer argument (a Python int ``n`` passed as an array), and ``zeros(n)`` sizes
its result with it. Those arguments are the program's ``value_inputs``; it is then
called with their values after the shapes, and the runtime memoizes per shapes and
values. Size arithmetic (``ember.size_arith``) is replayed with Python's ints, so a
zero divisor raises ``ZeroDivisionError`` here, before any kernel runs.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from compiler.dialects import ember, ops
from compiler.dialects.types import DYN, TensorType

UNKNOWN = None  # an ``index`` the program cannot know: ``to_index`` of a value the kernel computes


@dataclass(frozen=True)
class _Step:
    name: str
    operands: tuple[int, ...]  # slots of the tensor operands
    indices: tuple[int, ...]  # slots of the named ``index`` operands
    sizes: tuple[int, ...]  # slots of the dynamic-size operands
    attrs: dict
    declared: TensorType | None  # the op's result type (None for an ``index`` result)
    result: int  # slot of the result


def value_inputs(func_op) -> tuple[int, ...]:
    """Indices of the function's arguments whose values ``ember.to_index`` reads, in order."""
    block = func_op.regions[0].blocks[0]
    read = {v for op in block.operations if op.operation.name == "ember.to_index" for v in op.operation.operands}
    return tuple(i for i, arg in enumerate(block.arguments) if arg in read)


class ShapeProgram:
    """``program(input_shapes, values) -> output shapes`` for one ``func.func`` of Ember
    ops; ``values`` holds the ints of the arguments ``value_inputs`` names, in order
    (none when the shapes alone fix the result shapes)."""

    def __init__(self, func_op):
        block = func_op.regions[0].blocks[0]
        slots = {arg: i for i, arg in enumerate(block.arguments)}
        self.arg_types = [TensorType.from_mlir(a.type) for a in block.arguments]
        self.value_inputs = value_inputs(func_op)
        self.steps: list[_Step] = []
        self.returns: list[int] = []
        for op in block.operations:
            op = op.operation
            if op.name == "func.return":
                self.returns = [slots[v] for v in op.operands]
                continue
            if op.name == "scf.for":  # a loop's results have its carried values' shapes
                for result, init in zip(op.results, list(op.operands)[3:]):
                    slots[result] = slots[init]
                continue
            self.steps.append(self._step(op, slots, len(self.arg_types) + len(self.steps)))

    @staticmethod
    def _step(op, slots, slot: int) -> _Step:
        name = op.name.removeprefix("ember.")
        if not op.name.startswith("ember.") or name not in ops.OPS:
            raise ValueError(f"cannot compute shapes through {op.name}")
        slots[op.results[0]] = slot
        declared = None if ops.OPS[name].index_result else TensorType.from_mlir(op.results[0].type)
        return _Step(
            name,
            tuple(slots[v] for v in ember.tensor_operands(op)),
            tuple(slots[v] for v in ember.index_operands(op)),
            tuple(slots[v] for v in ember.size_operands(op)),
            ember.op_attributes(op),
            declared,
            slot,
        )

    def __call__(self, shapes, values=()) -> list[tuple]:
        if len(values) != len(self.value_inputs):
            raise ValueError(f"the shape program takes {len(self.value_inputs)} input values, got {len(values)}")
        known = {i: int(v) for i, v in zip(self.value_inputs, values)}
        env: list = [t.with_shape(tuple(s)) for t, s in zip(self.arg_types, shapes)]
        env.extend([None] * len(self.steps))
        for step in self.steps:
            env[step.result] = self._run(step, env, known)
        return [env[i].shape for i in self.returns]

    @staticmethod
    def _run(step: _Step, env, known: dict):
        operands = [env[i] for i in step.operands]
        if step.name == "dim":
            return operands[0].shape[step.attrs["axis"]]
        if step.name == "size_constant":
            return step.attrs["value"]
        if step.name == "size_arith":
            lhs, rhs = (env[i] for i in step.indices)
            return UNKNOWN if UNKNOWN in (lhs, rhs) else ops.SIZE_ARITH[step.attrs["op"]](lhs, rhs)
        if step.name == "to_index":
            return known.get(step.operands[0], UNKNOWN)  # an argument's slot is its index
        if step.name in ("constant", "from_index"):
            return step.declared
        spec, result = ops.OPS[step.name], None
        if spec.result_given and spec.sizes:
            result = _fill_dynamic(step, [env[i] for i in step.sizes])
        elif spec.result_given:  # cast: the operand's shape, the declared dtype
            result = step.declared.with_shape(operands[0].shape)
        return ops.infer(step.name, operands, step.attrs, result)


def _fill_dynamic(step: _Step, sizes: list) -> TensorType:
    for size in sizes:
        if size is UNKNOWN:
            raise ValueError(f"the shape of ember.{step.name}'s result depends on a value the kernel computes")
        if size < 0:
            raise ValueError(f"negative size {size} for a '?' of ember.{step.name}'s result")
    it = iter(sizes)
    return step.declared.with_shape(tuple(next(it) if d is DYN else d for d in step.declared.shape))


def shape_program(func_op) -> Callable:
    return ShapeProgram(func_op)
