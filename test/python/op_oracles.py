"""NumPy's meaning of Ember's elementwise ops: the oracle the op tests compare with.

One table per op family, keyed by the op's name, each entry the NumPy expression a
user would write for it. Written here, apart from the reference interpreter's own
tables (``compiler/dialects/interpreter.py``), so that the tests check the
interpreter against an independent account rather than against itself.
"""

from __future__ import annotations

import math

import numpy as np


def erf(x: np.ndarray) -> np.ndarray:
    """``math.erf`` per element (NumPy has none), rounded to ``x``'s dtype."""
    return np.array([math.erf(float(v)) for v in x.ravel()], x.dtype).reshape(x.shape)


def sigmoid(x):
    return 1 / (1 + np.exp(-x))


UNARY_REF = {
    "neg": lambda x: -x,
    "abs": np.abs,
    "exp": np.exp,
    "log": np.log,
    "sqrt": np.sqrt,
    "tanh": np.tanh,
    "sin": np.sin,
    "cos": np.cos,
    "sigmoid": sigmoid,
    "erf": erf,
    "floor": np.floor,
    "logical_not": lambda x: ~x,
    "tan": np.tan,
    "asin": np.arcsin,
    "acos": np.arccos,
    "atan": np.arctan,
    "sinh": np.sinh,
    "cosh": np.cosh,
    "asinh": np.arcsinh,
    "acosh": np.arccosh,
    "atanh": np.arctanh,
    "log1p": np.log1p,
    "expm1": np.expm1,
    "log2": np.log2,
    "log10": np.log10,
    "exp2": np.exp2,
    "cbrt": np.cbrt,
    "ceil": np.ceil,
    "trunc": np.trunc,
    "rint": np.rint,
}

BINARY_REF = {
    "add": lambda a, b: a + b,
    "sub": lambda a, b: a - b,
    "mul": lambda a, b: a * b,
    "div": lambda a, b: a / b,
    "floordiv": lambda a, b: a // b,
    "mod": lambda a, b: a % b,
    "pow": lambda a, b: a**b,
    "maximum": np.maximum,
    "minimum": np.minimum,
    "and": lambda a, b: a & b,
    "or": lambda a, b: a | b,
    "xor": lambda a, b: a ^ b,
    "atan2": np.arctan2,
    "hypot": np.hypot,
    "copysign": np.copysign,
    "fmod": np.fmod,
    "shl": lambda a, b: a << b,
    "shr": lambda a, b: a >> b,
}

# Binary ops that take floats only, and integers only.
FLOAT_ONLY_BINARY = ("div", "atan2", "hypot", "copysign")
INTEGER_ONLY_BINARY = ("and", "or", "xor", "shl", "shr")

CMP_REF = {
    "eq": np.equal,
    "ne": np.not_equal,
    "lt": np.less,
    "le": np.less_equal,
    "gt": np.greater,
    "ge": np.greater_equal,
}
