"""Load host object code into this process and find its functions.

Each object is linked by one ORC JIT (LLJIT) per process as a library of its own:
its undefined symbols resolve against the running process (``malloc``, ``free``,
libm's ``expf``...) and the runtime's own (``jit_symbols.py``), so a kernel needs no
shared library on disk. A library lives as long as its resource tracker, which its
``LoadedObject`` holds: the code is freed with the last kernel that uses it.

Why not an MCJIT engine per object (as before): an engine's ``finalize`` generated
code for the empty module it was made with and a new target machine came with each,
2.5 ms of every load where linking the object into the shared JIT takes 0.8
(a warm start's disk-cache hit is mostly loads).
"""

from __future__ import annotations

import ctypes
import functools
import itertools
import threading

import llvmlite.binding as llvm

from runtime import abi, blas_symbols, jit_symbols, temporaries
from runtime.object_symbols import defined_symbols
from runtime.target import host_target

_lock = threading.Lock()
_library_names = itertools.count()


@functools.cache
def _jit() -> llvm.LLJIT:
    """The process's JIT. It only links object code, so it needs no target machine of
    ours (one for the host, for code it would compile itself, is its own)."""
    host_target()  # LLVM's native target initialized
    return llvm.create_lljit_compiler()


class LoadedObject:
    """One object file linked into the process; ``address(name)`` of its functions."""

    def __init__(self, object_code: bytes):
        blas_symbols.register_symbols()
        temporaries.register_symbols()
        _register_python_api()
        exports = set(defined_symbols(object_code))
        with _lock:
            builder = llvm.JITLibraryBuilder().add_object_img(object_code).add_current_process()
            for name, address in jit_symbols.symbols().items():
                if name not in exports:  # its own definition wins, as in a static link
                    builder.import_symbol(name, address)
            for name in exports:
                builder.export_symbol(name)
            self._tracker = builder.link(_jit(), f"ember_object_{next(_library_names)}")
        self._addresses = {name: self._tracker[name] for name in exports}

    def address(self, name: str) -> int:
        addr = self._addresses.get(name)
        if not addr:
            raise LookupError(f"symbol {name!r} not found in the loaded object")
        return addr


@functools.cache
def _register_python_api() -> None:
    """The interpreter's own C API functions a fastcall entry calls (``abi.PYTHON_API``),
    at their addresses in this process: not every build exports them to ``dlsym``."""
    for name in abi.PYTHON_API:
        jit_symbols.add_symbol(name, ctypes.cast(getattr(ctypes.pythonapi, name), ctypes.c_void_p).value)
