"""A compiled GPU graph as a Python callable: NumPy arrays in and out, or device arrays.

NumPy inputs are copied to the device and the results copied back (the call
returns NumPy arrays, like the CPU backend). Objects exposing
``__cuda_array_interface__`` (CuPy, PyTorch CUDA tensors, Numba device arrays) are
used where they are, without a copy, and the call then returns ``DeviceArray``s,
which expose the interface too. An output the graph writes into an input (in-place
NumPy) is computed in that input's device buffer and returned as a result; the
frontend writes results of that kind back into the caller's array, so
``written_inputs`` is empty.

The code is loaded into the driver on the first call (a machine with no GPU can
compile, and fails there, with ``NoCudaDriver`` or ``NoGpuVisible``), in variants
keyed by which inputs are C-contiguous, like the CPU kernels.
"""

from __future__ import annotations

import numpy as np

from runtime.built_once import BuiltOnce
from runtime.cuda.device_array import DeviceArray, as_device_view
from runtime.cuda.driver import driver


def _is_device(a) -> bool:
    return not isinstance(a, np.ndarray) and hasattr(a, "__cuda_array_interface__")


class GpuKernel:
    """``build(contiguous) -> Program`` compiles or loads one variant."""

    written_inputs: dict = {}

    def __init__(self, signature, shape_program, build):
        self.signature = signature
        self._shape_program = shape_program
        self._variants = BuiltOnce(build)

    def variant(self, contiguous: tuple[bool, ...]):
        return self._variants.get(contiguous)

    def _device_inputs(self, arrays) -> list[DeviceArray]:
        views = []
        for i, (a, spec) in enumerate(zip(arrays, self.signature.inputs, strict=True)):
            view = as_device_view(a) if _is_device(a) else None
            dtype, shape = (view.dtype, view.shape) if view is not None else (getattr(a, "dtype", None), np.shape(a))
            if not spec.admits(dtype, shape):
                raise spec.rejection(self.signature.name, i, f"{dtype}{list(shape)}")
            views.append(view if view is not None else DeviceArray.from_host(a))
        return views

    def _output_shapes(self, arrays, views) -> list[tuple]:
        shapes = tuple(v.shape for v in views)
        if not self.signature.value_inputs:
            return self._shape_program(shapes)
        values = tuple(
            int(np.asarray(arrays[i]) if not _is_device(arrays[i]) else views[i].copy_to_host())
            for i in self.signature.value_inputs
        )
        return self._shape_program(shapes, values)

    def __call__(self, *arrays):
        if len(arrays) != len(self.signature.inputs):
            raise TypeError(f"{self.signature.name} takes {len(self.signature.inputs)} arrays, got {len(arrays)}")
        device = driver()  # NoCudaDriver / NoGpuVisible on a machine that cannot run it
        on_device = any(_is_device(a) for a in arrays)
        inputs = self._device_inputs(arrays)
        sig = self.signature
        shapes = self._output_shapes(arrays, inputs)
        outputs = [
            inputs[i] if i is not None else DeviceArray.empty(shape, spec.dtype)
            for shape, spec, i in zip(shapes, sig.outputs, sig.inout, strict=True)
        ]
        program = self.variant(tuple(v.is_c_contiguous for v in inputs))
        program.run(inputs + [outputs[j] for j in sig.allocated])
        if on_device:
            return tuple(outputs)
        results = tuple(out.copy_to_host() for out in outputs)  # synchronous: waits for the kernels
        device.synchronize()
        return results
