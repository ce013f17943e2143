"""Destination-passing bufferization (``ember-bufferize``).

Measured on these machines: a fused kernel that mallocs its result on every call
runs ~5x slower than NumPy (allocation and first-touch page faults dominate). So an
Ember kernel never allocates its outputs; it writes into buffers the caller hands
in. This pass fixes that calling convention, then lets upstream one-shot
bufferization do the rest:

* every tensor argument becomes a memref argument — identity layout when the
  argument carries ``ember.layout = "contiguous"`` (the frontend guards that, and
  contiguous loads vectorize), otherwise a fully strided layout, so any NumPy view
  (non-contiguous, negative or zero strides) is passed without a copy;
* every result becomes a trailing identity-layout memref argument, and the function
  returns nothing: ``f(in_0, ..., in_n, out_0, ..., out_m)``; every buffer argument
  is ``llvm.noalias`` (see ``_mark_noalias``);
* except a result marked ``ember.inout = i`` (the new value of an input the
  function writes, ``a += b``): it is written into input ``i``'s buffer, made
  writable, with no output argument. One-shot analysis computes it there in place
  when nothing later reads the input's old contents, otherwise in a temporary that
  is then copied in (``a[1:] += a[:-1]``);
* copies that remain are ``linalg.copy`` (see ``copies_to_linalg``);
* ``eliminate-empty-tensors`` makes the final op of each result write straight into
  its output buffer; temporaries remain only where a fused kernel needs them, and
  they are allocated once per call at the largest tile's size, before the tile loop
  (``tile_buffers.py``), and the deallocation pipeline frees them.

Functions get ``llvm.emit_c_interface``: the runtime calls ``_mlir_ciface_<name>``
with one memref descriptor pointer per argument.
"""

from __future__ import annotations

from dataclasses import dataclass

from compiler.dialects.write_in_place import inout_results
from compiler.mlir import bufferization, collect, func, functions, ir, linalg, operation_of, tensor
from compiler.passes.base import EmberPass, PassFailure, run_upstream
from compiler.passes.linalg_utils import copy_of
from compiler.passes.scf_loops import loop_bodies
from compiler.passes.signature import add_arguments, sync_signature
from compiler.passes.tile_buffers import hoist_loop_buffers, hoist_tile_buffers
from runtime.abi import LAYOUT_ATTR, NUM_OUTPUTS_ATTR


def strided_memref(t: ir.RankedTensorType) -> ir.MemRefType:
    dyn = ir.ShapedType.get_dynamic_stride_or_offset()
    layout = ir.StridedLayoutAttr.get(dyn, [dyn] * t.rank)
    return ir.MemRefType.get(t.shape, t.element_type, layout=layout)


def contiguous_memref(t: ir.RankedTensorType) -> ir.MemRefType:
    return ir.MemRefType.get(t.shape, t.element_type)


def _arg_layouts(fn) -> list[str]:
    return [ir.StringAttr(d[LAYOUT_ATTR]).value if LAYOUT_ATTR in d else "strided" for d in _arg_attr_dicts(fn)]


def _inputs_to_memrefs(fn, block, written: set[int]) -> None:
    """Inputs in ``written`` (in-out: the function writes its new value into them) are
    writable tensors; the others are read-only."""
    layouts = _arg_layouts(fn)
    for i, arg in enumerate(block.arguments):
        t = arg.type
        if not isinstance(t, ir.RankedTensorType):
            continue
        contiguous = i < len(layouts) and layouts[i] == "contiguous"
        memref_t = contiguous_memref(t) if contiguous else strided_memref(t)
        arg.set_type(memref_t)
        with ir.InsertionPoint.at_block_begin(block), arg.location:
            as_tensor = bufferization.to_tensor(t, arg, restrict=True, writable=i in written or None)
        arg.replace_all_uses_except(as_tensor, as_tensor.owner.operation)


def _results_to_outputs(fn, ret, inout: dict[int, int]) -> int:
    """Each result into its destination: a new trailing output buffer, or for an
    in-out result its input's buffer. Returns the number of output buffers added."""
    results = list(ret.operands)
    for value in results:
        if not isinstance(value.type, ir.RankedTensorType):
            raise PassFailure(f"result of type {value.type} is not a tensor", ret)
    fresh = [k for k in range(len(results)) if k not in inout]
    outputs = dict(zip(fresh, add_arguments(fn, [contiguous_memref(results[k].type) for k in fresh])))
    arguments = fn.regions[0].blocks[0].arguments
    for k, value in enumerate(results):
        out = outputs[k] if k in outputs else arguments[inout[k]]
        with ir.InsertionPoint(ret), ret.location:
            bufferization.materialize_in_destination(None, value, out, restrict=True, writable=True)
    return len(fresh)


