"""The one door to the MLIR Python bindings.

Ember uses the upstream MLIR bindings as shipped inside the ``torch-mlir`` wheel
(``torch_mlir.ir`` and friends). Every import of ``torch_mlir`` in the project lives
here, so switching to a plain upstream ``mlir`` package is a one-file change.
"""

from __future__ import annotations

import functools

from torch_mlir import ir, passmanager, rewrite  # noqa: F401  (re-exported)
from torch_mlir.dialects import (  # noqa: F401  (re-exported)
    arith,
    bufferization,
    ext,
    func,
    gpu,
    llvm,
    irdl,
    linalg,
    math,
    memref,
    scf,
    tensor,
    transform,
)
from torch_mlir.dialects.transform import interpreter as transform_interpreter  # noqa: F401
from torch_mlir.dialects._ods_common import _cext  # noqa: F401  (dialect registration hooks)

BINDINGS_DISTRIBUTION = "torch-mlir"


def operation_of(owner):
    """The ``ir.Operation`` behind an op handle (``OpView`` or ``Operation``); None for
    anything else, such as the ``Block`` that owns a block argument."""
    if isinstance(owner, ir.OpView):
        return owner.operation
    return owner if isinstance(owner, ir.Operation) else None


def capi_library_path() -> str:
    """The bindings' aggregate C API library (the upstream pass list is read from it)."""
    import os

    from torch_mlir import _mlir_libs

    return os.path.join(os.path.dirname(_mlir_libs.__file__), "libTorchMLIRAggregateCAPI.so")


@functools.cache
def bindings_version() -> str:
    """Version string of the MLIR bindings, part of every artifact cache key."""
    from importlib.metadata import version

    return f"{BINDINGS_DISTRIBUTION}-{version(BINDINGS_DISTRIBUTION)}"


def non_llvm_ops(module: ir.Module) -> list[str]:
    """Names of ops that the LLVM IR translation cannot handle."""
    found: set[str] = set()

    def visit(op):
        name = op.operation.name
        if not (name.startswith("llvm.") or name == "builtin.module"):
            found.add(name)
        return ir.WalkResult.ADVANCE

    module.operation.walk(visit)
    return sorted(found)


def translate_to_llvm_ir(module: ir.Module) -> str:
    """LLVM IR text of a module that is entirely in the LLVM dialect.

    The C API translation crashes (rather than failing) on ops outside the LLVM
    dialect, so we check that first and raise a ValueError naming them.
    """
    leftovers = non_llvm_ops(module)
    if leftovers:
        raise ValueError("cannot translate to LLVM IR: ops outside the LLVM dialect remain: "
                         + ", ".join(leftovers))
    return llvm.translate_module_to_llvmir(module.operation)
