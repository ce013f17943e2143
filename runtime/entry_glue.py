"""LLVM IR of the functions each kernel object exports to Python (see ``runtime/abi.py``).

``kernel_glue`` builds, with llvmlite's ``IRBuilder`` (as Numba builds its call
wrappers), an ``ember_entry_<name>`` that turns ``PyArrayObject`` pointers into the
memref descriptors the kernel's C interface takes, and for a parallel kernel the
launcher ``ember_launch_<name>`` and the per-part task the worker pool calls. The
backend appends this IR to the kernel's own (``append_glue``) and optimizes both as
one module, so LLVM inlines the descriptor building into each call.
"""

from __future__ import annotations

import functools
import re

import numpy as np
from llvmlite import ir

from runtime import abi
from runtime.threads import FORK_PARTS_PER_THREAD

PTR = ir.PointerType()
I8, I32, I64 = ir.IntType(8), ir.IntType(32), ir.IntType(64)
VOID = ir.VoidType()


@functools.cache
def _descriptor_type(rank: int) -> ir.LiteralStructType:
    """MLIR's memref descriptor: allocated, aligned, offset[, sizes, strides]."""
    fields = [PTR, PTR, I64]
    if rank:
        fields += [ir.ArrayType(I64, rank)] * 2
    return ir.LiteralStructType(fields)


def _alloca(builder: ir.IRBuilder, typ: ir.Type, name: str, align: int = 8):
    """A stack slot typed as an opaque ``ptr``: llvmlite types allocas as typed
    pointers, which print in the syntax LLVM dropped (``{...}*``)."""
    slot = builder.alloca(typ, name=name)
    slot.align = align
    slot.type = PTR
    return slot


def _on_stack(builder: ir.IRBuilder, value, name: str):
    """A stack slot holding ``value`` (a pointer is what the C interface takes)."""
    slot = _alloca(builder, value.type, name)
    builder.store(value, slot, align=8)
    return slot


def _array_descriptor(builder: ir.IRBuilder, array, rank: int, itemsize: int, name: str):
    """A descriptor (on the stack) of the ``PyArrayObject *array``, from the fields at
    ``abi.PYARRAY_LAYOUT``: ``data`` is both allocated and aligned pointer, offset 0
    (a view's first element is where ``data`` points), strides in elements. Built as
    one struct value and stored once: fewer instructions for llvmlite to build and
    print than a store per field (the same code after LLVM's SROA)."""
    if itemsize & (itemsize - 1):
        raise ValueError(f"itemsize {itemsize} is not a power of two")

    def array_field(field: str, typ: ir.Type = PTR):
        at = builder.gep(array, [I64(abi.PYARRAY_LAYOUT[field])], source_etype=I8, name=f"{name}.{field}p")
        pointer = builder.load(at, name=f"{name}.{field}", align=8, typ=PTR)
        return pointer if typ is PTR else builder.load(pointer, name=f"{name}.{field}.v", align=8, typ=typ)

    data = array_field("data")
    desc = builder.insert_value(ir.Constant(_descriptor_type(rank), None), data, 0)  # offset stays 0
    desc = builder.insert_value(desc, data, 1)
    if rank:
        row = ir.ArrayType(I64, rank)
        desc = builder.insert_value(desc, array_field("dimensions", row), 3)
        strides = array_field("strides", row)
        shift = itemsize.bit_length() - 1
        for i in range(rank if shift else 0):  # bytes -> elements: NumPy strides are multiples of the itemsize
            element = builder.ashr(builder.extract_value(strides, i), I64(shift), name=f"{name}.{i}.stride")
            strides = builder.insert_value(strides, element, i)
        desc = builder.insert_value(desc, strides, 4)
    return _on_stack(builder, desc, f"{name}.desc")


def _scratch_descriptor(builder: ir.IRBuilder, buffer, slots: int, name: str):
    """A descriptor of the contiguous ``memref<slots x T>`` at raw pointer ``buffer``."""
    row = ir.ArrayType(I64, 1)
    desc = ir.Constant(_descriptor_type(1), [ir.Undefined, ir.Undefined, I64(0), row([I64(slots)]), row([I64(1)])])
    desc = builder.insert_value(builder.insert_value(desc, buffer, 0), buffer, 1)
    return _on_stack(builder, desc, f"{name}.desc")