def has_tensors(fn) -> bool:
    """Whether ``fn``'s signature has a tensor. A function of scalars and memrefs
    (plain upstream input, say) has nothing to turn into caller buffers: it is left
    as it is, not rejected."""
    signature = ir.FunctionType(ir.TypeAttr(fn.attributes["function_type"]).value)
    return any(
        isinstance(t, (ir.RankedTensorType, ir.UnrankedTensorType)) for t in [*signature.inputs, *signature.results]
    )


def to_destination_passing(fn) -> None:
    block = fn.regions[0].blocks[0]
    ret = block.operations[len(block.operations) - 1]
    if ret.operation.name != "func.return":
        raise PassFailure("function does not end in func.return", fn)
    inout = inout_results(fn)
    _inputs_to_memrefs(fn, block, set(inout.values()))
    outputs = _results_to_outputs(fn, ret, inout)
    with ir.InsertionPoint(ret), ret.location:
        func.ReturnOp([])
    ret.operation.erase()
    if "res_attrs" in fn.attributes:
        del fn.attributes["res_attrs"]
    sync_signature(fn, results=[])
    _mark_noalias(fn)
    fn.attributes[NUM_OUTPUTS_ATTR] = ir.IntegerAttr.get(ir.IntegerType.get_signless(64), outputs)
    fn.attributes["llvm.emit_c_interface"] = ir.UnitAttr.get()


_INIT_OPS = ("tensor.empty", "linalg.fill")


def unshare_inits(fn) -> None:
    """One ``tensor.empty`` (and ``linalg.fill`` of it) per user.

    CSE merges identical inits, so two reductions can share one zero-filled tensor.
    ``eliminate-empty-tensors`` then turns that one init into the first output's
    buffer for both — and the second reduction overwrites the first's result (seen:
    ``x.sum(0), y.sum(0)`` returned the first sum twice). Giving each user its own
    init keeps the elimination one-to-one.
    """
    inits = collect(fn, lambda op: op.name in _INIT_OPS and len(op.results) == 1)
    for op in reversed(inits):  # fills before the empties they read: each clone is unshared in turn
        for use in list(op.results[0].uses)[1:]:
            owner = operation_of(use.owner)
            clone = op.clone(ir.InsertionPoint(owner))
            owner.operands[use.operand_number] = clone.results[0]


def _region(op) -> tuple:
    """What fixes the region a ``tensor.insert_slice`` writes or a
    ``tensor.extract_slice`` reads: its static offsets, sizes and strides and its
    dynamic ones (the operands after source and dest, or after source)."""
    static = tuple(str(op.attributes[a]) for a in ("static_offsets", "static_sizes", "static_strides"))
    first = 2 if op.name == "tensor.insert_slice" else 1
    return static, tuple(op.operands[i] for i in range(first, len(op.operands)))


def chain_updates(fn) -> int:
    """Re-chain successive ``tensor.insert_slice``s of one region into one tensor.

    ``b[1:-1, 1:-1] = f(a)`` twice (a multi-step stencil swapping two grids) is
    ``insert(s1, b)`` then ``insert(s3, insert(s1, b))``; canonicalization folds
    the second to ``insert(s3, b)`` (the same region is overwritten). Both updates
    then start from ``b``'s original value, which the first one has already
    overwritten in place, so one-shot bufferization gave every update its own full
    copy of ``b`` (an allocation, a copy and first-touch page faults per step).
    Inserting the later update into the earlier one's result instead (the same
    value: it overwrites all the earlier one wrote) makes one chain that updates
    one buffer in place. Returns the number of updates re-chained.
    """
    block = fn.regions[0].blocks[0]
    last = []  # [dest, region, the latest insert_slice of that region into dest]
    chained = 0
    for op in [o.operation for o in block.operations]:
        if op.name != "tensor.insert_slice":
            continue
        dest, region = op.operands[1], _region(op)
        entry = next((e for e in last if e[0] == dest and e[1] == region), None)
        if entry is None:
            last.append([dest, region, op])
            continue
        op.operands[1] = entry[2].results[0]
        entry[2] = op
        chained += 1
    return chained


