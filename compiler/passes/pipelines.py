"""Ember's named pipelines: name -> (pipeline text, summary).

Plain data: the text may name Ember passes, upstream passes and other named
pipelines; ``pass_manager.expand`` replaces a pipeline's name by its text.
"""

from __future__ import annotations

PIPELINES: dict[str, tuple[str, str]] = {
    "lower-to-loops": (
        ",".join(
            [
                "ember-to-linalg",
                "ember-fuse",
                "ember-split-column-reductions",  # x.sum(axis=0): blocks of whole rows in parallel, then combined
                "ember-tile",
                "ember-scalar-carries",  # a loop's Python numbers carried in registers, not in buffers
                "ember-bufferize",
                "ember-gram-loops",  # X.T @ X: one triangle on our packed kernel, mirrored
                "ember-gemm-loops",  # float32 A @ B: our own packed kernel on the worker pool
                "ember-matvec-pairs",  # A @ p and r @ A of one matrix: one pass over it
                "ember-matvec-loops",  # matrix-vector products: our own prefetching loops
                "ember-matmul-to-blas",
                "symbol-dce",  # the BLAS and LAPACK helpers this graph does not call: less for LLVM
                "ember-parallel-parts",
                "ember-vector-transpose",  # x.T copied: blocks transposed in vector registers
                "func.func(convert-linalg-to-loops)",
                "ember-collapse-rows",  # elementwise loops over short contiguous rows: one flat loop
                "canonicalize",
                "cse",
                "ember-fuse-loop-nests",  # a stored array and the reading of it back: one pass over the tile
                "ember-fuse-row-loops",  # a row's sum and what reads it: one loop over the rows
                "ember-invariant-division",  # x / row_total (f32), slow dividers: float64 multiply, exact
                "ember-parallel-reduction",
                "ember-nontemporal-stores",  # outputs larger than the cache: aligned streaming stores
                "ember-prefetch-rows",  # a row read in several passes: the next one fetched while it is written
                "ember-opaque-identities",  # where(mask, x, -inf).max(): the -inf hidden from LLVM's folds
                "ember-integer-extrema",  # x.max(axis=1): a running max as integer keys, one instruction a vector
                "ember-fast-paths",  # sin/cos/tan, float %: cheap versions where a scan finds every operand in range
                "ember-fork-loops",  # kernels of many loops: each parallel loop on the worker pool
                "ember-stack-scalars",  # small buffers allocated once per call (a loop's numbers): on the stack
                "ember-free-early",  # temporaries freed after their last use: a long kernel reuses memory
            ]
        ),
        "Ember to scf loops over memrefs (for reading)",
    ),
    "lower-to-llvm": ("lower-to-loops,loops-to-llvm", "Ember all the way to the LLVM dialect"),
    "loops-to-llvm": (
        ",".join(
            [
                "scf-forall-to-for",
                "arith-expand",  # floordivsi, ceildivsi and friends have no direct LLVM lowering
                "convert-math-to-funcs",  # math.ipowi (integer power) as a small generated function
                # complex (passes/complex_semantics.py): exp/log/sqrt/sin/cos/tanh as C99 libm
                # calls (cexp, ...: NumPy's own), anything else to arith, then create/re/im to
                # LLVM structs {re, im}
                "convert-complex-to-libm",
                "convert-complex-to-standard",
                "convert-complex-to-llvm",
                "convert-scf-to-cf",
                "expand-strided-metadata",
                "lower-affine",
                "convert-vector-to-llvm",  # ember-nontemporal-stores' vector loops
                "finalize-memref-to-llvm",
                "ember-byte-bools",  # bool loads/stores as bytes: LLVM vectorizes no i1 memory access
                "ember-expand-math",  # exp/log/tanh/erf inline (vectorizable) instead of libm calls
                "convert-math-to-llvm",
                "convert-math-to-libm",
                "convert-arith-to-llvm",
                "convert-index-to-llvm",
                "convert-func-to-llvm",
                "convert-cf-to-llvm",
                "reconcile-unrealized-casts",
            ]
        ),
        "the output of lower-to-loops to the LLVM dialect",
    ),
    "gpu-to-nvvm": (
        "gpu.module(lower-affine,convert-scf-to-cf,expand-strided-metadata,arith-expand,"
        "convert-gpu-to-nvvm,convert-math-to-llvm),"  # libdevice for float math; abs/ctlz/... as LLVM intrinsics
        "reconcile-unrealized-casts",
        "GPU kernels (gpu.module) to the NVVM and LLVM dialects",
    ),
    "lower-to-gpu": (
        "ember-to-linalg,ember-fuse{tile-bytes=0},ember-bufferize,ember-gpu-kernels,lower-affine,canonicalize,cse",
        "Ember to GPU kernels (gpu.module) and the host function launching them",
    ),
    "lower-to-nvvm": ("lower-to-gpu,gpu-to-nvvm", "Ember to NVVM kernels and their launches"),
}
