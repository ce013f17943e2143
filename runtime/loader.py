"""Load host object code into this process and find its functions.

llvmlite's MCJIT links an object file in memory and resolves its undefined symbols
(``malloc``, ``free``, libm's ``expf``...) against the running process, so a kernel
needs no shared library on disk. Each loaded object keeps its engine alive as long
as any function from it is in use.
"""

from __future__ import annotations

import ctypes
import functools
import threading

import llvmlite.binding as llvm

from runtime import abi, blas_symbols, temporaries
from runtime.target import new_target_machine

_lock = threading.Lock()


class LoadedObject:
    """One object file linked into the process; ``address(name)`` of its functions."""

    def __init__(self, object_code: bytes):
        blas_symbols.register_symbols()
        temporaries.register_symbols()
        _register_python_api()
        with _lock:
            self._engine = llvm.create_mcjit_compiler(llvm.parse_assembly(""), new_target_machine())
            self._engine.add_object_file(llvm.ObjectFileRef.from_data(object_code))
            self._engine.finalize_object()
        # Per instance, not functools.cache on the method: that cache would hold every
        # LoadedObject (its ``self`` key) and so its engine and code forever.
        self._addresses: dict[str, int] = {}

    def address(self, name: str) -> int:
        addr = self._addresses.get(name)
        if addr is None:
            addr = self._engine.get_function_address(name)
            if not addr:
                raise LookupError(f"symbol {name!r} not found in the loaded object")
            self._addresses[name] = addr
        return addr


@functools.cache
def _register_python_api() -> None:
    """The interpreter's own C API functions a fastcall entry calls (``abi.PYTHON_API``),
    at their addresses in this process: not every build exports them to ``dlsym``."""
    for name in abi.PYTHON_API:
        llvm.add_symbol(name, ctypes.cast(getattr(ctypes.pythonapi, name), ctypes.c_void_p).value)
