"""ember-gpu-kernels: each linalg op of a bufferized function becomes a GPU kernel.

After ``ember-bufferize`` a graph is a sequence of fused ``linalg.generic`` ops over
memrefs (named ops are generalized first). Each one becomes a ``gpu.func`` in the
``gpu.module @ember_kernels`` and a ``gpu.launch_func`` in the host function, in one of
three shapes chosen from its loops:

* **elementwise** (only parallel loops): a grid-stride loop over the flattened
  iteration space, so any grid is correct and the runtime sizes it for the device;
* **reduce** (reduction loops whose body is ``out = C(out, x)`` for a known combiner
  ``C``: add, mul, max, min, and, or, xor): one block per output element, its threads
  striding over the reduced elements and combining in shared memory, then with warp
  shuffles for 32-bit types. Where few outputs leave the device idle, ``chunks``
  blocks share one output (``blockIdx.y``) and write partials that a second kernel,
  ``<name>_finish``, combines: a two-level tree. The partials buffer, the last
  operand of both launches, is a host ``memref.alloc`` of (256, 1024) elements; the
  runtime views it as (outputs, chunks) in each call;
* **serial** (any other reduction: argmax's pairs, several outputs): one thread per
  output element, reducing in order.

The launch's grid and block operands are placeholders (1): the runtime chooses them
per call from the sizes (``runtime/cuda/launch_config.py``), reading the loop sizes
from the operands named by ``ember.loop_dims``. The kernels read every size from
their memref arguments, so one kernel serves every size a symbolic graph takes.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.mlir import (
    affine,
    arith,
    defined_inside,
    functions,
    gpu,
    index_constant,
    ir,
    memref,
    operation_of,
    walk_ops,
)
from compiler.passes.base import EmberPass, PassFailure, run_upstream
from compiler.passes.linalg_utils import indexing_maps, iterator_types, linalg_ops
from compiler.passes.scf_loops import for_loop, if_then

KERNEL_MODULE = "ember_kernels"
LAUNCH_ATTR = "ember.launch"  # "elementwise" | "reduce" | "reduce-finish" | "serial"
LOOP_DIMS_ATTR = "ember.loop_dims"  # per loop: (launch operand, axis) whose size it is
PARALLEL_ATTR = "ember.parallel_loops"  # loop positions that are parallel
TILE_ATTR = "ember.tile"  # a matmul's output tile (TILE x TILE threads per block)
_MATMULS = ("linalg.matmul", "linalg.batch_matmul")
_SCALAR_ARGUMENTS = ("index", "i64", "i32", "f32", "f64")  # host values a kernel may take
TILE = 16  # a matmul's output tile: TILE x TILE threads
MAX_BLOCK = 256  # threads per block of a reduction (the shared-memory buffer's size)
PARTIAL_ROWS, PARTIAL_CHUNKS = 256, 1024  # most outputs split, and most blocks per output

# combiner op -> its identity (a float, or an int: -1 is all ones, "min"/"max" the type's)
_COMBINERS = {
    "arith.addf": -0.0,
    "arith.mulf": 1.0,
    "arith.maximumf": float("-inf"),
    "arith.minimumf": float("inf"),
    "arith.maxnumf": float("nan"),
    "arith.minnumf": float("nan"),
    "arith.addi": 0,
    "arith.muli": 1,
    "arith.andi": -1,
    "arith.ori": 0,
    "arith.xori": 0,
    "arith.maxsi": "min",
    "arith.minsi": "max",
    "arith.maxui": 0,
    "arith.minui": -1,
}


@dataclass
class EmberGpuKernels(EmberPass):
    name = "ember-gpu-kernels"
    summary = "each linalg op of a bufferized function becomes a GPU kernel and a gpu.launch_func"

    def run(self, module):
        module.attributes["gpu.container_module"] = ir.UnitAttr.get()
        kernels = _kernel_module(module)
        for fn in functions(module):  # matmuls first: generalizing would lose what they are
            self._map(fn, kernels, tileable_matmul, "m")
        run_upstream(module, "func.func(linalg-generalize-named-ops)")
        for fn in functions(module):
            self._map(fn, kernels, lambda op: True, "k")

    @staticmethod
    def _map(fn, kernels, wanted, prefix: str) -> None:
        host_constants = _host_constants(fn)
        for number, op in enumerate(op for op in linalg_ops(fn) if wanted(op)):
            _Kernel(op, f"{_symbol(fn)}_{prefix}{number}", kernels, host_constants).build()
            op.erase()


def _symbol(fn) -> str:
    return ir.StringAttr(fn.attributes["sym_name"]).value


def _kernel_module(module):
    parsed = ir.Module.parse(f"gpu.module @{KERNEL_MODULE} {{\n}}")  # owns the op until it is detached
    op = parsed.body.operations[0].operation
    op.detach_from_parent()
    ir.InsertionPoint(module.regions[0].blocks[0]).insert(op)
    return op


def _host_constants(fn) -> dict:
    return {op.operation: op for op in fn.regions[0].blocks[0].operations if op.operation.name == "arith.constant"}


def _product(values):
    total = index_constant(1)
    for v in values:
        total = arith.muli(total, v)
    return total


def _delinearize(flat, sizes) -> list:
    """Coordinates of ``flat`` in a row-major space of ``sizes``."""
    coords = [None] * len(sizes)
    for d in reversed(range(len(sizes))):
        if d == 0:
            coords[d] = flat
        else:
            coords[d] = arith.remui(flat, sizes[d])
            flat = arith.divui(flat, sizes[d])
    return coords


def _apply(expr, coords, loops: int):
    if isinstance(expr, ir.AffineDimExpr):
        return coords[ir.AffineDimExpr(expr).position]
    if isinstance(expr, ir.AffineConstantExpr):
        return index_constant(ir.AffineConstantExpr(expr).value)
    return affine.AffineApplyOp(ir.AffineMap.get(loops, 0, [expr]), coords).result


def _identity(name: str, t: ir.Type):
    value = _COMBINERS[name]
    if isinstance(value, float):
        return arith.ConstantOp(t, ir.FloatAttr.get(t, value)).result
    width = ir.IntegerType(t).width
    if value == "min":
        value = -(1 << (width - 1))
    elif value == "max":
        value = (1 << (width - 1)) - 1
    elif value == -1 and width == 1:
        value = 1
    return arith.ConstantOp(t, ir.IntegerAttr.get(t, value)).result


def _thread(dim: str):
    return gpu.thread_id(getattr(gpu.Dimension, dim))


def _block(dim: str):
    return gpu.block_id(getattr(gpu.Dimension, dim))


class _Kernel:
    """One linalg op's kernel(s) and launch(es)."""

    def __init__(self, op, name: str, kernels, host_constants: dict):
        self.op, self.name, self.kernels, self.host_constants = op, name, kernels, host_constants
        self.maps = _indexing_maps(op)
        self.loops = self.maps[0].n_dims if self.maps else 0
        self.iterators = iterator_types(op) if "iterator_types" in op.attributes else self._named_iterators()
        self.inputs = int(ir.DenseI32ArrayAttr(op.attributes["operandSegmentSizes"])[0])
        self.operands = list(op.operands)
        self.buffers = [i for i, v in enumerate(self.operands) if isinstance(v.type, ir.MemRefType)]
        for i, v in enumerate(self.operands):
            if i not in self.buffers and operation_of(v.owner) not in host_constants:
                raise PassFailure("a scalar operand computed on the host is not supported on the GPU", op)
        self.loop_dims = self._loop_dims()
        self.captured = self._captured_buffers()

    def _captured_buffers(self) -> list:
        """Host buffers and scalars (sizes, a mean's element count) the body reads
        directly, not as operands: extra kernel arguments."""
        found = []
        for inner in walk_ops(self.op):
            if inner == self.op:
                continue
            for operand in inner.operands:
                if defined_inside(operand, self.op) or operation_of(operand.owner) in self.host_constants:
                    continue
                if not (isinstance(operand.type, ir.MemRefType) or str(operand.type) in _SCALAR_ARGUMENTS):
                    raise PassFailure(f"the body reads a {operand.type} computed on the host", self.op)
                if operand not in found:
                    found.append(operand)
        return found

    def _named_iterators(self) -> list[str]:
        """A named op's loops (a matmul's): those its output map reads are parallel."""
        kept = {ir.AffineDimExpr(e).position for e in self.maps[-1].results if isinstance(e, ir.AffineDimExpr)}
        return ["parallel" if d in kept else "reduction" for d in range(self.loops)]

    def _loop_dims(self) -> list[tuple[int, int]]:
        """(buffer number, axis) giving each loop's size."""
        found = [None] * self.loops
        for number, i in enumerate(self.buffers):
            for axis, expr in enumerate(self.maps[i].results):
                if isinstance(expr, ir.AffineDimExpr) and found[ir.AffineDimExpr(expr).position] is None:
                    found[ir.AffineDimExpr(expr).position] = (number, axis)
        if None in found:
            raise PassFailure("a loop whose size no operand gives directly", self.op)
        return found

    # ---- building

    def build(self) -> None:
        parallel = [d for d, k in enumerate(self.iterators) if k == "parallel"]
        if self.op.name in _MATMULS:
            t = self.operands[-1].type.element_type
            tile = (_shared([TILE, TILE], t), _shared([TILE, TILE], t))
            self._launch("matmul", self._kernel(self.name, self._matmul, (), tile), parallel)
            return
        if len(parallel) == self.loops:
            self._launch("elementwise", self._kernel(self.name, self._elementwise), parallel)
            return
        combiner = self._combiner()
        if combiner is None:
            self._launch("serial", self._kernel(self.name, self._serial), parallel)
            return
        out_type = self.operands[-1].type.element_type
        partials = self._partials_alloc(out_type)
        smem = (_shared([MAX_BLOCK], out_type),)
        partial_types = [str(partials.type)]
        self._launch(
            "reduce",
            self._kernel(self.name, lambda a: self._reduce(a, combiner), partial_types, smem),
            parallel,
            [partials],
        )
        self._launch(
            "reduce-finish",
            self._kernel(f"{self.name}_finish", lambda a: self._finish(a, combiner), partial_types, smem),
            parallel,
            [partials],
        )

    def _partials_alloc(self, t):
        with ir.InsertionPoint(self.op):
            rows, chunks = index_constant(PARTIAL_ROWS), index_constant(PARTIAL_CHUNKS)
            alloc = memref.AllocOp(ir.MemRefType.get([ir.ShapedType.get_dynamic_size()] * 2, t), [rows, chunks], [])
            dealloc = memref.DeallocOp(alloc.result)
        dealloc.operation.move_after(self.op)  # after the launches, which go before the op
        return alloc.result

    def _kernel(self, name: str, body, extra_types=(), workgroup: tuple[str, ...] = ()) -> str:
        args = [str(self.operands[i].type) for i in self.buffers] + [str(v.type) for v in self.captured]
        args += list(extra_types)
        params = ", ".join(f"%a{i}: {t}" for i, t in enumerate(args))
        shared = " workgroup(" + ", ".join(f"%w{i} : {t}" for i, t in enumerate(workgroup)) + ")" if workgroup else ""
        text = f"gpu.module @m {{\n gpu.func @{name}({params}){shared} kernel {{\n gpu.return\n }}\n}}"
        parsed = ir.Module.parse(text)  # owns the func until it is detached
        func = parsed.body.operations[0].regions[0].blocks[0].operations[0].operation
        func.detach_from_parent()
        ir.InsertionPoint(self.kernels.regions[0].blocks[0]).insert(func)
        entry = self.entry = func.regions[0].blocks[0]
        with ir.InsertionPoint(entry.operations[len(entry.operations) - 1]):
            self.constants = {}
            first = len(self.buffers)
            self.captured_args = list(entry.arguments)[first : first + len(self.captured)]
            body(list(entry.arguments))
        return name

    def _launch(self, kind: str, kernel: str, parallel: list[int], extra=()) -> None:
        with ir.InsertionPoint(self.op):
            one = index_constant(1)
            launch = gpu.LaunchFuncOp(
                [KERNEL_MODULE, kernel],
                (one, one, one),
                (one, one, one),
                [self.operands[i] for i in self.buffers] + self.captured + list(extra),
            )
        attrs = launch.operation.attributes
        attrs[LAUNCH_ATTR] = ir.StringAttr.get(kind)
        attrs[LOOP_DIMS_ATTR] = ir.DenseI64ArrayAttr.get([x for pair in self.loop_dims for x in pair])
        attrs[PARALLEL_ATTR] = ir.DenseI64ArrayAttr.get(parallel)
        if kind == "matmul":
            attrs[TILE_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), TILE)

    # ---- the op's body, inlined

    def _sizes(self, args) -> list:
        return [memref.dim(args[number], index_constant(axis)) for number, axis in self.loop_dims]

    def _load(self, i: int, args, coords):
        if i not in self.buffers:
            return self._constant(operation_of(self.operands[i].owner))
        indices = [_apply(e, coords, self.loops) for e in self.maps[i].results]
        return memref.load(args[self.buffers.index(i)], indices)

    def _store(self, value, i: int, args, coords) -> None:
        indices = [_apply(e, coords, self.loops) for e in self.maps[i].results]
        memref.store(value, args[self.buffers.index(i)], indices)

    def _constant(self, host_op):
        """The kernel's copy of a host constant the op reads (a kernel sees nothing outside)."""
        if host_op not in self.constants:
            self.constants[host_op] = host_op.clone(ip=ir.InsertionPoint.at_block_begin(self.entry)).results[0]
        return self.constants[host_op]

    def _body(self, values, coords) -> list:
        """The op's body, inlined at the insertion point with its block arguments bound
        to ``values``; returns what it yields."""
        clone = self.op.clone()
        block = clone.regions[0].blocks[0]
        for arg, value in zip(block.arguments, values):
            arg.replace_all_uses_with(value)
        ops = [o.operation for o in block.operations]
        yielded = list(ops[-1].operands)
        for o in ops[:-1]:
            o.move_before(clone)
        for o in ops[:-1]:
            if o.name == "linalg.index":
                o.results[0].replace_all_uses_with(coords[ir.IntegerAttr(o.attributes["dim"]).value])
                o.erase()
                continue
            self._rebind_captures(o)
        clone.erase()
        return [self._kernel_value(v) for v in yielded]

    def _kernel_value(self, value):
        """``value``, or the kernel's copy of it where it is a host constant."""
        owner = operation_of(value.owner)
        return self._constant(owner) if owner in self.host_constants else value

    def _rebind_captures(self, op) -> None:
        for inner in walk_ops(op):
            for k, operand in enumerate(inner.operands):
                owner = operation_of(operand.owner)
                if owner in self.host_constants:
                    inner.operands[k] = self._kernel_value(operand)
                elif operand in self.captured:
                    inner.operands[k] = self.captured_args[self.captured.index(operand)]

    def _uses_block_arg(self, i: int) -> bool:
        return len(list(self.op.regions[0].blocks[0].arguments[i].uses)) > 0

    # ---- elementwise

    def _elementwise(self, args) -> None:
        sizes = self._sizes(args)
        start = arith.addi(arith.muli(_block("x"), gpu.block_dim(gpu.Dimension.x)), _thread("x"))
        step = arith.muli(gpu.grid_dim(gpu.Dimension.x), gpu.block_dim(gpu.Dimension.x))

        def body(flat):
            coords = _delinearize(flat, sizes)
            values = [
                self._load(i, args, coords) if i < self.inputs or self._uses_block_arg(i) else None
                for i in range(len(self.operands))
            ]
            values = [v if v is not None else _undef(self.operands[i]) for i, v in enumerate(values)]
            for k, result in enumerate(self._body(values, coords)):
                self._store(result, self.inputs + k, args, coords)
            return []

        for_loop(start, _product(sizes), step, [], body)

    # ---- reductions

    def _split(self, sizes):
        parallel = [d for d, k in enumerate(self.iterators) if k == "parallel"]
        reduced = [d for d, k in enumerate(self.iterators) if k != "parallel"]
        return parallel, reduced

    def _coords(self, parallel, reduced, row_coords, red_coords) -> list:
        coords = [None] * self.loops
        for d, c in zip(parallel, row_coords):
            coords[d] = c
        for d, c in zip(reduced, red_coords):
            coords[d] = c
        return coords

    def _combiner(self):
        """(op name, out first, attributes) where the body yields C(out, x) or C(x, out)."""
        if len(self.operands) - self.inputs != 1:
            return None
        block = self.op.regions[0].blocks[0]
        out = block.arguments[len(block.arguments) - 1]
        uses = list(out.uses)
        yielded = list(block.operations)[-1].operands[0]
        owner = operation_of(yielded.owner)
        if owner is None or owner.name not in _COMBINERS or len(uses) != 1 or operation_of(uses[0].owner) != owner:
            return None
        if owner.parent != self.op or len(owner.operands) != 2:
            return None
        attrs = {name: owner.attributes[name] for name in owner.attributes}
        return owner.name, owner.operands[0] == out, attrs

    @staticmethod
    def _combine(combiner, acc, other):
        name, out_first, attrs = combiner
        operands = [acc, other] if out_first else [other, acc]
        return ir.Operation.create(name, results=[acc.type], operands=operands, attributes=attrs).results[0]

    def _reduce(self, args, combiner) -> None:
        """Block (row, chunk) reduces its share of output ``row``'s elements."""
        partials, smem = args[-2], args[-1]
        args = args[:-2]
        sizes = self._sizes(args)
        parallel, reduced = self._split(sizes)
        row, chunk, chunks = _block("x"), _block("y"), gpu.grid_dim(gpu.Dimension.y)
        tid, threads = _thread("x"), gpu.block_dim(gpu.Dimension.x)
        row_coords = _delinearize(row, [sizes[d] for d in parallel])
        red_sizes = [sizes[d] for d in reduced]
        out_type = self.operands[-1].type.element_type
        identity = _identity(combiner[0], out_type)

        def accumulate(flat, acc):
            coords = self._coords(parallel, reduced, row_coords, _delinearize(flat, red_sizes))
            values = [self._load(i, args, coords) for i in range(self.inputs)] + [acc]
            return self._body(values, coords)

        start = arith.addi(arith.muli(chunk, threads), tid)
        acc = for_loop(start, _product(red_sizes), arith.muli(chunks, threads), [identity], accumulate)[0]
        total = _block_reduce(acc, smem, tid, threads, lambda a, b: self._combine(combiner, a, b))
        first = arith.cmpi(arith.CmpIPredicate.eq, tid, index_constant(0))
        one_chunk = arith.cmpi(arith.CmpIPredicate.eq, chunks, index_constant(1))
        coords = self._coords(parallel, reduced, row_coords, [index_constant(0)] * len(reduced))

        def write():
            if_then(
                one_chunk,
                lambda: self._fold_into_output(args, coords, combiner, total),
                lambda: memref.store(total, partials, [row, chunk]),
            )

        if_then(first, write)

    def _fold_into_output(self, args, coords, combiner, total) -> None:
        """out[coords] = C(out[coords], total): the block's result joins the output's init."""
        out = len(self.operands) - 1
        self._store(self._combine(combiner, self._load(out, args, coords), total), out, args, coords)

    def _finish(self, args, combiner) -> None:
        """Block ``row`` combines the chunks' partials of output ``row`` into it."""
        partials, smem = args[-2], args[-1]
        args = args[:-2]
        sizes = self._sizes(args)
        parallel, reduced = self._split(sizes)
        row, tid, threads = _block("x"), _thread("x"), gpu.block_dim(gpu.Dimension.x)
        out_type = self.operands[-1].type.element_type
        chunks = memref.dim(partials, index_constant(1))
        acc = for_loop(
            tid,
            chunks,
            threads,
            [_identity(combiner[0], out_type)],
            lambda c, acc: [self._combine(combiner, acc, memref.load(partials, [row, c]))],
        )[0]
        total = _block_reduce(acc, smem, tid, threads, lambda a, b: self._combine(combiner, a, b))
        row_coords = _delinearize(row, [sizes[d] for d in parallel])
        coords = self._coords(parallel, reduced, row_coords, [index_constant(0)] * len(reduced))

        first = arith.cmpi(arith.CmpIPredicate.eq, tid, index_constant(0))
        if_then(first, lambda: self._fold_into_output(args, coords, combiner, total))

    def _matmul(self, args) -> None:
        """C += A @ B in TILE x TILE output tiles, one thread per element: each step
        stages a TILE x TILE tile of A and of B in shared memory (a load per thread,
        coalesced along a row), then multiplies them from there. ``blockIdx.z`` is the
        batch of a ``batch_matmul``."""
        a_tile, b_tile = args[-2], args[-1]
        args = args[:-2]
        sizes = self._sizes(args)
        batch, m, n, k = (0, 1, 2, 3) if self.loops == 4 else (None, 0, 1, 2)
        t = self.operands[-1].type.element_type
        floats = not isinstance(t, ir.IntegerType)
        zero = arith.ConstantOp(t, ir.FloatAttr.get(t, 0.0) if floats else ir.IntegerAttr.get(t, 0)).result
        tx, ty, tile = _thread("x"), _thread("y"), index_constant(TILE)
        row = arith.addi(arith.muli(_block("y"), tile), ty)
        col = arith.addi(arith.muli(_block("x"), tile), tx)
        one = index_constant(1)

        def clamped(i, d):
            return arith.minui(i, arith.subi(sizes[d], one))

        def below(i, d):
            return arith.cmpi(arith.CmpIPredicate.ult, i, sizes[d])

        def coords(mi, ni, ki):
            c = [None] * self.loops
            c[m], c[n], c[k] = mi, ni, ki
            if batch is not None:
                c[batch] = _block("z")
            return c

        def stage(i, coords_, inside, tile_):
            value = arith.select(inside, self._load(i, args, coords_), zero)
            memref.store(value, tile_, [ty, tx])

        def step(k0, acc):
            ka, kb = arith.addi(k0, tx), arith.addi(k0, ty)
            stage(
                0,
                coords(clamped(row, m), index_constant(0), clamped(ka, k)),
                arith.andi(below(row, m), below(ka, k)),
                a_tile,
            )
            stage(
                1,
                coords(index_constant(0), clamped(col, n), clamped(kb, k)),
                arith.andi(below(kb, k), below(col, n)),
                b_tile,
            )
            gpu.barrier()

            def multiply(kk, acc):
                product = (arith.mulf if floats else arith.muli)(
                    memref.load(a_tile, [ty, kk]), memref.load(b_tile, [kk, tx])
                )
                return [(arith.addf if floats else arith.addi)(acc, product)]

            acc = for_loop(index_constant(0), tile, one, [acc], multiply)[0]
            gpu.barrier()
            return [acc]

        acc = for_loop(index_constant(0), sizes[k], tile, [zero], step)[0]
        at = coords(row, col, index_constant(0))

        def write():
            old = self._load(2, args, at)
            self._store((arith.addf if floats else arith.addi)(old, acc), 2, args, at)

        if_then(arith.andi(below(row, m), below(col, n)), write)

    def _serial(self, args) -> None:
        """Thread ``row`` reduces output ``row`` in order (any body, several outputs)."""
        sizes = self._sizes(args)
        parallel, reduced = self._split(sizes)
        start = arith.addi(arith.muli(_block("x"), gpu.block_dim(gpu.Dimension.x)), _thread("x"))
        step = arith.muli(gpu.grid_dim(gpu.Dimension.x), gpu.block_dim(gpu.Dimension.x))
        red_sizes = [sizes[d] for d in reduced]
        outs = range(self.inputs, len(self.operands))

        def per_row(row):
            row_coords = _delinearize(row, [sizes[d] for d in parallel])
            at_zero = self._coords(parallel, reduced, row_coords, [index_constant(0)] * len(reduced))
            initial = [self._load(i, args, at_zero) for i in outs]

            def step_(flat, *accs):
                coords = self._coords(parallel, reduced, row_coords, _delinearize(flat, red_sizes))
                values = [self._load(i, args, coords) for i in range(self.inputs)] + list(accs)
                return self._body(values, coords)

            final = for_loop(index_constant(0), _product(red_sizes), index_constant(1), initial, step_)
            for i, value in zip(outs, final):
                self._store(value, i, args, at_zero)
            return []

        for_loop(start, _product([sizes[d] for d in parallel]), step, [], per_row)


