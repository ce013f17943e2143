"""Large kernel temporaries on transparent huge pages, as NumPy's own arrays are.

A kernel's temporaries (a scaled matrix before a BLAS call, a fused chain's
intermediate) are ``malloc``ed per call, and a large one is a fresh ``mmap`` each time:
first-touch page faults on 4 KiB pages. NumPy asks for huge pages on arrays of 4 MiB
and more (``madvise(MADV_HUGEPAGE)``, under the kernel's default ``madvise`` policy);
measured here, ``1.5 * A`` on a 40 MB matrix takes 8.8 ms with them and 29.9 ms
without, and ``1.5 * A @ x`` compiled took 27.6 ms against NumPy's 6.9 ms. So on Linux
every ``malloc`` of the kernel goes through ``ember_malloc``, which gives the same hint
for the page-aligned interior of blocks of 4 MiB or more.
"""

from __future__ import annotations

import re

HUGE_PAGE_THRESHOLD = 4 << 20  # NumPy's
MADV_HUGEPAGE = 14  # Linux, every architecture

_MALLOC_CALL = re.compile(r"call ptr @malloc\(")

_EMBER_MALLOC = f"""
declare i32 @madvise(ptr, i64, i32)

define internal ptr @ember_malloc(i64 %n) {{
entry:
  %p = call ptr @malloc(i64 %n)
  %big = icmp uge i64 %n, {HUGE_PAGE_THRESHOLD}
  %ok = icmp ne ptr %p, null
  %go = and i1 %big, %ok
  br i1 %go, label %advise, label %done
advise:
  %a = ptrtoint ptr %p to i64
  %up = add i64 %a, 4095
  %start = and i64 %up, -4096
  %last = add i64 %a, %n
  %end = and i64 %last, -4096
  %len = sub i64 %end, %start
  %sp = inttoptr i64 %start to ptr
  %r = call i32 @madvise(ptr %sp, i64 %len, i32 {MADV_HUGEPAGE})
  br label %done
done:
  ret ptr %p
}}
"""


def advise_large_allocations(llvm_ir: str, triple: str) -> str:
    """``llvm_ir`` with its ``malloc`` calls through ``ember_malloc`` (Linux only)."""
    if "linux" not in triple or not _MALLOC_CALL.search(llvm_ir):
        return llvm_ir
    return _MALLOC_CALL.sub("call ptr @ember_malloc(", llvm_ir) + _EMBER_MALLOC
