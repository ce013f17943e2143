"""Running a GPU graph's host steps: sizes, device buffers, views and kernel launches.

The compiler turns the host function of a lowered graph into steps
(``compiler/backends/nvptx/host_plan.py``); this module runs them with the driver,
the caching allocator and the launch configurations, so that a cached graph runs
with no compiler imported. Launches are asynchronous on the default stream; a
buffer freed here goes back to the caching allocator, whose reuse is ordered on
that same stream.
"""

from __future__ import annotations

import math

import numpy as np

from runtime.cuda import launch_config
from runtime.cuda.device_array import DeviceArray

_ARITH = {
    "addi": lambda a, b: a + b,
    "subi": lambda a, b: a - b,
    "muli": lambda a, b: a * b,
    "divsi": lambda a, b: int(a / b),
    "divui": lambda a, b: a // b,
    "remsi": lambda a, b: a - b * int(a / b),
    "remui": lambda a, b: a % b,
    "floordivsi": lambda a, b: a // b,
    "ceildivsi": lambda a, b: -(-a // b),
    "maxsi": max,
    "minsi": min,
    "maxui": max,
    "minui": min,
}

# arith.cmpi's predicates, by number (sizes are never negative: signed and unsigned agree)
_COMPARE = {
    0: lambda a, b: a == b,
    1: lambda a, b: a != b,
    2: lambda a, b: a < b,
    3: lambda a, b: a <= b,
    4: lambda a, b: a > b,
    5: lambda a, b: a >= b,
    6: lambda a, b: a < b,
    7: lambda a, b: a <= b,
    8: lambda a, b: a > b,
    9: lambda a, b: a >= b,
}

_FLOAT_ARITH = {
    "addf": lambda a, b: a + b,
    "subf": lambda a, b: a - b,
    "mulf": lambda a, b: a * b,
    "divf": lambda a, b: a / b,
}


def memref_params(view: DeviceArray) -> list[tuple[int, str]]:
    """A memref argument as the kernel takes it (MLIR's expanded descriptor): allocated
    and aligned pointers, offset, sizes, strides in elements."""
    itemsize = view.dtype.itemsize
    params = [(view.ptr, "ptr"), (view.ptr, "ptr"), (0, "i64")]
    params += [(n, "i64") for n in view.shape]
    params += [(s // itemsize, "i64") for s in view.strides]
    return params


def _view(src: DeviceArray, ptr: int, shape, strides) -> DeviceArray:
    return DeviceArray(ptr, shape, src.dtype, strides, owner=src)


class Program:
    """The steps of one graph, with its loaded kernels (name -> CUfunction)."""

    def __init__(self, steps: list, functions: dict, driver):
        self.steps, self.functions, self.driver = steps, functions, driver
        self.sms = driver.multiprocessors
        self._constants: dict = {}

    def run(self, arguments: list[DeviceArray]) -> None:
        env: dict = dict(enumerate(arguments))
        chunks: dict = {}  # partials slot -> (rows, chunks) of the reduce launched last with it
        for step in self.steps:
            getattr(self, "_" + step[0])(env, chunks, *step[1:])

    # ---- sizes

    @staticmethod
    def _value(env, entry) -> int:
        return env[entry[0]] if isinstance(entry, list) else entry

    def _const(self, env, chunks, slot, value):
        env[slot] = value

    def _arith(self, env, chunks, slot, op, a, b):
        env[slot] = _ARITH[op](env[a], env[b])

    def _compare(self, env, chunks, slot, predicate, a, b):
        env[slot] = _COMPARE[predicate](env[a], env[b])

    def _select(self, env, chunks, slot, condition, a, b):
        env[slot] = env[a] if env[condition] else env[b]

    def _farith(self, env, chunks, slot, op, a, b, dtype):
        """Float arithmetic in the type's own precision (NumPy scalars), as the kernel would."""
        scalar = np.dtype(dtype).type
        env[slot] = scalar(_FLOAT_ARITH[op](scalar(env[a]), scalar(env[b])))

    def _convert(self, env, chunks, slot, src, dtype):
        env[slot] = np.dtype(dtype).type(env[src])

    def _fconst(self, env, chunks, slot, value, dtype):
        env[slot] = np.dtype(dtype).type(value)

    def _alias(self, env, chunks, slot, src):
        env[slot] = env[src]

    def _dim(self, env, chunks, slot, src, axis):
        env[slot] = env[src].shape[env[axis]]

    # ---- buffers and views

    def _alloc(self, env, chunks, slot, dtype, shape):
        env[slot] = DeviceArray.empty(tuple(self._value(env, n) for n in shape), dtype)

    def _constant(self, env, chunks, slot, dtype, values):
        """A constant array of the graph, copied to the device on the program's first run."""
        if slot not in self._constants:
            self._constants[slot] = DeviceArray.from_host(np.asarray(values, dtype))
        env[slot] = self._constants[slot]

    def _free(self, env, chunks, slot):
        env.pop(slot, None)

    def _subview(self, env, chunks, slot, src, offsets, sizes, strides, kept):
        source = env[src]
        offsets = [self._value(env, v) for v in offsets]
        sizes = [self._value(env, v) for v in sizes]
        steps = [self._value(env, v) for v in strides]
        ptr = source.ptr + sum(o * s for o, s in zip(offsets, source.strides))
        byte_strides = [s * k for s, k in zip(source.strides, steps)]
        env[slot] = _view(source, ptr, [sizes[d] for d in kept], [byte_strides[d] for d in kept])

    def _expand(self, env, chunks, slot, src, groups, shape):
        source = env[src]
        shape = [self._value(env, n) for n in shape]
        strides = [0] * len(shape)
        for axis, group in enumerate(groups):
            stride = source.strides[axis]
            for d in reversed(group):
                strides[d] = stride
                stride *= shape[d]
        env[slot] = _view(source, source.ptr, shape, strides)

    def _collapse(self, env, chunks, slot, src, groups):
        source = env[src]
        shape = [math.prod(source.shape[d] for d in group) for group in groups]
        strides = [source.strides[group[-1]] if group else source.dtype.itemsize for group in groups]
        env[slot] = _view(source, source.ptr, shape, strides)

    # ---- launches

    def _launch(self, env, chunks, kernel, kind, operands, kinds, loop_dims, parallel, tile=0):
        views = [env[k] for k in operands]
        sizes = [views[loop_dims[2 * d]].shape[loop_dims[2 * d + 1]] for d in range(len(loop_dims) // 2)]
        rows = math.prod(sizes[d] for d in parallel)
        extent = math.prod(sizes) // rows if rows else 0
        if kind == "elementwise":
            config = launch_config.elementwise(math.prod(sizes), self.sms)
            grid, block = (config[0], 1, 1) if config else None, (config[1], 1, 1) if config else None
        elif kind == "serial":
            config = launch_config.serial(rows, self.sms)
            grid, block = (config[0], 1, 1) if config else None, (config[1], 1, 1) if config else None
        elif kind == "matmul":  # loops (batch,) m, n, k
            batch, m, n = (sizes[0], sizes[1], sizes[2]) if len(sizes) == 4 else (1, sizes[0], sizes[1])
            grid, block = launch_config.tiled_2d(m, n, batch, tile) or (None, None)
        elif kind == "reduce":
            grid, block = self._reduce_config(views, chunks, operands[-1], rows, extent)
        else:  # reduce-finish: only where the reduce split its rows
            grid, block = self._finish_config(views, chunks, operands[-1])
        if grid is None:
            return
        params = []
        for view, param in zip(views, kinds):
            params += memref_params(view) if param == "memref" else [(view, param)]
        self.driver.launch(self.functions[kernel], grid, block, params, kernel=kernel)

    def _reduce_config(self, views, chunks, partials_slot, rows, extent):
        config = launch_config.reduction(rows, extent, self.sms)
        if config is None:
            chunks[partials_slot] = (0, 1)
            return None, None
        _, split, block = config
        partials = views[-1]
        capacity_rows, capacity_chunks = partials.shape
        split = 1 if rows > capacity_rows else min(split, capacity_chunks)
        chunks[partials_slot] = (rows, split)
        views[-1] = _view(
            partials,
            partials.ptr,
            (rows if split > 1 else 1, split),
            (split * partials.dtype.itemsize, partials.dtype.itemsize),
        )
        return (rows, split, 1), (block, 1, 1)

    def _finish_config(self, views, chunks, partials_slot):
        rows, split = chunks.get(partials_slot, (0, 1))
        if split <= 1:
            return None, None
        partials = views[-1]
        views[-1] = _view(
            partials, partials.ptr, (rows, split), (split * partials.dtype.itemsize, partials.dtype.itemsize)
        )
        block = max(32, min(256, 1 << (split - 1).bit_length()))
        return (rows, 1, 1), (block, 1, 1)