def kernel_glue(name: str, arrays, parallel: bool, scratch=(), contiguous=()) -> ir.Module:
    """The exported functions of kernel ``name`` (and a declaration of each function
    they call). ``arrays``: the ``abi.ArraySpec`` of every input, then every output;
    ``scratch``: ``(slots, dtype)`` of each scratch buffer (``abi.scratch_buffers``);
    ``contiguous``: per input, whether the code was compiled for a C-contiguous one."""
    module = ir.Module(name=f"ember_glue_{name}")
    n_arrays, n_scratch = len(arrays), len(scratch)
    part_types = [I64, I64] if parallel else []
    kernel = ir.Function(
        module, ir.FunctionType(VOID, [PTR] * (n_arrays + n_scratch) + part_types), abi.c_interface_name(name)
    )

    entry = ir.Function(
        module, ir.FunctionType(VOID, [PTR] * (n_arrays + n_scratch) + part_types), abi.entry_name(name)
    )
    names = [f"a{i}" for i in range(n_arrays)] + [f"s{j}" for j in range(n_scratch)]
    for arg, arg_name in zip(entry.args, names + (["part", "parts"] if parallel else []), strict=True):
        arg.name = arg_name
    builder = ir.IRBuilder(entry.append_basic_block("entry"))
    descriptors = [
        _array_descriptor(builder, entry.args[i], spec.rank, spec.dtype.itemsize, names[i])
        for i, spec in enumerate(arrays)
    ]
    descriptors += [
        _scratch_descriptor(builder, entry.args[n_arrays + j], slots, names[n_arrays + j])
        for j, (slots, _) in enumerate(scratch)
    ]
    builder.call(kernel, descriptors + list(entry.args[n_arrays + n_scratch :]))
    builder.ret_void()
    if parallel:
        _launcher(module, name, entry, n_arrays, scratch)
    elif not scratch:
        _fastcall(module, name, entry, n_arrays, contiguous)
    return module


def _fastcall(module: ir.Module, name: str, entry: ir.Function, n_arrays: int, contiguous) -> None:
    """``ember_fastcall_<name>(self, args, nargs)``: the entry as a CPython builtin
    (``abi.fastcall_name``). A ctypes call costs about 0.45 us, most of a small
    kernel's warm call; a builtin's costs a tenth of that. It checks the C-contiguous
    flag of the inputs its variant was compiled for (``contiguous``) — cheaper here
    than ``a.flags.c_contiguous`` in Python — and releases the GIL around the kernel,
    as ctypes does."""
    fn = ir.Function(module, ir.FunctionType(PTR, [PTR, PTR, I64]), abi.fastcall_name(name))
    self_, args, nargs = fn.args
    self_.name, args.name, nargs.name = "self", "args", "nargs"
    api = {
        "PyEval_SaveThread": ir.Function(module, ir.FunctionType(PTR, []), "PyEval_SaveThread"),
        "PyEval_RestoreThread": ir.Function(module, ir.FunctionType(VOID, [PTR]), "PyEval_RestoreThread"),
        "Py_NewRef": ir.Function(module, ir.FunctionType(PTR, [PTR]), "Py_NewRef"),
        "PyErr_BadArgument": ir.Function(module, ir.FunctionType(I32, []), "PyErr_BadArgument"),
    }
    start = fn.append_basic_block("entry")
    run, retry, bad = fn.append_basic_block("run"), fn.append_basic_block("retry"), fn.append_basic_block("bad")
    builder = ir.IRBuilder(start)
    counted = fn.append_basic_block("counted")
    builder.cbranch(builder.icmp_signed("==", nargs, I64(n_arrays), name="nargs.ok"), counted, bad)
    builder.position_at_end(counted)
    arrays = [
        builder.load(builder.gep(args, [I64(i)], source_etype=PTR), name=f"a{i}", align=8, typ=PTR)
        for i in range(n_arrays)
    ]
    checked = [i for i, flag in enumerate(contiguous) if flag]
    ok = ir.IntType(1)(1)
    for i in checked:
        at = builder.gep(arrays[i], [I64(abi.PYARRAY_LAYOUT["flags"])], source_etype=I8, name=f"a{i}.flagsp")
        flags = builder.load(at, name=f"a{i}.flags", align=4, typ=I32)
        bit = builder.and_(flags, I32(abi.NPY_ARRAY_C_CONTIGUOUS), name=f"a{i}.c")
        ok = builder.and_(ok, builder.icmp_unsigned("!=", bit, I32(0)), name=f"a{i}.ok")
    builder.cbranch(ok, run, retry)
    builder = ir.IRBuilder(run)
    state = builder.call(api["PyEval_SaveThread"], [], name="thread")
    builder.call(entry, arrays)
    builder.call(api["PyEval_RestoreThread"], [state])
    builder.ret(builder.call(api["Py_NewRef"], [arrays[0]], name="ran"))
    builder = ir.IRBuilder(retry)
    builder.ret(builder.call(api["Py_NewRef"], [self_], name="sentinel"))
    builder = ir.IRBuilder(bad)
    builder.call(api["PyErr_BadArgument"], [])
    builder.ret(ir.Constant(PTR, None))


