"""One door from an Ember module to something that runs: ``compile_graph``.

The frontend hands each traced graph here and gets back a callable taking and
returning NumPy arrays, whatever executes it:

* ``"cpu"`` — native code through lower-to-llvm and llvmlite (``llvm_cpu``), cached;
* ``"cuda"`` — GPU kernels through lower-to-nvvm, llvmlite's NVPTX and the CUDA driver
  (``nvptx``), cached;
* ``"eager"`` — the dialect's NumPy reference interpreter, op by op (for debugging
  and as the oracle);
* a callable ``backend(module, example_inputs) -> callable``, as Dynamo hands an FX
  graph to custom backends.
"""

from __future__ import annotations

from typing import Callable

from compiler.dialects import interpreter
from compiler.mlir import ir


class EagerGraph:
    """Runs the graph with the reference interpreter; same call shape as a CPU kernel."""

    def __init__(self, module: ir.Module, entry: str | None = None):
        self.module, self.entry = module, entry

    def __call__(self, *arrays):
        return interpreter.run(self.module, *arrays, entry=self.entry)


def compile_graph(
    module: ir.Module, backend: str | Callable = "cpu", entry: str | None = None, example_inputs=None
) -> Callable:
    """A callable running ``module``'s function ``entry`` (default: the first one)."""
    if callable(backend):
        return backend(module, example_inputs)
    if backend == "cpu":
        from compiler.backends.llvm_cpu import compile_graph_module

        return compile_graph_module(module, entry)
    if backend == "cuda":
        from compiler.backends.nvptx import compile_graph_module as compile_for_gpu

        return compile_for_gpu(module, entry)
    if backend == "eager":
        return EagerGraph(module, entry)
    raise ValueError(f"unknown backend {backend!r} (expected 'cpu', 'cuda', 'eager' or a callable)")