def read_updates_from_grid(fn) -> int:
    """Later readers of an update's source read it back from the updated tensor.

    Canonicalization folds ``extract_slice(insert_slice(s, g))`` of the same region to
    ``s``: the next stencil step then reads the previous step's result ``s`` itself
    (its centre) besides slices of the grid ``g`` it went into. Bufferized in place,
    ``s`` *is* that region of ``g``'s buffer, but one-shot analysis does not see that
    through a read inside a tile loop, reports a conflict with the insertion and
    computes ``s`` in a temporary copied into the grid afterwards (one more pass per
    step). An ``extract_slice`` of the updated tensor, the same value, unfolds it.
    Returns the number of operands rewritten."""
    block = fn.regions[0].blocks[0]
    rewritten = 0
    for op in [o.operation for o in block.operations]:
        if op.name != "tensor.insert_slice":
            continue
        later = []
        for use in op.operands[0].uses:
            owner = operation_of(use.owner)
            top = owner
            while top.parent != fn and top.parent.name != "func.func":
                top = top.parent
            if top.parent == fn and op.is_before_in_block(top):
                later.append((owner, use.operand_number))
        if not later:
            continue
        insert = op.opview
        with _after(op, block), op.location:
            again = tensor.ExtractSliceOp(
                op.operands[0].type,
                op.results[0],
                list(insert.offsets),
                list(insert.sizes),
                list(insert.strides),
                insert.static_offsets,
                insert.static_sizes,
                insert.static_strides,
            ).result
        for owner, number in later:
            owner.operands[number] = again
            rewritten += 1
    return rewritten


def copy_read_only_update_targets(fn) -> int:
    """An explicit copy of each input that a ``tensor.insert_slice`` updates.

    ``ember.update_slice`` of an input (``A[1:-1, 1:-1] = ...`` on an argument) is an
    insert_slice into a read-only buffer, so one-shot bufferization copies the input
    into a temporary, inserts there and copies the temporary to the output buffer.
    A ``linalg.copy`` of the input into a ``tensor.empty`` instead lets
    ``eliminate-empty-tensors`` put that copy in the output buffer: the update (and
    the op computing its source) then writes into the output in place. Returns the
    number of copies made.
    """
    made = 0
    for op in collect(fn, lambda op: op.name == "tensor.insert_slice"):
        dest = op.operands[1]
        owner = operation_of(dest.owner)
        if owner is not None and owner.name != "bufferization.to_tensor":
            continue  # a computed tensor: bufferization already updates it in place
        if owner is not None and "writable" in owner.attributes:
            continue  # an in-out input: the update goes into the caller's array
        block = dest.owner if owner is None else owner.parent.regions[0].blocks[0]
        if owner is None and block != fn.regions[0].blocks[0]:
            continue
        with _after(owner, block), op.location:
            copy = copy_of(dest)
        op.operands[1] = copy
        made += 1
    return made


def copy_read_only_loop_inits(fn) -> int:
    """An explicit copy of each read-only input an ``scf.for`` carries and changes.

    A loop traced as a loop starting from an input (``a, b`` of a time-stepped stencil)
    updates the tensor it carries, so one-shot bufferization copies the input into a
    temporary, runs the loop there and copies the temporary into the output buffer
    afterwards: two passes over the grid more than the same steps unrolled. A
    ``linalg.copy`` into a ``tensor.empty`` instead, as for a top-level update
    (``copy_read_only_update_targets``), lets ``eliminate-empty-tensors`` put the copy in
    the output buffer, through the loop (a loop result is its init's buffer): the loop
    then updates the output in place. Returns the number of copies made."""
    made = 0
    for loop in loop_bodies(fn)[1:]:
        body = loop.regions[0].blocks[0]
        yielded = body.operations[len(body.operations) - 1].operands
        for k in range(3, len(loop.operands)):  # lower, upper, step, then the inits
            init = loop.operands[k]
            owner = operation_of(init.owner)
            if owner is None or owner.name != "bufferization.to_tensor" or "writable" in owner.attributes:
                continue
            if yielded[k - 3] == body.arguments[k - 2]:
                continue  # carried unchanged: nothing writes it
            with ir.InsertionPoint(loop), loop.location:
                loop.operands[k] = copy_of(init)
            made += 1
    return made


def unshare_update_targets(fn) -> int:
    """A copy of a tensor for each extra ``tensor.insert_slice`` that updates it.

    Canonicalization folds ``insert(y, insert(x, t, R), R)`` into ``insert(y, t, R)``, so
    ``b[...] = a; a[...] = t; t[1:] = ...`` can leave two updates of one tensor ``t``,
    each returned. ``eliminate-empty-tensors`` then computes ``t`` in the first result's
    output buffer and both updates land there: the second overwrote the first result
    before its copy-out read it (a wrong answer, the corpus's wave_2d). With its own
    copy each update has a tensor of its own. Only where an earlier update is returned:
    a multi-step stencil's updates are read before the next one and stay one chain
    (``chain_updates``). Returns the number of copies made."""
    made = 0
    earlier: dict = {}  # dest -> the results of the updates of it so far
    for op in collect(fn, lambda op: op.name == "tensor.insert_slice" and op.parent == fn):
        dest = op.operands[1]
        before = earlier.setdefault(dest, [])
        before.append(op.results[0])
        if not any(_returned(r) for r in before[:-1]):
            continue  # an earlier update read only before this one: chain_updates chains them in place
        with ir.InsertionPoint(op), op.location:
            op.operands[1] = copy_of(dest)
        made += 1
    return made