def _shared(shape: list[int], t) -> str:
    return f"memref<{'x'.join(map(str, shape))}x{t}, #gpu.address_space<workgroup>>"


def _default_maps(op) -> list:
    """A named matmul's indexing maps where it carries none (the default ones)."""
    d = [ir.AffineDimExpr.get(i) for i in range(4)]
    if op.name == "linalg.matmul":
        results = [[d[0], d[2]], [d[2], d[1]], [d[0], d[1]]]
        return [ir.AffineMap.get(3, 0, r) for r in results]
    results = [[d[0], d[1], d[3]], [d[0], d[3], d[2]], [d[0], d[1], d[2]]]
    return [ir.AffineMap.get(4, 0, r) for r in results]


def _indexing_maps(op) -> list:
    if "indexing_maps" in op.attributes:
        return indexing_maps(op)
    return _default_maps(op)


def tileable_matmul(op) -> bool:
    """A matmul the tiled kernel computes: one element type throughout (a mixed one
    casts in its body: it stays a generic reduction), projected-permutation maps."""
    if op.name not in _MATMULS or len(op.operands) != 3:
        return False
    types = {str(v.type.element_type) for v in op.operands if isinstance(v.type, ir.MemRefType)}
    if len(op.operands) != 3 or len(types) != 1 or types - {"f16", "f32", "f64", "i32", "i64"}:
        return False
    return all(all(isinstance(e, ir.AffineDimExpr) for e in m.results) for m in _indexing_maps(op))


