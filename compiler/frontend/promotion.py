"""NumPy 2.x dtype rules for the dtypes Ember supports, asked of NumPy itself.

Ember's ops take operands of one exact type, so every NumPy call becomes "cast each
operand to the dtype NumPy's loop would use, then run the op". Which loop NumPy
picks is not re-implemented here: ``np.<ufunc>.resolve_dtypes`` answers it, with
Python scalars passed as the *types* ``int``/``float`` so that they promote weakly
(NEP 50: ``f32_array * 2.0`` stays float32, ``i32_array + 2.5`` becomes float64).
Non-ufuncs that promote like ``np.result_type`` (``where``, ``concatenate``,
``stack``) use it the same way. Python ``bool`` is not weak in NumPy 2 (it *is*
``np.bool_``), which changes nothing because bool is the lowest kind anyway.

Everything here maps a dtype to a dtype; whatever falls outside Ember's dtypes
(``types.NUMPY_DTYPES``: bool, int8..int64, uint8..uint64, float16..float64; not
longdouble, datetime64, object, strings) raises ``NotImplementedError``, so the
frontend falls back to CPython and NumPy itself. So does float16 on an x86 CPU
without F16C (``runtime.target.half_conversions_inline``).
"""

from __future__ import annotations

import numpy as np

from compiler.dialects.types import ELEMENT_TYPES, NUMPY_DTYPES
from runtime.target import half_conversions_inline

SUPPORTED = tuple(NUMPY_DTYPES.values())  # bool, int8..int64, uint8..uint64, float16..float64
DEFAULT_INT = np.dtype(np.int_)  # what a Python int becomes when nothing else decides


def ember_dtype(dtype: np.dtype, what: str = "dtype") -> str:
    """Ember's element type name for ``dtype``; ``NotImplementedError`` outside Ember's dtypes."""
    dtype = np.dtype(dtype)
    if dtype not in ELEMENT_TYPES:
        raise NotImplementedError(
            f"{what}: dtype {dtype} is not supported by Ember (only {', '.join(str(d) for d in SUPPORTED)})"
        )
    if dtype == np.float16 and not half_conversions_inline():
        raise NotImplementedError(f"{what}: float16 needs the F16C instructions on this x86 machine")
    return ELEMENT_TYPES[dtype]


def parse_dtype(dtype, fname: str) -> np.dtype:
    """A ``dtype=`` argument (``np.float32``, ``'f4'``, ``float``, ``np.dtype``) as a dtype."""
    try:
        parsed = np.dtype(dtype)
    except TypeError as e:
        raise TypeError(f"{fname}: cannot interpret {dtype!r} as a data type") from e
    ember_dtype(parsed, f"{fname}(dtype=...)")
    return parsed


def is_python_scalar(x) -> bool:
    return isinstance(x, (bool, int, float, complex)) and not isinstance(x, np.generic)


def default_dtype(x) -> np.dtype:
    """The dtype ``np.asarray`` gives a Python scalar (strong, as in ``np.dot(a, 2)``)."""
    if isinstance(x, bool):
        return np.dtype(np.bool_)
    if isinstance(x, complex):
        return np.dtype(np.complex128)
    return DEFAULT_INT if isinstance(x, int) else np.dtype(np.float64)


def promotion_key(x):
    """What NumPy's resolvers see for an operand: a dtype, or ``int``/``float`` for a weak scalar.

    ``x`` is a dtype (an array operand) or a Python scalar."""
    if isinstance(x, bool):
        return np.dtype(np.bool_)
    if isinstance(x, complex) and not isinstance(x, np.generic):
        return complex  # weak, as int and float (NEP 50): f32_array * 1j is complex64
    if isinstance(x, (int, float)) and not isinstance(x, np.generic):
        return int if isinstance(x, int) else float
    return x.dtype if isinstance(x, np.generic) else np.dtype(x)


