"""``np.einsum`` as transposes, diagonals, broadcasts, products, sums and matmuls.

The subscripts are parsed at trace time; no Ember op of its own:

* **Checks and dtype.** NumPy's own ``np.einsum`` is first run on small stand-ins of the
  operands (each distinct size mapped to a distinct small size, 0 and 1 kept, so every
  shape error is NumPy's): it raises NumPy's exception for bad subscripts or shapes,
  and its result gives the dtype (``dtype=``/``casting=`` included). Every operand is
  then cast to that dtype (bool is computed in int64 and compared ``!= 0``: an or of
  ands, as NumPy's bool sum of products).
* **Labels.** ``...`` becomes one label per broadcast dim (right-aligned, as NumPy);
  the implicit output is the ellipsis dims, then the letters seen once, in ASCII order.
  A size-1 dim is broadcast to its label's size.
* **Per operand**, a repeated label is a diagonal (``numpy_structure._diagonal``), and a
  label found nowhere else (no other operand, not in the output) is summed at once.
* **Pairwise, left to right**, two operands are contracted over the labels they share
  that nothing later needs: one ``matmul`` (batched over the shared labels that stay)
  when each side has at most one label of its own and one label is contracted,
  else a broadcast product and a ``sum`` (which fusion makes one loop nest).
* The last operand is summed over what the output lacks and transposed to its order.

Values: sums are taken in another order than NumPy's loops (floats within rounding).
``optimize=`` is accepted and ignored, except that with it NumPy returns a 0-d array
rather than a scalar: that case runs in CPython. Not supported (CPython): the
interleaved ``einsum(op, sublist, ...)`` form, ``out=``, ``order=`` other than 'K'.
"""

from __future__ import annotations

import numpy as np

from compiler.frontend import promotion
from compiler.frontend.numpy_core import EmitterCore, Tensor, reject
from compiler.frontend.numpy_structure import _diagonal
from compiler.frontend.symbolic_shapes import SymInt


def _letters(part: str) -> list[str]:
    return [c for c in part if c.isalpha()]


def _parse(subscripts: str, ndims: list[int]) -> tuple[list[list[str]], list[str]]:
    """Each operand's labels (ellipsis dims as ``'.0'``, ``'.1'``, ...) and the output's.
    Only called once NumPy has accepted the subscripts."""
    text = subscripts.replace(" ", "")
    lhs, arrow, rhs = text.partition("->")
    parts = lhs.split(",")
    ell = 0
    for part, nd in zip(parts, ndims):
        if "..." in part:
            ell = max(ell, nd - len(_letters(part.replace("...", ""))))
    labels = []
    for part, nd in zip(parts, ndims):
        if "..." in part:
            before, _, after = part.partition("...")
            k = nd - len(_letters(before)) - len(_letters(after))
            labels.append(_letters(before) + [f".{i}" for i in range(ell - k, ell)] + _letters(after))
        else:
            labels.append(_letters(part))
    dots = [f".{i}" for i in range(ell)]
    if arrow:
        before, found, after = rhs.partition("...")
        output = _letters(before) + (dots if found else []) + _letters(after)
    else:
        counts: dict = {}
        for ls in labels:
            for label in ls:
                counts[label] = counts.get(label, 0) + 1
        output = dots + sorted(c for c, k in counts.items() if k == 1 and not c.startswith("."))
    return labels, output


def _stand_in_sizes(shapes: list[tuple]) -> dict:
    """Each distinct size (an int, or a SymInt by its hint) -> a small stand-in."""
    sizes, small = {}, 2
    for shape in shapes:
        for d in shape:
            key = d.hint if isinstance(d, SymInt) else d
            if key in (0, 1) or key in sizes:
                continue
            sizes[key] = small
            small += 1
    return sizes


def _check_with_numpy(em: EmitterCore, subscripts, operands, dtype, casting, optimize) -> np.ndarray:
    """NumPy's ``einsum`` on stand-ins of the operands: NumPy's errors, NumPy's result."""
    shapes = [em.shape(t) for t in operands]
    small = _stand_in_sizes(shapes)
    stand_ins = []
    for t, shape in zip(operands, shapes):
        dims = [d.hint if isinstance(d, SymInt) else d for d in shape]
        stand_ins.append(np.ones([small.get(d, d) for d in dims], dtype=t.dtype))
    try:
        return np.asarray(np.einsum(subscripts, *stand_ins, dtype=dtype, casting=casting, optimize=optimize))
    except (ValueError, TypeError):
        # the same error with the real shapes in its message (free views: NumPy checks first)
        real = [np.broadcast_to(np.ones((), t.dtype), [_hint(d) for d in s]) for t, s in zip(operands, shapes)]
        np.einsum(subscripts, *real, dtype=dtype, casting=casting, optimize=optimize)
        raise


def _hint(d) -> int:
    return d.hint if isinstance(d, SymInt) else d


def _sizes_of(em: EmitterCore, tensors: list[Tensor], labels: list[list[str]]) -> dict:
    """Each label's size: the size other than 1 among its dims (NumPy checked they agree)."""
    sizes: dict = {}
    for t, ls in zip(tensors, labels):
        for label, d in zip(ls, em.shape(t)):
            if label not in sizes or (not isinstance(sizes[label], SymInt) and sizes[label] == 1):
                sizes[label] = d
    return sizes


