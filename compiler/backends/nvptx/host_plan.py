"""The host function of a lowered GPU graph, as plain data the runtime interprets.

After ``lower-to-gpu`` the host function only sizes, allocates and views device
buffers and launches kernels (``gpu.launch_func``). MLIR's own host runtime is not
used: the function becomes a list of steps (``runtime/cuda/program.py`` runs them),
storable with the PTX in the artifact cache and run with no compiler imported. A
value is a slot number (the function's arguments are the first slots); a size is an
int, or ``[slot]`` where it is only known at run time.
"""

from __future__ import annotations

import numpy as np

from compiler.errors import BackendError
from compiler.mlir import ir
from compiler.passes import gpu_kernels

_INDEX_ARITH = {
    "arith.addi",
    "arith.subi",
    "arith.muli",
    "arith.divsi",
    "arith.divui",
    "arith.remsi",
    "arith.remui",
    "arith.floordivsi",
    "arith.ceildivsi",
    "arith.maxsi",
    "arith.minsi",
    "arith.maxui",
    "arith.minui",
}
_FLOAT_ARITH = {"arith.addf", "arith.subf", "arith.mulf", "arith.divf"}
_DYNAMIC = ir.ShapedType.get_dynamic_size()


class _Slots:
    def __init__(self, fn):
        self.of: dict = {}
        for arg in fn.regions[0].blocks[0].arguments:
            self.new(arg)

    def new(self, value) -> int:
        self.of[value] = len(self.of)
        return self.of[value]

    def __getitem__(self, value) -> int:
        return self.of[value]


def host_steps(fn) -> list:
    """The steps of host function ``fn`` (a ``BackendError`` names an op it cannot run)."""
    slots = _Slots(fn)
    steps = []
    for op in fn.regions[0].blocks[0].operations:
        op = op.operation
        if op.name == "func.return":
            break
        step = _step(op, slots)
        if step is not None:
            steps.append(step)
    return steps


def _mixed(static: list[int], operands, slots, sentinel=_DYNAMIC) -> list:
    """Static values with the dynamic ones (``sentinel``) taken from ``operands`` in order."""
    dynamic = iter(operands)
    return [[slots[next(dynamic)]] if v == sentinel else int(v) for v in static]


def _step(op, slots):
    name = op.name
    if name == "arith.constant":
        t = op.results[0].type
        if isinstance(t, (ir.IndexType, ir.IntegerType)):
            return ("const", slots.new(op.results[0]), ir.IntegerAttr(op.attributes["value"]).value)
        if isinstance(t, ir.FloatType) and str(t) in ("f32", "f64"):
            return ("fconst", slots.new(op.results[0]), ir.FloatAttr(op.attributes["value"]).value, _dtype(t))
        return None  # a kernel reads its own copy of any other constant
    if name in _INDEX_ARITH:
        return ("arith", slots.new(op.results[0]), name[len("arith.") :], slots[op.operands[0]], slots[op.operands[1]])
    if name == "arith.cmpi":
        predicate = ir.IntegerAttr(op.attributes["predicate"]).value
        return ("compare", slots.new(op.results[0]), predicate, slots[op.operands[0]], slots[op.operands[1]])
    if name == "arith.select":
        return ("select", slots.new(op.results[0]), *(slots[v] for v in op.operands))
    if name in _FLOAT_ARITH:
        t = _dtype(op.results[0].type)
        return (
            "farith",
            slots.new(op.results[0]),
            name[len("arith.") :],
            slots[op.operands[0]],
            slots[op.operands[1]],
            t,
        )
    if name in ("arith.sitofp", "arith.uitofp", "arith.extf", "arith.truncf"):
        return ("convert", slots.new(op.results[0]), slots[op.operands[0]], _dtype(op.results[0].type))
    if name in ("arith.index_cast", "arith.index_castui", "arith.extsi", "arith.extui", "arith.trunci"):
        return ("alias", slots.new(op.results[0]), slots[op.operands[0]])
    if name == "memref.dim":
        return ("dim", slots.new(op.results[0]), slots[op.operands[0]], slots[op.operands[1]])
    if name == "memref.alloc":
        t = ir.MemRefType(op.results[0].type)
        shape = _mixed(list(t.shape), list(op.operands), slots)
        return ("alloc", slots.new(op.results[0]), _dtype(t.element_type), shape)
    if name == "memref.dealloc":
        return ("free", slots[op.operands[0]])
    if name in ("memref.cast", "memref.assume_alignment"):
        return ("alias", slots.new(op.results[0]), slots[op.operands[0]])
    if name == "memref.subview":
        return _subview(op, slots)
    if name in ("memref.expand_shape", "memref.collapse_shape"):
        groups = [
            [int(ir.IntegerAttr(i).value) for i in ir.ArrayAttr(g)]
            for g in ir.ArrayAttr(op.attributes["reassociation"])
        ]
        if name == "memref.collapse_shape":
            return ("collapse", slots.new(op.results[0]), slots[op.operands[0]], groups)
        static = list(ir.DenseI64ArrayAttr(op.attributes["static_output_shape"]))
        shape = _mixed(static, list(op.operands)[1:], slots)
        return ("expand", slots.new(op.results[0]), slots[op.operands[0]], groups, shape)
    if name == "gpu.launch_func":
        return _launch(op, slots)
    if name == "memref.get_global":
        return _global(op, slots)
    raise BackendError(f"the cuda backend cannot run {name} on the host")


