"""The symbols the runtime defines for the object code it links: the worker pool, the
temporaries' cache, the BLAS, the helper libraries, the interpreter's C API.

Each is given to LLVM's process-wide table (where the engines of the worker pool and
the temporaries' cache find them) and kept here, because the loader links kernels as
libraries of their own that see only what they are handed (``loader.py``).
"""

from __future__ import annotations

import llvmlite.binding as llvm

_symbols: dict[str, int] = {}


def add_symbol(name: str, address: int) -> None:
    """Make ``name`` resolve to ``address`` in every object linked from now on."""
    _symbols[name] = address
    llvm.add_symbol(name, address)


def symbols() -> dict[str, int]:
    return _symbols
