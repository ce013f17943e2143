"""In-place NumPy: the alias model, functional updates and the write-back plan.

The graph is functional (SSA values never change), NumPy is not: ``a += b``,
``a[1:] = v``, ``np.add(x, y, out=a)``, ``np.copyto``, ``a.fill`` write memory that
other arrays may view. As TorchDynamo + AOTAutograd do, the tracer *functionalizes*:

* **Bases and views.** Every array tracker that memory can be shared with has a
  *base* (``ArrayBase``): a graph input (the caller's array) or an array the graph
  made. A view (basic indexing, ``.T``/``transpose``, ``reshape``/``ravel`` where
  NumPy returns a view, ``expand_dims``/``squeeze``, ``np.asarray``) keeps the chain
  of view ops (``view_steps.ViewStep``: the Ember ``slice``/``squeeze``/``expand_dims``/
  ``transpose``/``reshape`` ops that computed it) from its base.
* **Writes** compute the new value of the written region, then update the base
  functionally by inverting the chain step by step (``slice`` -> ``update_slice``,
  ``transpose`` -> the inverse transpose, ``reshape``/``squeeze``/``expand_dims`` ->
  reshape back), and bump the base's *version*. A view read afterwards re-derives
  its value from the base's current value (``TensorVariable.tensor``). Overlapping
  updates (``a[1:] += a[:-1]``) are right by construction: the right-hand side is
  an SSA value of the old contents.
* **Write-back.** A mutated graph input's final value is an extra graph output; the
  entry writes it into the caller's array (``x[...] = OUT[k]``) after the result is
  read, with the other side effects (``entry_codegen.effect_lines``).
* **Returned views** are built in the entry from the caller's array (or from the graph
  output of a fresh base) by the same view steps, so they share memory as in NumPy.
* **Guards.** A written input is guarded writeable and not sharing memory with any
  other input (``np.may_share_memory``); where it is read-only or shares memory, the
  call runs in CPython. Whether ``reshape`` of an input is a view depends on its
  strides: the layout is guarded (C-contiguous, or the exact strides) wherever that
  answer matters (a write, a returned array).

Anything outside the model raises ``Unsupported`` (the call runs in CPython).
"""

from __future__ import annotations

import dataclasses
import operator

import numpy as np

from compiler.errors import Unsupported
from compiler.frontend import numpy_indexing
from compiler.frontend import variables as v
from compiler.frontend.numpy_core import same_shape
from compiler.frontend.view_steps import (
    forward,
    inverse,
    is_symbolic,
    merged_reshapes,
    replay_numpy,
    replay_text,
    replayable,
    steps_from_records,
)

# ----------------------------------------------------------------------------- bases


class ArrayBase:
    """Memory the trace knows: a graph input or an array the graph made."""

    def __init__(self, output, value, owner, graph_input=None):
        self.output = output
        self.value = _array_value(value)
        self.original = self.value
        self.owner = owner  # the tracker that is the base array itself
        self.version = 0
        self.graph_input = graph_input  # output_graph.GraphInput for a caller's array
        self.mutated = False
        self.opaque = False  # an alias the tracer cannot follow exists
        self.layout_used = False  # (inputs) a reshape's view-or-copy answer read the layout
        self.layout_guarded = False
        self.deps = ()  # input bases whose layout made this array a copy

    def derive(self, tracker):
        if tracker.steps is None:
            raise Unsupported("reading an array view the tracer cannot follow after its base was written")
        em = self.output.emitter
        t = self.value
        for step in tracker.steps:
            t = forward(em, t, step)
        return _array_value(t)


def _array_value(t):
    return dataclasses.replace(t, scalar=False) if getattr(t, "scalar", False) else t


def ensure_base(tx, tracker) -> ArrayBase:
    if tracker.base is None:
        base = ArrayBase(tx.output, tracker._tensor, tracker)
        base.deps = tracker.deps
        tracker.base, tracker.steps, tracker.version = base, (), 0
    return tracker.base


