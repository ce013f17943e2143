"""The exceptions the runtime raises, and the base of all of Ember's.

They live in the runtime, the bottom layer, because the CUDA runtime raises them and
may import nothing from the compiler; ``compiler.errors`` re-exports them, so users
catch every Ember failure from one place.
"""

from __future__ import annotations


class EmberError(Exception):
    """Base of every error Ember raises on its own account."""


class CudaError(EmberError):
    """A CUDA driver call failed.

    ``call`` is the driver function (``cuLaunchKernel``), ``name`` the ``CUresult`` name
    (``CUDA_ERROR_ILLEGAL_ADDRESS``), ``kernel`` the kernel concerned when there is one.
    """

    def __init__(self, call: str, name: str, kernel: str | None = None, detail: str = ""):
        self.call, self.name, self.kernel, self.detail = call, name, kernel, detail
        super().__init__(self.describe())

    def describe(self) -> str:
        kernel = f" (kernel {self.kernel})" if self.kernel else ""
        detail = f": {self.detail}" if self.detail else ""
        return f"CUDA error {self.name} in {self.call}{kernel}{detail}"


class NoCudaDriver(CudaError):
    """There is no CUDA driver to talk to: cuda-bindings is missing or libcuda.so.1 cannot be loaded."""

    def __init__(self, reason: str, call: str = "cuInit"):
        self.reason = reason
        super().__init__(call, "no driver")

    def describe(self) -> str:
        return f"no CUDA driver found: {self.reason}"


class NoGpuVisible(CudaError):
    """The driver loads but shows no GPU (none installed, or ``CUDA_VISIBLE_DEVICES`` hides them)."""

    def __init__(self, call: str, name: str, visible_devices: str | None = None):
        self.visible_devices = visible_devices
        super().__init__(call, name)

    def describe(self) -> str:
        hidden = f" (CUDA_VISIBLE_DEVICES={self.visible_devices!r})" if self.visible_devices is not None else ""
        return f"no GPU visible: {self.call} gave {self.name}{hidden}"
