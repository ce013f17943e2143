"""Host-side tests of the CUDA runtime (runtime/cuda): no GPU needed.

A fake ``cuda.bindings.driver`` module stands in for the driver, and host memory for
device memory, so error mapping, parameter packing, caching and copies are checked
on any machine. One test exercises the real no-driver path when there is no GPU.
"""

from __future__ import annotations

import ctypes
import enum
import threading
import types

import numpy as np
import pytest

from runtime.cuda import allocator as allocator_module
from runtime.cuda import device_array as device_array_module
from runtime.cuda import driver as driver_module
from runtime.cuda import launch_config
from runtime.cuda.allocator import CachingAllocator, parse_bytes, size_class
from runtime.cuda.device_array import DeviceArray, as_device_view, c_strides, interface_of
from runtime.cuda.driver import check
from runtime.errors import CudaError, NoCudaDriver, NoGpuVisible

MiB = 1 << 20


class CUresult(enum.IntEnum):
    CUDA_SUCCESS = 0
    CUDA_ERROR_INVALID_VALUE = 1
    CUDA_ERROR_OUT_OF_MEMORY = 2
    CUDA_ERROR_NO_DEVICE = 100
    CUDA_ERROR_ILLEGAL_ADDRESS = 700


OK = CUresult.CUDA_SUCCESS