def require_layout(output, deps) -> None:
    """Install the layout guards the view-or-copy answers of ``deps``' reshapes read."""
    for base in deps:
        if not base.layout_guarded:
            base.layout_guarded = True
            output.guards.layout_match(base.graph_input.source, base.graph_input.example)


def all_deps(tracker) -> tuple:
    deps = tuple(tracker.deps)
    if tracker.base is not None:
        deps += tuple(tracker.base.deps)
    return deps


def track_view(tx, parent, result, records, parent_tensor, fn=None) -> v.VariableTracker:
    """Record ``result`` (the value of a view function of ``parent``) as a view of
    ``parent``'s base, where NumPy makes it one. A list of views (``np.split``): each
    item by the chain of recorded ops that made it."""
    if isinstance(result, v.MaskedVariable):
        return result  # x[mask]: a new array (numpy_indexing), never a view
    if records and any(r[0] == "gather" for r in records):
        if result._tensor.value not in tx.output.emitter.opaque_views:
            return result  # advanced indexing (numpy_indexing): a new array, never a view
    if isinstance(result, (v.ListVariable, v.TupleVariable)):
        items = []
        for item in result.items:
            chain = _records_to(records, item, parent_tensor)
            items.append(item if chain is None else track_view(tx, parent, item, chain, parent_tensor, fn))
        return type(result)(items)
    if not isinstance(result, v.TensorVariable):
        return result
    if getattr(parent_tensor, "scalar", False) or getattr(result._tensor, "scalar", False):
        return result  # a NumPy scalar is immutable: its "views" are new values
    ravel = isinstance(fn, str) and fn == "ravel" or fn is np.ravel
    steps = steps_from_records(records, parent_tensor, result._tensor, ravel, tx.output.emitter)
    base = ensure_base(tx, parent)
    deps = all_deps(parent)
    if steps is None or parent.steps is None:
        base.opaque = True
        result.base, result.steps, result.version = base, None, base.version
        return result
    full = parent.steps + steps
    if any(s.op == "reshape" for s in steps):
        is_view = _contiguous_view(base, full) if any(is_symbolic(s) for s in full) else _probe_view(base, full)
        if is_view is None:
            base.opaque = True
            result.base, result.steps, result.version = base, None, base.version
            return result
        if base.graph_input is not None:
            base.layout_used = True
            deps = deps + (base,)
        if not is_view:  # NumPy copies: a new array, whose answer depends on the layout
            result.deps = deps
            return result
        merged = merged_reshapes(full)
        if merged != full and (any(is_symbolic(s) for s in merged) or _probe_view(base, merged)):
            full = merged  # the entry replays it as a view too
    result._tensor = _array_value(result._tensor)
    result.base, result.steps, result.version, result.deps = base, full, base.version, deps
    return result


def c_contiguous(output, tracker) -> bool | None:
    """Whether NumPy's memory under ``tracker`` is C-contiguous (``np.ascontiguousarray``
    then returns the array itself, else a copy), for every call the guards admit; the
    layout guard of an argument the answer reads is installed. None where the tracer
    cannot tell: a view it does not follow, or one of symbolic sizes (a size-1 dim
    decides NumPy's answer there)."""
    base = tracker.base
    if base is None:
        return True  # a fresh array of the graph that nothing views
    if base.opaque or tracker.steps is None or not replayable(tracker.steps):
        return None
    static = base.value.type.is_static and tracker.tensor.type.is_static
    if base.graph_input is None:
        if not tracker.steps:
            return True  # the fresh array itself
        if not static:
            return None
        array = np.empty(base.value.shape, np.uint8)  # a fresh graph array is C-contiguous
    else:
        array = base.graph_input.example
        if not static and (tracker.steps or not (array.flags.c_contiguous and array.size)):
            return None  # exact strides guarded, sizes free: contiguity could change
        require_layout(output, (base,))
    return bool(replay_numpy(array, tracker.steps).flags.c_contiguous)