def _launcher(module: ir.Module, name: str, entry: ir.Function, n_arrays: int, scratch) -> None:
    """``ember_launch_<name>(arrays..., parts)``: one call from Python that runs every
    part on the worker pool, which calls back ``ember_task_<name>(argv, part, parts)``
    once per part. Scratch lives on the launcher's stack, zeroed, shared by the parts
    of this call only; ``parts`` is capped at the first scratch buffer's slots (one
    partial per part)."""
    total = n_arrays + len(scratch)
    task = _task(module, abi.task_name(name), entry, [PTR] * total)

    pool_run = ir.Function(module, ir.FunctionType(VOID, [PTR, PTR, I64]), abi.POOL_RUN)
    memset = module.declare_intrinsic("llvm.memset", [PTR, I64])
    launch = ir.Function(module, ir.FunctionType(VOID, [PTR] * n_arrays + [I64]), abi.launch_name(name))
    for i, arg in enumerate(launch.args[:n_arrays]):
        arg.name = f"a{i}"
    asked = launch.args[n_arrays]
    asked.name = "parts.asked"
    builder = ir.IRBuilder(launch.append_basic_block("entry"))
    slots = _alloca(builder, ir.ArrayType(PTR, total), "argv")
    buffers = []
    for j, (count, dtype) in enumerate(scratch):
        size = count * np.dtype(dtype).itemsize
        buffer = _alloca(builder, ir.ArrayType(I8, size), f"s{j}", align=64)
        builder.call(memset, [buffer, I8(0), I64(size), ir.IntType(1)(0)])
        buffers.append(buffer)
    count = asked
    if scratch:
        limit = I64(scratch[0][0])
        count = builder.select(builder.icmp_signed(">", asked, limit, name="parts.over"), limit, asked, name="parts")
    for i, pointer in enumerate(list(launch.args[:n_arrays]) + buffers):
        builder.store(pointer, builder.gep(slots, [I64(i)], source_etype=PTR), align=8)
    builder.call(pool_run, [ir.FormattedConstant(PTR, task.get_reference()), slots, count])
    builder.ret_void()


def _task(module: ir.Module, name: str, callee: ir.Function, types: list) -> ir.Function:
    """``name(argv, part, parts)`` (internal), as the worker pool calls it: ``callee`` with
    its arguments of ``types`` read from ``argv`` (a pointer each: a buffer's, or one to
    a scalar's value), then ``(part, parts)``."""
    task = ir.Function(module, ir.FunctionType(VOID, [PTR, I64, I64]), name)
    task.linkage = "internal"
    argv, part, parts = task.args
    argv.name, part.name, parts.name = "argv", "part", "parts"
    builder = ir.IRBuilder(task.append_basic_block("entry"))
    values = []
    for i, typ in enumerate(types):
        pointer = builder.load(builder.gep(argv, [I64(i)], source_etype=PTR), name=f"p{i}", align=8, typ=PTR)
        values.append(pointer if typ == PTR else builder.load(pointer, name=f"v{i}", typ=typ))
    builder.call(callee, values + [part, parts])
    builder.ret_void()
    return task


