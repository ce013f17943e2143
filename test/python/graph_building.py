"""Building small Ember graphs in tests: types, verified modules, their lowering."""

from __future__ import annotations

from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType
from compiler.mlir import ir
from compiler.passes.pass_manager import run_pipeline


def T(shape, dtype="f32") -> TensorType:
    return TensorType(tuple(shape), dtype)


def build(arg_types, body, name="f") -> ir.Module:
    """A verified module of ``body(builder, *args) -> result value(s)``."""
    b = FunctionBuilder(name, list(arg_types))
    results = body(b, *b.args)
    results = list(results) if isinstance(results, (list, tuple)) else [results]
    module = b.finish(results)
    assert module.operation.verify()
    return module


def lowered(module: ir.Module) -> ir.Module:
    """A copy of ``module`` after ember-to-linalg, checked complete and valid."""
    with module.context:
        copy = ir.Module.parse(str(module))
    run_pipeline(copy, "builtin.module(ember-to-linalg)")
    text = str(copy)
    assert "ember." not in text, text
    assert copy.operation.verify()
    return copy


def captured_graph(fn, *args, options=None) -> str:
    """The text of the graph ``compiler.compile(fn)`` captures for ``args`` (compiled
    for the CPU as usual; ``options`` as ``compile()`` takes them)."""
    import compiler
    from compiler.backends import compile_graph

    modules = []

    def recording(module, example_inputs):
        modules.append(str(module))
        return compile_graph(module, "cpu")

    compiler.compile(fn, backend=recording, options=options)(*args)
    return modules[0]


def loops_of(fn, *args, contiguous: bool = True, options=None) -> str:
    """``lower-to-loops`` of the graph ``compiler.compile(fn)`` captures for ``args``, in
    its all-contiguous variant (or the strided one): the loops the CPU backend hands to LLVM."""
    from compiler.dialects import ember
    from compiler.mlir import function_named
    from compiler.passes.bufferize import set_contiguous

    with ember.new_context():
        module = ir.Module.parse(captured_graph(fn, *args, options=options))
        set_contiguous(function_named(module), (contiguous,) * len(args))
        run_pipeline(module, "builtin.module(lower-to-loops)")
        return str(module)


def optimized_llvm_ir(fn, *args) -> str:
    """The O3-optimized LLVM IR of the graph ``compiler.compile(fn)`` captures for
    ``args`` (all-contiguous variant): what LLVM made of the loops, vectorized or not."""
    from compiler.backends.llvm_cpu import codegen, lower_to_object
    from compiler.dialects import ember
    from compiler.mlir import symbol_name

    with ember.new_context():
        module = ir.Module.parse(captured_graph(fn, *args))
        entry = symbol_name(module.body.operations[0])
        return str(codegen.optimize(lower_to_object(module, entry, (True,) * len(args)).llvm_ir))