def _records_to(records, item, parent_tensor) -> list | None:
    """The recorded ops that made ``item`` from ``parent_tensor``, in order (None: not
    made from it by recorded ops). An op of several operands ends the chain there: the
    item is then a value the view steps cannot follow (an opaque view of the parent)."""
    if not isinstance(item, v.TensorVariable):
        return None
    by_result = {r[2].value: r for r in records}
    chain, current = [], item._tensor.value
    while current != parent_tensor.value:
        record = by_result.get(current)
        if record is None or not record[1]:
            return None
        chain.append(record)
        if len(record[1]) != 1:
            return chain[::-1]
        current = record[1][0].value
    return chain[::-1]


def _contiguous_view(base: ArrayBase, steps) -> bool | None:
    """Whether a chain with a reshape to symbolic sizes is a view, for every size the
    guards admit: only when it starts at a C-contiguous input (its layout guarded) and
    keeps it contiguous (reshapes, expand_dims, squeeze): NumPy then never copies. None
    (not followed) otherwise: whether NumPy copies could change with the sizes."""
    example = base.graph_input.example if base.graph_input is not None else None
    if example is None or not (example.flags.c_contiguous and example.size):
        return None
    if any(s.op not in ("reshape", "expand_dims", "squeeze") for s in steps):
        return None
    return True


def _probe_view(base: ArrayBase, steps) -> bool | None:
    """Whether NumPy's view chain ``steps`` of the base is a view (not a copy)."""
    if not replayable(steps):
        return None
    if base.graph_input is not None:
        array = base.graph_input.example
    else:
        if not base.value.type.is_static:
            return None
        array = np.empty(base.value.shape, np.uint8)  # a fresh graph array is C-contiguous
    try:
        out = replay_numpy(array, steps)
    except Exception:
        return None
    return bool(out.size) and bool(np.may_share_memory(out, array))


# ----------------------------------------------------------------------------- writes


def write(tx, target, new) -> None:
    """``target`` (an array tracker) now holds the Tensor ``new`` (of its type)."""
    if not isinstance(target, v.TensorVariable):
        raise Unsupported(f"writing into {target}")
    if getattr(target._tensor, "scalar", False) and target.base is None:
        raise Unsupported("writing into a NumPy scalar (NumPy raises: it is immutable)")
    base = ensure_base(tx, target)
    tx.output.before_side_effect(base)  # not after a np.linalg call that may raise
    if target.steps is None or base.opaque:
        raise Unsupported("writing into an array with a view the tracer cannot follow")
    require_layout(tx.output, all_deps(target))
    if base.graph_input is not None:
        if base.layout_used:
            require_layout(tx.output, (base,))
        if not base.mutated:
            tx.output.note_written(base)
    em = tx.output.emitter
    new = _array_value(new)
    chain = [base.value]
    for step in target.steps[:-1]:
        chain.append(forward(em, chain[-1], step))
    value = new
    for step, parent in zip(reversed(target.steps), reversed(chain)):
        value = inverse(em, step, parent, value)
    base.value = _array_value(value)
    base.version += 1
    base.mutated = True
    target._tensor, target.version = new, base.version


def _same_region(value, target) -> bool:
    """``value`` is the up-to-date contents of exactly ``target``'s memory."""
    return (
        isinstance(value, v.TensorVariable)
        and value.base is not None
        and value.base is target.base
        and value.steps is not None
        and value.steps == target.steps
        and value.version == value.base.version
    )


def _dummy(tracker):
    """A tiny NumPy stand-in of an operand, for asking NumPy about dtypes and errors."""
    if isinstance(tracker, v.TensorVariable):
        t = tracker.tensor
        if t.scalar:
            return t.dtype.type(1)
        return np.ones((1,) * t.ndim, t.dtype)
    if tracker.is_constant():
        return tracker.as_constant()
    raise Unsupported(f"an operand {tracker} of an in-place operation")


def _ask_numpy(fn):
    """Run ``fn`` on dummies: NumPy's own error (casting, overflow) is the user's."""
    with np.errstate(all="ignore"):
        try:
            fn()
        except Unsupported:
            raise
        except Exception as e:
            raise v.UserError(e) from None


