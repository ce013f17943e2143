"""The entry point a compiled graph exposes to Python: NumPy arrays in, one call.

MLIR's C interface takes a pointer to a memref descriptor per array; building those
descriptors with ctypes costs about a microsecond per array (``a.ctypes.data`` alone
is ~0.7 µs), more than many kernels run. So each object also gets
``ember_entry_<name>(PyArrayObject *in..., PyArrayObject *out... [, part, parts])``:
LLVM IR that reads data pointer, shape and strides straight from the arrays — the
same fields NumPy's C API macros read — builds the descriptors on its stack and calls
``_mlir_ciface_<name>``; LLVM inlines it all. Python passes the arrays themselves
(``ctypes.py_object``: a pointer, no conversion). A parallel kernel also gets
``ember_launch_<name>(arrays..., parts)``, which runs the entry once per part on the
native worker pool (``runtime/threads.py``).

``PYARRAY_LAYOUT`` holds the field offsets of ``PyArrayObject`` (after the object
header: ``data``, ``nd``, ``dimensions``, ``strides``), checked against real arrays at
import; where the check fails ``fast_entry_supported`` is false and the runtime
builds descriptors with ctypes instead.
"""

from __future__ import annotations

import ctypes

import numpy as np

PYARRAY_LAYOUT = {"data": 16, "nd": 24, "dimensions": 32, "strides": 40}


def _layout_holds() -> bool:
    probe = np.arange(24, dtype=np.float64).reshape(2, 3, 4)[:, ::-1, ::2]
    base = id(probe)

    def word(offset):
        return ctypes.c_int64.from_address(base + offset).value

    dims, strides = word(PYARRAY_LAYOUT["dimensions"]), word(PYARRAY_LAYOUT["strides"])
    return (word(PYARRAY_LAYOUT["data"]) == probe.ctypes.data
            and ctypes.c_int.from_address(base + PYARRAY_LAYOUT["nd"]).value == probe.ndim
            and [ctypes.c_int64.from_address(dims + 8 * i).value for i in range(3)] == list(probe.shape)
            and [ctypes.c_int64.from_address(strides + 8 * i).value for i in range(3)] == list(probe.strides))


fast_entry_supported = _layout_holds()


def kernel_symbol(name: str) -> str:
    """The symbol a graph named ``name`` gets in object code: prefixed, so a graph called
    ``pow`` cannot capture the libm ``pow`` its own code calls."""
    return f"ember_kernel_{name}"


def entry_name(name: str) -> str:
    return f"ember_entry_{name}"


def _descriptor_type(rank: int) -> str:
    return "{ ptr, ptr, i64 }" if rank == 0 else f"{{ ptr, ptr, i64, [{rank} x i64], [{rank} x i64] }}"


def _fill_descriptor(lines: list[str], array: str, rank: int, itemsize: int) -> str:
    """IR that builds the descriptor of the PyArrayObject ``%array``; returns its alloca."""
    t, d = _descriptor_type(rank), f"%{array}.desc"
    lines += [
        f"  {d} = alloca {t}, align 8",
        f"  %{array}.datap = getelementptr i8, ptr %{array}, i64 {PYARRAY_LAYOUT['data']}",
        f"  %{array}.data = load ptr, ptr %{array}.datap, align 8",
        f"  store ptr %{array}.data, ptr {d}, align 8",
        f"  %{array}.f1 = getelementptr inbounds {t}, ptr {d}, i32 0, i32 1",
        f"  store ptr %{array}.data, ptr %{array}.f1, align 8",
        f"  %{array}.f2 = getelementptr inbounds {t}, ptr {d}, i32 0, i32 2",
        f"  store i64 0, ptr %{array}.f2, align 8",
    ]
    if rank:
        lines += [
            f"  %{array}.dimsp = getelementptr i8, ptr %{array}, i64 {PYARRAY_LAYOUT['dimensions']}",
            f"  %{array}.dims = load ptr, ptr %{array}.dimsp, align 8",
            f"  %{array}.stp = getelementptr i8, ptr %{array}, i64 {PYARRAY_LAYOUT['strides']}",
            f"  %{array}.st = load ptr, ptr %{array}.stp, align 8",
        ]
    for i in range(rank):
        p = f"%{array}.{i}"
        lines += [
            f"  {p}.sizep = getelementptr i64, ptr %{array}.dims, i64 {i}",
            f"  {p}.size = load i64, ptr {p}.sizep, align 8",
            f"  {p}.sized = getelementptr inbounds {t}, ptr {d}, i32 0, i32 3, i64 {i}",
            f"  store i64 {p}.size, ptr {p}.sized, align 8",
            f"  {p}.bytesp = getelementptr i64, ptr %{array}.st, i64 {i}",
            f"  {p}.bytes = load i64, ptr {p}.bytesp, align 8",
            f"  {p}.stride = sdiv exact i64 {p}.bytes, {itemsize}" if itemsize > 1
            else f"  {p}.stride = add i64 {p}.bytes, 0",
            f"  {p}.strided = getelementptr inbounds {t}, ptr {d}, i32 0, i32 4, i64 {i}",
            f"  store i64 {p}.stride, ptr {p}.strided, align 8",
        ]
    return d


