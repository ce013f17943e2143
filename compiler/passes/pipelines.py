"""The named pipelines of SPEC §3, and the import of every module that registers a pass."""

from __future__ import annotations

from compiler.passes import ember_to_linalg  # noqa: F401  (registers ember-to-linalg)
from compiler.passes.registry import register_pipeline
from compiler.passes import blas, bufferize, expand_math, fusion, parallel, parallel_reduction, tiling  # noqa: F401,E402  (register their passes)


@register_pipeline("lower-to-loops", "Ember to scf loops over memrefs (for reading)")
def lower_to_loops() -> str:
    return ",".join([
        "ember-to-linalg",
        "ember-fuse",
        "ember-tile",
        "ember-bufferize",
        "ember-matmul-to-blas",
        "ember-parallel-parts",
        "func.func(convert-linalg-to-loops)",
        "canonicalize",
        "cse",
        "ember-parallel-reduction",
    ])


@register_pipeline("lower-to-llvm", "Ember all the way to the LLVM dialect")
def lower_to_llvm() -> str:
    return "lower-to-loops,loops-to-llvm"


@register_pipeline("loops-to-llvm", "the output of lower-to-loops to the LLVM dialect")
def loops_to_llvm() -> str:
    return ",".join([
        "scf-forall-to-for",
        "arith-expand",  # floordivsi, ceildivsi and friends have no direct LLVM lowering
        "convert-math-to-funcs",  # math.ipowi (integer power) as a small generated function
        "convert-scf-to-cf",
        "expand-strided-metadata",
        "lower-affine",
        "finalize-memref-to-llvm",
        "ember-expand-math",  # exp/log/tanh/erf inline (vectorizable) instead of libm calls
        "convert-math-to-llvm",
        "convert-math-to-libm",
        "convert-arith-to-llvm",
        "convert-index-to-llvm",
        "convert-func-to-llvm",
        "convert-cf-to-llvm",
        "reconcile-unrealized-casts",
    ])