_IOPS = {
    "+": operator.iadd,
    "-": operator.isub,
    "*": operator.imul,
    "/": operator.itruediv,
    "//": operator.ifloordiv,
    "%": operator.imod,
    "**": operator.ipow,
    "@": operator.imatmul,
    "&": operator.iand,
    "|": operator.ior,
    "^": operator.ixor,
    "<<": operator.ilshift,
    ">>": operator.irshift,
}


def augmented(tx, op: str, lhs, rhs):
    """``lhs op= rhs`` on an array: ``np.<ufunc>(lhs, rhs, out=lhs)``; returns ``lhs``."""
    from compiler.frontend.operators import binary

    iop = _IOPS.get(op)
    if iop is None:
        raise Unsupported(f"the in-place operator {op}= on an array")
    dummy_rhs = _dummy(rhs)
    _ask_numpy(lambda: iop(_dummy(lhs), dummy_rhs))  # same_kind casting, NEP 50 overflow
    result = binary(tx, op, lhs, rhs)
    _store_result(tx, lhs, result, f"{op}=")
    return lhs


def _store_result(tx, out, result, what: str) -> None:
    """A ufunc's result written to ``out`` (its dtype cast already allowed by NumPy)."""
    if not isinstance(result, v.TensorVariable):
        raise Unsupported(f"{what} with a result that is not an array")
    em = tx.output.emitter
    target, res = out.tensor, result.tensor
    shape, target_shape = em.broadcast_shape([res, target], what), em.shape(target)
    if not same_shape(shape, target_shape):
        raise Unsupported(f"{what}: the result's shape does not fit the output (NumPy raises)")
    new = em.broadcast_to(em.cast(res, target.dtype), target_shape)
    write(tx, out, new)


def ufunc_out(tx, ufunc, args, kwargs):
    """``np.<ufunc>(*inputs, out=target)`` (``out`` positional or keyword)."""
    kwargs = dict(kwargs)
    args = list(args)
    out = kwargs.pop("out") if "out" in kwargs else args.pop()
    if isinstance(out, v.TupleVariable) and len(out.items) == 1:
        out = out.items[0]
    where = kwargs.pop("where", None)
    if where is not None and not (where.is_constant() and where.as_constant() is True):
        raise Unsupported(f"np.{ufunc.__name__} with out= and where=")
    if kwargs:
        raise Unsupported(f"np.{ufunc.__name__} with out= and {', '.join(kwargs)}=")
    return _computed_into(tx, ufunc, args, {}, out, f"np.{ufunc.__name__}")


def clip_out(tx, args, kwargs):
    """``np.clip(a, lo, hi, out=target)`` (``out`` the fourth positional or a keyword):
    the in-place clamp of ``np.clip(x, -1, 1, out=x)``, which had run in CPython."""
    kwargs = dict(kwargs)
    args = list(args)
    out = kwargs.pop("out") if "out" in kwargs else args.pop(3)
    return _computed_into(tx, np.clip, args, kwargs, out, "np.clip")


def _computed_into(tx, fn, args: list, kwargs: dict, out, what: str):
    """``fn(*args, **kwargs)`` written into the traced array ``out``, which is returned:
    NumPy asked first, on stand-ins, whether it takes that call into that ``out`` (its
    casting rule, its errors); keyword arguments must be constants."""
    if not isinstance(out, v.TensorVariable):
        raise Unsupported(f"{what} with out={out}")
    constants = {k: a.as_constant() for k, a in kwargs.items() if a.is_constant()}
    if len(constants) != len(kwargs):
        raise Unsupported(f"{what} with out= and a traced keyword argument")
    dummies = [_dummy(a) for a in args]
    out_dummy = _dummy(out)
    _ask_numpy(lambda: fn(*dummies, out=out_dummy, **constants))
    _store_result(tx, out, tx.emit(fn, *args, **kwargs), f"{what}(out=)")
    return out


