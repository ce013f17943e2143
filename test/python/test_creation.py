"""Arrays created inside the compiled function (compiler/frontend/numpy_creation.py),
differentially against NumPy: values (bit for bit), dtype, shape and the result's type,
each call checked to have compiled into one graph without a break, and the graphs
checked to hold no constant larger than a scalar.

``np.ones``, ``np.full``, ``np.eye`` and ``np.identity`` are plain Python functions in
NumPy 2 (the others are C functions or ``_ArrayFunctionDispatcher``s); the tracer calls
them through their rules instead of inlining their bodies (``frontend/wrap.py``).
"""

from __future__ import annotations

import numpy as np
import pytest

import compiler
from compiler.backends import compile_graph

DTYPES = [np.float64, np.float32, np.int64, np.int32, np.bool_]


class RecordingBackend:
    """Keeps the text of every module it compiles."""

    def __init__(self):
        self.modules = []

    def __call__(self, module, example_inputs):
        self.modules.append(module)
        return compile_graph(module, "cpu")

    def constants(self) -> list[str]:
        """The result types of the ``ember.constant`` ops of every module."""
        found = []
        for module in self.modules:
            for op in module.body.operations[0].regions[0].blocks[0].operations:
                if op.operation.name == "ember.constant":
                    found.append(str(op.operation.results[0].type))
        return found


def same(got, expected):
    """Same type (NumPy scalar vs array), dtype, shape and bits (NaN and -0.0 included)."""
    assert type(got) is type(expected), (type(got), type(expected))
    got, expected = np.asarray(got), np.asarray(expected)
    assert got.dtype == expected.dtype, (got.dtype, expected.dtype)
    assert got.shape == expected.shape, (got.shape, expected.shape)
    assert np.ascontiguousarray(got).tobytes() == np.ascontiguousarray(expected).tobytes(), (got, expected)


def compiled(fn, *args, backend=None, literals=False):
    """``fn(*args)`` through the compiler: one graph, no break, NumPy's exact answer, and
    no constant larger than a scalar (unless the code holds a list ``literals``)."""
    backend = backend or RecordingBackend()
    out = compiler.explain(fn, backend=backend)(*args)
    assert (out.graph_count, out.graph_break_count) == (1, 0), [str(r) for r in out.break_reasons]
    expected = fn(*args)
    if isinstance(expected, tuple):
        assert type(out.result) is tuple and len(out.result) == len(expected)
        for g, e in zip(out.result, expected):
            same(g, e)
    else:
        same(out.result, expected)
    for t in backend.constants():
        assert literals or "x" not in t.removeprefix("tensor<"), f"a constant larger than a scalar: {t}"
    return out


def empty(fn, zeros, *args):
    """np.empty's contents are unspecified in NumPy: Ember's are zeros."""
    out = compiler.explain(fn)(*args)
    assert (out.graph_count, out.graph_break_count) == (1, 0), [str(r) for r in out.break_reasons]
    same(out.result, zeros)


def falls_back(fn, *args):
    out = compiler.explain(fn)(*args)
    assert 1 <= out.graph_break_count <= 2  # the call, perhaps what uses its result
    same(out.result, fn(*args))
    return str(out.break_reasons[0])


SHAPES = [0, 1, 5, (), (0,), (1,), (2, 3), (3, 0, 2), [2, 1]]

# ----------------------------------------------------------------------------- fills


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES + [None])
def test_zeros_empty(fresh_compiler, shape, dtype):
    compiled(lambda: np.zeros(shape, dtype=dtype))
    empty(lambda: np.empty(shape, dtype), np.zeros(shape, dtype))


@pytest.mark.parametrize("shape", SHAPES)
@pytest.mark.parametrize("dtype", DTYPES + [None])
def test_ones(fresh_compiler, shape, dtype):
    compiled(lambda: np.ones(shape, dtype=dtype))


