"""Complex arrays (complex64, complex128) in the NumPy layer.

Promotion needs nothing of its own: NumPy's resolvers answer for complex loops as for
any other, and a Python ``complex`` is a weak scalar like ``int``/``float``
(``promotion.promotion_key``: ``f32_array * 1j`` is complex64). What is here:

* the ufunc loops whose complex version differs from the real one: ``absolute`` (the
  magnitude, of the real dtype: ``cabs``), ``conjugate`` (``conj``), ``reciprocal``
  (NumPy's complex loop), ``isnan``/``isinf``/``isfinite`` (of either part / both parts);
* ``power`` with a complex loop: NumPy's ``npy_cpow`` branches on the exponent's value, and
  only its small-integer path (``n + 0j`` with ``|n| < 100``, repeated multiplication) is
  an Ember op (``powi``); the exponent must be a Python or NumPy scalar (a constant of the
  trace). ``x ** 2``, ``x ** -1``, ``x ** 0.5`` take ``ndarray.__pow__``'s fast paths
  (``square``, ``reciprocal``, ``sqrt``) as for floats (``numpy_semantics._pow_operator``);
* ``x.real``/``x.imag`` and ``np.real``/``np.imag``: the ``real``/``imag`` ops of a complex
  array, NumPy's *views*. The tracer cannot follow them as views (``real`` is not a view
  op): they are in ``view_steps.VIEW_FUNCTIONS``, so a function that returns one, or writes
  through one, or writes the complex array after taking one, runs in CPython. Of a real
  array, ``x.real`` is ``x`` itself and ``x.imag`` NumPy's read-only zeros;
* ``np.angle(z, deg=False)``: NumPy's own steps, ``arctan2(z.imag, z.real)``;
* ``guard(table)``: every other NumPy function meeting a complex array falls back to
  CPython (``NotImplementedError``) unless it is known to be right for complex
  (``COMPLEX_FUNCTIONS``): never a real-only rule run on complex data.

A complex -> real cast (``astype(float)``, assigning complex into a float array, a
complex fill value of a float array) raises ``NotImplementedError`` where it is met
(``EmitterCore.cast``): NumPy issues ``ComplexWarning`` there, on every call.
"""

from __future__ import annotations

import operator
from dataclasses import replace

import numpy as np

from compiler.frontend import numpy_elementwise as ew
from compiler.frontend import (
    numpy_math,  # noqa: F401  (its ufunc lowerings are in ew.LOWERINGS first)
    promotion,
)
from compiler.frontend.numpy_core import EmitterCore, Tensor, reject, reject_kwargs


def is_complex(x) -> bool:
    return isinstance(x, Tensor) and x.dtype.kind == "c"


# ----------------------------------------------------------------------------- ufunc loops


def _absolute(em: EmitterCore, x: Tensor) -> Tensor:
    return em.emit("cabs", x)


def _parts_test(ufunc: np.ufunc, combine: str):
    """``isnan``/``isinf`` (either part: ``or``), ``isfinite`` (both parts: ``and``)."""
    real_rule = ew.LOWERINGS[ufunc]

    def lower(em: EmitterCore, x: Tensor) -> Tensor:
        return em.emit(combine, real_rule(em, em.emit("real", x)), real_rule(em, em.emit("imag", x)))

    return lower


# ufunc -> its lowering for complex operands (operands already cast to the complex loop)
COMPLEX_UFUNCS = {
    np.absolute: _absolute,
    np.conjugate: lambda em, x: em.emit("conj", x),
    np.reciprocal: lambda em, x: em.emit("reciprocal", x),
    np.isnan: _parts_test(np.isnan, "or"),
    np.isinf: _parts_test(np.isinf, "or"),
    np.isfinite: _parts_test(np.isfinite, "and"),
}
# ufuncs whose real lowering (numpy_elementwise / numpy_math) is right for complex loops too
SAME_FOR_COMPLEX = (
    np.add,
    np.subtract,
    np.multiply,
    np.true_divide,
    np.negative,
    np.positive,
    np.exp,
    np.log,
    np.sqrt,
    np.tanh,
    np.sin,
    np.cos,
    np.square,
    np.equal,
    np.not_equal,
    np.less,
    np.less_equal,
    np.greater,
    np.greater_equal,
    np.logical_not,
    np.logical_and,
    np.logical_or,
    np.logical_xor,
)