def _fit(tx, t, region, what: str, strip_leading: bool):
    """The Tensor ``t`` broadcast to ``region``'s shape (NumPy's assignment rules)."""
    em = tx.output.emitter
    if strip_leading and t.ndim > region.ndim:
        extra = t.shape[: t.ndim - region.ndim]
        if any(d != 1 for d in extra):
            raise Unsupported(f"{what}: a value of shape {t.shape} into {region.shape} (NumPy raises)")
        t = em.emit("squeeze", t, axes=tuple(range(len(extra))))
    shape, region_shape = em.broadcast_shape([t, region], what), em.shape(region)
    if not same_shape(shape, region_shape):
        raise Unsupported(f"{what}: a value of shape {t.shape} into {region.shape} (NumPy raises)")
    return em.broadcast_to(t, region_shape)


def _value_tensor(tx, value, region, convert, what: str):
    """``value`` converted to ``region``'s dtype: constants by NumPy itself (``convert``
    fills a scratch array exactly as the user's call would), arrays by a same-kind cast."""
    em = tx.output.emitter
    if isinstance(value, v.TensorVariable):
        t = value.tensor
        if t.dtype != region.dtype:
            _ask_numpy(lambda: convert(np.empty((), region.dtype), np.ones((), t.dtype)))
            if not np.can_cast(t.dtype, region.dtype, "same_kind"):
                raise Unsupported(f"{what}: an unsafe cast from {t.dtype} to {region.dtype} (data-dependent)")
            t = em.cast(t, region.dtype)
        return t
    if not value.is_constant():
        raise Unsupported(f"{what} of {value}")
    constant = value.as_constant()
    try:
        scratch = np.empty(np.shape(constant), region.dtype)
    except Exception:
        raise Unsupported(f"{what} of {constant!r}") from None
    with np.errstate(all="raise"):
        try:
            convert(scratch, constant)
        except FloatingPointError:
            raise Unsupported(f"{what}: converting {constant!r} to {region.dtype} warns in NumPy") from None
        except Exception as e:
            raise v.UserError(e) from None
    return em.constant(scratch)


def _setitem_convert(dst, src):
    dst[...] = src


def setitem(tx, obj, index, value) -> None:
    """``obj[index] = value`` with a basic index."""
    if not isinstance(obj, v.TensorVariable):
        raise Unsupported(f"item assignment on {obj}")
    if getattr(obj.tensor, "scalar", False):
        raise Unsupported("item assignment on a NumPy scalar (NumPy raises)")
    key = tx._operand(index)
    if numpy_indexing.is_advanced(key):
        return _advanced_setitem(tx, obj, key, value)
    items = key if isinstance(key, tuple) else (key,)
    if not any(i is Ellipsis for i in items):
        items = items + (Ellipsis,)  # a view even where every axis is indexed by an int
    region = tx.emit("getitem", obj, v.ConstantVariable(items))
    if _same_region(value, region):
        return  # ``a[i] += b`` stores the view it just wrote
    if not isinstance(region, v.TensorVariable) or region.base is None:
        raise Unsupported("item assignment through an index the tracer cannot follow")
    t = _value_tensor(tx, value, region.tensor, _setitem_convert, "item assignment")
    write(tx, region, _fit(tx, t, region.tensor, "item assignment", strip_leading=True))


def _advanced_setitem(tx, obj, key, value) -> None:
    """``obj[key] = value`` with an advanced index (numpy_indexing): a boolean mask as a
    ``select``, integer arrays as an ``ember.scatter`` into the basic part's view."""
    em = tx.output.emitter
    try:
        mask = numpy_indexing.mask_of(em, obj.tensor, key)
        if mask is not None:
            return _masked_setitem(tx, obj, mask, value)
        adv = numpy_indexing.split_advanced(em, obj.tensor, key)
    except NotImplementedError as e:
        raise Unsupported(f"item assignment: {e}") from None
    except (IndexError, ValueError) as e:
        raise v.UserError(e) from None
    _scatter_into(tx, obj, adv, value, _setitem_convert, "item assignment")


