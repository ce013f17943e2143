"""Arrays in GPU memory, and reading other libraries' through ``__cuda_array_interface__``.

A ``DeviceArray`` is what compiled GPU functions take and return: a pointer, a shape,
a dtype and byte strides, like a NumPy array whose data lives on the device. It
either owns a ``Block`` of the caching allocator, returned to it when the array is
collected, or wraps someone else's memory (a CuPy array, a PyTorch tensor) and keeps
that ``owner`` alive. Both directions of the CUDA Array Interface (version 3) are
here, so Ember's arrays and other libraries' pass to each other without copies.

Copies to and from the host go through ``driver()`` (and allocation through
``device_allocator()``), looked up in this module when called, which lets tests stand
host memory in for the device.
"""

from __future__ import annotations

import math
import sys

import numpy as np

from runtime.cuda.allocator import Block, CachingAllocator, device_allocator
from runtime.cuda.driver import driver

CAI_VERSIONS = (0, 1, 2, 3)


def c_strides(shape: tuple[int, ...], itemsize: int) -> tuple[int, ...]:
    """The byte strides of a C-contiguous array of ``shape``."""
    strides, step = [], itemsize
    for extent in reversed(shape):
        strides.append(step)
        step *= max(extent, 1)
    return tuple(reversed(strides))


def is_c_contiguous(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> bool:
    """NumPy's rule: the strides of dimensions of extent 1 do not matter, nor any of an empty array."""
    if 0 in shape:
        return True
    step = itemsize
    for extent, stride in zip(reversed(shape), reversed(strides)):
        if extent != 1 and stride != step:
            return False
        step *= extent
    return True


def _span(shape: tuple[int, ...], strides: tuple[int, ...], itemsize: int) -> tuple[int, int]:
    """Byte offsets from element 0 of the lowest and one past the highest byte a strided array touches."""
    low = sum((extent - 1) * stride for extent, stride in zip(shape, strides) if stride < 0)
    high = sum((extent - 1) * stride for extent, stride in zip(shape, strides) if stride > 0)
    return low, high + itemsize


class DeviceArray:
    """An array in device memory: owns an allocator ``Block``, or wraps memory kept alive by ``owner``."""

    def __init__(
        self,
        ptr: int,
        shape,
        dtype,
        strides=None,
        *,
        block: Block | None = None,
        allocator: CachingAllocator | None = None,
        owner=None,
        readonly: bool = False,
    ):
        self.ptr = int(ptr)
        self.shape = tuple(int(extent) for extent in shape)
        self.dtype = np.dtype(dtype)
        self.strides = c_strides(self.shape, self.dtype.itemsize) if strides is None else tuple(strides)
        self.readonly = readonly
        self._block, self._allocator, self._owner = block, allocator, owner

    @classmethod
    def empty(cls, shape, dtype) -> DeviceArray:
        """An uninitialized C-contiguous array from the caching allocator."""
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        dtype = np.dtype(dtype)
        if dtype.hasobject:
            raise TypeError(f"arrays of {dtype} cannot live in GPU memory")
        allocator = device_allocator()
        block = allocator.allocate(math.prod(shape) * dtype.itemsize)
        return cls(block.ptr, shape, dtype, block=block, allocator=allocator)

    @classmethod
    def from_host(cls, a) -> DeviceArray:
        """A C-contiguous device copy of a host array."""
        host = np.asarray(a, order="C")
        out = cls.empty(host.shape, host.dtype)
        if host.nbytes:
            driver().copy_htod(out.ptr, host.ctypes.data, host.nbytes)
        return out

    @property
    def size(self) -> int:
        return math.prod(self.shape)

    @property
    def ndim(self) -> int:
        return len(self.shape)

    @property
    def nbytes(self) -> int:
        return self.size * self.dtype.itemsize

    @property
    def is_c_contiguous(self) -> bool:
        return is_c_contiguous(self.shape, self.strides, self.dtype.itemsize)

    @property
    def __cuda_array_interface__(self) -> dict:
        return {
            "shape": self.shape,
            "typestr": self.dtype.str,
            "data": (self.ptr, self.readonly),
            "strides": None if self.is_c_contiguous else self.strides,
            "version": 3,
            "stream": None,  # all work is on the legacy default stream, which orders it
        }

    def copy_to_host(self) -> np.ndarray:
        """A C-contiguous host copy (a strided array is fetched as the span it covers, then compacted)."""
        if self.size == 0:
            return np.empty(self.shape, self.dtype)
        if self.is_c_contiguous:
            out = np.empty(self.shape, self.dtype)
            driver().copy_dtoh(out.ctypes.data, self.ptr, self.nbytes)
            return out
        low, high = _span(self.shape, self.strides, self.dtype.itemsize)
        span = np.empty(high - low, np.uint8)
        driver().copy_dtoh(span.ctypes.data, self.ptr + low, high - low)
        return np.ndarray(self.shape, self.dtype, span, -low, self.strides).copy()

    def __array__(self, dtype=None, copy=None) -> np.ndarray:
        if copy is False:
            raise ValueError("a DeviceArray is in GPU memory: converting it to a NumPy array always copies")
        host = self.copy_to_host()
        return host if dtype is None else host.astype(dtype, copy=False)

    def __len__(self) -> int:
        if not self.shape:
            raise TypeError("len() of a 0-d DeviceArray")
        return self.shape[0]

    def __repr__(self) -> str:
        return f"DeviceArray(shape={self.shape}, dtype={self.dtype})"

    def __del__(self):
        block = getattr(self, "_block", None)
        # At interpreter shutdown the driver may already be gone; the process frees everything anyway.
        if block is not None and not sys.is_finalizing():
            self._block = None
            self._allocator.free(block)


def interface_of(obj) -> tuple[int, tuple[int, ...], tuple[int, ...], np.dtype, bool]:
    """``(ptr, shape, byte strides, dtype, readonly)`` of an object exposing ``__cuda_array_interface__``.

    Strides are always returned: absent ones (C-contiguous) are computed.
    """
    cai = getattr(obj, "__cuda_array_interface__", None)
    if not isinstance(cai, dict):
        raise TypeError(f"{type(obj).__name__} has no __cuda_array_interface__")
    if cai.get("version") not in CAI_VERSIONS:
        raise TypeError(f"__cuda_array_interface__ version {cai.get('version')!r} is not supported (at most 3)")
    if cai.get("mask") is not None:
        raise TypeError("masked arrays (a __cuda_array_interface__ with a mask) are not supported")
    shape = tuple(int(extent) for extent in cai["shape"])
    dtype = np.dtype(cai["typestr"])
    ptr, readonly = cai["data"]
    strides = cai.get("strides")
    strides = c_strides(shape, dtype.itemsize) if strides is None else tuple(int(s) for s in strides)
    return int(ptr or 0), shape, strides, dtype, bool(readonly)


def as_device_view(obj) -> DeviceArray:
    """A ``DeviceArray`` over another library's device array, without a copy; it keeps ``obj`` alive."""
    ptr, shape, strides, dtype, readonly = interface_of(obj)
    return DeviceArray(ptr, shape, dtype, strides, owner=obj, readonly=readonly)
