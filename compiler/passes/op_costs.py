"""What one element of an elementwise ``linalg.generic`` costs, as fusion and tiling
weigh it: a few instructions (recomputed freely, per reader and per tile), a math
function (worth a store and a load rather than a second evaluation), or a call per
element (a scalar libm function, ``cexp`` & co.: computed once, never per tile).

Why a module of its own: ``ember-fuse`` decides which shared values to copy per reader,
``ember-tile`` which producers to recompute in every tile; both must agree on what is
expensive, or one pass undoes the other's choice (an FFT's twiddle factors, kept
shared by fusion, were recomputed per row tile by tiling: ``cexp`` ran 128 times per
factor).
"""

from __future__ import annotations

from compiler.passes import expand_math

# math ops of about an instruction's cost; any other math op (exp, log, tanh, pow, ...)
# is worth a store and a load in the cache rather than a second evaluation
CHEAP_MATH = {
    "math.absf",
    "math.absi",
    "math.copysign",
    "math.fma",
    "math.sqrt",
    "math.floor",
    "math.ceil",
    "math.round",
    "math.roundeven",
    "math.trunc",
    "math.ctlz",
    "math.cttz",
    "math.ctpop",
}
# complex functions that convert-complex-to-libm makes C99 calls (clog, csqrt, ...);
# complex exp is a func.call of cexp already (complex_semantics)
COSTLY_COMPLEX = {
    "complex.exp",
    "complex.expm1",
    "complex.log",
    "complex.log1p",
    "complex.sqrt",
    "complex.rsqrt",
    "complex.sin",
    "complex.cos",
    "complex.tan",
    "complex.tanh",
    "complex.pow",
    "complex.angle",
}


def costly(op) -> bool:
    """Whether ``op`` (in a generic's body) costs more than a store and a load (a math
    function, a call)."""
    name = op.name
    return name == "func.call" or name in COSTLY_COMPLEX or (name.startswith("math.") and name not in CHEAP_MATH)


def library_call(op) -> bool:
    """Whether ``op`` becomes a call per element: costly and not written inline by
    ``ember-expand-math`` (float64 ``sin``, ``cexp``)."""
    return costly(op) and not expand_math.expandable(op)


def body_has(op, kind) -> bool:
    """Whether the body of ``op`` (a ``linalg.generic``) holds an op of ``kind``
    (``costly``, ``library_call``)."""
    return any(kind(o.operation) for o in op.regions[0].blocks[0].operations)