@pytest.mark.parametrize(
    "fill, dtype",
    [
        (3, None),
        (3.0, None),
        (True, None),
        (3.0, np.float32),
        (2.7, np.int64),
        (-2.7, np.int32),
        (0.5, np.bool_),
        (7, np.float64),
        (np.float32(1.5), None),
        (np.int32(-4), None),
        (2**40, np.float32),
        (1e300, np.float32),
        (float("nan"), np.float64),
        (-0.0, None),
        ([1, 2, 3], None),
        ([1.5, 2.5, 3.5], np.int32),
    ],
)
@pytest.mark.parametrize("shape", [0, 1, (2, 3), ()])
@pytest.mark.filterwarnings("ignore:overflow encountered in cast")  # NumPy's own, for 1e300 -> float32
def test_full_scalar(fresh_compiler, fill, dtype, shape):
    if isinstance(fill, list) and shape in ((), 0, 1):
        shape = (2, 3)
    compiled(lambda: np.full(shape, fill, dtype=dtype), literals=isinstance(fill, list))


@pytest.mark.parametrize("dtype", DTYPES)
def test_full_of_an_array(fresh_compiler, dtype):
    x = np.arange(4).astype(dtype)
    compiled(lambda x: np.full((3, 4), x), x)
    compiled(lambda x: np.full((2, 3, 4), x[:1], dtype=np.float32), x)
    compiled(lambda x: np.full((), x.sum()), x)


@pytest.mark.parametrize("proto_dtype", DTYPES)
@pytest.mark.parametrize("dtype", [None, np.float32, np.int64, np.bool_])
@pytest.mark.parametrize("shape", [(0,), (1,), (3, 4), ()])
def test_likes(fresh_compiler, proto_dtype, dtype, shape):
    x = np.ones(shape, proto_dtype)
    compiled(lambda x: np.zeros_like(x, dtype=dtype), x)
    compiled(lambda x: np.ones_like(x, dtype), x)
    empty(lambda x: np.empty_like(x, dtype=dtype), np.zeros_like(x, dtype=dtype), x)
    compiled(lambda x: np.full_like(x, 2.5, dtype=dtype), x)
    compiled(lambda x: np.full_like(x, 7, shape=(2, 5)), x)


def test_likes_of_scalars_and_literals(fresh_compiler):
    x = np.arange(6.0, dtype=np.float32)
    compiled(lambda x: np.zeros_like(x.sum()), x)  # a NumPy scalar prototype: a 0-d array
    compiled(lambda x: np.ones_like([[1, 2, 3]]) + x[:3], x)
    compiled(lambda x: np.full_like([1.5, 2.5], 7) * x[:2], x)
    compiled(lambda x: np.full_like(x, x[:1]), x)
    compiled(lambda x: np.full_like(x.reshape(2, 3), x[::2]), x)


# ----------------------------------------------------------------------------- arange


ARANGES = [
    (5,),
    (0,),
    (1,),
    (-3,),
    (2, 9),
    (9, 2),
    (9, 2, -2),
    (0, 10, 3),
    (0.0, 1.0, 0.1),
    (0.1, 1.0, 0.1),
    (-0.0, 2, 0.5),
    (1, 2, 0.1),
    (-5.5, 3.25, 0.75),
    (3.0, -1.0, -1 / 3),
    (0, 1e-3, 1e-4),
    (2.5,),
    (0.5, 5, 1),
    (np.float32(0.1), 1, np.float32(0.1)),
    (np.int32(2), np.int32(20), np.int32(3)),
    (np.int32(2), 20),
    (True, 4),
]


@pytest.mark.parametrize("args", ARANGES, ids=str)
@pytest.mark.parametrize("dtype", [None, np.float64, np.float32, np.int64, np.int32])
def test_arange(fresh_compiler, args, dtype):
    compiled(lambda: np.arange(*args, dtype=dtype))