def _complex_aware(ufunc: np.ufunc, real_rule):
    complex_rule = COMPLEX_UFUNCS.get(ufunc)

    def lower(em: EmitterCore, *ts: Tensor):
        if not any(t.dtype.kind == "c" for t in ts):
            return real_rule(em, *ts)
        if complex_rule is None:
            raise NotImplementedError(f"np.{ufunc.__name__} of complex operands is not supported")
        return complex_rule(em, *ts)

    return lower


for _ufunc, _rule in list(ew.LOWERINGS.items()):
    if _ufunc not in SAME_FOR_COMPLEX:
        ew.LOWERINGS[_ufunc] = _complex_aware(_ufunc, _rule)


# ----------------------------------------------------------------------------- power


def _sqrt_fast_path(out_dtype, x, y) -> bool:
    """NumPy's float32/float64 power loop computes a scalar exponent of 0.5 as ``sqrt``
    (``np.power(-0.0, 0.5)`` is -0.0 and ``np.power(-inf, 0.5)`` NaN, unlike ``pow``); an
    array of 0.5s takes the general loop. Only for a float array of that dtype: integers
    and bools (cast to the float loop) have no -0.0 or -inf, where the two differ."""
    scalar = isinstance(y, (int, float, np.floating)) and not isinstance(y, bool)
    float_array = isinstance(x, Tensor) and x.dtype == out_dtype
    return scalar and y == 0.5 and out_dtype in (np.float32, np.float64) and float_array


def power(em: EmitterCore, x, y, /, out=None, where=True, **kwargs) -> Tensor:
    """``np.power(x, y)``: a complex loop by a small integer exponent is ``powi``; any other
    loop is the ufunc's (``numpy_elementwise.apply_ufunc``)."""
    operands = [ew._operand(em, a, "np.power") for a in (x, y)]
    try:
        _, out_dtype = promotion.ufunc_loop(np.power, [ew._key(a) for a in operands], check=False)
    except Exception:  # noqa: BLE001 - NumPy's own complaint comes from apply_ufunc
        out_dtype = None
    if _sqrt_fast_path(out_dtype, x, y) and out is None and where is True and not kwargs:
        return ew.apply_ufunc(em, np.sqrt, x)
    if out_dtype is None or out_dtype.kind != "c":
        return ew.apply_ufunc(em, np.power, x, y, out=out, where=where, **kwargs)
    reject("np.power", out=(out, None), where=(where, True))
    reject_kwargs("np.power", kwargs)
    n = small_integer_exponent(y)
    promotion.check_supported([out_dtype], "np.power")
    base = em.operand(operands[0], out_dtype, "np.power")
    return em.emit("powi", base, n=n)


def small_integer_exponent(y) -> int:
    """The ``n`` of an exponent ``n + 0j`` with ``|n| < 100`` (NumPy's multiplication path)."""
    if isinstance(y, Tensor) or not isinstance(y, (bool, int, float, complex, np.number, np.bool_)):
        raise NotImplementedError(
            "np.power: a complex power needs a constant exponent (NumPy's loop branches on its value)"
        )
    value = complex(y)
    if value.imag != 0 or not (-100 < value.real < 100) or value.real != int(value.real):
        raise NotImplementedError(
            f"np.power: complex power by {y!r} (only integers |n| < 100, NumPy's repeated multiplication)"
        )
    return int(value.real)


def pow_fast_path(em: EmitterCore, x: Tensor, y) -> Tensor | None:
    """``ndarray.__pow__``'s fast paths of a complex array: ``** 2`` square, ``** -1``
    reciprocal, ``** 0.5`` sqrt (an exact Python int or float exponent); None otherwise."""
    if type(y) is int and y == 2:
        return ew.apply_ufunc(em, np.square, x)
    if type(y) in (int, float) and y == -1:
        return ew.apply_ufunc(em, np.reciprocal, x)
    if type(y) in (int, float) and y == 0.5:
        return ew.apply_ufunc(em, np.sqrt, x)
    return None


# ----------------------------------------------------------------------------- parts


def real(em: EmitterCore, x):
    """``x.real`` / ``np.real(x)``: the real part of a complex array; a real array itself."""
    if not isinstance(x, Tensor):
        return np.real(x)  # a Python or NumPy number: its own .real
    return em.emit("real", x) if is_complex(x) else x


