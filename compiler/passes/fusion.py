"""Ember's fusion (``ember-fuse``).

Two steps, because upstream covers only the first:

1. Elementwise producer–consumer chains (and elementwise producers of reductions,
   such as the ``exp`` under softmax's ``sum``) become one ``linalg.generic`` —
   upstream ``linalg-fuse-elementwise-ops`` does this well, so we run it.
2. Elementwise *consumers* of reductions (softmax's division by its sum,
   layernorm's normalisation, a matmul's bias+relu epilogue) cannot be merged into
   one generic: the reduction must finish before its consumer reads it. We fuse
   them into one loop nest instead: the consumer is tiled along its outer parallel
   dimension and the reductions (and their producers) are computed inside each
   tile, so every intermediate stays in cache (see ``tiling.tile_and_fuse``).
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.passes.registry import EmberPass, register, run_upstream
from compiler.passes.tiling import functions, has_reduction, producers, roots, tile_and_fuse


@register
@dataclass
class EmberFuse(EmberPass):
    """Fuse elementwise chains, then reductions with their elementwise consumers."""

    name = "ember-fuse"
    summary = "fuse elementwise chains (upstream) and reductions with their consumers into one loop nest"
    tile_bytes: int = 256 * 1024

    def run(self, module):
        run_upstream(module, "func.func(linalg-fuse-elementwise-ops),canonicalize,cse")
        for fn in functions(module):
            for root in roots(fn):
                if any(has_reduction(p) for p in producers(root)):
                    tile_and_fuse(root, self.tile_bytes)
