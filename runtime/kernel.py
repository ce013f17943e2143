"""A compiled Ember graph as a Python callable over NumPy arrays.

The kernel takes its inputs, then its outputs (destination passing), as
``runtime/abi.py`` describes; an in-out output is written into its input, which the
call returns in its place. A call checks the inputs against the graph's
signature, picks the code variant compiled for its inputs' layouts, allocates the
outputs as ordinary NumPy arrays the caller then owns (their shapes from the graph's
shape program, memoized per input shapes and the ints of the signature's
``value_inputs``), and makes one foreign call; ctypes
releases the GIL for its duration. A parallel kernel's one call hands its parts to
the native worker pool (``runtime/threads.py``) and returns when all are done.
"""

from __future__ import annotations

import ctypes
from dataclasses import dataclass

import numpy as np

from runtime import abi, binder, outputs, threads
from runtime.abi import ArraySpec
from runtime.built_once import BuiltOnce
from runtime.fastcall import fastcall
from runtime.loader import LoadedObject
from runtime.memref import descriptor, descriptor_type

SHAPE_CACHE_LIMIT = 4096  # memoized output shapes per kernel: bounded, a dict lookup either way


@dataclass(frozen=True)
class Signature:
    """The kernel's arrays. ``inout[j]`` is the index of the input that output ``j`` is
    written into (``abi.INOUT_ATTR``), None for an output the runtime allocates.
    ``value_inputs``: the 0-d integer inputs whose *values* the output shapes depend
    on (``zeros(n)``); the shape program takes their ints after the input shapes."""

    name: str
    inputs: tuple[ArraySpec, ...]
    outputs: tuple[ArraySpec, ...]
    inout: tuple = ()
    value_inputs: tuple[int, ...] = ()

    def __post_init__(self):
        if not self.inout:
            object.__setattr__(self, "inout", (None,) * len(self.outputs))

    @property
    def allocated(self) -> tuple[int, ...]:
        """The outputs the runtime allocates and passes after the inputs, in order."""
        return tuple(j for j, i in enumerate(self.inout) if i is None)

    @property
    def written_inputs(self) -> dict[int, int]:
        """output index -> the input it is written into, for in-out outputs."""
        return {j: i for j, i in enumerate(self.inout) if i is not None}

    @property
    def constant_output_shapes(self) -> bool:
        """Whether every call's outputs have the same shapes: static inputs, none of whose
        values sizes an output."""
        return all(t.is_static for t in self.inputs) and not self.value_inputs


@dataclass(frozen=True)
class Variant:
    """One compiled specialization of a kernel (see ``Kernel``)."""

    loaded: LoadedObject
    parallel: bool  # takes (part, parts): abi.PARALLEL_ATTR
    scratch: tuple = ()  # (slots, dtype) per scratch buffer it takes after the outputs (abi.scratch_buffers)


def load_variant(object_code: bytes, meta: dict) -> Variant:
    """Link object code into this process as a variant; ``meta`` is what was stored
    beside it: ``parallel`` (bool) and ``scratch`` (``[slots, dtype]`` per buffer)."""
    if meta["parallel"] or meta.get("forks"):
        threads.register_symbols()  # its launcher, or its forked loops, call the worker pool
    return Variant(
        LoadedObject(object_code),
        meta["parallel"],
        tuple((slots, np.dtype(dtype)) for slots, dtype in meta.get("scratch", ())),
    )


