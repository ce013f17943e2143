"""Lowerings of sort/argsort (filled in by issue 12's sorting work)."""

from __future__ import annotations

# Ember op name -> lowering function (op, result TensorType, attrs) -> ir.Value, merged
# into ember_to_linalg.LOWERINGS.
LOWERINGS: dict = {}