def imag(em: EmitterCore, x):
    """``x.imag`` / ``np.imag(x)``: the imaginary part; zeros of a real array's dtype."""
    if not isinstance(x, Tensor):
        return np.imag(x)
    if is_complex(x):
        return em.emit("imag", x)
    return replace(em.scalar_like(0, x.dtype, x), weak=x.weak)


def angle(em: EmitterCore, z, deg=False) -> Tensor:
    """NumPy's ``np.angle``: ``arctan2(z.imag, z.real)`` (``arctan2(0, z)`` of a real
    array), times ``180 / pi`` in place for ``deg``."""
    z = em.array(z, "np.angle")
    if is_complex(z):
        zimag, zreal = em.emit("imag", z), em.emit("real", z)
    else:
        zimag, zreal = 0, z
    a = ew.apply_ufunc(em, np.arctan2, zimag, zreal)
    if deg:
        a = ew.apply_ufunc(em, np.multiply, a, 180 / np.pi)
    return a


ROWS = [
    (("real", np.real), real, "real | -", "same part"),
    (("imag", np.imag), imag, "imag | constant", "same part"),
    ((np.angle,), angle, "imag, real, atan2", "ufunc"),
]

# NumPy functions, operators and methods right for complex arrays (their rules are
# dtype-blind or have complex lowerings); ``guard`` sends any other to CPython.
COMPLEX_FUNCTIONS = {
    *(k for k in ("add", "sub", "mul", "truediv", "lt", "le", "gt", "ge", "eq", "ne", "neg", "pos", "abs", "pow")),
    *(operator.add, operator.sub, operator.mul, operator.truediv, operator.neg, operator.pos, operator.abs),
    *(operator.lt, operator.le, operator.gt, operator.ge, operator.eq, operator.ne, operator.pow, abs, pow),
    *(np.where, np.sum, "sum", np.prod, "prod", np.mean, "mean", np.matmul, "matmul", operator.matmul, np.dot, "dot"),
    *(np.transpose, "transpose", "T", np.reshape, "reshape", "ravel", "flatten", np.ravel, np.expand_dims),
    *(np.squeeze, "squeeze", np.concatenate, np.stack, "astype", "getitem", operator.getitem, "copy", np.copy),
    *("shape", "ndim", "dtype", "size", "real", "imag", np.real, np.imag, np.angle, "conj", "conjugate"),
    *(np.zeros_like, np.ones_like, np.empty_like, np.full_like, np.array, np.asarray, np.full),
    *(np.any, np.all, "any", "all", np.count_nonzero),
    *(np.flip, np.flipud, np.fliplr, "swapaxes", np.swapaxes, np.moveaxis, np.atleast_1d, np.atleast_2d),
    *(np.atleast_3d, np.broadcast_to, np.vstack, np.hstack, np.column_stack, np.dstack, np.roll, np.tile),
    *(np.outer, np.diff, np.vdot, np.linalg.norm, np.tensordot, np.inner, np.linalg.matrix_transpose),
    *(np.linalg.solve, np.linalg.inv, np.linalg.det, np.linalg.slogdet, np.linalg.cholesky, np.linalg.eigh),
    *(np.linalg.eigvalsh, np.linalg.svd, np.linalg.svdvals, np.linalg.qr, np.linalg.lstsq),
}


def guard(table: dict) -> None:
    """Wrap every rule of ``table``: a complex array operand of a function outside
    ``COMPLEX_FUNCTIONS`` (and not a ufunc, whose lowerings check) raises
    ``NotImplementedError`` (the call runs in CPython)."""
    for key, rule in list(table.items()):
        if isinstance(key, np.ufunc) or _in(key, COMPLEX_FUNCTIONS):
            continue
        table[key] = _refusing_complex(key, rule)


def _in(key, keys) -> bool:
    try:
        return key in keys
    except TypeError:
        return False


def _refusing_complex(key, rule):
    def checked(em, *args, **kwargs):
        if any(_holds_complex(a) for a in (*args, *kwargs.values())):
            name = key if isinstance(key, str) else getattr(key, "__name__", repr(key))
            raise NotImplementedError(f"{name} of a complex array is not supported")
        return rule(em, *args, **kwargs)

    return checked


def _holds_complex(x) -> bool:
    if isinstance(x, (list, tuple)):
        return any(_holds_complex(i) for i in x)
    return is_complex(x) or isinstance(x, (complex, np.complexfloating))
