"""A kernel's temporaries through the runtime's cache (``runtime/temporaries.py``).

Every ``malloc`` and ``free`` in a kernel's LLVM IR (what ``memref.alloc``/``dealloc``
lower to) becomes a call of ``ember_temp_alloc``/``ember_temp_free``: large blocks are
kept between calls (no fresh ``mmap``, page faults and zeroing per call) and advised to
huge pages, as NumPy's own arrays are. Measured here: ``1.5 * A`` on a 40 MB matrix took
8.8 ms with huge pages and 29.9 ms without; nine 4 MB matmul temporaries per call of a
convolution cost more than its matmuls until they were reused.
"""

from __future__ import annotations

import re

from runtime.temporaries import ALLOC, FREE

_MALLOC_CALL = re.compile(r"call ptr @malloc\(")
_FREE_CALL = re.compile(r"call void @free\(")

_DECLARATIONS = f"""
declare ptr @{ALLOC}(i64)
declare void @{FREE}(ptr)
"""


def route_temporaries(llvm_ir: str, routed: bool) -> str:
    """``llvm_ir`` with its ``malloc``/``free`` calls through the runtime's cache (when
    ``routed``: Linux). Both or neither: a block the cache gives out carries its header."""
    if not routed or not (_MALLOC_CALL.search(llvm_ir) or _FREE_CALL.search(llvm_ir)):
        return llvm_ir
    llvm_ir = _MALLOC_CALL.sub(f"call ptr @{ALLOC}(", llvm_ir)
    return _FREE_CALL.sub(f"call void @{FREE}(", llvm_ir) + _DECLARATIONS
