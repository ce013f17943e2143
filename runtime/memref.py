"""MLIR memref descriptors over NumPy arrays, without copies.

A ranked memref descriptor is ``{allocated, aligned, offset, sizes[rank],
strides[rank]}`` with sizes and strides in elements. Pointing ``aligned`` at the
array's first element (``array.ctypes.data``) with offset 0 lets a kernel read any
NumPy view as it is: non-contiguous, negative strides (the first element is not the
lowest address) and the zero strides of broadcast views.
"""

from __future__ import annotations

import ctypes
import functools

import numpy as np


@functools.cache
def descriptor_type(rank: int) -> type[ctypes.Structure]:
    fields = [("allocated", ctypes.c_void_p), ("aligned", ctypes.c_void_p), ("offset", ctypes.c_int64)]
    if rank:
        fields += [("sizes", ctypes.c_int64 * rank), ("strides", ctypes.c_int64 * rank)]
    return type(f"MemRef{rank}D", (ctypes.Structure,), {"_fields_": fields})


def descriptor(array: np.ndarray) -> ctypes.Structure:
    """A descriptor viewing ``array`` (the caller keeps ``array`` alive during the call)."""
    desc = descriptor_type(array.ndim)()
    desc.allocated = desc.aligned = array.ctypes.data
    desc.offset = 0
    if array.ndim:
        itemsize = array.itemsize
        desc.sizes[:] = array.shape
        desc.strides[:] = [s // itemsize for s in array.strides]
    return desc
