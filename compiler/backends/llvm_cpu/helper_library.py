"""The BLAS, LAPACK and matrix-vector helpers (``passes/blas_library.py``,
``passes/lower_lapack.py``, ``passes/matvec.py``) compiled once per process, not into
every kernel.

Why: the helpers that hand a product to BLAS carry loop fallbacks for strides BLAS
cannot take, operand packing and layout checks; the LAPACK ones copy in and out of
column-major workspaces and check results. That is more code than most kernels. When
every kernel held its own copy, they took 70% of an MLP's LLVM time (93 of 130 ms of O3
and code generation) and of a Gaussian log-likelihood's (215 of 310 ms).
``ember-matmul-to-blas`` and ``ember-to-linalg`` now declare them; this module compiles
one library per element type (``blas_f32`` ...) or LAPACK routine and precision
(``lapack_solve_d`` ...) the first time a kernel that calls it is loaded, keeps its
object code in the artifact cache (so a later process loads it from disk), links it
into the process and registers its functions with the JIT, so kernels resolve them like
the BLAS symbols themselves. Kernels name the libraries they need in their artifact's
metadata (``libraries``): a cache hit loads them too.
"""

from __future__ import annotations

import functools
import re
import threading
import time

from compiler import logs
from compiler.backends.llvm_cpu.codegen import emit_object, optimize
from compiler.backends.llvm_cpu.forks import loop_forks
from compiler.backends.llvm_cpu.temporaries import route_temporaries
from compiler.dialects.ember import new_context
from compiler.mlir import bindings_version, collect, ir, translate_to_llvm_ir
from compiler.passes import blas_library, gemm, gram, lower_lapack, matvec, matvec_pair
from compiler.passes.pass_manager import run_pipeline
from runtime import blas_symbols, entry_glue, jit_symbols, temporaries, threads
from runtime.cache import ARTIFACTS, Artifact, artifact_key
from runtime.loader import LoadedObject
from runtime.target import has_512_bit_vectors, host_target
from runtime.version import __version__

# library name -> (the MLIR text of its definitions, the functions kernels call)
LIBRARIES = {
    **{
        f"blas_{blas_library.element_name(element)}": (
            functools.partial(blas_library.library_text, element),
            blas_library.entry_points(element),
        )
        for element in blas_library.ELEMENTS
    },
    **{
        f"matvec_{element}": (functools.partial(matvec.library_text, element), matvec.entry_points(element))
        for element in matvec.ELEMENTS
    },
    **{
        f"matvec_pair_{element}": (
            functools.partial(matvec_pair.library_text, element),
            matvec_pair.entry_points(element),
        )
        for element in matvec.ELEMENTS
    },
    f"gemm_{gemm.ELEMENT}": (gemm.library_text, gemm.entry_points()),
    **{
        f"gram_{element}": (functools.partial(gram.library_text, element), gram.entry_points(element))
        for element in gram.ELEMENTS
    },
    **{
        f"lapack_{routine}_{p}": (
            functools.partial(lower_lapack.library_text, routine, p),
            frozenset([lower_lapack.helper_name(routine, p)]),
        )
        for routine in lower_lapack.ROUTINES
        for p in lower_lapack.ELEMENT
    },
}

# ember-fork-loops: the matvec helpers' loops run on the worker pool
_PIPELINE = "builtin.module(func.func(convert-linalg-to-loops),canonicalize,cse,ember-fork-loops)"
_loaded: dict[str, LoadedObject] = {}
_kept: list[LoadedObject] = []  # every library ever linked, never unloaded: kernels hold its addresses
_lock = threading.Lock()


@functools.cache
def _text(library: str) -> str:
    with new_context():
        return LIBRARIES[library][0]()


def libraries_declared(llvm_ir: str) -> list[str]:
    """The libraries defining functions that ``llvm_ir`` declares (what its kernel needs)."""
    declared = set(re.findall(r"^declare [^@]*@(ember_\w+)\(", llvm_ir, re.M))
    return sorted(name for name, (_, entries) in LIBRARIES.items() if declared & entries)


def _compile(library: str) -> bytes:
    start = time.perf_counter()
    code = emit_object(optimize(library_llvm_ir(library)), strength_reduction=True)
    logs.log("perf", "helper library %s: compiled in %.1f ms", library, (time.perf_counter() - start) * 1e3)
    return code


# The matrix-vector helpers prefetch each row of the matrix ahead of its loads
# (passes/matvec.py), measured as a gain on a Zen 3 and an AVX-512 Xeon. A Zen 4's own
# prefetchers follow the rows, and there the prefetches cost time: 4000x5000 float64,
# alternating processes, Ember's time over NumPy's with them and without, A @ x
# 0.83-0.94 and 0.62-0.75, y @ A 0.98-1.00 and 0.84-0.93, (A @ x) @ A 0.55-0.63 and
# 0.46-0.50 (r @ A, A @ p even). Its libraries are compiled without them.
UNPREFETCHED_CPUS = frozenset({"znver4"})


def prefetches_pay(cpu: str) -> bool:
    """Whether the helper libraries keep their software prefetches on ``cpu`` (LLVM's name)."""
    return cpu not in UNPREFETCHED_CPUS


def library_llvm_ir(library: str, prefetch: bool | None = None) -> str:
    """The LLVM IR of ``library``, before optimization (with its forks' glue); with
    its software prefetches where ``prefetch`` (None: where they pay on this host)."""
    if prefetch is None:
        prefetch = prefetches_pay(host_target().cpu)
    with new_context():
        module = ir.Module.parse(_text(library))
        if not prefetch:
            for op in collect(module.operation, lambda op: op.name == "memref.prefetch"):
                op.erase()  # no result, no effect on values: nothing else changes
        run_pipeline(module, _PIPELINE)
        forks = loop_forks(module)
        run_pipeline(module, "builtin.module(loops-to-llvm)")
        if forks and has_512_bit_vectors():  # their 512-bit vectors kept whole on an AVX-512 host
            wide = ir.Attribute.parse('[["prefer-vector-width", "512"]]')
            forked = {name for _, name, _ in forks}
            for op in module.body.operations:
                if ir.StringAttr(op.attributes["sym_name"]).value in forked:
                    op.attributes["passthrough"] = wide
        llvm_ir = route_temporaries(translate_to_llvm_ir(module), temporaries.routed())
    if forks:
        llvm_ir = entry_glue.append_glue(llvm_ir, entry_glue.fork_glue(forks, parts_per_thread=1))
    return llvm_ir


def _object_code(library: str) -> bytes:
    key = artifact_key(
        _text(library),
        library,
        __version__,
        bindings_version(),
        host_target().cache_tag,
        blas_symbols.cache_tag(),
    )
    artifact = ARTIFACTS.get(key)
    if artifact is None:
        artifact = Artifact(_compile(library), {"library": library})
        ARTIFACTS.put(key, artifact)
    return artifact.payload


def ensure_loaded(libraries) -> None:
    """Link each of ``libraries`` into the process once, its functions resolvable by
    the kernels loaded after."""
    for library in libraries:
        if library in _loaded:
            continue
        with _lock:
            if library in _loaded:
                continue
            if library.startswith("blas_"):
                blas_symbols.register_products()  # MKL, where it is the choice, loaded now
            if "scf.forall" in _text(library):
                threads.register_symbols()  # its loops, forked, call the worker pool
            loaded = LoadedObject(_object_code(library))
            _kept.append(loaded)
            for name in sorted(LIBRARIES[library][1]):  # what kernels call; the rest stays internal
                jit_symbols.add_symbol(name, loaded.address(name))
            _loaded[library] = loaded
