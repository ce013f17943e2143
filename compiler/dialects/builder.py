"""Emit an Ember function op by op — the API the frontend traces into.

    b = FunctionBuilder("mse", [TensorType((None,), "f32")] * 2)
    x, y = b.args
    d = b.op("sub", x, y)
    s = b.op("sum", b.op("mul", d, d), axes=(0,), keepdims=False)
    module = b.finish([s])

Result types come from the op's type rule (``ops.py``), so a malformed op raises
``TypeRuleError`` at the call that made it, with the frontend's source line still
at hand, instead of failing later in the verifier.
"""

from __future__ import annotations

import numpy as np

from compiler.dialects import ember, ops
from compiler.dialects.guard_metadata import GuardMetadata
from compiler.dialects.types import TensorType
from compiler.mlir import func, ir, scf


class FunctionBuilder:
    def __init__(self, name: str, arg_types: list[TensorType], context: ir.Context | None = None):
        self.context = context or ember.new_context()
        self._location = ir.Location.unknown(self.context)
        with self.context, self._location:
            self.module = ir.Module.create()
            with ir.InsertionPoint(self.module.body):
                fn_type = ir.FunctionType.get([t.to_mlir() for t in arg_types], [])
                self.func = func.FuncOp(name, fn_type)
            self.block = self.entry = self.func.add_entry_block()
        self.args = list(self.entry.arguments)
        self._outer: list = []  # the blocks around the loop body being built
        self.ops_emitted = 0  # the tracer's size budget reads it after every instruction
        # (starts, steps, shape) of each ``update_slice`` of a static region smaller than
        # its array (``b[1:-1] = ...``): a loop updating the same regions every iteration
        # is a loop of time steps (frontend/loops.py)
        self.region_updates: list[tuple] = []

    def add_argument(self, t: TensorType) -> ir.Value:
        """A new trailing argument (the frontend discovers its inputs while tracing)."""
        with self.context, self._location:
            value = self.entry.add_argument(t.to_mlir(), ir.Location.unknown())
        self.args.append(value)
        return value

    def at(self, filename: str, line: int, col: int = 0) -> "FunctionBuilder":
        """Tag the ops built from now on with a source location."""
        self._location = ir.Location.file(filename, line, col, context=self.context)
        return self

    @staticmethod
    def type_of(value: ir.Value) -> TensorType:
        return TensorType.from_mlir(value.type)

    def op(self, name: str, *operands, result: TensorType | None = None, sizes=(), **attrs) -> ir.Value:
        """Emit ``ember.<name>``: ``operands`` are its tensor operands then its named
        ``index`` operands (``spec.index_operands``), ``sizes`` its dynamic result sizes."""
        spec = ops.OPS[name]
        with self.context, self._location:
            split = len(operands) - len(spec.index_operands)
            if split < 0:
                raise ops.TypeRuleError(f"expects {len(spec.index_operands)} index operands, got {len(operands)}")
            for v in list(operands[split:]) + list(sizes):
                if str(v.type) != "index":
                    raise ops.TypeRuleError(f"expects index operands, got a value of type {v.type}")
            types = [self.type_of(v) for v in operands[:split]]
            if name == "update_slice" and len(operands) == 2 and types[0].shape != types[1].shape:
                self.region_updates.append((tuple(attrs["starts"]), tuple(attrs["steps"]), types[1].shape))
            inferred = ops.infer(name, types, attrs, result)
            result_type = ir.IndexType.get() if inferred == ops.INDEX else inferred.to_mlir()
            attributes = {k: ember.to_attribute(kind, attrs[k]) for k, kind in spec.attrs.items()}
            op = ir.Operation.create(
                f"ember.{name}",
                results=[result_type],
                operands=list(operands) + list(sizes),
                attributes=attributes,
                ip=ir.InsertionPoint(self.block),
            )
        self.ops_emitted += 1
        return op.result

    def constant(self, value) -> ir.Value:
        return self.op("constant", value=np.asarray(value))

    def dim(self, value: ir.Value, axis: int) -> ir.Value:
        return self.op("dim", value, axis=axis)

    # -- sizes as values (the ``size`` family): what a symbolic size is traced into

    def size_constant(self, value: int) -> ir.Value:
        """An ``index`` constant."""
        return self.op("size_constant", value=int(value))

    def size_arith(self, op: str, lhs: ir.Value, rhs: ir.Value) -> ir.Value:
        """``lhs <op> rhs`` on ``index`` values, ``op`` one of ``ops.SIZE_ARITH``
        (add, sub, mul, floordiv, mod, max, min; floordiv and mod as Python's)."""
        return self.op("size_arith", lhs, rhs, op=op)

    def to_index(self, value: ir.Value) -> ir.Value:
        """The ``index`` held by a 0-d integer tensor (a Python int argument)."""
        return self.op("to_index", value)

    def from_index(self, size: ir.Value) -> ir.Value:
        """An ``index`` as a 0-d ``i64`` tensor (to use a size as an array operand)."""
        return self.op("from_index", size)

    def dynamic_sizes(self, like: ir.Value, result: TensorType) -> list[ir.Value]:
        """``dim`` values of ``like`` for every ``?`` of ``result`` (same axes)."""
        return [self.dim(like, axis) for axis in result.dynamic_axes()]

    # -- loops: a body traced once, run as ``scf.for`` (frontend/loops.py)

    def open_loop(self, lower: ir.Value, upper: ir.Value, step: ir.Value, inits: list[ir.Value]):
        """An ``scf.for`` carrying ``inits``; ops are built in its body from now on, until
        ``close_loop``. Returns the loop op (its induction variable and carried values are
        ``loop.induction_variable`` and ``loop.inner_iter_args``)."""
        with self.context, self._location:
            loop = scf.ForOp(lower, upper, step, list(inits), ip=ir.InsertionPoint(self.block))
        self._outer.append(self.block)
        self.block = loop.body
        self.ops_emitted += 1
        return loop

    def close_loop(self, loop, yields: list[ir.Value]) -> list[ir.Value]:
        """End the body of ``loop`` (the innermost open one) yielding ``yields``; ops are
        built after the loop again. Returns its results."""
        with self.context, self._location:
            scf.YieldOp(list(yields), ip=ir.InsertionPoint(loop.body))
        self.block = self._outer.pop()
        return list(loop.results)

    def discard_loop(self, loop) -> None:
        """Erase ``loop`` (its body with it) and build after where it stood again."""
        if self.block == loop.body:
            self.block = self._outer.pop()
        bounds = [operand.owner for operand in list(loop.operation.operands)[:3]]
        loop.operation.erase()
        for owner in bounds:  # the bounds' constants, unless something else uses them
            if isinstance(owner, ir.Operation) or hasattr(owner, "operation"):
                op = owner.operation
                if all(not list(r.uses) for r in op.results):
                    op.erase()

    def finish(self, results: list[ir.Value], metadata: GuardMetadata | None = None) -> ir.Module:
        with self.context, self._location:
            func.ReturnOp(results, ip=ir.InsertionPoint(self.entry))
            arg_types = [a.type for a in self.args]
            self.func.attributes["function_type"] = ir.TypeAttr.get(
                ir.FunctionType.get(arg_types, [r.type for r in results])
            )
            if metadata is not None:
                metadata.attach(self.func)
        return self.module
