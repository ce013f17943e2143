"""Complex element types (``complex<f32>``, ``complex<f64>``): the dialect-level pieces.

NumPy's complex64/complex128 are Ember's element types ``complex<f32>``/``complex<f64>``
(``types.COMPLEX``); an element is ``{re, im}``, the layout of both NumPy and MLIR's
``complex`` type lowered to LLVM, so arrays cross the kernel ABI unchanged. This module
holds what the dialect needs besides the type rules (``ops.py``):

* why there are no complex constants: the MLIR bindings build a complex ``dense``
  attribute but cannot hand one back to Python (no buffer format for ``complex``, no
  Python class for the attribute), so an op carrying one could not even be verified;
  a complex constant is ``ember.complex`` of two real constants, its parts;
* the reference interpreter's impls of the complex ops (``complex real imag conj cabs
  reciprocal powi``), each the NumPy function a user's program calls.

How these ops become arith/math/libm code is ``passes/complex_semantics.py``.
"""

from __future__ import annotations

import numpy as np


def _complex(re, im, attrs):
    """``re + im * 1j`` with each part kept bit for bit (``-0.0``, NaN): set, not computed."""
    out = np.empty(np.broadcast_shapes(re.shape, im.shape), np.result_type(re.dtype, np.complex64))
    out.real, out.imag = re, im
    return out


def _powi(x, attrs):
    """``np.power`` by the integer ``n`` as a complex scalar: NumPy's small-integer path."""
    return np.power(x, x.dtype.type(attrs["n"]))


BINARY = {"complex": _complex}

# op name -> NumPy function of the complex operand and the op's attributes.
UNARY = {
    "real": lambda x, attrs: np.real(x),
    "imag": lambda x, attrs: np.imag(x),
    "conj": lambda x, attrs: np.conjugate(x),
    "cabs": lambda x, attrs: np.abs(x),
    "reciprocal": lambda x, attrs: np.reciprocal(x),  # NumPy's complex loop: 1 / x by Smith's ratio
    "powi": _powi,
}