def _undef(operand):
    """A stand-in for an output's block argument the body never reads."""
    t = ir.MemRefType(operand.type).element_type
    if isinstance(t, ir.IntegerType):
        return arith.ConstantOp(t, ir.IntegerAttr.get(t, 0)).result
    if isinstance(t, ir.ComplexType):
        raise PassFailure("complex outputs are not supported on the GPU")
    return arith.ConstantOp(t, ir.FloatAttr.get(t, 0.0)).result


def _is_32_bit(t: ir.Type) -> bool:
    return str(t) in ("f32", "i32")


def _block_reduce(acc, smem, tid, threads, combine):
    """The block's ``acc`` values combined (valid in thread 0): a shared-memory tree
    down to one warp, then warp shuffles for 32-bit types (the tree to the end for
    others). ``threads`` is a power of two from 32 to ``MAX_BLOCK``."""
    memref.store(acc, smem, [tid])
    gpu.barrier()
    stride = MAX_BLOCK // 2
    last = 32 if _is_32_bit(acc.type) else 1
    while stride >= last:
        s = index_constant(stride)
        other = arith.addi(tid, s)
        active = arith.andi(
            arith.cmpi(arith.CmpIPredicate.ult, tid, s), arith.cmpi(arith.CmpIPredicate.ult, other, threads)
        )

        def fold(other=other):
            memref.store(combine(memref.load(smem, [tid]), memref.load(smem, [other])), smem, [tid])

        if_then(active, fold)
        gpu.barrier()
        stride //= 2
    if last == 1:
        return memref.load(smem, [index_constant(0)])
    # every warp reads the first 32 partials (no thread idles in a shuffle); thread 0's is the total
    value = memref.load(smem, [arith.remui(tid, index_constant(32))])
    i32 = ir.IntegerType.get_signless(32)
    width = arith.ConstantOp(i32, 32).result
    for offset in (16, 8, 4, 2, 1):
        shuffled = gpu.shuffle(value, arith.ConstantOp(i32, offset).result, width, gpu.ShuffleMode.XOR)[0]
        value = combine(value, shuffled)
    return value