def ufunc_loop(ufunc: np.ufunc, operands: list, check: bool = True) -> tuple[list[np.dtype], np.dtype]:
    """(input dtypes, output dtype) of the loop ``ufunc`` runs for ``operands``.

    ``operands`` are dtypes or Python scalars. NumPy's own ``TypeError`` (boolean
    subtract, float bitwise_and, ...) propagates unchanged; a loop outside Ember's
    dtypes raises ``NotImplementedError``."""
    keys = [promotion_key(x) for x in operands]
    if all(_is_weak(k) for k in keys):  # no array in sight: Python scalars act as default dtypes
        keys = [{float: np.dtype(np.float64), complex: np.dtype(np.complex128)}.get(k, DEFAULT_INT) for k in keys]
    dtypes = ufunc.resolve_dtypes(tuple(keys) + (None,) * ufunc.nout)
    inputs, output = list(dtypes[: ufunc.nin]), dtypes[ufunc.nin]
    if check:
        check_supported(inputs + [output], f"np.{ufunc.__name__}")
    return inputs, output


def check_supported(dtypes, fname: str):
    for d in dtypes:
        ember_dtype(d, fname)


def result_type(operands: list, fname: str) -> np.dtype:
    """``np.result_type`` of dtypes and weak Python scalars (where, clip, concatenate)."""
    keys = [_result_type_key(x) for x in operands]
    if not any(isinstance(k, np.dtype) for k in keys):
        keys = [np.asarray(x).dtype for x in operands]
    dtype = np.result_type(*keys)
    ember_dtype(dtype, fname)
    return dtype


def _result_type_key(x):
    key = promotion_key(x)
    return {int: 0, float: 0.0, complex: 0j}[key] if _is_weak(key) else key


def _is_weak(key) -> bool:
    return key is int or key is float or key is complex  # not ``in``: np.dtype("int64") == int is True


def reduction_dtype(name: str, dtype: np.dtype, requested=None) -> np.dtype:
    """Result dtype of ``np.<name>`` over an array of ``dtype`` (with ``dtype=requested``)."""
    if requested is not None:
        return parse_dtype(requested, f"np.{name}")
    if name in ("sum", "prod") and (dtype.kind == "b" or (dtype.kind == "i" and dtype.itemsize < DEFAULT_INT.itemsize)):
        return DEFAULT_INT  # NumPy accumulates bool and small integers in the platform int
    if name in ("sum", "prod") and dtype.kind == "u" and dtype.itemsize < DEFAULT_INT.itemsize:
        return np.dtype(np.uint)  # ... and small unsigned integers in the platform uint
    if name == "mean" and dtype.kind in "biu":
        return np.dtype(np.float64)
    return dtype


def check_weak_scalar(value, dtype: np.dtype, fname: str):
    """``value`` converted to ``dtype`` as NumPy converts a weak scalar; values NumPy
    would refuse (a Python int out of the integer range: OverflowError) are left to NumPy."""
    if isinstance(value, bool) or dtype.kind == "b":
        return np.asarray(value, dtype=dtype)
    if isinstance(value, int) and dtype.kind in "iu":
        info = np.iinfo(dtype)
        if not info.min <= value <= info.max:
            raise NotImplementedError(
                f"{fname}: Python int {value} is out of bounds for {dtype} (NumPy raises OverflowError)"
            )
    if isinstance(value, complex) and dtype.kind != "c":
        raise NotImplementedError(f"{fname}: complex {value} converted to {dtype} (NumPy warns ComplexWarning)")
    if isinstance(value, int) and dtype.kind in "fc" and abs(value) >= 2**1023:
        raise NotImplementedError(f"{fname}: Python int {value} is too large for {dtype}")
    if isinstance(value, float) and dtype.kind in "iu":
        raise NotImplementedError(f"{fname}: float {value} converted to {dtype}")
    with np.errstate(over="ignore"):
        return np.asarray(value, dtype=dtype)
