"""ember-to-linalg: lower every ember op to linalg/tensor/arith/math on tensors (in progress)."""

from __future__ import annotations

from dataclasses import dataclass

from compiler.passes.registry import EmberPass, PassFailure, register


@register
@dataclass
class EmberToLinalg(EmberPass):
    """Lowers Ember ops to upstream tensor-level dialects so MLIR's pipelines take over."""

    name = "ember-to-linalg"
    summary = "Lower ember ops to linalg, tensor, arith and math ops on tensors"

    def run(self, module):
        raise PassFailure("ember-to-linalg is not implemented yet", module)