def _returned(value) -> bool:
    """Whether ``value`` is a result (copied into an output, or still returned)."""
    readers = ("func.return", "bufferization.materialize_in_destination")
    return any(operation_of(use.owner).name in readers for use in value.uses)


def _init_operand(op) -> int | None:
    """The operand number of the single destination (``outs``/``shared_outs``) of a
    ``linalg`` op or ``scf.forall`` with one result, else None."""
    if len(op.results) != 1:
        return None
    if op.name == "scf.forall" or op.name.startswith("linalg."):
        return len(op.operands) - 1
    return None


def update_regions_in_place(fn) -> int:
    """Compute an update of a region of an in-out input in that region itself.

    ``a[1:-1] += 1`` is ``insert_slice(f(extract_slice(a, R)), a, R)``, ``f`` starting
    from a ``tensor.empty``. ``eliminate-empty-tensors`` turns that empty into a new
    ``extract_slice(a, R)``, but one-shot analysis does not see that it is the very
    slice ``f`` reads and copies the region into a temporary first. Starting ``f``
    from the slice it reads (the empty's contents are never read, so any tensor will
    do) makes the read and the write one value, updated in place. Only for in-out
    inputs: the frontend marks one only where every element of the new value depends
    on the same element of the old (``dialects/write_in_place.py``), so writing in
    place is right whatever order the loops run in. Returns the number rewritten."""
    block = fn.regions[0].blocks[0]
    ops = [o.operation for o in block.operations]
    rewritten = 0
    for op in ops:
        if op.name != "tensor.insert_slice":
            continue
        dest = operation_of(op.operands[1].owner)
        producer = operation_of(op.operands[0].owner)
        if dest is None or dest.name != "bufferization.to_tensor" or "writable" not in dest.attributes:
            continue
        number = None if producer is None or producer.parent != fn else _init_operand(producer)
        init = None if number is None else operation_of(producer.operands[number].owner)
        if init is None or init.name != "tensor.empty":
            continue
        region = _region(op)
        read = next(
            (
                o
                for o in ops[: ops.index(producer)]
                if o.name == "tensor.extract_slice" and o.operands[0] == op.operands[1] and _region(o) == region
            ),
            None,
        )
        if read is not None:
            producer.operands[number] = read.results[0]
            if producer.name == "scf.forall":
                _read_tiles_from_shared_output(producer, read.results[0])
            rewritten += 1
    return rewritten


def _read_tiles_from_shared_output(loop, init) -> None:
    """Inside ``loop`` (an ``scf.forall`` whose shared output starts as ``init``), each
    tile of ``init`` the body reads is read from the shared output's block argument
    instead, where the body takes the same tile of that: the same values (an
    iteration sees the shared output as it started, but for what it writes itself),
    and one-shot analysis then sees the tile read and written as one slice, not a
    captured value the loop overwrites."""
    body = loop.regions[0].blocks[0]
    shared = body.arguments[len(body.arguments) - 1]
    ops = [o.operation for o in body.operations]
    for captured in [o for o in ops if o.name == "tensor.extract_slice" and o.operands[0] == init]:
        own = next(
            (
                o
                for o in ops
                if o.name == "tensor.extract_slice" and o.operands[0] == shared and _region(o) == _region(captured)
            ),
            None,
        )
        if own is not None:
            own.move_after(captured)
            captured.results[0].replace_all_uses_with(own.results[0])


def _after(op, block) -> ir.InsertionPoint:
    """Just after ``op`` in ``block`` (at its beginning when ``op`` is None)."""
    ops = [o.operation for o in block.operations]
    return ir.InsertionPoint.at_block_begin(block) if op is None else ir.InsertionPoint(ops[ops.index(op) + 1])


def _arg_attr_dicts(fn) -> list[dict]:
    attrs = list(ir.ArrayAttr(fn.attributes["arg_attrs"])) if "arg_attrs" in fn.attributes else []
    count = len(fn.regions[0].blocks[0].arguments)
    attrs += [ir.DictAttr.get({})] * (count - len(attrs))
    return [{n.name: n.attr for n in ir.DictAttr(d)} for d in attrs]