class FakeBindings(types.SimpleNamespace):
    """The parts of cuda.bindings.driver that Driver calls, recording what it was given."""

    CUdevice_attribute = types.SimpleNamespace(
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR="major",
        CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR="minor",
        CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT="sms",
        CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_BLOCK="threads",
    )

    def __init__(self, init_result=OK):
        super().__init__(init_result=init_result, loads=[], launches=[], set_current=0, sync_result=OK)

    def cuInit(self, flags):
        return (self.init_result,)

    def cuDeviceGetCount(self):
        return OK, 1

    def cuDeviceGet(self, ordinal):
        return OK, 7

    def cuDeviceGetName(self, length, device):
        return OK, b"Fake H200\0\0\0"

    def cuDeviceGetAttribute(self, attribute, device):
        return OK, {"major": 9, "minor": 0, "sms": 132, "threads": 1024}[attribute]

    def cuDevicePrimaryCtxRetain(self, device):
        return OK, "context"

    def cuCtxSetCurrent(self, context):
        self.set_current += 1
        return (OK,)

    def cuModuleLoadData(self, image_address):
        self.loads.append(ctypes.string_at(image_address))
        return OK, 1000 + len(self.loads)

    def cuModuleGetFunction(self, module, name):
        return OK, (module, name)

    def cuLaunchKernel(self, function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        self.launches.append(((gx, gy, gz), (bx, by, bz), shared, stream, params))
        return (OK,)

    def cuCtxSynchronize(self):
        return (self.sync_result,)


@pytest.fixture
def fake_bindings(monkeypatch):
    fake = FakeBindings()
    monkeypatch.setattr(driver_module, "_bindings_loader", lambda: fake)
    driver_module.reset_for_tests()
    yield fake
    driver_module.reset_for_tests()


# check


def test_check_returns_the_values_after_the_result():
    assert check((OK,), "cuCtxSynchronize") is None
    assert check((OK, 5), "cuDeviceGet") == 5
    assert check((OK, 3, 4), "cuMemGetInfo") == (3, 4)


def test_check_names_the_call_the_error_and_the_kernel():
    with pytest.raises(CudaError) as info:
        check((CUresult.CUDA_ERROR_ILLEGAL_ADDRESS,), "cuLaunchKernel", "ember_k2_softmax")
    assert str(info.value) == "CUDA error CUDA_ERROR_ILLEGAL_ADDRESS in cuLaunchKernel (kernel ember_k2_softmax)"
    assert (info.value.call, info.value.name, info.value.kernel) == (
        "cuLaunchKernel",
        "CUDA_ERROR_ILLEGAL_ADDRESS",
        "ember_k2_softmax",
    )


def test_cuda_errors_are_ember_errors_reexported_by_the_compiler():
    from compiler import errors

    assert errors.CudaError is CudaError and errors.NoGpuVisible is NoGpuVisible
    assert issubclass(errors.NoCudaDriver, errors.EmberError)


# Driver creation


def test_missing_bindings_raise_no_cuda_driver(monkeypatch):
    def missing():
        raise ImportError("No module named 'cuda'")

    monkeypatch.setattr(driver_module, "_bindings_loader", missing)
    driver_module.reset_for_tests()
    try:
        with pytest.raises(NoCudaDriver, match="no CUDA driver found: cuda-bindings is not installed"):
            driver_module.driver()
    finally:
        driver_module.reset_for_tests()


def test_unloadable_libcuda_raises_no_cuda_driver_every_time(fake_bindings, monkeypatch):
    calls = []

    def failing_init(flags):
        calls.append(flags)
        raise RuntimeError("Failed to dlopen libcuda.so.1")

    monkeypatch.setattr(fake_bindings, "cuInit", failing_init)
    for _ in range(2):
        with pytest.raises(NoCudaDriver, match="no CUDA driver found: libcuda.so.1 could not be loaded"):
            driver_module.driver()
    assert len(calls) == 1  # the failure is kept, not retried


def test_no_device_raises_no_gpu_visible_naming_cuda_visible_devices(fake_bindings, monkeypatch):
    fake_bindings.init_result = CUresult.CUDA_ERROR_NO_DEVICE
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    with pytest.raises(NoGpuVisible, match="no GPU visible: cuInit gave CUDA_ERROR_NO_DEVICE.*CUDA_VISIBLE_DEVICES=''"):
        driver_module.driver()


def test_driver_reads_the_device_and_is_created_once(fake_bindings):
    first = driver_module.driver()
    assert driver_module.driver() is first
    assert (first.name, first.compute_capability, first.sm) == ("Fake H200", (9, 0), "sm_90")
    assert (first.multiprocessors, first.max_threads_per_block) == (132, 1024)


def test_the_context_is_made_current_once_per_thread(fake_bindings):
    driver_module.driver()
    driver_module.driver()
    assert fake_bindings.set_current == 1
    thread = threading.Thread(target=driver_module.driver)
    thread.start()
    thread.join()
    assert fake_bindings.set_current == 2


def _gpu_present() -> bool:
    try:
        ctypes.CDLL("libcuda.so.1")
    except OSError:
        return False
    return True


@pytest.mark.skipif(_gpu_present(), reason="libcuda.so.1 loads here: this tests the machine without a driver")
def test_the_real_bindings_without_a_driver_raise_no_cuda_driver():
    pytest.importorskip("cuda.bindings.driver")
    driver_module.reset_for_tests()
    try:
        with pytest.raises(NoCudaDriver, match="no CUDA driver found"):
            driver_module.driver()
    finally:
        driver_module.reset_for_tests()


# modules and launches


def test_a_module_is_loaded_once_per_key_nul_terminated(fake_bindings):
    d = driver_module.driver()
    first = d.load_module(".version 8.0", "k1")
    assert d.load_module(".version 8.0", "k1") is first
    d.load_module(b".version 8.0 other", "k2")
    assert fake_bindings.loads == [b".version 8.0", b".version 8.0 other"]  # string_at stops at the NUL
    assert d.function(first, "ember_k1") == (first, b"ember_k1")


def test_launch_packs_each_parameter_as_its_ctypes_kind(fake_bindings):
    d = driver_module.driver()
    seen = []

    def launch(function, gx, gy, gz, bx, by, bz, shared, stream, params, extra):
        pointers = (ctypes.c_void_p * 5).from_address(params)
        kinds = [ctypes.c_uint64, ctypes.c_int64, ctypes.c_int32, ctypes.c_float, ctypes.c_double]
        seen.append([kind.from_address(p).value for kind, p in zip(kinds, pointers)])
        seen.append((function, (gx, gy, gz), (bx, by, bz), shared, stream, extra))
        return (OK,)

    fake_bindings.cuLaunchKernel = launch
    params = [(0xDEAD0000BEEF, "ptr"), (-(2**40), "i64"), (-7, "i32"), (1.5, "f32"), (0.1, "f64")]
    d.launch("fn", (4, 1, 1), (256, 1, 1), params, shared_bytes=1024, kernel="k")
    assert seen[0] == [0xDEAD0000BEEF, -(2**40), -7, 1.5, 0.1]
    assert seen[1] == ("fn", (4, 1, 1), (256, 1, 1), 1024, 0, 0)


def test_a_failed_launch_names_its_kernel(fake_bindings):
    fake_bindings.cuLaunchKernel = lambda *args: (CUresult.CUDA_ERROR_INVALID_VALUE,)
    with pytest.raises(CudaError, match=r"CUDA_ERROR_INVALID_VALUE in cuLaunchKernel \(kernel ember_k3\)"):
        driver_module.driver().launch("fn", (1, 1, 1), (1, 1, 1), [], kernel="ember_k3")


def test_an_asynchronous_fault_names_the_last_kernel_launched(fake_bindings):
    d = driver_module.driver()
    d.launch("fn", (1, 1, 1), (32, 1, 1), [(0, "ptr")], kernel="ember_k7_add")
    fake_bindings.sync_result = CUresult.CUDA_ERROR_ILLEGAL_ADDRESS
    with pytest.raises(CudaError) as info:
        d.synchronize()
    assert (info.value.call, info.value.name, info.value.kernel) == (
        "cuCtxSynchronize",
        "CUDA_ERROR_ILLEGAL_ADDRESS",
        "ember_k7_add",
    )


# the caching allocator


class FakeRaw:
    """raw_alloc/raw_free over distinct fake addresses, optionally out of memory beyond ``capacity``."""

    def __init__(self, capacity: int | None = None):
        self.capacity, self.in_use, self.next, self.freed = capacity, 0, 0x1000, []
        self.sizes: dict[int, int] = {}
        self.lock = threading.Lock()

    def alloc(self, nbytes: int) -> int:
        with self.lock:
            if self.capacity is not None and self.in_use + nbytes > self.capacity:
                raise CudaError("cuMemAlloc", "CUDA_ERROR_OUT_OF_MEMORY")
            ptr, self.next = self.next, self.next + nbytes
            self.in_use += nbytes
            self.sizes[ptr] = nbytes
            return ptr

    def free(self, ptr: int) -> None:
        with self.lock:
            self.in_use -= self.sizes.pop(ptr)
            self.freed.append(ptr)


def _allocator(raw: FakeRaw, limit: int = 1 << 40) -> CachingAllocator:
    return CachingAllocator(raw.alloc, raw.free, limit_bytes=limit)


@pytest.mark.parametrize(
    "nbytes, size",
    [(0, 512), (1, 512), (512, 512), (513, 1024), (MiB - 512, MiB - 512), (MiB - 1, 2 * MiB), (MiB, 2 * MiB)]
    + [(2 * MiB + 1, 4 * MiB), (100 * MiB, 100 * MiB)],
)
def test_sizes_round_up_to_their_class(nbytes, size):
    assert size_class(nbytes) == size


def test_a_freed_block_is_reused_for_its_class_and_stream_only():
    raw = FakeRaw()
    alloc = _allocator(raw)
    block = alloc.allocate(1000)
    alloc.free(block)
    assert alloc.allocate(2000).ptr != block.ptr  # another class
    assert alloc.allocate(1000, stream=5).ptr != block.ptr  # another stream
    reused = alloc.allocate(900)
    assert reused is block and reused.size == 1024
    assert alloc.stats() == {"allocated_bytes": 1024 + 2048 + 1024, "cached_bytes": 0, "raw_allocs": 3, "reuses": 1}


def test_zero_byte_allocations_are_distinct_blocks():
    alloc = _allocator(FakeRaw())
    a, b = alloc.allocate(0), alloc.allocate(0)
    assert a.ptr != b.ptr and a.size == b.size == 512


def test_cached_bytes_beyond_the_limit_go_back_oldest_first():
    raw = FakeRaw()
    alloc = _allocator(raw, limit=2048)
    blocks = [alloc.allocate(1024) for _ in range(3)]
    for block in blocks:
        alloc.free(block)
    assert raw.freed == [blocks[0].ptr]
    assert alloc.stats()["cached_bytes"] == 2048
    alloc.empty_cache()
    assert sorted(raw.freed) == sorted(b.ptr for b in blocks) and raw.in_use == 0


def test_out_of_memory_empties_the_cache_and_retries_once():
    raw = FakeRaw(capacity=4 * MiB)
    alloc = _allocator(raw)
    alloc.free(alloc.allocate(3 * MiB))  # a 4 MiB block, cached
    block = alloc.allocate(2 * MiB)  # only fits once the cached one is released
    assert block.size == 2 * MiB and alloc.stats()["cached_bytes"] == 0
    with pytest.raises(CudaError, match="OUT_OF_MEMORY"):
        alloc.allocate(3 * MiB)  # nothing cached to release: the error stands


def test_freeing_twice_is_an_error():
    alloc = _allocator(FakeRaw())
    block = alloc.allocate(10)
    alloc.free(block)
    with pytest.raises(ValueError, match="freed twice"):
        alloc.free(block)


def test_no_block_is_handed_to_two_threads_at_once():
    alloc = _allocator(FakeRaw(), limit=8 * 1024)
    held: set[int] = set()
    lock, errors = threading.Lock(), []

    def work(seed: int):
        for i in range(300):
            block = alloc.allocate((seed + i) % 4 * 512)
            with lock:
                if block.ptr in held:
                    errors.append(block.ptr)
                held.add(block.ptr)
            with lock:
                held.discard(block.ptr)
            alloc.free(block)

    threads = [threading.Thread(target=work, args=(n,)) for n in range(8)]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert errors == [] and alloc.stats()["allocated_bytes"] == 0


def test_cache_limit_sizes_parse():
    assert parse_bytes("2GiB") == 2 << 30 and parse_bytes("512MiB") == 512 * MiB and parse_bytes("4096") == 4096
    with pytest.raises(ValueError, match="not a size"):
        parse_bytes("lots")


def test_the_cache_limit_comes_from_the_environment(monkeypatch):
    monkeypatch.setenv("EMBER_CUDA_CACHE_LIMIT", "512MiB")
    assert CachingAllocator(None, None).limit_bytes == 512 * MiB
    monkeypatch.delenv("EMBER_CUDA_CACHE_LIMIT")
    assert CachingAllocator(None, None).limit_bytes == 4 << 30


# device arrays, with host memory standing in for the device


class HostAsDevice:
    """A fake driver whose "device" memory is host memory, so copies are plain memmoves."""

    def __init__(self):
        self.buffers: dict[int, ctypes.Array] = {}
        self.copies = 0

    def alloc_raw(self, nbytes: int) -> int:
        buffer = ctypes.create_string_buffer(nbytes)
        self.buffers[ctypes.addressof(buffer)] = buffer
        return ctypes.addressof(buffer)

    def free_raw(self, ptr: int) -> None:
        del self.buffers[ptr]

    def copy_htod(self, dst: int, src: int, nbytes: int) -> None:
        self.copies += 1
        ctypes.memmove(dst, src, nbytes)

    copy_dtoh = copy_htod


@pytest.fixture
def host_device(monkeypatch):
    fake = HostAsDevice()
    alloc = CachingAllocator(fake.alloc_raw, fake.free_raw, limit_bytes=0)
    monkeypatch.setattr(device_array_module, "driver", lambda: fake)
    monkeypatch.setattr(device_array_module, "device_allocator", lambda: alloc)
    return fake, alloc


def test_round_trip_through_the_device(host_device):
    a = np.arange(24, dtype=np.float32).reshape(4, 6)
    d = DeviceArray.from_host(a)
    assert repr(d) == "DeviceArray(shape=(4, 6), dtype=float32)"
    assert (d.ndim, d.size, d.nbytes, len(d)) == (2, 24, 96, 4)
    np.testing.assert_array_equal(d.copy_to_host(), a)
    np.testing.assert_array_equal(np.asarray(d, dtype=np.float64), a)


def test_non_contiguous_host_arrays_are_compacted_and_0d_keeps_its_shape(host_device):
    a = np.arange(30, dtype=np.int64).reshape(5, 6)[::2, ::-3]
    np.testing.assert_array_equal(DeviceArray.from_host(a).copy_to_host(), a)
    scalar = DeviceArray.from_host(np.float64(2.5))
    assert scalar.shape == () and scalar.copy_to_host()[()] == 2.5


def test_strided_device_views_copy_to_host(host_device):
    base = np.arange(60, dtype=np.float64).reshape(3, 4, 5)
    d = DeviceArray.from_host(base)
    for view in (base[:, 1:3, ::2], base[::-1, :, 4], base.transpose(2, 0, 1), base[1:2, ::-2, 1:]):
        offset = (view.__array_interface__["data"][0] - base.__array_interface__["data"][0]) if view.size else 0
        device_view = DeviceArray(d.ptr + offset, view.shape, view.dtype, view.strides, owner=d)
        host = device_view.copy_to_host()
        np.testing.assert_array_equal(host, view)
        assert host.flags.c_contiguous


def test_empty_arrays_need_no_copy(host_device):
    fake, _ = host_device
    d = DeviceArray.from_host(np.zeros((3, 0), np.float32))
    assert d.copy_to_host().shape == (3, 0) and fake.copies == 0


def test_a_collected_array_returns_its_block(host_device):
    _, alloc = host_device
    d = DeviceArray.empty((16, 16), np.float32)
    assert alloc.stats()["allocated_bytes"] == 1024
    del d
    assert alloc.stats()["allocated_bytes"] == 0


def test_asarray_without_copy_is_refused(host_device):
    with pytest.raises(ValueError, match="always copies"):
        np.asarray(DeviceArray.from_host(np.ones(3)), copy=False)


def test_the_cuda_array_interface_of_device_arrays():
    contiguous = DeviceArray(0x1000, (4, 8), np.float32)
    assert contiguous.__cuda_array_interface__ == {
        "shape": (4, 8),
        "typestr": "<f4",
        "data": (0x1000, False),
        "strides": None,
        "version": 3,
        "stream": None,
    }
    assert contiguous.is_c_contiguous
    transposed = DeviceArray(0x1000, (8, 4), np.float32, (4, 32))
    assert not transposed.is_c_contiguous and transposed.__cuda_array_interface__["strides"] == (4, 32)
    assert DeviceArray(0x1000, (1, 8), np.float32, (999, 4)).is_c_contiguous  # extent-1 strides do not count


class CaiObject:
    def __init__(self, **cai):
        self.__cuda_array_interface__ = {"version": 3, "strides": None, "data": (0x2000, False), **cai}


def test_interface_of_computes_c_strides_and_reads_readonly():
    ptr, shape, strides, dtype, readonly = interface_of(CaiObject(shape=(2, 3, 4), typestr="<f8"))
    assert (ptr, shape, strides, dtype, readonly) == (0x2000, (2, 3, 4), (96, 32, 8), np.float64, False)
    assert c_strides((5, 0, 3), 2) == (6, 6, 2)
    view = as_device_view(CaiObject(shape=(3,), typestr="<i4", strides=(8,), data=(0x3000, True)))
    assert (view.ptr, view.strides, view.readonly, view.dtype) == (0x3000, (8,), True, np.int32)
    assert view.__cuda_array_interface__["data"] == (0x3000, True)


@pytest.mark.parametrize(
    "obj, message",
    [
        (object(), "has no __cuda_array_interface__"),
        (CaiObject(shape=(2,), typestr="<f4", mask=CaiObject(shape=(2,), typestr="|b1")), "masked"),
        (CaiObject(shape=(2,), typestr="<f4", version=9), "version 9"),
    ],
)
def test_interface_of_rejects_what_it_cannot_read(obj, message):
    with pytest.raises(TypeError, match=message):
        interface_of(obj)


def test_device_allocator_allocates_through_the_driver(monkeypatch):
    fake = HostAsDevice()
    monkeypatch.setattr(allocator_module, "driver", lambda: fake)
    monkeypatch.setattr(allocator_module, "_allocator", None)
    alloc = allocator_module.device_allocator()
    assert allocator_module.device_allocator() is alloc
    alloc.free(alloc.allocate(100))
    allocator_module.release_cached()
    assert fake.buffers == {} and alloc.stats()["raw_allocs"] == 1


# launch geometry


def test_elementwise_grids():
    assert launch_config.elementwise(0, 132) is None
    assert launch_config.elementwise(1, 132) == (1, 256)
    assert launch_config.elementwise(256, 132) == (1, 256)
    assert launch_config.elementwise(257, 132) == (2, 256)
    assert launch_config.elementwise(1024, 132, per_thread=4) == (1, 256)
    assert launch_config.elementwise(10**12, 132) == (132 * 32, 256)
    assert launch_config.serial(300, 132) == (3, 128)
    assert launch_config.serial(0, 132) is None


def test_reduction_splits_long_rows_only_when_rows_are_few():
    assert launch_config.reduction(0, 100, 132) is None
    assert launch_config.reduction(10, 5, 132) == (10, 1, 32)  # block at least a warp
    assert launch_config.reduction(10, 100, 132) == (10, 1, 128)
    assert launch_config.reduction(1000, 10**6, 132) == (1000, 1, 256)  # enough rows
    assert launch_config.reduction(1, 10**6, 132) == (1, 528, 256)  # ceil(4 * 132 / 1)
    assert launch_config.reduction(2, 4096, 132) == (2, 4, 256)  # ceil(4096 / 1024)
    assert launch_config.reduction(1, 10**9, 10**4) == (1, 1024, 256)
    assert launch_config.reduction(2**40, 7, 132) == (2**31 - 1, 1, 32)
    assert launch_config.reduction(4, 1025, 132) == (4, 2, 256)


def test_tiled_2d_grids():
    assert launch_config.tiled_2d(0, 5, 1, 16) is None
    assert launch_config.tiled_2d(5, 5, 0, 16) is None
    assert launch_config.tiled_2d(33, 17, 3, 16) == ((2, 3, 3), (16, 16, 1))
    assert launch_config.tiled_2d(16, 10**9, 1, 32) == ((31250000, 1, 1), (32, 32, 1))
    with pytest.raises(ValueError, match="65535"):
        launch_config.tiled_2d(10**7, 16, 1, 16)