class Kernel:
    """The compiled graph, in variants keyed by which inputs are C-contiguous.

    ``build(contiguous) -> Variant`` compiles (or loads from the artifact cache) the
    code for one key; a call picks the variant its inputs need, building it once.
    """

    def __init__(self, signature: Signature, shape_program, build):
        """``shape_program(shapes)``, or ``shape_program(shapes, values)`` where the
        signature has ``value_inputs``, gives the output shapes (a list of tuples)."""
        self.signature = signature
        self._build = build
        # layout -> (Variant, its foreign function)
        self._variants = BuiltOnce(lambda contiguous: self._loaded(contiguous, self._build(contiguous)))
        self._shape_program = shape_program
        self._shape_cache: dict[tuple, list[tuple]] = {}
        # The generated call paths (``binder.py``), each made on its first use: a kernel
        # loaded from the cache is usually called through one of them only, and making
        # one (``compile`` of its source) is 0.3-0.7 ms of a warm start.
        self._fast: dict = {}
        self._call = self._call_trusted = None

    def _namespace(self) -> dict:
        """What the generated call paths call; with ``fast`` and ``RETRY`` once the
        all-contiguous variant has a fastcall entry."""
        return {
            "bad": self._reject,
            "shape_cache": self._shape_cache,
            "output_shapes": self._shapes_for,
            "variants": self._variants.values,
            "variant": self.variant,
            "parts_for_bytes": threads.parts_for_bytes,
            **self._fast,
        }

    def _checked_call(self):
        """The call path checking every array against the signature (``__call__``)."""
        if self._call is None:
            supported = abi.fast_entry_supported
            self._call = binder.make_call(self.signature, self._namespace()) if supported else self._call_generic
        return self._call

    def _trusted_call(self):
        """The call path for arrays the guards checked (``call_from_guarded_entry``)."""
        if self._call_trusted is None:
            if abi.fast_entry_supported:
                self._call_trusted = binder.make_call(self.signature, self._namespace(), **self._trusted_options())
            else:
                self._call_trusted = self._call_generic
        return self._call_trusted

    def _trusted_options(self) -> dict:
        """How the binder leaves out what the guards checked: every check and the shape
        lookup for constant output shapes; the checks only for symbolic sizes."""
        signature = self.signature
        if signature.constant_output_shapes:
            return {"trusted_shapes": self._shapes_for(tuple(t.shape for t in signature.inputs))}
        return {"checked": False}

    def inline_guarded_call(self, inputs: list[str], result: str, prefix: str):
        """The trusted call path as statements for a frontend entry to contain
        (``binder.inline_call``: ``(lines, scope)``), or None where it calls the kernel."""
        if not abi.fast_entry_supported:
            return None
        return binder.inline_call(self.signature, self._namespace(), inputs, result, prefix, **self._trusted_options())

    def variant(self, contiguous: tuple[bool, ...]):
        return self._variants.get(contiguous)

    def _loaded(self, contiguous: tuple, variant: Variant):
        """(variant, its foreign function); the all-contiguous variant of a kernel on one
        thread also becomes the generated call paths' first try (``runtime/fastcall.py``)."""
        found = variant, self._function_of(variant)
        if not variant.parallel and all(contiguous) and abi.fast_entry_supported:
            fast = fastcall(variant.loaded, self.signature.name)
            if fast is not None:  # the call paths made from now on try it first
                self._fast = fast
                self._call = self._call_trusted = None
        return found

    def _function_of(self, variant: Variant):
        """The foreign function to call: ``ember_entry_*`` taking the arrays themselves
        (see runtime/abi.py), or for a parallel kernel ``ember_launch_*``, which also
        takes the number of parts; where the arrays cannot be read directly, the C
        interface taking descriptors (a parallel one then runs as its only part)."""
        sig = self.signature
        ranks = [t.rank for t in sig.inputs] + [sig.outputs[j].rank for j in sig.allocated]
        name = sig.name
        if abi.fast_entry_supported and variant.parallel:
            argtypes = [ctypes.py_object] * len(ranks) + [ctypes.c_int64]  # parts
            address = variant.loaded.address(abi.launch_name(name))
        elif abi.fast_entry_supported:
            argtypes = [ctypes.py_object] * len(ranks)
            address = variant.loaded.address(abi.entry_name(name))
        else:
            ranks += [1] * len(variant.scratch)
            argtypes = [ctypes.POINTER(descriptor_type(rank)) for rank in ranks]
            argtypes += [ctypes.c_int64, ctypes.c_int64] if variant.parallel else []  # part, parts
            address = variant.loaded.address(abi.c_interface_name(name))
        return ctypes.CFUNCTYPE(None, *argtypes)(address)

    @property
    def parallel(self) -> bool:
        """Whether the all-contiguous variant splits across threads."""
        return self.variant((True,) * len(self.signature.inputs))[0].parallel

    def _shapes_for(self, key: tuple) -> list[tuple]:
        """Output shapes for ``key``: the input shapes, then the ints of the value inputs."""
        if self.signature.value_inputs:
            n = len(self.signature.inputs)
            shapes = self._shape_program(key[:n], key[n:])
        else:
            shapes = self._shape_program(key)
        if len(self._shape_cache) >= SHAPE_CACHE_LIMIT:  # a caller cycling through sizes or ints
            self._shape_cache.clear()
        self._shape_cache[key] = shapes
        return shapes

    def _reject(self, i: int, a) -> None:
        got = f"{a.dtype}{list(a.shape)}" if isinstance(a, np.ndarray) else type(a).__name__
        raise self.signature.inputs[i].rejection(self.signature.name, i, got)

    def _check(self, arrays) -> list[np.ndarray]:
        sig = self.signature
        for i, (a, t) in enumerate(zip(arrays, sig.inputs, strict=True)):
            if not isinstance(a, np.ndarray) or not t.admits(a.dtype, a.shape):
                self._reject(i, a)
        return list(arrays)

    def _call_generic(self, *arrays) -> tuple[np.ndarray, ...]:
        """The call path through ctypes descriptors, where the fast entry is unsupported."""
        inputs = self._check(arrays)
        key = tuple(a.shape for a in inputs) + tuple(int(inputs[i]) for i in self.signature.value_inputs)
        shapes = self._shape_cache.get(key) or self._shapes_for(key)
        sig = self.signature
        results = [
            inputs[i] if i is not None else outputs.empty(shape, t.dtype)
            for shape, t, i in zip(shapes, sig.outputs, sig.inout, strict=True)
        ]
        allocated = [results[j] for j in sig.allocated]
        variant, function = self.variant(tuple(a.flags.c_contiguous for a in inputs))
        scratch = [np.zeros(slots, dtype) for slots, dtype in variant.scratch]
        descriptors = [ctypes.byref(descriptor(a)) for a in inputs + allocated + scratch]
        function(*descriptors, *((0, 1) if variant.parallel else ()))  # this fallback runs on one thread
        return tuple(results)

    @property
    def written_inputs(self) -> dict[int, int]:
        """output index -> input index: outputs the kernel writes into their input (the
        caller's array), which the frontend then does not copy back."""
        return self.signature.written_inputs

    @property
    def call_from_guarded_entry(self):
        """The call path for callers whose guards already fixed the number of arrays and
        each one's class, dtype and static shape (the frontend's generated entries)."""
        return self._trusted_call()

    def __call__(self, *arrays) -> tuple[np.ndarray, ...]:
        if len(arrays) != len(self.signature.inputs):
            raise TypeError(f"{self.signature.name} takes {len(self.signature.inputs)} arrays, got {len(arrays)}")
        return (self._call or self._checked_call())(*arrays)


