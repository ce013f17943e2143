"""The hand-built Ember graphs of some workloads: a unit benchmark of the backend.

``python benchmarks/run.py --backend-unit`` times these through ``compile_graph``
instead of ``compiler.compile`` of the NumPy function, which is what users run and
what the default table measures. The graphs skip the frontend (tracing, guards),
so the two columns differ by what the frontend's graph does differently.
``test/python/test_worker_pool.py`` runs the layernorm graph on forked workers.

float32, shape-polymorphic in the leading (row) dimension and static in the
feature dimensions, as a traced function with automatic dynamic shapes would be.
"""

from __future__ import annotations

import numpy as np

from benchmarks.workloads import GELU_A, GELU_C, LN_EPS
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType

F32 = np.float32


def _scalar(b: FunctionBuilder, value: float, like) -> object:
    """``value`` as a float32 tensor of ``like``'s type (constant + broadcast_to)."""
    t = b.type_of(like)
    return b.op("broadcast_to", b.constant(F32(value)), result=t, sizes=b.dynamic_sizes(like, t))


def _bcast(b: FunctionBuilder, value, like) -> object:
    """``value`` (a vector, or a keepdims reduction) broadcast to ``like``'s type."""
    t = b.type_of(like)
    return b.op("broadcast_to", value, result=t, sizes=b.dynamic_sizes(like, t))


def vec(n=None):
    return TensorType((n,), "f32")


def mat(rows, cols):
    return TensorType((rows, cols), "f32")


def _linear(b, x, w, bias):
    y = b.op("matmul", x, w)
    return b.op("add", y, _bcast(b, bias, y))


def _relu(b, x):
    return b.op("maximum", x, _scalar(b, 0.0, x))


def chain_graph(**_):
    b = FunctionBuilder("chain", [vec(), vec()])
    x, bias = b.args
    t = b.op("add", b.op("mul", x, _scalar(b, 1.5, x)), bias)
    y = b.op("add", b.op("mul", b.op("tanh", t), _scalar(b, 0.5, x)), x)
    return b.finish([y])


def gelu_graph(**_):
    b = FunctionBuilder("gelu", [vec()])
    (x,) = b.args
    cube = b.op("mul", b.op("mul", x, x), x)
    inner = b.op("mul", _scalar(b, GELU_C, x), b.op("add", x, b.op("mul", _scalar(b, GELU_A, x), cube)))
    one_plus = b.op("add", _scalar(b, 1.0, x), b.op("tanh", inner))
    y = b.op("mul", b.op("mul", _scalar(b, 0.5, x), x), one_plus)
    return b.finish([y])


def softmax_graph(cols, **_):
    b = FunctionBuilder("softmax", [mat(None, cols)])
    (x,) = b.args
    m = _bcast(b, b.op("max", x, axes=(1,), keepdims=True), x)
    e = b.op("exp", b.op("sub", x, m))
    s = _bcast(b, b.op("sum", e, axes=(1,), keepdims=True), x)
    return b.finish([b.op("div", e, s)])


def layernorm_graph(cols, **_):
    b = FunctionBuilder("layernorm", [mat(None, cols), vec(cols), vec(cols)])
    x, gamma, beta = b.args
    mu = b.op("mean", x, axes=(1,), keepdims=True)
    xc = b.op("sub", x, _bcast(b, mu, x))
    var = b.op("mean", b.op("mul", xc, xc), axes=(1,), keepdims=True)
    std = b.op("sqrt", b.op("add", var, _scalar(b, LN_EPS, var)))
    y = b.op("div", xc, _bcast(b, std, x))
    y = b.op("add", b.op("mul", y, _bcast(b, gamma, x)), _bcast(b, beta, x))
    return b.finish([y])


def mse_graph(**_):
    b = FunctionBuilder("mse", [vec(), vec()])
    x, y = b.args
    d = b.op("sub", x, y)
    return b.finish([b.op("sum", b.op("mul", d, d), axes=(0,), keepdims=False)])


def matmul_graph(k, n, **_):
    b = FunctionBuilder("matmul_relu", [mat(None, k), mat(k, n), vec(n)])
    a, w, bias = b.args
    return b.finish([_relu(b, _linear(b, a, w, bias))])


def mlp_graph(d, h, **_):
    b = FunctionBuilder("mlp", [mat(None, d), mat(d, h), vec(h), mat(h, d), vec(d)])
    x, w1, b1, w2, b2 = b.args
    hidden = _relu(b, _linear(b, x, w1, b1))
    return b.finish([_linear(b, hidden, w2, b2)])


GRAPHS = {
    "chain": chain_graph,
    "gelu": gelu_graph,
    "softmax": softmax_graph,
    "layernorm": layernorm_graph,
    "mse": mse_graph,
    "matmul_relu": matmul_graph,
    "mlp": mlp_graph,
}