def fork_glue(forks, parts_per_thread: int = FORK_PARTS_PER_THREAD) -> ir.Module:
    """The fork of each loop ``ember-fork-loops`` moved out of a function. ``forks``:
    ``(fork, forked function, argument types)``, each type ``"ptr"`` (a buffer, passed
    as its descriptor's address, as MLIR's C interface does) or a scalar's LLVM type
    (``"i64"``, ``"double"``, ...).

    ``_mlir_ciface_<fork>(values..., tiles)`` stores its values (the scalars on its
    stack) in an array and asks the pool for ``parts_per_thread`` parts per thread
    (``ember_pool_threads()``: the configured threads; one part on one thread), at most
    one per tile: ``FORK_PARTS_PER_THREAD`` for a kernel's loops, 1 for the helper
    libraries' (their blocks are sized per thread; A @ x's rows in four parts on two
    threads ran 5-10 % slower);
    ``ember_forktask_...(argv, part, parts)`` passes them on to the forked function. The
    pool returns once every part is done."""
    module = ir.Module(name="ember_fork_glue")
    pool_run = ir.Function(module, ir.FunctionType(VOID, [PTR, PTR, I64]), abi.POOL_RUN)
    pool_threads = ir.Function(module, ir.FunctionType(I64, []), abi.POOL_THREADS)
    for fork_symbol, forked_symbol, kinds in forks:
        types = [_scalar_type(kind) for kind in kinds]
        forked = ir.Function(module, ir.FunctionType(VOID, types + [I64, I64]), "_mlir_ciface_" + forked_symbol)
        task = _task(module, abi.fork_task_name(fork_symbol), forked, types)

        fork = ir.Function(module, ir.FunctionType(VOID, types + [I64]), "_mlir_ciface_" + fork_symbol)
        builder = ir.IRBuilder(fork.append_basic_block("entry"))
        slots = _alloca(builder, ir.ArrayType(PTR, max(1, len(types))), "argv")
        for i, (arg, typ) in enumerate(zip(fork.args, types)):
            pointer = arg if typ == PTR else _on_stack(builder, arg, f"v{i}")
            builder.store(pointer, builder.gep(slots, [I64(i)], source_etype=PTR), align=8)
        tiles = fork.args[len(types)]
        threads = builder.call(pool_threads, [], name="threads")
        shared = builder.icmp_signed(">", threads, I64(1), name="shared")
        more = builder.mul(threads, I64(parts_per_thread), name="more")
        wanted = builder.select(shared, more, threads, name="wanted")
        fewer = builder.icmp_signed("<", tiles, wanted, name="fewer")
        count = builder.select(fewer, tiles, wanted, name="parts")
        builder.call(pool_run, [ir.FormattedConstant(PTR, task.get_reference()), slots, count])
        builder.ret_void()
    return module


def _scalar_type(kind: str) -> ir.Type:
    return {"ptr": PTR, "double": ir.DoubleType(), "float": ir.FloatType()}.get(kind) or ir.IntType(int(kind[1:]))


_DECLARED = re.compile(r'@"?([^"(]+)"?\(')


def _declared(line: str) -> str | None:
    """The function a ``declare`` line declares."""
    found = _DECLARED.search(line)
    return found.group(1) if found else None


def append_glue(kernel_ir: str, glue: ir.Module) -> str:
    """``kernel_ir`` (the kernel's translated module) followed by the glue's functions,
    as one module's text. A declaration is left out where ``kernel_ir`` already
    declares or defines the function (the C interface always, an intrinsic sometimes):
    LLVM's parser rejects a second one. Every function an LLVM module refers to is
    declared in it, so a name that occurs in its text (quoted or not) is one it has."""
    defined = {fn.name for fn in glue.functions if not fn.is_declaration}
    if defined:  # the kernel declares what the glue defines (a loop's fork): one pass over its lines
        kernel_ir = "".join(
            line
            for line in kernel_ir.splitlines(keepends=True)
            if not (line.startswith("declare ") and _declared(line) in defined)
        )
    parts = [kernel_ir]
    for fn in glue.functions:
        if not (fn.is_declaration and (f"@{fn.name}(" in kernel_ir or f'@"{fn.name}"(' in kernel_ir)):
            parts.append(str(fn))
    return "\n".join(parts) + "\n"
