"""The CUDA driver API as Ember uses it: one device, its primary context, synchronous calls.

Ember talks to the driver API (``cuda.bindings.driver``) rather than the runtime API
because it loads PTX it generated itself (``cuModuleLoadData``) and needs nothing of
libcudart. Everything runs on device 0's primary context, the one the CUDA runtime
(and so PyTorch or CuPy in the same process) also uses, so pointers pass between them
freely; the context is retained once per process and never released.

``cuda.bindings`` is imported on the first ``driver()`` call, never when this module
is imported, so a machine without cuda-bindings or without libcuda imports Ember
fine and only gets ``NoCudaDriver`` when it asks for a GPU. Tests replace the
bindings through ``_bindings_loader``.

All work goes to the legacy default stream 0: kernel launches are asynchronous,
copies (``cuMemcpyHtoD``/``DtoH``) wait for the kernels before them. A kernel that
faults is reported by the next synchronizing call, so ``synchronize()`` names the
last kernel launched.
"""

from __future__ import annotations

import ctypes
import os
import threading

from runtime.errors import CudaError, NoCudaDriver, NoGpuVisible

_PARAM_TYPES = {
    "ptr": ctypes.c_uint64,
    "i64": ctypes.c_int64,
    "i32": ctypes.c_int32,
    "f32": ctypes.c_float,
    "f64": ctypes.c_double,
}


def check(result, call: str, kernel: str | None = None):
    """The values of a cuda.bindings call's ``(CUresult, *values)`` tuple; ``CudaError`` if it failed."""
    err = result[0]
    if int(err) != 0:  # CUDA_SUCCESS
        raise CudaError(call, _error_name(err), kernel)
    if len(result) == 1:
        return None
    return result[1] if len(result) == 2 else tuple(result[1:])


def _error_name(err) -> str:
    # The enum's own name: cuGetErrorName itself needs a loaded driver.
    return getattr(err, "name", None) or f"CUresult {int(err)}"


def _import_bindings():
    from cuda.bindings import driver as bindings

    return bindings


_bindings_loader = _import_bindings
"""Returns the ``cuda.bindings.driver`` module; tests swap in a fake."""


