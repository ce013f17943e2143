"""Ember: compile Python functions over NumPy arrays to native code through MLIR.

    from compiler import compile

    @compile
    def mse(x, y):
        return ((x - y) ** 2).sum()

The names below are imported on first use (PEP 562), so importing one part of the
compiler (``compiler.mlir`` for ``ember-opt``, ``compiler.config``) does not load
the frontend and everything under it.
"""

import importlib

from runtime.version import __version__

_EXPORTS = {
    "compile": "compiler.frontend.eval_frame",
    "reset": "compiler.frontend.eval_frame",
    "explain": "compiler.frontend.explain",
    "mark_dynamic": "compiler.frontend.dynamic_policy",
    "mark_static": "compiler.frontend.dynamic_policy",
    "set_logs": "compiler.logs",
    "EmberError": "compiler.errors",
    "GraphBreakError": "compiler.errors",
    "cache_info": "runtime.cache",
    "clear_cache": "runtime.cache",
}
_SUBMODULES = {"config", "errors"}

__all__ = [*_EXPORTS, *_SUBMODULES, "__version__"]


def __getattr__(name: str):
    if name in _SUBMODULES:
        return importlib.import_module(f"compiler.{name}")
    if name in _EXPORTS:
        value = getattr(importlib.import_module(_EXPORTS[name]), name)
        globals()[name] = value  # later lookups skip this function
        return value
    raise AttributeError(f"module 'compiler' has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