def _scatter_into(tx, obj, adv, value, convert, what: str, add: bool = False) -> None:
    """``obj[adv] = value`` (``add``: ``np.add.at``): an ``ember.scatter`` (``scatter_add``)
    into the view of ``obj`` that the index's basic part is, written through."""
    region = tx.emit("getitem", obj, v.ConstantVariable(adv.basic + (Ellipsis,)))
    if not isinstance(region, v.TensorVariable) or region.base is None:
        raise Unsupported(f"{what} through an index the tracer cannot follow")
    t = _value_tensor(tx, value, region.tensor, convert, what)
    try:
        new = numpy_indexing.scatter(tx.output.emitter, region.tensor, adv, t, add=add)
    except NotImplementedError as e:
        raise Unsupported(f"{what}: {e}") from None
    except (IndexError, ValueError) as e:
        raise v.UserError(e) from None
    write(tx, region, new)


def _masked_setitem(tx, obj, mask, value) -> None:
    """``obj[mask] = value``: ``select(mask, value, obj)`` where ``value`` does not depend
    on how many elements the mask selects (a scalar, a value broadcast to each selected
    element, or ``y[mask]`` of an array ``y`` of ``obj``'s shape under the same mask)."""
    em = tx.output.emitter
    target = obj.tensor
    if isinstance(value, v.MaskedVariable):
        masked = value.masked
        if not numpy_indexing.same_mask(masked, mask):
            em_shape = em.shape
            if not same_shape(em_shape(masked.mask), em_shape(mask)):
                raise Unsupported("item assignment x[mask] = y[other_mask] (the sizes depend on the data)")
            # ``x[x > 0] = -x[x > 0]``: two masks the trace cannot tell equal; a run-time
            # check that they are (else the call runs in CPython, which assigns or raises)
            em.add_check(em.emit("xor", masked.mask, mask))
        source = v.TensorVariable(masked.full)
        t = _value_tensor(tx, source, target, _setitem_convert, "item assignment")
        full = numpy_indexing.mask_fill(em, target, mask, t, spread=True)
    else:
        t = _value_tensor(tx, value, target, _setitem_convert, "item assignment")
        try:
            full = numpy_indexing.mask_fill(em, target, mask, t, spread=False)
        except NotImplementedError as e:
            raise Unsupported(f"item assignment: {e}") from None
        except ValueError as e:
            raise v.UserError(e) from None
    write(tx, obj, full)


def copyto(tx, dst, src, casting=None, where=None):
    if casting is None:
        casting = v.ConstantVariable("same_kind")
    if where is not None and not (where.is_constant() and where.as_constant() is True):
        raise Unsupported("np.copyto with where=")
    if not isinstance(dst, v.TensorVariable) or not casting.is_constant():
        raise Unsupported("np.copyto into a value that is not an array")
    rule = casting.as_constant()
    if rule not in ("no", "equiv", "safe", "same_kind", "unsafe"):
        raise Unsupported(f"np.copyto casting={rule!r}")
    if _same_region(src, dst):
        return v.ConstantVariable(None)

    def convert(scratch, value):
        np.copyto(scratch, value, casting=rule)

    t = _value_tensor(tx, src, dst.tensor, convert, "np.copyto")
    write(tx, dst, _fit(tx, t, dst.tensor, "np.copyto", strip_leading=True))
    return v.ConstantVariable(None)


def fill(tx, target, value):
    if getattr(target.tensor, "scalar", False):
        raise Unsupported("fill on a NumPy scalar")
    if isinstance(value, v.TensorVariable) and value.tensor.ndim != 0:
        raise Unsupported("fill with an array value")
    if not isinstance(value, v.TensorVariable) and not (value.is_constant() and np.ndim(value.as_constant()) == 0):
        raise Unsupported(f"fill with {value}")

    def convert(scratch, x):
        scratch.fill(x)

    t = _value_tensor(tx, value, target.tensor, convert, "fill")
    write(tx, target, _fit(tx, t, target.tensor, "fill", strip_leading=False))
    return v.ConstantVariable(None)


def _out_argument(args, kwargs, position: int):
    """The ``out`` a call passes, as a keyword or as its positional argument number
    ``position``; None where it passes none, or ``None``."""
    out = kwargs.get("out", args[position] if len(args) == position + 1 else None)
    return None if out is None or (isinstance(out, v.ConstantVariable) and out.value is None) else out


