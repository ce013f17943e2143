"""Changing a ``func.func``'s arguments in place, keeping its type and argument attributes in step.

Bufferization appends output buffers and the parallel split appends ``(part, parts)``;
both must update ``function_type`` and pad ``arg_attrs``, or the function no longer
verifies.
"""

from __future__ import annotations

from compiler.mlir import ir


def add_arguments(fn, types: list[ir.Type]) -> list:
    """Append block arguments of ``types`` to ``fn``'s body; returns them."""
    block = fn.regions[0].blocks[0]
    return [block.add_argument(t, fn.location) for t in types]


def sync_signature(fn, results: list[ir.Type] | None = None) -> None:
    """Set ``fn``'s type from its block arguments (and ``results``, default: unchanged)."""
    block = fn.regions[0].blocks[0]
    inputs = [a.type for a in block.arguments]
    if results is None:
        results = list(ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value).results)
    fn.attributes["function_type"] = ir.TypeAttr.get(ir.FunctionType.get(inputs, results))
    if "arg_attrs" in fn.attributes:
        old = list(ir.ArrayAttr(fn.attributes["arg_attrs"]))
        fn.attributes["arg_attrs"] = ir.ArrayAttr.get(old + [ir.DictAttr.get({})] * (len(inputs) - len(old)))