def test_arange_random_float_ranges(fresh_compiler):
    """Bit for bit on float64 and float32 over random starts and steps (NumPy's
    ``start + i * (fl(start + step) - start)``, with the first two elements as stored)."""
    rng = np.random.default_rng(0)
    for _ in range(40):
        start = float(rng.uniform(-100, 100))
        step = float(rng.choice([0.1, 0.3, 1 / 3, 0.7, -0.45, rng.uniform(1e-3, 5)]))
        stop = start + step * int(rng.integers(0, 400)) + float(rng.uniform(-1, 1)) * abs(step)
        dtype = [np.float64, np.float32][int(rng.integers(0, 2))]
        compiled(lambda: np.arange(start, stop, step, dtype))


def test_arange_keywords(fresh_compiler):
    compiled(lambda: np.arange(start=2, stop=7))
    compiled(lambda: np.arange(stop=4))
    compiled(lambda: np.arange(1, 4, step=0.5))
    compiled(lambda: np.arange(3, dtype="f4"))


def test_arange_in_further_ops(fresh_compiler):
    x = np.linspace(-1, 1, 7)
    compiled(lambda x: x * np.arange(len(x)), x)
    compiled(lambda x: x[:, None] + np.arange(x.shape[0], dtype=np.float32), x.astype(np.float32))
    compiled(lambda x: (np.arange(1, 8) ** 2).sum() + x, x)
    compiled(lambda x: np.arange(0, 1, 0.25) @ np.arange(4.0), x)


# ----------------------------------------------------------------------------- linspace


LINSPACES = [
    (0, 1),
    (0, 1, 11),
    (0, 1, 0),
    (0, 1, 1),
    (0, 1, 2),
    (-3.5, 7.25, 33),
    (1, -1, 9),
    (0, 1e-310, 5),  # a step that underflows to 0: NumPy divides first
    (2, 2, 4),
    (np.float32(0), 1, 7),
    (np.float32(-1.5), np.float32(3), 13),
    (np.float32(0.1), 2.0, 10),
    (0, 10, 7),
    (1, 1000, 50),
]


@pytest.mark.parametrize("args", LINSPACES, ids=str)
@pytest.mark.parametrize("endpoint", [True, False])
@pytest.mark.parametrize("dtype", [None, np.float32, np.int64, np.int32])
def test_linspace(fresh_compiler, args, endpoint, dtype):
    compiled(lambda: np.linspace(*args, endpoint=endpoint, dtype=dtype))


def test_linspace_retstep_and_further_ops(fresh_compiler):
    compiled(lambda: np.linspace(0, 2, 9, retstep=True))
    compiled(lambda: np.linspace(0, 2, 1, endpoint=True, retstep=True))
    x = np.ones(20, np.float32)
    compiled(lambda x: np.linspace(0.0, np.pi, len(x), dtype=np.float32) * x + 1, x)


def test_linspace_random(fresh_compiler):
    rng = np.random.default_rng(1)
    for _ in range(30):
        start, stop = (float(v) for v in rng.uniform(-50, 50, 2))
        num, endpoint = int(rng.integers(0, 200)), bool(rng.integers(0, 2))
        compiled(lambda: np.linspace(start, stop, num, endpoint=endpoint))


# ----------------------------------------------------------------------------- eye, identity


@pytest.mark.parametrize(
    "n, m, k",
    [(0, None, 0), (1, None, 0), (4, None, 0), (3, 5, 1), (5, 3, -2), (4, 4, 4), (4, 4, -5), (2, 0, 0), (3, 3, -1)],
)
@pytest.mark.parametrize("dtype", DTYPES + [float, int])
def test_eye(fresh_compiler, n, m, k, dtype):
    compiled(lambda: np.eye(n, m, k, dtype=dtype))


@pytest.mark.parametrize("n", [0, 1, 3])
@pytest.mark.parametrize("dtype", DTYPES + [None])
def test_identity(fresh_compiler, n, dtype):
    compiled(lambda: np.identity(n, dtype))


