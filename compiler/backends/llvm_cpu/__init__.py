"""The CPU backend: an Ember module becomes a callable running host object code."""

from __future__ import annotations

import time
from dataclasses import dataclass

from compiler import logs
from compiler.backends.llvm_cpu import helper_library, partition
from compiler.backends.llvm_cpu.codegen import emit_object, optimize
from compiler.backends.llvm_cpu.forks import loop_forks
from compiler.backends.llvm_cpu.noalias import aligned_pointer_positions, mark_aligned_pointers
from compiler.backends.llvm_cpu.temporaries import route_temporaries
from compiler.dialects.shapes import ShapeProgram, value_inputs
from compiler.dialects.types import TensorType
from compiler.dialects.write_in_place import inout_results
from compiler.mlir import bindings_version, collect, copy_module, function_named, ir, module_text, translate_to_llvm_ir
from compiler.passes.bufferize import set_contiguous
from compiler.passes.nontemporal_stores import streaming_min_bytes
from compiler.passes.pass_manager import expand, run_pipeline
from compiler.passes.pipeline_syntax import Element
from runtime import abi, blas_symbols, entry_glue, temporaries
from runtime.abi import ArraySpec
from runtime.cache import ARTIFACTS, Artifact, artifact_key
from runtime.kernel import Kernel, KernelPair, Signature, Variant, load_variant
from runtime.target import has_512_bit_vectors, host_target
from runtime.version import __version__


def signature_of(func_op) -> Signature:
    """The runtime's plain-Python view of the function's tensor arguments and results
    (and of the 0-d integer arguments whose values size the results: ``value_inputs``)."""
    fn_type = ir.FunctionType(ir.TypeAttr(func_op.attributes["function_type"]).value)

    def spec(t) -> ArraySpec:
        tensor = TensorType.from_mlir(t)
        return ArraySpec(tensor.shape, tensor.numpy_dtype)

    return Signature(
        ir.StringAttr(func_op.attributes["sym_name"]).value,
        tuple(spec(t) for t in fn_type.inputs),
        tuple(spec(t) for t in fn_type.results),
        tuple(map(inout_results(func_op).get, range(len(fn_type.results)))),
        value_inputs(func_op),
    )


@dataclass(frozen=True)
class Lowered:
    object_code: bytes
    llvm_ir: str
    parallel: bool  # the kernel takes (part, parts): abi.PARALLEL_ATTR
    scratch: tuple = ()  # (slots, dtype) of each scratch array: abi.scratch_buffers
    libraries: tuple = ()  # the helper libraries it calls (helper_library.py)
    forks: bool = False  # it runs loops on the worker pool (ember-fork-loops)


def lower_to_object(module: ir.Module, entry: str, contiguous: tuple[bool, ...] = ()) -> Lowered:
    """Object code of an Ember module's function ``entry``, specialized for the inputs
    flagged in ``contiguous`` being C-contiguous; ``module`` is untouched."""
    lowered = copy_module(module)
    with module.context:
        fn = function_named(lowered, entry)
        set_contiguous(fn, contiguous)
        fn.attributes["sym_name"] = ir.StringAttr.get(abi.kernel_symbol(entry))
    start = time.perf_counter()
    _run_stages(lowered, "lower-to-loops", entry)
    attrs = function_named(lowered, abi.kernel_symbol(entry)).attributes
    parallel = abi.PARALLEL_ATTR in attrs and ir.BoolAttr(attrs[abi.PARALLEL_ATTR]).value
    signature = signature_of(function_named(module, entry))
    scratch = _scratch(attrs, signature)
    forks = loop_forks(lowered)
    aligned = aligned_pointer_positions(function_named(lowered, abi.kernel_symbol(entry)))
    _run_stages(lowered, "loops-to-llvm", entry)
    with lowered.context:
        mark_aligned_pointers(lowered, abi.kernel_symbol(entry), aligned)
    _one_copy_of_the_kernel(lowered, abi.kernel_symbol(entry), [forked for _, forked, _ in forks])
    arrays = signature.inputs + tuple(signature.outputs[j] for j in signature.allocated)
    glue = entry_glue.kernel_glue(entry, arrays, parallel, scratch, contiguous)
    llvm_ir = route_temporaries(translate_to_llvm_ir(lowered), temporaries.routed())
    llvm_ir = entry_glue.append_glue(llvm_ir, glue)
    if forks:
        llvm_ir = entry_glue.append_glue(llvm_ir, entry_glue.fork_glue(forks))
    mlir_done = time.perf_counter()
    object_code = emit_object(optimize(llvm_ir))
    logs.log("output_code", "LLVM IR %s\n%s", entry, llvm_ir)
    logs.log(
        "perf",
        "%s: MLIR passes %.1f ms, LLVM O3 + codegen %.1f ms",
        entry,
        (mlir_done - start) * 1e3,
        (time.perf_counter() - mlir_done) * 1e3,
    )
    libraries = tuple(helper_library.libraries_declared(llvm_ir))
    return Lowered(object_code, llvm_ir, parallel, scratch, libraries, bool(forks))


