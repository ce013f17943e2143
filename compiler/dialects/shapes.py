"""Concrete result shapes of an Ember function, from its input shapes.

The runtime allocates a kernel's outputs before calling it (destination passing),
so it must know their shapes first. With dynamic (``?``) sizes those depend on the
inputs; this module replays the op type rules (``ops.py``) on concrete shapes, the
same rules that verified the function, so the two cannot disagree. The program is
built once per function; running it is a few rule calls per op, and the runtime
memoizes it per tuple of input shapes.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from compiler.dialects import ember, ops
from compiler.dialects.types import DYN, TensorType


@dataclass(frozen=True)
class _Step:
    name: str
    operands: tuple[int, ...]  # slots of the tensor operands
    sizes: tuple[int, ...]  # slots of the dynamic-size operands
    attrs: dict
    declared: TensorType | None  # the op's result type (None for ember.dim)
    result: int  # slot of the result


def _fill_dynamic(declared: TensorType, sizes: list[int]) -> TensorType:
    it = iter(sizes)
    return declared.with_shape(tuple(next(it) if d is DYN else d for d in declared.shape))


class ShapeProgram:
    """``program(input_shapes) -> output shapes`` for one ``func.func`` of Ember ops."""

    def __init__(self, func_op):
        block = func_op.regions[0].blocks[0]
        slots = {arg: i for i, arg in enumerate(block.arguments)}
        self.arg_types = [TensorType.from_mlir(a.type) for a in block.arguments]
        self.steps: list[_Step] = []
        self.returns: list[int] = []
        for op in block.operations:
            op = op.operation
            if op.name == "func.return":
                self.returns = [slots[v] for v in op.operands]
                continue
            self.steps.append(self._step(op, slots))

    @staticmethod
    def _step(op, slots) -> _Step:
        name = op.name.removeprefix("ember.")
        if not op.name.startswith("ember.") or name not in ops.OPS:
            raise ValueError(f"cannot compute shapes through {op.name}")
        slot = len(slots)
        slots[op.results[0]] = slot
        declared = None if name == "dim" else TensorType.from_mlir(op.results[0].type)
        return _Step(
            name,
            tuple(slots[v] for v in ember.tensor_operands(op)),
            tuple(slots[v] for v in ember.size_operands(op)),
            ember.op_attributes(op),
            declared,
            slot,
        )

    def __call__(self, shapes) -> list[tuple]:
        env: list = [t.with_shape(tuple(s)) for t, s in zip(self.arg_types, shapes)]
        env.extend([None] * len(self.steps))
        for step in self.steps:
            env[step.result] = self._run(step, env)
        return [env[i].shape for i in self.returns]

    @staticmethod
    def _run(step: _Step, env):
        operands = [env[i] for i in step.operands]
        if step.name == "dim":
            return operands[0].shape[step.attrs["axis"]]
        if step.name == "constant":
            return step.declared
        spec, result = ops.OPS[step.name], None
        if spec.result_given and spec.sizes:
            result = _fill_dynamic(step.declared, [env[i] for i in step.sizes])
        elif spec.result_given:  # cast: the operand's shape, the declared dtype
            result = step.declared.with_shape(operands[0].shape)
        return ops.infer(step.name, operands, step.attrs, result)


def shape_program(func_op) -> Callable:
    return ShapeProgram(func_op)
