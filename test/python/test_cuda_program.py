"""The GPU graph's host steps, run against a recording driver (no GPU): which kernels
launch, on which grids, with which buffers and views, for real compiled graphs."""

import math
from collections import defaultdict

import numpy as np
import pytest

import compiler
from compiler.backends.nvptx import lower_to_ptx
from runtime.cuda import program as program_module
from runtime.cuda.device_array import DeviceArray
from runtime.cuda.program import Program, memref_params


class RecordingDriver:
    multiprocessors = 132

    def __init__(self):
        self.launches = []

    def launch(self, function, grid, block, params, shared_bytes=0, kernel=""):
        self.launches.append((kernel, grid, block, params))


@pytest.fixture
def fake_memory(monkeypatch):
    """DeviceArray.empty hands out distinct fake addresses (nothing is dereferenced)."""
    state = {"next": 1 << 20}

    def empty(cls, shape, dtype):
        shape = (shape,) if isinstance(shape, int) else tuple(shape)
        ptr = state["next"]
        state["next"] += max(1, math.prod(shape)) * np.dtype(dtype).itemsize + 256
        return cls(ptr, shape, dtype)

    monkeypatch.setattr(program_module.DeviceArray, "empty", classmethod(empty))


def _steps(fn, *args):
    modules = []

    def capture(module, example_inputs):
        modules.append(module)
        return compiler.backends.EagerGraph(module)

    compiler.compile(fn, backend=capture, dynamic=True)(*args)
    module = modules[0]
    name = compiler.mlir.symbol_name(compiler.mlir.functions(module)[0])
    return lower_to_ptx(module, name, (True,) * len(args), "sm_80")[1]


def softmax(x):
    e = np.exp(x - x.max(-1, keepdims=True))
    return e / e.sum(-1, keepdims=True)


def _run(steps, shapes, out_shapes, dtype=np.float32):
    driver = RecordingDriver()
    arrays = [DeviceArray(0x1000 * (i + 1), s, dtype) for i, s in enumerate(shapes + out_shapes)]
    Program(steps, defaultdict(str), driver).run(arrays)
    return driver.launches, arrays


def test_softmax_launches_one_block_per_row(fake_memory):
    steps = _steps(softmax, np.ones((3, 5), np.float32))
    launches, _ = _run(steps, [(4096, 1024)], [(4096, 1024)])
    kinds = [k for k, *_ in launches]
    assert len(launches) == 5  # two fills, max, sum (no finish: 4096 rows fill the device), the output
    reduce = [launch for launch in launches if launch[1][0] == 4096]
    assert len(reduce) == 2
    for _, grid, block, _params in reduce:
        assert grid == (4096, 1, 1) and block == (256, 1, 1)
    assert not any(k.endswith("_finish") for k in kinds)
    _, grid, block, params = launches[-1]
    assert block == (256, 1, 1) and grid == (min(math.ceil(4096 * 1024 / 256), 132 * 32), 1, 1)


def test_few_long_rows_split_across_blocks_and_finish(fake_memory):
    steps = _steps(softmax, np.ones((3, 5), np.float32))
    launches, _ = _run(steps, [(2, 1_000_000)], [(2, 1_000_000)])
    finishes = [launch for launch in launches if launch[0].endswith("_finish")]
    assert len(finishes) == 2
    partial = [launch for launch in launches if launch[1][0] == 2 and not launch[0].endswith("_finish")]
    chunks = partial[0][1][1]
    assert chunks > 1
    for _, grid, block, params in finishes:
        assert grid == (2, 1, 1) and 32 <= block[0] <= 256
        # the last argument is the partials buffer, seen as (rows, chunks), row-major
        sizes_and_strides = [value for value, kind in params[-4:]]
        assert sizes_and_strides == [2, chunks, chunks, 1]


def test_empty_rows_launch_nothing_that_reduces(fake_memory):
    steps = _steps(softmax, np.ones((3, 5), np.float32))
    launches, _ = _run(steps, [(0, 7)], [(0, 7)])
    assert launches == []


def test_memref_params_are_the_expanded_descriptor():
    view = DeviceArray(0x5000, (3, 4), np.float64, (64, 8))
    assert memref_params(view) == [
        (0x5000, "ptr"),
        (0x5000, "ptr"),
        (0, "i64"),
        (3, "i64"),
        (4, "i64"),
        (8, "i64"),
        (1, "i64"),
    ]


def test_a_matmul_launches_one_tiled_kernel(fake_memory):
    steps = _steps(lambda a, b: a @ b, np.ones((4, 8), np.float32), np.ones((8, 3), np.float32))
    launches, _ = _run(steps, [(100, 64), (64, 33)], [(100, 33)])
    tiled = [launch for launch in launches if launch[2] == (16, 16, 1)]
    assert len(tiled) == 1 and tiled[0][1] == (3, 7, 1)


def test_slices_become_views_of_the_argument(fake_memory):
    def shifted(u):
        return u[2:] - u[:-2]

    steps = _steps(shifted, np.ones(10))
    launches, (u, out) = _run(steps, [(10,)], [(8,)], np.float64)
    (launch,) = launches
    pointers = {value for value, kind in launch[3] if kind == "ptr"}
    assert u.ptr + 2 * 8 in pointers or u.ptr in pointers  # a view of u at element 2 (or u with an offset)
    assert out.ptr in pointers


def test_steps_from_the_disk_cache_launch_the_same_kernels(fake_memory, monkeypatch, tmp_path):
    from compiler.backends.nvptx import gpu_artifact
    from runtime.cache import ARTIFACTS

    monkeypatch.setenv("EMBER_CACHE_DIR", str(tmp_path))
    modules = []
    compiler.compile(softmax, backend=lambda m, ex: modules.append(m) or compiler.backends.EagerGraph(m), dynamic=True)(
        np.ones((3, 5), np.float32)
    )
    fresh = gpu_artifact(modules[0], "softmax", (True,), "sm_80")
    ARTIFACTS.clear_memory()
    cached = gpu_artifact(modules[0], "softmax", (True,), "sm_80")
    assert cached is not fresh and cached.payload == fresh.payload and b".target sm_80" in cached.payload
    first, _ = _run(fresh.meta["steps"], [(5, 300)], [(5, 300)])
    second, _ = _run(cached.meta["steps"], [(5, 300)], [(5, 300)])
    assert [(k, g, b) for k, g, b, _ in first] == [(k, g, b) for k, g, b, _ in second]


def test_a_mean_over_a_dynamic_axis_passes_the_count_as_a_float(fake_memory):
    steps = _steps(lambda x: x.mean(0), np.ones((5, 3), np.float32))
    launches, _ = _run(steps, [(40, 3)], [(3,)])
    scalars = [(value, kind) for *_, params in launches for value, kind in params if kind == "f32"]
    assert scalars and all(value == np.float32(40) for value, _ in scalars)