def dispatch(tx, fn, args, kwargs):
    """The in-place NumPy calls; ``NotImplemented`` for every other call."""
    if isinstance(fn, np.ufunc) and ("out" in kwargs or len(args) == fn.nin + 1):
        if _out_argument(args, kwargs, fn.nin) is not None:
            return ufunc_out(tx, fn, args, kwargs)
        kwargs = {k: a for k, a in kwargs.items() if k != "out"}
        return tx.emit(fn, *args[: fn.nin], **kwargs)
    if (fn is np.clip or (isinstance(fn, str) and fn == "clip")) and _out_argument(args, kwargs, 3) is not None:
        return clip_out(tx, args, kwargs)
    if fn is np.copyto:
        names = ("dst", "src", "casting", "where")
        bound = dict(zip(names, args))
        for k, a in kwargs.items():
            if k not in names or k in bound:
                raise Unsupported(f"np.copyto argument {k}=")
            bound[k] = a
        if "dst" not in bound or "src" not in bound:
            raise Unsupported("np.copyto without dst and src")
        return copyto(tx, bound["dst"], bound["src"], bound.get("casting"), bound.get("where"))
    if isinstance(fn, str) and fn == "fill":
        if len(args) != 2 or kwargs:
            raise Unsupported("fill with other than one value")
        return fill(tx, args[0], args[1])
    if isinstance(fn, str) and fn == "sort":  # a.sort(...): in place (numpy_sorting, issue 12)
        return sort_in_place(tx, args, kwargs)
    if _is_index_write(fn):  # np.put_along_axis, np.put / a.put, np.fill_diagonal (numpy_indexing)
        return _index_write(tx, fn, args, kwargs)
    if callable(fn) and fn == np.add.at:  # a new bound method each access: equal, not identical
        return add_at(tx, args, kwargs)
    return NotImplemented


def add_at(tx, args, kwargs):
    """``np.add.at(a, indices, b)``: ``a[indices] += b`` unbuffered, each index's value
    added in turn, so repeated indices accumulate (an ``ember.scatter_add`` into the basic
    part's view). NumPy runs the add in the dtype ``a`` and ``b`` promote to (a Python
    float as float64) and casts back: compiled where that dtype is ``a``'s (float64
    arrays, or ``b`` of ``a``'s dtype) or both are integers (wrapping sums agree at any
    width), else CPython adds."""
    names = ("a", "indices", "b")
    bound = dict(zip(names, args))
    for k, a in kwargs.items():
        if k not in names or k in bound:
            raise Unsupported(f"np.add.at argument {k}=")
        bound[k] = a
    if len(bound) != 3:
        raise Unsupported("np.add.at without its three operands")
    obj, index, value = bound["a"], bound["indices"], bound["b"]
    if not isinstance(obj, v.TensorVariable) or getattr(obj.tensor, "scalar", False) or obj.tensor.ndim == 0:
        raise Unsupported(f"np.add.at into {obj}")
    key = tx._operand(index)
    if not numpy_indexing.is_advanced(key):
        raise Unsupported("np.add.at with a basic index (a[i] += b)")
    value_dtype = value.tensor.dtype if isinstance(value, v.TensorVariable) else np.asarray(value.as_constant()).dtype
    wrapping = obj.tensor.dtype.kind in "iu" and value_dtype.kind in "iu"  # any width: the same bits
    if not wrapping and np.result_type(obj.tensor.dtype, value_dtype) != obj.tensor.dtype:
        raise Unsupported(f"np.add.at of {value_dtype} into {obj.tensor.dtype}: NumPy adds in the wider type")
    em = tx.output.emitter
    try:
        if numpy_indexing.mask_of(em, obj.tensor, key) is not None:
            raise Unsupported("np.add.at with a boolean mask")
        adv = numpy_indexing.split_advanced(em, obj.tensor, key)
    except NotImplementedError as e:
        raise Unsupported(f"np.add.at: {e}") from None
    except (IndexError, ValueError) as e:
        raise v.UserError(e) from None
    _scatter_into(tx, obj, adv, value, _unsafe_convert, "np.add.at", add=True)
    return v.ConstantVariable(None)


def _unsafe_convert(dst, src):
    np.copyto(dst, src, casting="unsafe")