class Driver:
    """Device 0 and its primary context, with the driver calls Ember makes on them."""

    def __init__(self, bindings):
        self._cu = bindings
        _initialize(bindings)
        self._device = check(bindings.cuDeviceGet(0), "cuDeviceGet")
        self.name = check(bindings.cuDeviceGetName(256, self._device), "cuDeviceGetName").split(b"\0")[0].decode()
        self.compute_capability = (
            self._attribute("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR"),
            self._attribute("CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR"),
        )
        self.sm = "sm_{}{}".format(*self.compute_capability)
        self.multiprocessors = self._attribute("CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT")
        self.max_threads_per_block = self._attribute("CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK")
        self._context = check(bindings.cuDevicePrimaryCtxRetain(self._device), "cuDevicePrimaryCtxRetain")
        self._current = threading.local()
        self._lock = threading.Lock()
        self._modules: dict[str, object] = {}
        self._functions: dict[tuple[int, str], object] = {}
        self._last_kernel: str | None = None
        self.make_current()

    def _attribute(self, name: str) -> int:
        attribute = getattr(self._cu.CUdevice_attribute, name)
        return check(self._cu.cuDeviceGetAttribute(attribute, self._device), "cuDeviceGetAttribute")

    def make_current(self) -> None:
        """Make the primary context current in the calling thread (once per thread)."""
        if not getattr(self._current, "done", False):
            check(self._cu.cuCtxSetCurrent(self._context), "cuCtxSetCurrent")
            self._current.done = True

    def load_module(self, ptx: bytes | str, key: str):
        """The module of a PTX image, loaded once per ``key`` (one context per process)."""
        with self._lock:
            module = self._modules.get(key)
            if module is None:
                image = ctypes.create_string_buffer(ptx.encode() if isinstance(ptx, str) else ptx)  # NUL-terminated
                module = check(self._cu.cuModuleLoadData(ctypes.addressof(image)), "cuModuleLoadData", key)
                self._modules[key] = module
            return module

    def function(self, module, name: str):
        """The kernel ``name`` of a loaded module."""
        with self._lock:
            function = self._functions.get((int(module), name))
            if function is None:
                function = check(self._cu.cuModuleGetFunction(module, name.encode()), "cuModuleGetFunction", name)
                self._functions[(int(module), name)] = function
            return function

    def launch(self, function, grid, block, params, shared_bytes: int = 0, kernel: str = "") -> None:
        """Launch ``function`` on stream 0; ``params`` are ``(value, kind)`` pairs, kind a key of ``_PARAM_TYPES``."""
        values = [_PARAM_TYPES[kind](value) for value, kind in params]
        pointers = (ctypes.c_void_p * len(values))(*(ctypes.addressof(v) for v in values))
        self._last_kernel = kernel or None
        result = self._cu.cuLaunchKernel(function, *grid, *block, shared_bytes, 0, ctypes.addressof(pointers), 0)
        check(result, "cuLaunchKernel", kernel or None)

    def synchronize(self) -> None:
        """Wait for all launched work; a kernel's asynchronous fault surfaces here."""
        result = self._cu.cuCtxSynchronize()
        if int(result[0]) != 0:
            detail = "the last kernel launched is named; the fault may come from an earlier one"
            raise CudaError("cuCtxSynchronize", _error_name(result[0]), self._last_kernel, detail)

    def alloc_raw(self, nbytes: int) -> int:
        return int(check(self._cu.cuMemAlloc(nbytes), "cuMemAlloc"))

    def free_raw(self, ptr: int) -> None:
        check(self._cu.cuMemFree(ptr), "cuMemFree")

    def copy_htod(self, dst: int, src_host_address: int, nbytes: int) -> None:
        check(self._cu.cuMemcpyHtoD(dst, src_host_address, nbytes), "cuMemcpyHtoD")

    def copy_dtoh(self, dst_host_address: int, src: int, nbytes: int) -> None:
        check(self._cu.cuMemcpyDtoH(dst_host_address, src, nbytes), "cuMemcpyDtoH")

    def copy_dtod(self, dst: int, src: int, nbytes: int) -> None:
        check(self._cu.cuMemcpyDtoD(dst, src, nbytes), "cuMemcpyDtoD")

    def memset_d8(self, ptr: int, value: int, nbytes: int) -> None:
        check(self._cu.cuMemsetD8(ptr, value, nbytes), "cuMemsetD8")

    def mem_get_info(self) -> tuple[int, int]:
        free, total = check(self._cu.cuMemGetInfo(), "cuMemGetInfo")
        return int(free), int(total)


def _initialize(bindings) -> None:
    """``cuInit``, turning "no driver" and "no device" into their own errors."""
    try:
        result = bindings.cuInit(0)
    except RuntimeError as e:  # cuda.bindings loads libcuda on its first call
        if "dlopen" not in str(e) and "libcuda" not in str(e):
            raise
        raise NoCudaDriver(f"libcuda.so.1 could not be loaded ({e})") from e
    visible = os.environ.get("CUDA_VISIBLE_DEVICES")
    try:
        check(result, "cuInit")
    except CudaError as e:
        if e.name == "CUDA_ERROR_NO_DEVICE":
            raise NoGpuVisible("cuInit", e.name, visible) from None
        if e.name == "CUDA_ERROR_STUB_LIBRARY":
            raise NoCudaDriver("libcuda.so.1 is the toolkit's stub, not a driver") from None
        raise
    if check(bindings.cuDeviceGetCount(), "cuDeviceGetCount") == 0:
        raise NoGpuVisible("cuDeviceGetCount", "0 devices", visible)


_lock = threading.Lock()
_driver: Driver | None = None
_failure: CudaError | None = None


def driver() -> Driver:
    """The process's ``Driver``, created on first use, its context current in the calling thread.

    A failure to create it is kept and raised again on every call.
    """
    found = _driver if _driver is not None else _create()
    found.make_current()
    return found


def _create() -> Driver:
    global _driver, _failure
    with _lock:
        if _driver is None:
            if _failure is not None:
                raise _failure.with_traceback(None)
            try:
                _driver = Driver(_load_bindings())
            except CudaError as e:
                _failure = e
                raise
        return _driver


def _load_bindings():
    try:
        return _bindings_loader()
    except ImportError as e:
        raise NoCudaDriver(
            f"cuda-bindings is not installed: pip install 'ember[cuda]' ({e})", call="import cuda.bindings"
        ) from e


def reset_for_tests() -> None:
    """Forget the driver and any failure to create it, so the next ``driver()`` starts over."""
    global _driver, _failure
    with _lock:
        _driver = _failure = None