def _arrange(em: EmitterCore, t: Tensor, labels: list[str], order: list[str]) -> Tensor:
    """``t`` (of ``labels``) with its dims in ``order`` (a subsequence of ``labels``'s)."""
    perm = tuple(labels.index(label) for label in order)
    return t if perm == tuple(range(len(perm))) else em.emit("transpose", t, perm=perm)


def _sum_out(em: EmitterCore, t: Tensor, labels: list[str], drop) -> tuple[Tensor, list[str]]:
    axes = tuple(i for i, label in enumerate(labels) if label in drop)
    if not axes:
        return t, labels
    return em.emit("sum", t, axes=axes, keepdims=False), [label for label in labels if label not in drop]


def _diagonals(em: EmitterCore, t: Tensor, labels: list[str]) -> tuple[Tensor, list[str]]:
    """Repeated labels of one operand: the diagonal (moved last), until none repeats."""
    while len(set(labels)) != len(labels):
        label = next(label for label in labels if labels.count(label) > 1)
        i = labels.index(label)
        j = labels.index(label, i + 1)
        t = _diagonal(em, t, 0, i, j)
        labels = [x for k, x in enumerate(labels) if k not in (i, j)] + [label]
    return t, labels


def _contract(em, a, la, b, lb, keep) -> tuple[Tensor, list[str]]:
    """``a`` (labels ``la``) times ``b`` (``lb``), summed over the shared labels not in ``keep``."""
    shared = [x for x in la if x in lb]
    contracted = [x for x in shared if x not in keep]
    batch = [x for x in shared if x in keep]
    only_a = [x for x in la if x not in lb]
    only_b = [x for x in lb if x not in la]
    if len(contracted) == 1 and len(only_a) <= 1 and len(only_b) <= 1 and a.dtype.kind != "b":
        x = _arrange(em, a, la, batch + only_a + contracted)
        y = _arrange(em, b, lb, batch + contracted + only_b)
        if not only_a:
            x = em.emit("expand_dims", x, axes=(len(batch),))
        if not only_b:
            y = em.emit("expand_dims", y, axes=(len(batch) + 1,))
        result = em.emit("matmul", x, y)
        squeeze = tuple(i for i, empty in ((len(batch), not only_a), (len(batch) + 1, not only_b)) if empty)
        if squeeze:
            result = em.emit("squeeze", result, axes=squeeze)
        return result, batch + only_a + only_b
    # a broadcast product over every label, then the sum over the contracted ones
    order = la + only_b
    x = _arrange(em, a, la, la)
    x = em.emit("expand_dims", x, axes=tuple(range(len(la), len(order)))) if only_b else x
    y = _arrange(em, b, lb, [label for label in order if label in lb])
    missing = tuple(i for i, label in enumerate(order) if label not in lb)
    y = em.emit("expand_dims", y, axes=missing) if missing else y
    x, y = em.broadcast([x, y], "np.einsum")
    product = em.emit("mul", x, y)
    return _sum_out(em, product, order, set(contracted))


def einsum(em, *operands, out=None, dtype=None, order="K", casting="safe", optimize=False):
    fname = "np.einsum"
    reject(fname, out=(out, None), order=(order, "K"))
    if not operands or not isinstance(operands[0], str):
        raise NotImplementedError(f"{fname}: only the subscripts-string form is supported")
    subscripts, arrays = operands[0], list(operands[1:])
    tensors = [em.array(x, fname) for x in arrays]
    expected = _check_with_numpy(em, subscripts, tensors, dtype, casting, optimize)
    if expected.ndim == 0 and optimize is not False:
        raise NotImplementedError(f"{fname}: a 0-d result with optimize= (NumPy returns an array, not a scalar)")
    promotion.ember_dtype(expected.dtype, fname)
    result_dtype = expected.dtype
    work = np.dtype(np.int64) if result_dtype.kind == "b" else result_dtype
    labels, output = _parse(subscripts, [t.ndim for t in tensors])
    tensors = [em.cast(t, work) for t in tensors]
    sizes = _sizes_of(em, tensors, labels)
    # size-1 dims broadcast to their label's size
    tensors = [em.broadcast_to(t, tuple(sizes[label] for label in ls)) for t, ls in zip(tensors, labels)]
    items = []
    for t, ls in zip(tensors, labels):
        items.append(_diagonals(em, t, ls))
    for k, (t, ls) in enumerate(items):  # labels nothing else needs: summed at once
        elsewhere = set(output).union(*(set(other) for j, (_, other) in enumerate(items) if j != k))
        items[k] = _sum_out(em, t, ls, {x for x in ls if x not in elsewhere})
    t, ls = items[0]
    for k in range(1, len(items)):
        b, lb = items[k]
        keep = set(output).union(*(set(other) for _, other in items[k + 1 :]))
        t, ls = _contract(em, t, ls, b, lb, keep)
    t, ls = _sum_out(em, t, ls, {x for x in ls if x not in output})
    t = _arrange(em, t, ls, output)
    if result_dtype.kind == "b":
        t = em.emit("cmp", t, em.scalar_like(0, work, t), predicate="ne")
    return t


# (keys, rule, Ember ops emitted, dtype rule) rows, as numpy_semantics reads them.
ROWS: list = [
    ((np.einsum,), einsum, "cast, transpose, expand_dims, broadcast_to, mul, sum, matmul, squeeze", "np.einsum's"),
]

# Array methods (``x.name(...)``) these rows serve.
METHODS: tuple = ()

# NumPy functions whose 0-d results are 0-d arrays, not NumPy scalars.
ARRAY_RESULTS: set = set()

# Rules that read symbolic ints themselves.
SYMBOLIC_INT_RULES: set = set()