def _one_copy_of_the_kernel(module: ir.Module, symbol: str, forked: list[str] = ()) -> None:
    """The kernel's body is big (vectorized loops), and LLVM inlined a small one into
    each of its wrappers — the C interface, the entry, the launcher's task
    (runtime/entry_glue.py) — each one more copy for O3 and code generation (mse's cold
    compile: 65-76 ms of LLVM instead of 31-33). ``noinline`` keeps one copy, which
    the wrappers call once per kernel call; its ``noalias`` arguments stay its own.
    Where ``full_width`` says so, the kernel also vectorizes with 512-bit vectors."""
    wide = ', ["prefer-vector-width", "512"]' if full_width(module) else ""
    with module.context:
        for op in module.body.operations:
            if "sym_name" in op.attributes and ir.StringAttr(op.attributes["sym_name"]).value in (symbol, *forked):
                op.attributes["passthrough"] = ir.Attribute.parse(f'["noinline"{wide}]')


# Functions a kernel may call that are not per-element math: where all its calls are
# these, its loops are arithmetic that wider vectors speed up.
_NOT_MATH = ("ember_", "malloc", "free", "memset", "memcpy", "memmove", "_mlir")
# LLVM operations that become a libm call per element (pow, sin, fmod, ...)
_LIBM_OPS = {
    f"llvm.intr.{name}"
    for name in (
        "pow", "powi", "sin", "cos", "tan", "asin", "acos", "atan", "atan2", "sinh", "cosh", "tanh",
        "exp", "exp2", "exp10", "log", "log2", "log10",
    )
} | {"llvm.frem"}  # fmt: skip


def full_width(module: ir.Module) -> bool:
    """Whether the kernel should vectorize at 512 bits: on an AVX-512 host, when it calls
    no libm function. LLVM prefers 256-bit vectors on Intel cores (older ones lowered
    their clock for 512-bit work). Measured on an AVX-512 Xeon, 2 threads: inline
    exp/tanh chains at 512 bits 1.35x faster (tanh-GELU on 16M float32 10.6-11.0 ->
    7.9-8.2 ms), row softmax 8 %, ``((x-y)**2).sum()`` 6 %; but a loop of libm calls
    (``pow``, ``sin``: one scalar call per lane) up to 1.38x slower (the corpus's ``npv``
    18.6 -> 25.8 ms), so those keep LLVM's choice."""
    if not has_512_bit_vectors():
        return False
    for op in module.body.operations:
        if op.operation.name == "llvm.func" and not op.regions[0].blocks:  # a declaration
            name = ir.StringAttr(op.attributes["sym_name"]).value
            if not name.startswith(_NOT_MATH):
                return False
    return not collect(module.operation, lambda op: op.name in _LIBM_OPS)


def _scratch(attrs, signature) -> tuple:
    """The scratch arrays the kernel takes after its outputs (a split reduction's)."""
    if abi.SCRATCH_ATTR not in attrs:
        return ()
    return abi.scratch_buffers(list(ir.DenseI64ArrayAttr(attrs[abi.SCRATCH_ATTR])), signature.outputs[0])


def _run_stages(module: ir.Module, pipeline: str, entry: str) -> None:
    """Run a named pipeline; with the ``ir`` log on, pass by pass, printing the IR after each.

    While ``object_code`` compiles an artifact (``ARTIFACTS.recorder()``), the IR after
    the pipeline -- after each pass with the ``ir`` log on -- is recorded, to be
    stored with the artifact and printed by the logs of later cache hits."""
    recorder = ARTIFACTS.recorder()
    if not logs.enabled("ir"):
        run_pipeline(module, f"builtin.module({pipeline})", verify_each=False)
        if recorder is not None:
            recorder.append([pipeline, module_text(module), False])
        return
    for element in expand([Element(pipeline)]):
        run_pipeline(module, f"builtin.module({element.text()})")
        text = str(module)
        logs.log("ir", "IR of %s after %s\n%s", entry, element.text(), text)
        if recorder is not None:
            recorder.append([element.text(), text, True])