def test_eye_in_further_ops(fresh_compiler):
    a = np.arange(9.0).reshape(3, 3)
    compiled(lambda a: a + 2 * np.eye(3), a)
    compiled(lambda a: a @ np.identity(a.shape[0], dtype=np.float64), a)
    compiled(lambda a: np.where(np.eye(*a.shape, dtype=bool), a, 0.0), a)


# ----------------------------------------------------------------------------- copies, np.array


@pytest.mark.parametrize("dtype", DTYPES)
def test_copies(fresh_compiler, dtype):
    x = np.arange(6).astype(dtype).reshape(2, 3)
    compiled(lambda x: np.copy(x), x)
    compiled(lambda x: x.copy(), x)
    compiled(lambda x: x.sum().copy(), x)  # a NumPy scalar's copy is a NumPy scalar
    compiled(lambda x: np.copy(x.max()), x)  # ... and np.copy of it a 0-d array
    compiled(lambda x: np.array(x), x)
    out = compiler.explain(lambda x: np.asarray(x))(x)
    assert out.graph_break_count == 0 and out.result is x  # np.asarray(x) is x itself
    compiled(lambda x: np.array(x, dtype=np.float32, ndmin=3), x)
    compiled(lambda x: np.asarray(x, dtype=np.int64) + 1, x)


def test_a_copy_is_a_new_array(fresh_compiler):
    x = np.arange(4.0)
    y = compiler.compile(lambda x: np.copy(x))(x)
    assert y is not x and np.array_equal(y, x)
    y[0] = 100.0
    assert x[0] == 0.0


@pytest.mark.parametrize(
    "literal, dtype",
    [
        (3, None),
        (2.5, None),
        (True, None),
        (np.float32(1.5), None),
        ([1, 2, 3], None),
        ([[1.5, 2.0], [3.0, 4.0]], None),
        ((1, 2.5), np.float32),
        ([True, False], np.int32),
        ([], None),
    ],
)
def test_array_of_literals(fresh_compiler, literal, dtype):
    backend = RecordingBackend()
    out = compiler.explain(lambda: np.array(literal, dtype=dtype), backend=backend)()
    assert (out.graph_count, out.graph_break_count) == (1, 0)
    same(out.result, np.array(literal, dtype=dtype))
    out = compiler.explain(lambda: np.asarray(literal, dtype=dtype))()
    same(out.result, np.asarray(literal, dtype=dtype))


def test_array_of_traced_arrays(fresh_compiler):
    x = np.arange(6, dtype=np.float32)
    compiled(lambda x: np.array([x.sum(), x.max()]), x)
    compiled(lambda x: np.array([x.sum(), 1.0]), x)  # a Python float in a list is float64
    compiled(lambda x: np.array([x[:3], x[3:]], dtype=np.int32), x)
    compiled(lambda x: np.array((x, x * 2)), x)


def test_created_arrays_in_further_ops(fresh_compiler):
    x = np.linspace(0, 1, 12).reshape(3, 4)
    compiled(lambda x: np.zeros((3, 4)) + x, x)
    compiled(lambda x: np.ones(x.shape, dtype=np.int32) * x, x)
    compiled(lambda x: np.full(x.shape, 0.5, np.float32) + x.astype(np.float32), x)
    compiled(lambda x: np.concatenate([x, np.zeros((1, 4))]), x)
    compiled(lambda x: (np.empty_like(x, dtype=np.int64) * 0 + np.arange(4)).sum(axis=0), x)


# ----------------------------------------------------------------------------- the IR


