"""Running upstream transform-dialect scripts on marked ops, from Python.

Our passes choose *which* ops to transform; upstream's transform ops do the work
(tiling, producer fusion, sibling-loop fusion). A script finds its operands by
attributes we put on them (marks) and is applied with the transform interpreter;
the marks are removed afterwards so they never reach the output.
"""

from __future__ import annotations

from compiler.mlir import collect, ir, transform_interpreter

_HEADER = """
module attributes {transform.with_named_sequence} {
  transform.named_sequence @__transform_main(%root: !transform.any_op {transform.readonly}) {
"""
_FOOTER = """
    transform.yield
  }
}
"""


def script(body: str, **names) -> ir.Module:
    """A transform module around ``body``, with each ``names`` key replaced by its value."""
    text = _HEADER + body + _FOOTER
    for key, value in names.items():
        text = text.replace(key, value)
    return ir.Module.parse(text)


def module_of(op):
    while op.name != "builtin.module":
        op = op.parent
    return op


def apply(module, transform: ir.Module) -> None:
    """Run ``transform`` on ``module``; upstream failures raise ValueError."""
    transform_interpreter.apply_named_sequence(module, transform.body.operations[0], transform.operation)


def clear_marks(module, *marks) -> None:
    for op in collect(module, lambda op: any(mark in op.attributes for mark in marks)):
        for mark in marks:
            if mark in op.attributes:
                del op.attributes[mark]