def set_contiguous(fn, contiguous) -> None:
    """Mark the arguments flagged in ``contiguous`` with ``ember.layout = "contiguous"``."""
    dicts = _arg_attr_dicts(fn)
    for entries, flag in zip(dicts, contiguous):
        if flag:
            entries[LAYOUT_ATTR] = ir.StringAttr.get("contiguous")
    fn.attributes["arg_attrs"] = ir.ArrayAttr.get([ir.DictAttr.get(d) for d in dicts])


def _mark_noalias(fn) -> None:
    """``llvm.noalias`` on every buffer argument; Ember's own argument attributes,
    consumed by now, are dropped (LLVM's translation would warn about them).

    Outputs are fresh buffers the runtime allocates, and a written (in-out) input
    shares no memory with any other input (the frontend guards it), so no buffer that
    is written aliases another argument. Without the promise LLVM must
    assume an output store may change an input, keeps a reduction's accumulator in
    memory, and vectorizes nothing.
    """
    marked = []
    for arg, entries in zip(fn.regions[0].blocks[0].arguments, _arg_attr_dicts(fn)):
        entries = {k: v for k, v in entries.items() if not k.startswith("ember.")}
        if isinstance(arg.type, ir.MemRefType):
            entries["llvm.noalias"] = ir.UnitAttr.get()
        marked.append(ir.DictAttr.get(entries))
    fn.attributes["arg_attrs"] = ir.ArrayAttr.get(marked)


@dataclass
class EmberBufferize(EmberPass):
    """Outputs become caller-provided buffers; one-shot bufferization does the rest."""

    name = "ember-bufferize"
    summary = "destination-passing one-shot bufferization: results written into caller buffers"

    def run(self, module):
        for fn in functions(module):
            if NUM_OUTPUTS_ATTR not in fn.attributes and has_tensors(fn):
                to_destination_passing(fn)
            unshare_inits(fn)
            unshare_update_targets(fn)
            update_regions_in_place(fn)
            for body in loop_bodies(fn):  # a time step traced as a loop: its own block
                chain_updates(body)
                read_updates_from_grid(body)
            copy_read_only_update_targets(fn)
            copy_read_only_loop_inits(fn)
        run_upstream(module, "eliminate-empty-tensors")
        empties_to_alloc_tensors(module)
        run_upstream(
            module, "one-shot-bufferize{bufferize-function-boundaries allow-return-allocs-from-loops},canonicalize"
        )
        hoist_tile_buffers(module)
        for fn in functions(module):
            hoist_loop_buffers(fn)
        run_upstream(module, "buffer-deallocation-pipeline,canonicalize")
        copies_to_linalg(module)
        erase_linalg_without_outputs(module)


def erase_linalg_without_outputs(module) -> int:
    """Erase the ``linalg.generic`` ops left writing nothing: a producer fused into its
    consumer whose output buffer bufferization dropped. Canonicalization keeps it when its
    body calls a function (``cexp``: MLIR cannot know the call is pure), and
    ``convert-linalg-to-loops`` has no loop to give an op with no operands. A linalg op's
    only effect is writing its outputs (Ember's body calls are libm's pure functions)."""
    dead = collect(module, lambda op: op.name == "linalg.generic" and not op.operands and not op.results)
    for op in dead:
        op.erase()
    return len(dead)


def empties_to_alloc_tensors(module) -> int:
    """``tensor.empty`` -> ``bufferization.alloc_tensor`` (upstream's
    ``empty-tensor-to-alloc-tensor`` without its greedy driver).

    The greedy driver also folds every op it visits, among them ``insert_slice``
    into an ``insert_slice`` of the same region, which undoes ``chain_updates`` just
    before one-shot bufferization sees the chain. Returns the number rewritten."""
    empties = collect(module, lambda op: op.name == "tensor.empty")
    for op in empties:
        with ir.InsertionPoint(op), op.location:
            alloc = bufferization.alloc_tensor(op.results[0].type, list(op.operands))
        op.results[0].replace_all_uses_with(alloc)
        op.erase()
    return len(empties)


def copies_to_linalg(module) -> None:
    """``memref.copy`` -> ``linalg.copy``.

    The LLVM lowering of a ``memref.copy`` between non-identity layouts calls
    ``memrefCopy`` from MLIR's C runner library, which a kernel loaded on its own
    does not have; ``linalg.copy`` lowers to plain loops.
    """
    for op in collect(module, lambda op: op.name == "memref.copy"):
        with ir.InsertionPoint(op), op.location:
            linalg.copy(op.operands[0], outs=[op.operands[1]])
        op.erase()
