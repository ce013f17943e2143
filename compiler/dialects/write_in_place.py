"""Which results a kernel may compute straight into the input array they replace.

``a += b`` on a caller's array makes the graph return ``a``'s new value, marked
``ember.inout`` (runtime/abi.py): the kernel then writes it into ``a`` itself rather
than into a fresh array the entry copies back. That is only right when no element of
``a`` is read after the kernel may have overwritten it. Bufferization cannot be
trusted to see every such read: a gather (``a[:] = a[::-1]``) reads the input from
inside the very loop that writes it, and one-shot analysis took that loop as
in-place-safe (the reversed copy came out as a palindrome). So the frontend only
marks a result when the graph itself shows the writes are safe, by this rule:

*every value computed from the input's old contents maps index for index onto the
input* — elementwise ops over same-shaped operands, a slice read back into the very
region an ``update_slice`` writes, the update itself, or a reduction of such a value
broadcast back over the axes it reduced (``a -= a.mean(axis=0)``, ``x /= x.sum(1,
keepdims=True)``, ``a -= a.mean()``) — *and is used only on the way to the new value,
which nothing else reads either*, except a product that is a library call
(``library_products.py``). A library product of a region may also be written back
into that very region (``A[r] = A[r] @ C``): the call reads the region whole, into a
buffer of its own, before the update writes it. Then element ``i`` of the new value depends on element
``i`` of the old one, and on reductions over the fibre through ``i`` along reduced
axes. A loop tile either holds such a fibre whole (rows of a row sum: ``ember-tile``
fuses the reduction into the tile, which reads its own rows and then writes them) or
the reduction is computed in full before the loop (``tiling._tiled_loop``: a
reduction a tile would read whole is never fused). Either way each element is read
before it is written. (A reader of the new value is excluded because fusion may
recompute a producer inside the reader's loop, which would then read the input after
it was overwritten; a library call reads its operand's buffer once it is complete and
is never fused into.) ``a[1:] += a[:-1]``, ``a -= a.sum(axis=1)`` (a row's sum
broadcast along another axis), ``c = a * 2; a += 1; return c`` or ``a += 1; return
a.sum()`` fail the rule and keep the copy.

A loop traced as a loop (``scf.for``: time steps) that carries the input from its start
and is its only reader maps its result for that input index for index onto it
(``_carried_whole``): bufferization ran such a loop in place in a copy of the input
already, each step's reads and writes of the grids it carries ordered as in the steps
themselves; with the input's buffer instead of the copy, what changes is only that
nothing else may read the old contents, which the rule's other half checks. The
caller's arrays do not overlap (the frontend guards every written argument).
"""

from __future__ import annotations

from compiler.dialects.library_products import is_library_product, reads_as_library_operand
from compiler.dialects.ops import OPS
from compiler.mlir import ir, operation_of
from runtime.abi import INOUT_ATTR

_ELEMENTWISE_FAMILIES = ("unary", "binary", "compare", "select", "cast")
_IDENTITY = "identity"  # the value's index i is the input's index i
_REDUCED = "reduced"  # (_REDUCED, axes, keepdims): a reduction of an identity value
_RESHAPED = "reshaped"  # (_RESHAPED, region): a region's elements, in order, in another shape
_PRODUCT = "product"  # (_PRODUCT, region): computed from a library product of a region
_SHAPE_OPS = ("squeeze", "expand_dims", "reshape")


def _region(op) -> tuple | None:
    """``(starts, steps, shape)`` of a static slice or update region (None if dynamic)."""
    if len(op.operands) > (2 if op.name == "ember.update_slice" else 1):
        return None  # dynamic sizes: not compared
    starts = tuple(ir.DenseI64ArrayAttr(op.attributes["starts"]))
    steps = tuple(ir.DenseI64ArrayAttr(op.attributes["steps"]))
    shaped = op.operands[1] if op.name == "ember.update_slice" else op.results[0]
    return starts, steps, tuple(ir.RankedTensorType(shaped.type).shape)


def _tagged(mapping, tag: str) -> bool:
    return isinstance(mapping, tuple) and mapping[0] == tag


def _is_reduced(mapping) -> bool:
    return _tagged(mapping, _REDUCED)


def _is_region(mapping) -> bool:
    return isinstance(mapping, tuple) and len(mapping) == 3 and isinstance(mapping[0], tuple)


