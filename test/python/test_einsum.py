"""np.einsum compiled (``frontend/numpy_einsum.py``) and compared with NumPy.

Every case compiles one whole graph (``fullgraph=True``; a backend failure warns, and
warnings are errors here) and must give NumPy's type (scalar or array), dtype and shape;
integer and bool values exactly, float values within rtol 1e-12 (float64) / 1e-5
(float32), since sums are taken in another order. Bad subscripts raise NumPy's exception
and message through the compiled function (the call runs in CPython).
"""

from __future__ import annotations

import re
import warnings

import numpy as np
import pytest

import compiler
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType
from compiler.frontend.numpy_semantics import Emitter, Tensor

pytestmark = pytest.mark.usefixtures("fresh_compiler")

RNG = np.random.default_rng(4)
DTYPES = [np.bool_, np.int32, np.int64, np.float32, np.float64]


def arr(shape, dtype=np.float64):
    dtype = np.dtype(dtype)
    if dtype.kind == "b":
        return RNG.random(shape) < 0.5
    if dtype.kind == "i":
        return RNG.integers(-5, 6, shape).astype(dtype)
    return RNG.normal(size=shape).astype(dtype)


def check(subscripts, *operands, dynamic=False, **kwargs):
    fn = lambda *a: np.einsum(subscripts, *a, **kwargs)  # noqa: E731
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        c = compiler.compile(fn, fullgraph=True, dynamic=dynamic)
        got = c(*operands)
    want = fn(*operands)
    assert c.entries[0].graph_module is not None and c.entries[0].fallback_reason is None
    assert type(got) is type(want), (subscripts, type(got), type(want))
    assert got.dtype == want.dtype and np.shape(got) == np.shape(want), (subscripts, got.dtype, np.shape(got))
    if want.dtype.kind == "f":
        rtol = 1e-5 if want.dtype == np.float32 else 1e-12
        np.testing.assert_allclose(got, want, rtol=rtol, atol=rtol, err_msg=subscripts)
    else:
        np.testing.assert_array_equal(got, want, err_msg=subscripts)
    return c


CASES = [
    ("ij,jk->ik", (3, 4), (4, 5)),
    ("ij,jk", (3, 4), (4, 5)),
    ("bij,bjk->bik", (2, 3, 4), (2, 4, 5)),
    ("i,i->", (6,), (6,)),
    ("i,i", (6,), (6,)),
    ("ij,j->i", (3, 4), (4,)),
    ("j,ij->i", (4,), (3, 4)),
    ("ij->ji", (3, 4)),
    ("ji", (3, 4)),
    ("ij", (3, 4)),
    ("ii->i", (4, 4)),
    ("ii", (4, 4)),
    ("iij->j", (3, 3, 2)),
    ("ij,ij->i", (3, 4), (3, 4)),
    ("ij,ij->ij", (3, 4), (3, 4)),
    ("ij,ij", (3, 4), (3, 4)),
    ("i,j->ij", (3,), (4,)),
    ("i,j", (3,), (4,)),
    ("ij,jk,kl->il", (2, 3), (3, 4), (4, 5)),
    ("ij,jk,kl", (2, 3), (3, 4), (4, 5)),
    ("i,ij,j->", (3,), (3, 4), (4,)),
    ("bhqd,bhkd->bhqk", (2, 2, 3, 4), (2, 2, 5, 4)),
    ("abc,cd->abd", (2, 3, 4), (4, 5)),
    ("abcd,cd->ab", (2, 3, 4, 5), (4, 5)),
    ("ijk->", (2, 3, 4)),
    ("ijk->kji", (2, 3, 4)),
    ("Ab,bA", (3, 2), (2, 3)),
    ("ij,jk->ik", (3, 1), (4, 5)),  # a size-1 dim broadcast against its label (NumPy allows it)
    ("ij,jk->ik", (0, 4), (4, 5)),
    ("ij,jk->ik", (3, 0), (0, 5)),
    (",i->i", (), (4,)),
    ("", ()),
]


@pytest.mark.parametrize("case", CASES, ids=lambda c: c[0] or "scalar")
@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: np.dtype(d).name)
def test_einsum_forms(case, dtype):
    subscripts, *shapes = case
    check(subscripts, *[arr(s, dtype) for s in shapes])


