"""Ember's CUDA runtime: the driver, device memory and launch geometry of the GPU path.

Nothing here imports ``cuda.bindings`` until a GPU is first used, so Ember imports and
runs on machines without cuda-bindings or without a driver.
"""