def _subview(op, slots):
    attrs = op.attributes
    operands = list(op.operands)[1:]
    offsets_static = list(ir.DenseI64ArrayAttr(attrs["static_offsets"]))
    sizes_static = list(ir.DenseI64ArrayAttr(attrs["static_sizes"]))
    strides_static = list(ir.DenseI64ArrayAttr(attrs["static_strides"]))
    counts = [
        sum(v == s for v in vs)
        for vs, s in ((offsets_static, _DYNAMIC), (sizes_static, _DYNAMIC), (strides_static, _DYNAMIC))
    ]
    offsets = _mixed(offsets_static, operands[: counts[0]], slots)
    sizes = _mixed(sizes_static, operands[counts[0] : counts[0] + counts[1]], slots)
    strides = _mixed(strides_static, operands[counts[0] + counts[1] :], slots)
    result_rank = ir.MemRefType(op.results[0].type).rank
    kept = _kept_dims(sizes, result_rank)
    return ("subview", slots.new(op.results[0]), slots[op.operands[0]], offsets, sizes, strides, kept)


def _kept_dims(sizes: list, result_rank: int) -> list[int]:
    """The source dims a rank-reducing subview keeps: it drops static unit dims (which
    of several it drops does not matter: a unit dim is only ever indexed at 0)."""
    drop = len(sizes) - result_rank
    kept = []
    for d, s in enumerate(sizes):
        if drop and s == 1:
            drop -= 1
            continue
        kept.append(d)
    if drop:
        raise BackendError("the cuda backend cannot follow this rank-reducing subview")
    return kept


def _global(op, slots):
    """A constant array: its elements travel with the steps, copied to the device once."""
    symbol = ir.FlatSymbolRefAttr(op.attributes["name"]).value
    module = op.parent.parent
    for candidate in module.regions[0].blocks[0].operations:
        if (
            candidate.operation.name == "memref.global"
            and ir.StringAttr(candidate.attributes["sym_name"]).value == symbol
        ):
            t = ir.MemRefType(op.results[0].type)
            values = np.array(candidate.attributes["initial_value"]).reshape(t.shape)
            return ("constant", slots.new(op.results[0]), _dtype(t.element_type), values.tolist())
    raise BackendError(f"the cuda backend found no memref.global @{symbol}")


def _launch(op, slots):
    attrs = op.attributes
    kernel = str(attrs["kernel"]).rsplit("::@", 1)[-1]  # @ember_kernels::@name
    values = list(op.opview.kernelOperands)
    operands = [slots[v] for v in values]
    kinds = ["memref" if isinstance(v.type, ir.MemRefType) else _PARAM_KINDS[str(v.type)] for v in values]
    return (
        "launch",
        kernel,
        ir.StringAttr(attrs[gpu_kernels.LAUNCH_ATTR]).value,
        operands,
        kinds,
        list(ir.DenseI64ArrayAttr(attrs[gpu_kernels.LOOP_DIMS_ATTR])),
        list(ir.DenseI64ArrayAttr(attrs[gpu_kernels.PARALLEL_ATTR])),
        ir.IntegerAttr(attrs[gpu_kernels.TILE_ATTR]).value if gpu_kernels.TILE_ATTR in attrs else 0,
    )


_PARAM_KINDS = {"index": "i64", "i64": "i64", "i32": "i32", "f32": "f32", "f64": "f64"}


def _dtype(t: ir.Type) -> str:
    text = str(t)
    names = {"f16": "float16", "f32": "float32", "f64": "float64", "i1": "bool"}
    if text in names:
        return names[text]
    if text.startswith("i"):
        return f"int{text[1:]}"
    raise BackendError(f"the cuda backend has no buffers of {text}")