# In-place index writes (numpy_indexing): the parameter names, the one holding the
# values written, and the rule computing the array's new value.
_INDEX_WRITES = {
    np.put_along_axis: (("arr", "indices", "values", "axis"), "values", numpy_indexing.put_along_axis),
    np.put: (("a", "ind", "v", "mode"), "v", numpy_indexing.put),
    np.fill_diagonal: (("a", "val", "wrap"), "val", numpy_indexing.fill_diagonal),
}


def _is_index_write(fn) -> bool:
    if isinstance(fn, str):
        return fn == "put"
    try:
        return fn in _INDEX_WRITES
    except TypeError:
        return False


def _index_write(tx, fn, args, kwargs):
    """``np.put_along_axis``, ``np.put`` / ``a.put``, ``np.fill_diagonal``: the new value
    of the array (an ``ember.scatter``), written through the mutation machinery."""
    names, value_name, rule = _INDEX_WRITES[np.put if isinstance(fn, str) else fn]
    bound = dict(zip(names, args))
    for k, a in kwargs.items():
        if k not in names or k in bound:
            raise Unsupported(f"np.{rule.__name__} argument {k}=")
        bound[k] = a
    required = names[:2] if rule is numpy_indexing.fill_diagonal else names[:3]
    if rule is numpy_indexing.put_along_axis:
        required = names
    missing = [n for n in required if n not in bound]
    if missing:
        raise Unsupported(f"np.{rule.__name__} without {missing[0]}")
    target = bound.pop(names[0])
    if not isinstance(target, v.TensorVariable) or getattr(target.tensor, "scalar", False):
        raise Unsupported(f"np.{rule.__name__} into {target}")
    value = bound.pop(value_name)
    convert = _setitem_convert if rule is numpy_indexing.put_along_axis else _unsafe_convert
    t = _value_tensor(tx, value, target.tensor, convert, f"np.{rule.__name__}")
    options = {k: tx._operand(a) for k, a in bound.items()}
    em = tx.output.emitter
    try:
        new = rule(em, target.tensor, **{value_name: t}, **options)
    except NotImplementedError as e:
        raise Unsupported(f"np.{rule.__name__}: {e}") from None
    except (IndexError, ValueError, TypeError) as e:
        raise v.UserError(e) from None
    write(tx, target, new)
    return v.ConstantVariable(None)


def sort_in_place(tx, args, kwargs):
    """``a.sort(...)``: ``numpy_sorting.sorted_in_place``'s new value written into ``a``."""
    from compiler.frontend.numpy_sorting import sorted_in_place

    target = args[0]
    if not isinstance(target, v.TensorVariable):
        raise Unsupported(f"sort of {target}")
    operands = [tx._operand(a) for a in args]
    keywords = {k: tx._operand(a) for k, a in kwargs.items()}
    try:
        new = sorted_in_place(tx.output.emitter, *operands, **keywords)
    except NotImplementedError as e:
        raise Unsupported(f"NumPy operation: {e}") from None
    except (ValueError, TypeError, IndexError) as e:
        raise v.UserError(e) from None
    write(tx, target, new)
    return v.ConstantVariable(None)


# ----------------------------------------------------------------------------- entry code


def array_expr(plan, tracker) -> str | None:
    """The entry's expression for a view tracker (None: not a view, the plain rules apply)."""
    require_layout_from(tracker)
    base = tracker.base
    if base is None or base.owner is tracker:
        return None
    if tracker.steps is None:
        raise Unsupported("returning an array view the tracer cannot follow")
    source = plan.expr(base.owner)
    return replay_text(source, tracker.steps, plan.ref, plan.size_text)


def require_layout_from(tracker) -> None:
    deps = all_deps(tracker)
    if deps:
        require_layout(deps[0].output, deps)


def writebacks(output) -> list:
    """(source, final value tracker) for each caller's array the graph writes."""
    out = []
    for base in output.input_bases:
        if base.mutated and base.value.value != base.original.value:
            out.append((base.graph_input.source, v.TensorVariable(base.value)))
    return out