class KernelPair:
    """Two kernels run one after the other as one graph (``partition.py`` in the CPU
    backend): ``first`` computes the array results from the inputs, ``second`` the 0-d
    results from the inputs and ``first``'s results. ``scalar_positions[j]``: where
    ``second``'s result ``j`` goes among the graph's results."""

    written_inputs: dict = {}  # a graph with in-out results is never split

    def __init__(self, first: Kernel, second: Kernel, scalar_positions: list[int]):
        self.first, self.second = first, second
        count = len(first.signature.outputs) + len(second.signature.outputs)
        produced = [k for k in range(count) if k not in scalar_positions] + list(scalar_positions)
        self._take = [produced.index(k) for k in range(count)]  # result k in (first's + second's results)
        self._call_first, self._call_second = first.call_from_guarded_entry, second.call_from_guarded_entry

    def _assemble(self, arrays: tuple, scalars: tuple) -> tuple:
        results = arrays + scalars
        return tuple(results[i] for i in self._take)

    def __call__(self, *inputs) -> tuple:
        arrays = self.first(*inputs)
        return self._assemble(arrays, self.second(*inputs, *arrays))

    def call_from_guarded_entry(self, *inputs) -> tuple:
        arrays = self._call_first(*inputs)
        return self._assemble(arrays, self._call_second(*inputs, *arrays))

    @property
    def parallel(self) -> bool:
        return self.first.parallel or self.second.parallel