ELLIPSIS = [
    ("...ij,...jk->...ik", (2, 3, 4), (2, 4, 5)),
    ("...ij,...jk", (3, 4), (2, 4, 5)),
    ("i...->...", (3, 2, 4)),
    ("...i->...", (2, 3, 4)),
    ("...ii->...i", (2, 3, 3)),
    ("i...i", (3, 2, 3)),
    ("...,...", (2, 3), (3,)),
    ("b...,b...->...", (2, 3, 4), (2, 1, 4)),
    ("ij...,jk...->ik...", (2, 3), (3, 4)),
]


@pytest.mark.parametrize("case", ELLIPSIS, ids=lambda c: c[0])
def test_einsum_ellipsis(case):
    subscripts, *shapes = case
    check(subscripts, *[arr(s) for s in shapes])
    check(subscripts, *[arr(s, np.int32) for s in shapes])


def test_mixed_dtypes_promote_as_numpy():
    check("ij,jk->ik", arr((3, 4), np.float32), arr((4, 2)))
    check("ij,jk->ik", arr((3, 4), np.int32), arr((4, 2), np.int64))
    check("i,i", arr((5,), np.bool_), arr((5,), np.int32))
    check("ij,j->i", arr((3, 4), np.int32), arr((4,), np.float32))
    check("ij,jk->ik", arr((3, 4), np.int32), arr((4, 2), np.int32), dtype=np.float64)
    check("ij->i", arr((3, 4), np.float32), dtype=np.float64)


def test_non_contiguous_and_negative_strides():
    a = arr((6, 8))
    check("ij,jk->ik", a[::2, ::-1], a.T[::-1, 1:4])
    check("ii->i", a[:6, :6][::-1, ::-1])
    check("bij,bjk->bik", arr((4, 3, 2)).transpose(0, 2, 1), arr((4, 3, 5)))


def test_optimize_is_accepted():
    check("ij,jk,kl->il", arr((2, 3)), arr((3, 4)), arr((4, 5)), optimize=True)
    check("ij,jk->ik", arr((2, 3)), arr((3, 4)), optimize="greedy")
    # a 0-d result: NumPy returns a 0-d array with optimize (a scalar without): runs in CPython
    fn = lambda a, b: np.einsum("i,i->", a, b, optimize=True)  # noqa: E731
    c = compiler.compile(fn)
    got = c(np.arange(3.0), np.arange(3.0))
    assert type(got) is np.ndarray and got == 5.0


def test_dynamic_sizes():
    c = None
    for n, m in ((3, 4), (5, 7), (9, 2)):
        c = check("ij,jk->ik", arr((n, m)), arr((m, 11)), dynamic=True) if c is None else c
        a, b = arr((n, m)), arr((m, 11))
        np.testing.assert_allclose(c(a, b), np.einsum("ij,jk->ik", a, b), rtol=1e-12)
    assert len(c.entries) == 1
    check("ii->i", arr((5, 5)), dynamic=True)
    check("bij,bj->bi", arr((3, 4, 5)), arr((3, 5)), dynamic=True)


@pytest.mark.parametrize(
    "subscripts, shapes",
    [
        ("ij,jk->ik", [(3, 4), (5, 6)]),
        ("ij,jk->ik,", [(3, 4), (4, 6)]),
        ("i->j", [(3,)]),
        ("ii->ii", [(3, 3)]),
        ("i1", [(3, 3)]),
        ("ij", [(3,)]),
        ("ij,jk", [(3, 4)]),
        ("i->i->i", [(3,)]),
        ("ii", [(3, 4)]),
        ("..i", [(3,)]),
    ],
)
def test_errors_like_numpy(subscripts, shapes):
    ops = [arr(s) for s in shapes]
    with pytest.raises(Exception) as want:
        np.einsum(subscripts, *ops)
    fn = lambda *a: np.einsum(subscripts, *a)  # noqa: E731
    with pytest.raises(want.type, match=re.escape(str(want.value))):
        compiler.compile(fn)(*ops)
    b = FunctionBuilder("f", [TensorType.of_array(o) for o in ops])  # the rule raises NumPy's error itself
    tensors = [Tensor(v, TensorType.of_array(o)) for v, o in zip(b.args, ops)]
    with pytest.raises(want.type, match=re.escape(str(want.value))):
        Emitter(b).call(np.einsum, subscripts, *tensors)