def _scratch_descriptor(lines: list[str], buffer: str, slots: int) -> str:
    """IR that builds the descriptor of a ``memref<slots x T>`` at raw pointer ``%buffer``."""
    t, d = _descriptor_type(1), f"%{buffer}.desc"
    fields = [f"ptr %{buffer}", f"ptr %{buffer}", "i64 0"]
    lines.append(f"  {d} = alloca {t}, align 8")
    for i, value in enumerate(fields):
        lines += [f"  %{buffer}.f{i} = getelementptr inbounds {t}, ptr {d}, i32 0, i32 {i}",
                  f"  store {value}, ptr %{buffer}.f{i}, align 8"]
    for i, value in ((3, slots), (4, 1)):
        lines += [f"  %{buffer}.f{i} = getelementptr inbounds {t}, ptr {d}, i32 0, i32 {i}, i64 0",
                  f"  store i64 {value}, ptr %{buffer}.f{i}, align 8"]
    return d


def entry_wrapper_ir(name: str, arrays: list[tuple[int, int]], parallel: bool,
                     scratch: list[tuple[int, int]] = ()) -> str:
    """LLVM IR of ``ember_entry_<name>`` calling ``_mlir_ciface_<kernel_symbol(name)>``;
    ``arrays`` is (rank, itemsize) of every input, then every output, in order;
    ``scratch`` (slots, itemsize) of each scratch buffer the kernel takes after them
    (``compiler/passes/parallel_reduction.py``), passed to the entry as raw pointers."""
    part = ["i64 %part", "i64 %parts"] if parallel else []
    params = [f"ptr %a{i}" for i in range(len(arrays))] + [f"ptr %s{j}" for j in range(len(scratch))] + part
    lines = [f"define void @{entry_name(name)}({', '.join(params)}) {{", "entry:"]
    descriptors = [_fill_descriptor(lines, f"a{i}", rank, size) for i, (rank, size) in enumerate(arrays)]
    descriptors += [_scratch_descriptor(lines, f"s{j}", slots) for j, (slots, _) in enumerate(scratch)]
    args = [f"ptr {d}" for d in descriptors] + part
    lines += [f"  call void @_mlir_ciface_{kernel_symbol(name)}({', '.join(args)})", "  ret void", "}"]
    if parallel:
        lines += _launcher_ir(name, len(arrays), scratch)
    return "\n".join(lines) + "\n"


def launch_name(name: str) -> str:
    return f"ember_launch_{name}"


def _launcher_ir(name: str, n: int, scratch) -> list[str]:
    """``ember_launch_<name>(arrays..., parts)``: one call from Python that runs every
    part of a parallel kernel on the native worker pool (runtime/threads.py), which
    calls back ``ember_task_<name>(argv, part, parts)`` once per part. Scratch lives
    on the launcher's stack, zeroed, shared by the parts of this call only; ``parts``
    is capped at the first scratch buffer's slots (one per part)."""
    pointers = [f"%a{i}" for i in range(n)] + [f"%s{j}" for j in range(len(scratch))]
    total = len(pointers)
    lines = [f"define internal void @ember_task_{name}(ptr %argv, i64 %part, i64 %parts) {{"]
    for i, p in enumerate(pointers):
        lines += [f"  {p}.p = getelementptr ptr, ptr %argv, i64 {i}", f"  {p} = load ptr, ptr {p}.p, align 8"]
    args = ", ".join(f"ptr {p}" for p in pointers)
    lines += [f"  call void @{entry_name(name)}({args}, i64 %part, i64 %parts)", "  ret void", "}",
              "declare void @ember_pool_run(ptr, ptr, i64)",
              "declare void @llvm.memset.p0.i64(ptr, i8, i64, i1)",
              f"define void @{launch_name(name)}({', '.join(f'ptr %a{i}' for i in range(n))}, i64 %parts.asked) {{",
              f"  %argv = alloca [{total} x ptr], align 8"]
    parts = "%parts.asked"
    for j, (slots, itemsize) in enumerate(scratch):
        lines += [f"  %s{j} = alloca [{slots * itemsize} x i8], align 64",
                  f"  call void @llvm.memset.p0.i64(ptr %s{j}, i8 0, i64 {slots * itemsize}, i1 false)"]
    if scratch:
        lines += [f"  %parts.over = icmp sgt i64 %parts.asked, {scratch[0][0]}",
                  f"  %parts = select i1 %parts.over, i64 {scratch[0][0]}, i64 %parts.asked"]
        parts = "%parts"
    for i, p in enumerate(pointers):
        lines += [f"  {p}.slot = getelementptr ptr, ptr %argv, i64 {i}", f"  store ptr {p}, ptr {p}.slot, align 8"]
    lines += [f"  call void @ember_pool_run(ptr @ember_task_{name}, ptr %argv, i64 {parts})", "  ret void", "}"]
    return lines