def cache_key(module: ir.Module, entry: str, contiguous: tuple[bool, ...] = ()) -> str:
    layout = "".join("c" if flag else "s" for flag in contiguous)
    return artifact_key(
        module_text(module),
        entry,
        layout,
        __version__,
        bindings_version(),
        host_target().cache_tag,
        blas_symbols.cache_tag(),
        f"streaming {streaming_min_bytes()}",  # ember-nontemporal-stores' threshold, from the environment
    )


def object_code(module: ir.Module, entry: str, contiguous: tuple[bool, ...] = ()) -> Artifact:
    """The entry's object code, from the artifact cache or freshly compiled into it.

    The artifact is stored with the MLIR after each stage (after each pass when the
    ``ir`` log was on while compiling) and the LLVM IR, so that the ``ir`` and
    ``output_code`` logs of a later hit print them, marked "(from the artifact cache)";
    they are only read from disk when one of those logs is on. A hit with the ``ir``
    log on, of an artifact compiled with it off, prints each stage's final IR and says
    so (EMBER_CACHE_DIR=off or ``ember-cache clear`` shows every pass again): a hit
    never recompiles."""
    key = cache_key(module, entry, contiguous)
    artifact = ARTIFACTS.get(key)
    if artifact is None:
        with ARTIFACTS.recording() as stages:
            lowered = lower_to_object(module, entry, contiguous)
        artifact = Artifact(
            lowered.object_code,
            {
                "parallel": lowered.parallel,
                "forks": lowered.forks,
                "entry": entry,
                "scratch": [list(s) for s in lowered.scratch],
                "libraries": list(lowered.libraries),
            },
        )
        ARTIFACTS.put(key, artifact, texts={"ir": stages, "llvm_ir": lowered.llvm_ir})
    elif logs.enabled("ir") or logs.enabled("output_code"):
        texts = ARTIFACTS.texts(key) or {}
        stages, llvm_ir = texts.get("ir") or [], texts.get("llvm_ir")
        if logs.enabled("ir") and not stages:
            logs.log("ir", "IR of %s: not kept with its artifact (from the artifact cache)", entry)
        elif logs.enabled("ir") and not all(per_pass for _, _, per_pass in stages):
            logs.log(
                "ir",
                "IR of %s (from the artifact cache): compiled with the ir log off, so only the IR "
                "after each stage was kept; EMBER_CACHE_DIR=off shows every pass",
                entry,
            )
        for stage, text, _ in stages if logs.enabled("ir") else ():
            logs.log("ir", "IR of %s after %s (from the artifact cache)\n%s", entry, stage, text)
        if llvm_ir is not None:
            logs.log("output_code", "LLVM IR %s (from the artifact cache)\n%s", entry, llvm_ir)
        else:
            logs.log("output_code", "LLVM IR %s: not kept with its artifact (from the artifact cache)", entry)
    return artifact


def _load(artifact: Artifact, entry: str) -> Variant:
    start = time.perf_counter()
    helper_library.ensure_loaded(artifact.meta.get("libraries", ()))
    variant = load_variant(artifact.payload, artifact.meta)
    logs.log("perf", "%s: load %.1f ms", entry, (time.perf_counter() - start) * 1e3)
    return variant


def compile_module(module: ir.Module, entry: str | None = None) -> Kernel:
    """A native callable for ``module``'s function ``entry``.

    Code is specialized on which inputs are C-contiguous (unit-stride loads
    vectorize; any other NumPy view goes through strided code): the all-contiguous
    variant is compiled now, others on the first call that needs them.
    """
    func_op = function_named(module, entry)
    signature = signature_of(func_op)

    def build(contiguous: tuple[bool, ...]) -> Variant:
        return _load(object_code(module, signature.name, contiguous), signature.name)

    kernel = Kernel(signature, _shape_program(func_op, signature), build)
    kernel.variant((True,) * len(signature.inputs))
    return kernel


def _shape_program(func_op, signature: Signature):
    """The output shapes from the input shapes. Where they are constant
    (``Signature.constant_output_shapes``) the outputs have their declared shapes and no
    program needs building: replaying the type rules of every op (``ShapeProgram``) is
    about 1 ms of a warm start for a graph of 20 ops."""
    if not signature.constant_output_shapes or not all(t.is_static for t in signature.outputs):
        return ShapeProgram(func_op)
    shapes = [t.shape for t in signature.outputs]
    return lambda input_shapes: list(shapes)


def compile_graph_module(module: ir.Module, entry: str | None = None):
    """``compile_module``, or two kernels run in turn where a graph returns arrays and
    reductions of them (``partition.py``: each kernel then runs on every thread)."""
    parts = partition.split(module, entry)
    if parts is None:
        return compile_module(module, entry)
    arrays, scalars, positions = parts
    return KernelPair(compile_module(arrays), compile_module(scalars), positions)
