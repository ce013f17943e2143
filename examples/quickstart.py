"""Ember quick start: build a graph in the Ember dialect, interpret it, compile it to native code.

(The `compile()` decorator that traces Python bytecode into such graphs is the next
milestone; this shows the MLIR half that it feeds.)
"""

import numpy as np

from compiler.backends.llvm_cpu import compile_module
from compiler.dialects import interpreter
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType
from compiler.mlir import translate_to_llvm_ir
from compiler.passes.registry import run_pipeline

# mse(x, y) = ((x - y) ** 2).sum(), for 1-d float32 arrays of any length.
b = FunctionBuilder("mse", [TensorType((None,), "f32")] * 2)
x, y = b.args
d = b.op("sub", x, y)
module = b.finish([b.op("sum", b.op("mul", d, d), axes=(0,), keepdims=False)])
print(module)

xs, ys = np.arange(5, dtype=np.float32), np.ones(5, dtype=np.float32)
(result,) = interpreter.run(module, xs, ys)
print("reference interpreter:", result, " numpy:", ((xs - ys) ** 2).sum())

kernel = compile_module(module)  # lower-to-llvm, LLVM O3 for this CPU, loaded in-process
(native,) = kernel(xs, ys)
print("native code:", native)

run_pipeline(module, "builtin.module(lower-to-llvm)")
llvm_ir = translate_to_llvm_ir(module)
print("\n".join(line for line in llvm_ir.splitlines() if line.startswith("define")))