def test_no_dense_constant_in_the_graph(fresh_compiler):
    """A created array is made by ops: 0-d constants, broadcast_to, iota; never a
    constant of its own size (the shapes are big enough to tell)."""

    def fn(x):
        a = np.zeros((64, 64)) + np.ones((64, 64), np.float32) + np.full((64, 64), 3)
        b = np.eye(64) + np.identity(64) + np.arange(64.0) + np.linspace(0, 1, 64)
        c = np.zeros_like(x) + np.full_like(x, 2) + np.empty_like(x) * 0
        return a + b + c + np.arange(4096).reshape(64, 64)

    backend = RecordingBackend()
    compiled(fn, np.ones((64, 64)), backend=backend)
    (module,) = backend.modules
    text = str(module)
    assert "ember.iota" in text and "ember.broadcast_to" in text
    assert backend.constants() and all(t.count("x") == 0 for t in backend.constants()), backend.constants()


# ----------------------------------------------------------------------------- fallbacks

PROTOTYPE = np.ones(1)


@pytest.mark.parametrize(
    "fn",
    [
        lambda: np.zeros(3, dtype=np.longdouble),
        lambda: np.zeros(3, dtype="datetime64[s]"),
        lambda: np.zeros((2, 2), order="F"),
        lambda: np.zeros(3, like=PROTOTYPE),
        lambda: np.arange(2, dtype=bool),
        lambda: np.array(["a", "b"]),
        lambda: np.array(list(range(5000))),
        lambda: np.full(3, "x"),
        lambda: np.linspace(0, 1, 5, dtype=np.longdouble),
    ],
)
def test_what_falls_back(fresh_compiler, fn):
    out = compiler.explain(fn)()
    # one break at the call; the rest (returning its result) may run in CPython too
    assert out.graph_count == 0 and 1 <= out.graph_break_count <= 2, out
    expected = fn()
    assert np.asarray(out.result).dtype == expected.dtype and np.array_equal(out.result, expected)


def test_reasons(fresh_compiler):
    assert "float128 is not supported" in falls_back(lambda: np.zeros(3, dtype=np.longdouble))
    assert "like=" in falls_back(lambda: np.zeros(3, like=PROTOTYPE))
    assert "4096" in falls_back(lambda: np.array(list(range(5000))))
    x = np.arange(3.0)
    assert "traced array" in falls_back(lambda x: np.arange(x.sum()), x)


def test_complex_creation_compiles(fresh_compiler):
    compiled(lambda: np.zeros(3, dtype=np.complex128))
    compiled(lambda: np.arange(3.0, dtype=np.complex64))


def test_python_level_numpy_functions_reach_the_table(fresh_compiler):
    for fn in (lambda: np.ones(3), lambda: np.full(3, 2.0), lambda: np.eye(3), lambda: np.identity(3)):
        compiled(fn)


# ----------------------------------------------------------------------------- symbolic sizes


def test_symbolic_sizes_in_the_emitter():
    """The rules take symbolic sizes (the SymInts ``x.shape`` gives for ``?`` sizes) as
    shape arguments: ``broadcast_to``/``iota`` size operands built from ``ember.dim``."""
    from compiler.dialects import interpreter
    from compiler.dialects.builder import FunctionBuilder
    from compiler.dialects.types import DYN, TensorType
    from compiler.frontend.numpy_semantics import Emitter, Tensor

    b = FunctionBuilder("t", [TensorType((DYN, 3), "f32")])
    em = Emitter(b)
    x = em.wrap(b.args[0])
    em.declare_input(x, (em.shape_env.create_size("x.shape[0]", 5), 3), lambda axis: b.dim(b.args[0], axis))
    n, m = em.call("shape", x)
    results = [
        em.call(np.zeros_like, x),
        em.call(np.full, (n, 2), 7, dtype=np.int32),
        em.call(np.eye, 3, dtype=np.float32),
        em.call(np.ones, (m, n)),
    ]
    assert all(isinstance(r, Tensor) for r in results)
    module = b.finish([r.value for r in results])
    arg = np.arange(15, dtype=np.float32).reshape(5, 3)
    got = interpreter.run(module, arg)
    for g, e in zip(
        got, [np.zeros_like(arg), np.full((5, 2), 7, np.int32), np.eye(3, dtype=np.float32), np.ones((3, 5))]
    ):
        same(g, e)


