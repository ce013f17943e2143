"""Views as chains of Ember view ops (``ViewStep``), the model ``mutation.py`` writes through.

Why chains: a view's value is re-derived from its base after every write to the base
(``forward``), a write through a view updates the base by inverting the chain step by
step (``inverse``), and a view the function returns is rebuilt in the entry from the
caller's array by the same steps (``replay_text``), so it shares memory as in NumPy.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass, field

import numpy as np

from compiler.dialects import ops as ember_ops
from compiler.dialects.types import TensorType
from compiler.errors import Unsupported
from compiler.frontend.symbolic_shapes import SymInt

VIEW_OPS = ("slice", "squeeze", "expand_dims", "transpose", "reshape")
# Calls whose result NumPy makes a view of their first (array) operand.
VIEW_FUNCTIONS = (
    "getitem",
    operator.getitem,
    "T",
    "transpose",
    np.transpose,
    "reshape",
    np.reshape,
    "ravel",
    np.ravel,
    np.expand_dims,
    "squeeze",
    np.squeeze,
    # numpy_structure.py: views, and read-only views the tracer marks as not followed
    np.flip,
    np.flipud,
    np.fliplr,
    "swapaxes",
    np.swapaxes,
    np.moveaxis,
    np.atleast_1d,
    np.atleast_2d,
    np.atleast_3d,
    np.broadcast_to,
    np.broadcast_arrays,
    "diagonal",
    np.diagonal,
    np.diag,
    np.split,
    np.array_split,
    # numpy_complex.py: the parts of a complex array, views the tracer does not follow
    "real",
    "imag",
    np.real,
    np.imag,
)


def is_view_function(fn, first=None) -> bool:
    """Whether NumPy's ``fn`` returns a view of its first argument (``first``, a Tensor,
    when known: ``np.diag`` of a vector builds a new matrix, of a matrix it views it)."""
    if fn is np.diag and first is not None and first.ndim == 1:
        return False
    try:
        return any(fn is f or (isinstance(f, str) and fn == f) for f in VIEW_FUNCTIONS)
    except TypeError:
        return False


@dataclass(frozen=True)
class ViewStep:
    """One Ember view op from a parent array to a child array."""

    op: str
    attrs: tuple  # sorted (name, value) pairs, values as tuples/ints
    operand: TensorType
    result: TensorType
    ravel: bool = False  # a reshape made by ravel (a view in fewer cases than reshape(-1))
    sizes: tuple = field(default=((), ()), compare=False)  # symbolic sizes of operand and result
    # a gather: the traced index (x[i] with i a NumPy integer or a loop's index), an offset
    # only the data knows; followed for reads and writes, never replayed by the entry
    indices: object = None

    def attr(self, name):
        return dict(self.attrs)[name]

    def index(self) -> tuple | None:
        """The NumPy index doing this step (slice, squeeze, expand_dims), else None."""
        if self.op == "slice":
            items = []
            operand, result = self.sizes if self.sizes[0] else (self.operand.shape, self.result.shape)
            for size, start, step, length in zip(operand, self.attr("starts"), self.attr("steps"), result):
                items.append(_python_slice(size, start, step, length))
            return tuple(items)
        if self.op == "squeeze":
            axes = self.attr("axes")
            # A trailing ``...`` keeps ``x[0, ...]`` a 0-d view where ``x[0]`` would be a scalar.
            return tuple(0 if i in axes else slice(None) for i in range(self.operand.rank)) + (Ellipsis,)
        if self.op == "expand_dims":
            axes = self.attr("axes")
            return tuple(None if i in axes else slice(None) for i in range(self.result.rank))
        return None


def _python_slice(size, start: int, step: int, length) -> slice:
    if isinstance(length, SymInt):
        return _symbolic_slice(size, start, step, length)
    if length == 0:
        return slice(0, 0, 1)
    if isinstance(size, SymInt):  # a constant length, from the beginning or (negative) from the end
        stop = start + length * step
        if start >= 0:
            return slice(start, stop if stop >= 0 else None, step)
        return slice(start, stop if stop < 0 else None, step)
    first = start + size if start < 0 else start
    stop = first + length * step
    return slice(first, None if stop < 0 else stop, step)


def _symbolic_slice(size, start: int, step: int, length: SymInt) -> slice:
    """A Python slice for ``length`` elements from ``start`` by ``step``: its stop as a
    constant from the beginning or from the end (``x[1:-1]``)."""
    env = length.env
    first = start + size if start < 0 else start
    stop = env.normalize(first + length * step)
    if not isinstance(stop, SymInt):
        return slice(start, None if stop < 0 else stop, step)
    from_end = env.normalize(stop - size) if isinstance(size, SymInt) else None
    if from_end is not None and not isinstance(from_end, SymInt):
        return slice(start, from_end if from_end < 0 else None, step)
    if step > 0:  # ``x[:2*n]``: a stop that is never negative, computed by the entry
        return slice(start, stop, step)
    raise Unsupported(f"a view whose stop is {stop} (neither from the beginning nor from the end)")


def _normalize(value):
    if isinstance(value, (list, tuple)):
        return tuple(int(x) for x in value)
    return value


def steps_from_records(records, parent, result, ravel: bool = False, emitter=None) -> tuple | None:
    """The view steps the recorded ops make from ``parent`` to ``result`` (Tensors),
    or None when they are not a chain of view ops (the result is then not followed)."""
    steps, current = [], parent.value
    gathers = any(r[0] == "gather" for r in records)
    for name, operands, res, sizes, attrs in records:
        if name == "dim" or (gathers and all(o.value != current for o in operands)):
            continue  # sizes; a gather's index arithmetic
        if name == "gather" and operands[0].value == current:
            normalized = tuple(sorted((k, _normalize(a)) for k, a in attrs.items()))
            em_sizes = ((), ())
            if emitter is not None and not (operands[0].type.is_static and res.type.is_static):
                em_sizes = (emitter.shape(operands[0]), emitter.shape(res))
            steps.append(ViewStep(name, normalized, operands[0].type, res.type, sizes=em_sizes, indices=operands[1]))
            current = res.value
            continue
        if name not in VIEW_OPS or len(operands) != 1 or operands[0].value != current:
            return None
        if name == "reshape" and (sizes or not res.type.is_static) and not _replayable_reshape(emitter, res):
            return None
        normalized = tuple(sorted((k, _normalize(a)) for k, a in attrs.items()))
        em_sizes = ((), ())
        if emitter is not None and not (operands[0].type.is_static and res.type.is_static):
            em_sizes = (emitter.shape(operands[0]), emitter.shape(res))
        steps.append(ViewStep(name, normalized, operands[0].type, res.type, ravel and name == "reshape", em_sizes))
        current = res.value
    if current != result.value:
        return None
    return tuple(steps)


def merged_reshapes(steps: tuple) -> tuple:
    """``steps`` with each run of reshapes one reshape (from the first's operand to the
    last's result), and a reshape to its own operand's shape dropped. Why: a loop that
    reshapes its array every iteration (an FFT's ``X = X.reshape(-1, 2 * half)`` ...
    ``X = X.reshape(n)``) grew its view chain by two steps per iteration, and every
    write replays the chain there and back: 1568 reshapes in a 16-stage FFT's graph,
    past the graph budget. A reshape made by ravel stays as it is."""
    out: list[ViewStep] = []
    for step in steps:
        if not (step.op == "reshape" and not step.ravel):
            out.append(step)
            continue
        if out and out[-1].op == "reshape" and not out[-1].ravel:
            first = out.pop()
            step = ViewStep("reshape", step.attrs, first.operand, step.result, sizes=(first.sizes[0], step.sizes[1]))
        if not (step.operand == step.result and step.sizes[0] == step.sizes[1]):
            out.append(step)
    return tuple(out)


def _replayable_reshape(emitter, res) -> bool:
    """A reshape to symbolic sizes the entry can redo in Python: one symbolic size (it
    becomes ``-1``) and no static 0 (which would make ``-1`` ambiguous)."""
    if emitter is None:
        return False
    shape = emitter.shape(res)
    return sum(isinstance(d, SymInt) for d in shape) == 1 and 0 not in [d for d in shape if isinstance(d, int)]


def is_symbolic(step: ViewStep) -> bool:
    return bool(step.sizes[1]) and not step.result.is_static


def forward(em, t, step: ViewStep):
    """``step`` applied to the Tensor ``t`` (a new value of the step's parent)."""
    if step.op == "slice":
        shape = step.sizes[1] if step.sizes[1] else step.result.shape
        return em.emit_shaped(
            "slice", t, shape=shape, dtype=step.result.dtype, starts=step.attr("starts"), steps=step.attr("steps")
        )
    if step.op == "reshape":
        if is_symbolic(step):
            return em.emit_shaped("reshape", t, shape=step.sizes[1], dtype=step.result.dtype)
        return em.emit("reshape", t, result=step.result)
    if step.op == "gather":
        return em.emit("gather", t, step.indices, **dict(step.attrs))
    return em.emit(step.op, t, **dict(step.attrs))


def inverse(em, step: ViewStep, parent, child):
    """The new value of the parent when the child of ``step`` becomes ``child``."""
    if step.op == "slice":
        if "update_slice" not in ember_ops.OPS:
            raise Unsupported("a write into a slice of an array (needs the ember.update_slice op)")
        return em.emit("update_slice", parent, child, starts=step.attr("starts"), steps=step.attr("steps"))
    if step.op == "gather":
        return em.emit("scatter", parent, step.indices, child, **dict(step.attrs))
    if step.op == "squeeze":
        return em.emit("expand_dims", child, axes=step.attr("axes"))
    if step.op == "expand_dims":
        return em.emit("squeeze", child, axes=step.attr("axes"))
    if step.op == "transpose":
        perm = step.attr("perm")
        return em.emit("transpose", child, perm=tuple(int(i) for i in np.argsort(perm)))
    if not step.operand.is_static:
        return em.emit_shaped("reshape", child, shape=step.sizes[0], dtype=step.operand.dtype)
    return em.emit("reshape", child, result=step.operand)


def _hinted(index):
    """An index with each symbolic bound at its value in the traced call."""
    if isinstance(index, SymInt):
        return index.hint
    if isinstance(index, slice):
        return slice(_hinted(index.start), _hinted(index.stop), index.step)
    if isinstance(index, tuple):
        return tuple(_hinted(i) for i in index)
    return index


def _index_text(index, ref, size_text) -> str:
    """Python text for an index: constants bound by ``ref``, symbolic bounds as
    ``size_text`` renders them (computed from the arguments in each call)."""
    items = index if isinstance(index, tuple) else (index,)
    if not any(isinstance(i, slice) and isinstance(i.stop, SymInt) for i in items):
        return ref(index)
    parts = []
    for i in items:
        if isinstance(i, slice) and isinstance(i.stop, SymInt):
            bounds = ["" if i.start is None else str(i.start), size_text(i.stop), "" if i.step is None else str(i.step)]
            parts.append(":".join(bounds))
        else:
            parts.append(ref(i))
    return ", ".join(parts) + ("," if len(parts) == 1 else "")


def replayable(steps) -> bool:
    """Whether Python can redo ``steps`` (not a gather: its offset is a value of the graph)."""
    return all(step.op != "gather" for step in steps)


def replay_numpy(array: np.ndarray, steps) -> np.ndarray:
    for step in steps:
        index = _hinted(step.index())
        if index is not None:
            array = array[index]
        elif step.op == "transpose":
            array = array.transpose(step.attr("perm"))
        elif step.ravel:
            array = array.ravel()
        else:
            array = array.reshape(step.result.shape)
    return array


def replay_text(expr: str, steps, ref, size_text=None) -> str:
    """Python text making the view ``steps`` of the array ``expr`` (``ref`` binds objects,
    ``size_text`` renders a symbolic size as Python over the arguments)."""
    if not steps:
        return f"{expr}[...]"
    if not replayable(steps):
        raise Unsupported("a view at an offset only the data knows (x[i] with a traced i) reaching Python")
    for step in steps:
        index = step.index()
        if index is not None:
            expr = f"{expr}[{_index_text(index, ref, size_text)}]"
        elif step.op == "transpose":
            expr = f"{expr}.transpose({tuple(step.attr('perm'))!r})"
        elif step.ravel:
            expr = f"{expr}.ravel()"
        elif is_symbolic(step):  # its one symbolic size is what the others leave
            expr = f"{expr}.reshape({tuple(-1 if isinstance(d, SymInt) else d for d in step.sizes[1])!r})"
        else:
            expr = f"{expr}.reshape({tuple(step.result.shape)!r})"
    return expr