def _region_read(mapping):
    """The region a value reads in order (a slice, or a slice reshaped), else None."""
    if _tagged(mapping, _RESHAPED):
        return mapping[1]
    return mapping if _is_region(mapping) else None


def _shape_mapping(op, mapping):
    """A squeeze, expand_dims or reshape of a mapped value: a region stays itself where
    the shape comes back, a product stays a product (it is read from its own buffer)."""
    if _tagged(mapping, _PRODUCT):
        return mapping
    region = _region_read(mapping)
    if region is None:
        return None
    shape = tuple(ir.RankedTensorType(op.results[0].type).shape)
    return region if shape == region[2] else (_RESHAPED, region)


def _product_mapping(op, maps: dict):
    """``x[r] @ w`` of a region ``x[r]`` and something not read from the input, where
    the product is a library call: it reads the region whole, into a buffer of its own,
    before anything is written (``A[r] = A[r] @ C``: NumPy's doitgen)."""
    lhs, rhs = op.operands
    region = _region_read(maps.get(lhs))
    if region is None or rhs in maps or not is_library_product(op):
        return None
    return (_PRODUCT, region)


def _aligned(reduced: tuple, value, broadcast, shape_of_input: list) -> bool:
    """Whether broadcasting ``value``, a reduction over ``axes``, to ``broadcast`` puts
    each total back on the fibre it was summed over: the input's shape, and the kept
    axes where they were (``keepdims``, or reduced axes leading, which NumPy's
    broadcasting aligns from the right)."""
    _, axes, keepdims = reduced
    if ir.RankedTensorType(broadcast.type).shape != shape_of_input:
        return False
    if keepdims:
        return ir.RankedTensorType(value.type).rank == len(shape_of_input)
    return axes == tuple(range(len(axes)))


def _mapping(op, maps: dict, shape_of_input: list):
    """How ``op``'s result maps onto the input, given its operands' ``maps`` (an entry
    per operand computed from the input); None when it does not map index for index."""
    name = op.name.removeprefix("ember.")
    spec = OPS.get(name)
    if spec is None:
        return None
    operands = list(op.operands)
    found = [maps[o] for o in operands if o in maps]
    if spec.family in _ELEMENTWISE_FAMILIES:
        shape = ir.RankedTensorType(op.results[0].type).shape
        same = all(ir.RankedTensorType(o.type).shape == shape for o in operands if o in maps)
        return found[0] if same and len(set(found)) == 1 else None
    if spec.family == "reduce" and found == [_IDENTITY]:
        return (
            _REDUCED,
            tuple(ir.DenseI64ArrayAttr(op.attributes["axes"])),
            ir.BoolAttr(op.attributes["keepdims"]).value,
        )
    if name == "broadcast_to" and found and _is_reduced(found[0]):
        return _IDENTITY if _aligned(found[0], operands[0], op.results[0], shape_of_input) else None
    if name in _SHAPE_OPS and len(found) == 1:
        return _shape_mapping(op, found[0])
    if name == "matmul":
        return _product_mapping(op, maps)
    if name == "slice" and maps.get(operands[0]) == _IDENTITY:
        return _region(op)
    if name == "update_slice" and maps.get(operands[0]) == _IDENTITY:
        src = maps.get(operands[1])
        region = _region(op)
        if src is None or (region is not None and src in (region, (_PRODUCT, region))):
            return _IDENTITY
        return None
    return None


def writable_in_place(func_op, result: int, argument: int) -> bool:
    """Whether result ``result`` of ``func_op`` (an Ember function) may be computed in
    the buffer of argument ``argument``, by the rule in this module's docstring."""
    block = func_op.regions[0].blocks[0]
    ret = block.operations[len(block.operations) - 1]
    new_value = ret.operands[result]
    maps = {block.arguments[argument]: _IDENTITY}
    shape_of_input = ir.RankedTensorType(block.arguments[argument].type).shape
    live = _ancestors(list(ret.operands), lambda value: True)  # the tracer leaves dead ops behind
    for op in block.operations:
        op = op.operation
        if op.name == "func.return" or not any(o in maps for o in op.operands) or not _any_live(op, live):
            continue
        if op.name == "ember.dim":
            continue  # reads the size, not the contents
        if op.name == "scf.for":
            carried = _carried_whole(op, block.arguments[argument])
            if carried is None:
                return False
            maps[carried] = _IDENTITY
            continue
        if reads_as_library_operand(op) and all(o == new_value for o in op.operands if o in maps):
            continue  # reads the new value once it is complete (checked in _feeds_only)
        mapping = _mapping(op, maps, shape_of_input)
        if mapping is None:
            return False
        maps[op.results[0]] = mapping
    if new_value in maps and maps[new_value] != _IDENTITY:
        return False  # (a new value computed without the old one overwrites it whole)
    if any(_reads(use, live) for use in new_value.uses):
        return False  # the new value is read besides being returned (even one made without the old)
    return _feeds_only(maps, new_value, result, live)