# ----------------------------------------------------------------------------- np.ascontiguousarray


def _contiguous_of_transpose(x):
    return np.ascontiguousarray(x.T)


def _contiguous_itself(x):
    return np.ascontiguousarray(x)


def _contiguous_rows(x):
    return np.ascontiguousarray(x[1:])


def _contiguous_columns(x):
    return np.ascontiguousarray(x[:, 1:])


def _contiguous_as_float64(x):
    return np.ascontiguousarray(x, dtype=np.float64)


def _contiguous_of_an_expression(x):
    return np.ascontiguousarray(x.T + 1)  # an F-ordered view of a fresh array (order='K')


def _contiguous_then_written(x):
    y = np.ascontiguousarray(x)
    y[0, 0] = 100  # the caller's array too, where NumPy returned it
    return y * 2, y


CONTIGUOUS = [
    _contiguous_of_transpose,
    _contiguous_itself,
    _contiguous_rows,
    _contiguous_columns,
    _contiguous_as_float64,
    _contiguous_of_an_expression,
    _contiguous_then_written,
]
LAYOUTS = {
    "C": lambda a: a,
    "F": np.asfortranarray,
    "transposed": lambda a: a.T.copy().T,
    "strided": lambda a: np.repeat(a, 2, axis=1)[:, ::2],
}


@pytest.mark.parametrize("layout", sorted(LAYOUTS))
@pytest.mark.parametrize("fn", CONTIGUOUS, ids=lambda f: f.__name__)
def test_ascontiguousarray_returns_the_array_itself_or_a_c_ordered_copy(fresh_compiler, fn, layout):
    """NumPy's answer: the value, dtype and C order, and whether it is the caller's array
    (or a view of it) or a new one, which a write after it shows; one graph, no break."""
    x = LAYOUTS[layout](np.arange(12, dtype=np.float32).reshape(3, 4))
    want_x, got_x = x.copy(order="K"), x.copy(order="K")
    want_x, got_x = LAYOUTS[layout](want_x), LAYOUTS[layout](got_x)
    want, got = fn(want_x), compiler.compile(fn, options={"strict": True})(got_x)
    for w, g in zip(want if isinstance(want, tuple) else (want,), got if isinstance(got, tuple) else (got,)):
        np.testing.assert_array_equal(g, w)
        assert g.dtype == w.dtype and g.flags.c_contiguous == w.flags.c_contiguous
        assert (g is got_x) == (w is want_x)
        assert np.shares_memory(g, got_x) == np.shares_memory(w, want_x)
    np.testing.assert_array_equal(got_x, want_x)
    out = compiler.explain(compiler.compile(fn))(LAYOUTS[layout](np.ones((3, 4), np.float32)))
    assert out.graph_break_count == 0, out.break_reasons


def test_ascontiguousarray_guards_the_layout_it_read(fresh_compiler):
    """Traced with a C-contiguous argument (the argument itself comes back), called with
    an F-ordered one of the same shape: the layout guard fails, and the new trace copies."""
    fn = compiler.compile(_contiguous_itself)
    x = np.arange(12.0).reshape(3, 4)
    assert fn(x) is x
    f = np.asfortranarray(x)
    got = fn(f)
    assert got is not f and got.flags.c_contiguous and not np.shares_memory(got, f)
    np.testing.assert_array_equal(got, x)
    assert fn(x) is x


def test_ascontiguousarray_of_a_0d_array_runs_in_python(fresh_compiler):
    """NumPy gives a (1,) view of a 0-d array: not traced, NumPy's answer."""
    x = np.array(3.0)
    got = compiler.compile(_contiguous_itself)(x)
    assert got.shape == (1,) and np.shares_memory(got, x)
