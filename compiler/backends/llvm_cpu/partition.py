"""Arrays first, then the reductions of them: a graph returning both as two kernels.

``y = f(x); return y, y.sum() > 0`` (the graph before ``if y.sum() > 0:``, or a
function returning an array and its loss) is one Ember function with two results of
different kinds. As one kernel it is two loop nests — the elementwise chain writing
``y``, then the sum reading it — and a kernel of two loop nests runs on one thread
(``ember-parallel-parts`` splits only a single parallel loop): 3.6 ms for 4M
float32, where the chain alone runs in parallel. Split in two, each kernel is what
the passes parallelize well: the arrays (one tiled loop, every thread), then the
0-d results computed from the arrays the first kernel wrote (a reduction to one
value, split across threads by ``ember-parallel-reduction``). The second kernel
takes the first one's results as inputs, so nothing is computed twice.

Only for graphs whose results are arrays and 0-d values, none written into an input
(``ember.inout``), where the 0-d results read at least one array result, with no loop
(``scf.for``, frontend/loops.py): otherwise the graph stays one kernel.
"""

from __future__ import annotations

from compiler.dialects.write_in_place import inout_results
from compiler.mlir import clone_ops, func, function_named, ir, operation_of


def _rank(value) -> int:
    return ir.RankedTensorType(value.type).rank


def split(module: ir.Module, entry: str | None = None):
    """``(arrays module, scalars module, scalar_takes)`` when the function splits (see
    the module docstring), else None. The arrays module computes the array results
    (in order) from the inputs; the scalars module takes the inputs, then the array
    results, and computes the 0-d results. ``scalar_takes[j]`` is where 0-d result
    ``j`` goes among all results."""
    fn = function_named(module, entry)
    block = fn.regions[0].blocks[0]
    ret = block.operations[len(block.operations) - 1]
    results = list(ret.operands)
    arrays = [k for k, r in enumerate(results) if _rank(r) > 0]
    scalars = [k for k, r in enumerate(results) if _rank(r) == 0]
    if not arrays or not scalars or inout_results(fn):
        return None
    if any(len(op.operation.regions) for op in block.operations):
        return None  # a loop's body reads values from outside it: the clones below would not
    array_values = {results[k]: i for i, k in enumerate(arrays)}
    reads_an_array = any(
        o in array_values for op in _cone_stopping([results[k] for k in scalars], set()) for o in op.operands
    )
    if not reads_an_array:
        return None
    inputs = list(block.arguments)
    first = _function(fn, inputs, [], [results[k] for k in arrays])
    second = _function(fn, inputs, [results[k] for k in arrays], [results[k] for k in scalars])
    return first, second, scalars


def _function(fn, inputs, taken, outputs):
    """A module with one function: arguments ``inputs`` then ``taken`` (values of
    ``fn`` given ready-made), results ``outputs``, the ops between cloned."""
    context = fn.context
    name = ir.StringAttr(fn.attributes["sym_name"]).value
    with context, fn.location:
        module = ir.Module.create()
        arg_types = [v.type for v in inputs + taken]
        with ir.InsertionPoint(module.body):
            new = func.FuncOp(name, ir.FunctionType.get(arg_types, [v.type for v in outputs]))
        body = new.add_entry_block()
        mapping = dict(zip(inputs + taken, body.arguments))
        with ir.InsertionPoint(body):
            clone_ops(_cone_stopping(outputs, set(taken)), mapping)
            func.ReturnOp([mapping[v] for v in outputs])
        for attr in ("ember.guards", "ember.symbols"):
            if attr in fn.attributes:
                new.attributes[attr] = fn.attributes[attr]
    module.operation.verify()
    return module


def _cone_stopping(values, stop: set) -> list:
    """The ops computing ``values`` from the block arguments and ``stop``, in block order."""
    seen, stack, ops = set(), [v for v in values if v not in stop], []
    while stack:
        value = stack.pop()
        owner = operation_of(value.owner)
        if owner is None or owner in seen:
            continue
        seen.add(owner)
        ops.append(owner)
        stack.extend(o for o in owner.operands if o not in stop)
    if not ops:
        return []
    order = {op: i for i, op in enumerate(o.operation for o in ops[0].parent.regions[0].blocks[0].operations)}
    return sorted(ops, key=order.__getitem__)