def _carried_whole(loop, argument):
    """The result of ``loop`` (a loop traced as a loop: ``scf.for``) that carries
    ``argument`` from its start, where the loop is the argument's only reader: the loop
    then runs in the argument's buffer, each step reading and writing the array it
    carries as it did in the copy bufferization made of it. None where the loop reads
    it otherwise (captured by its body, carried twice)."""
    inits = [k for k, operand in enumerate(loop.operands) if k >= 3 and operand == argument]
    if len(inits) != 1 or any(_reads_contents(use, loop) for use in argument.uses):
        return None
    return loop.results[inits[0] - 3]


def _reads_contents(use, loop) -> bool:
    """Whether a use of an argument reads it other than as ``loop``'s init (or its size)."""
    user = operation_of(use.owner)
    return user != loop and user.name != "ember.dim"


def _any_live(op, live: set) -> bool:
    return any(result in live for result in op.results)


def _reads(use, live: set) -> bool:
    """Whether a use is a live read of the value's contents (not the return, not a size,
    not a library product's operand)."""
    user = operation_of(use.owner)
    return (
        user.name not in ("func.return", "ember.dim") and _any_live(user, live) and not reads_as_library_operand(user)
    )


def _ancestors(values: list, follow) -> set:
    """``values`` and every value they are computed from that ``follow`` accepts."""
    found, stack = set(), list(values)
    while stack:
        value = stack.pop()
        if value in found:
            continue
        found.add(value)
        owner = operation_of(value.owner)
        if owner is not None:
            stack += [o for o in owner.operands if follow(o)]
    return found


def _feeds_only(maps: dict, new_value, result: int, live: set) -> bool:
    """Every live value computed from the input is used only on the way to
    ``new_value`` (which the function returns once, as result ``result``, and library
    products may read), or is a reduction's totals (which the function may return)."""
    ancestors = _ancestors([new_value], lambda value: value in maps)
    for value in maps:
        for use in value.uses:
            user = operation_of(use.owner)
            if user.name == "func.return":
                if _is_reduced(maps[value]):
                    continue  # a reduction's totals: read from its own buffer, never recomputed
                if value != new_value or use.operand_number != result:
                    return False
            elif user.name != "ember.dim" and _any_live(user, live) and not _any_live(user, ancestors):
                if value != new_value or not reads_as_library_operand(user):
                    return False
    return True


def mark_written_in_place(func_op, candidates: dict[int, int]) -> dict[int, int]:
    """Mark each result of ``candidates`` (result -> the argument whose new value it is)
    that passes ``writable_in_place`` with ``ember.inout``; returns the marked ones."""
    marked = {k: i for k, i in candidates.items() if writable_in_place(func_op, k, i)}
    if marked:
        count = len(ir.FunctionType(ir.TypeAttr(func_op.attributes["function_type"]).value).results)
        i64 = ir.IntegerType.get_signless(64)
        func_op.attributes["res_attrs"] = ir.ArrayAttr.get(
            [
                ir.DictAttr.get({INOUT_ATTR: ir.IntegerAttr.get(i64, marked[k])} if k in marked else {})
                for k in range(count)
            ]
        )
    return marked


def inout_results(func_op) -> dict[int, int]:
    """result index -> the input it is written into, from ``ember.inout``."""
    if "res_attrs" not in func_op.attributes:
        return {}
    found = {}
    for k, attrs in enumerate(ir.ArrayAttr(func_op.attributes["res_attrs"])):
        attrs = ir.DictAttr(attrs)
        if INOUT_ATTR in attrs:
            found[k] = ir.IntegerAttr(attrs[INOUT_ATTR]).value
    return found
