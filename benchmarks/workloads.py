"""The benchmark workloads: for each, the inputs, the NumPy reference, a NumPy
version with preallocated ``out=`` buffers, the Ember graph, and (built only when
asked, so neither is needed to import this module) the Numba and torch versions.

Everything is float32. Ember graphs are shape-polymorphic in the leading (row)
dimension, as a user's function traced by the frontend would be, and static in the
feature dimensions. ``test/python/test_benchmarks_smoke.py`` checks every Ember
graph against its NumPy reference at tiny sizes, so this file cannot rot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType

F32 = np.float32
GELU_C = 0.7978845608  # sqrt(2 / pi)
GELU_A = 0.044715
LN_EPS = 1e-5


# ----------------------------------------------------------------------------- graph helpers


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


# ----------------------------------------------------------------------------- the workload record


@dataclass
class Workload:
    name: str
    description: str
    sizes: dict  # size name -> int, for "full", "quick" and "tiny"
    make_inputs: Callable  # (rng, **sizes) -> tuple of arrays
    numpy: Callable  # (*inputs) -> array: the reference
    numpy_out: Callable  # (*inputs) -> callable(*inputs) -> array, using preallocated buffers
    graph: Callable  # (**sizes) -> ir.Module
    numba: Callable  # () -> jitted function (*inputs) -> array; imports numba
    torch: Callable  # (*tensors) -> tensor, to be torch.compile'd
    streaming: bool = True  # memory bound: report bandwidth
    reduction_to_scalar: bool = False  # compared by relative error, not allclose

    def inputs(self, rng: np.random.Generator, scale: str):
        return self.make_inputs(rng, **self.sizes[scale])

    def module(self, scale: str):
        """The Ember graph (dynamic rows; static feature sizes of ``scale``)."""
        return self.graph(**self.sizes[scale])

    def bytes_moved(self, inputs, output) -> int:
        """Inputs read once plus outputs written once."""
        return sum(a.nbytes for a in inputs) + np.asarray(output).nbytes


def check(workload: Workload, got, want) -> tuple[bool, str]:
    """Does ``got`` agree with the NumPy reference ``want``? (ok, description)."""
    got = np.asarray(got)
    want = np.asarray(want)
    if got.shape != want.shape:
        return False, f"shape {got.shape} != {want.shape}"
    if workload.reduction_to_scalar:
        g, w = float(got), float(want)
        rel = abs(g - w) / max(abs(w), 1e-30)
        return rel <= 1e-4, f"relative error {rel:.2e}"
    ok = bool(np.allclose(got, want, rtol=1e-4, atol=1e-5))
    err = float(np.max(np.abs(got.astype(np.float64) - want))) if got.size else 0.0
    return ok, f"max abs error {err:.2e}"


# ----------------------------------------------------------------------------- 1. chain


def chain_inputs(rng, n):
    return (rng.standard_normal(n, dtype=F32), rng.standard_normal(n, dtype=F32))


def chain_numpy(x, b):
    return np.tanh(x * 1.5 + b) * 0.5 + x


def chain_numpy_out(x, b):
    out = np.empty_like(x)

    def run(x, b):
        np.multiply(x, 1.5, out=out)
        np.add(out, b, out=out)
        np.tanh(out, out=out)
        np.multiply(out, 0.5, out=out)
        np.add(out, x, out=out)
        return out

    return run


def chain_graph(**_):
    b = FunctionBuilder("chain", [vec(), vec()])
    x, bias = b.args
    t = b.op("add", b.op("mul", x, _scalar(b, 1.5, x)), bias)
    y = b.op("add", b.op("mul", b.op("tanh", t), _scalar(b, 0.5, x)), x)
    return b.finish([y])


def chain_numba():
    import numba

    c15, c05 = F32(1.5), F32(0.5)

    @numba.njit(parallel=True)
    def chain(x, b):
        out = np.empty_like(x)
        for i in numba.prange(x.shape[0]):
            out[i] = np.tanh(x[i] * c15 + b[i]) * c05 + x[i]
        return out

    return chain


def chain_torch(x, b):
    import torch

    return torch.tanh(x * 1.5 + b) * 0.5 + x


# ----------------------------------------------------------------------------- 2. tanh-GELU


def gelu_inputs(rng, n):
    return (rng.standard_normal(n, dtype=F32),)


def gelu_numpy(x):
    return 0.5 * x * (1 + np.tanh(GELU_C * (x + GELU_A * x**3)))


def gelu_numpy_out(x):
    out = np.empty_like(x)

    def run(x):
        np.multiply(x, x, out=out)
        np.multiply(out, x, out=out)
        np.multiply(out, GELU_A, out=out)
        np.add(out, x, out=out)
        np.multiply(out, GELU_C, out=out)
        np.tanh(out, out=out)
        np.add(out, 1, out=out)
        np.multiply(out, x, out=out)
        np.multiply(out, 0.5, out=out)
        return out

    return run


def gelu_graph(**_):
    b = FunctionBuilder("gelu", [vec()])
    (x,) = b.args
    cube = b.op("mul", b.op("mul", x, x), x)
    inner = b.op("mul", _scalar(b, GELU_C, x), b.op("add", x, b.op("mul", _scalar(b, GELU_A, x), cube)))
    one_plus = b.op("add", _scalar(b, 1.0, x), b.op("tanh", inner))
    y = b.op("mul", b.op("mul", _scalar(b, 0.5, x), x), one_plus)
    return b.finish([y])


def gelu_numba():
    import numba

    half, one, c, a = F32(0.5), F32(1.0), F32(GELU_C), F32(GELU_A)

    @numba.njit(parallel=True)
    def gelu(x):
        out = np.empty_like(x)
        for i in numba.prange(x.shape[0]):
            v = x[i]
            out[i] = half * v * (one + np.tanh(c * (v + a * v * v * v)))
        return out

    return gelu


def gelu_torch(x):
    import torch

    return 0.5 * x * (1 + torch.tanh(GELU_C * (x + GELU_A * x**3)))


# ----------------------------------------------------------------------------- 3. row softmax


def rows_inputs(rng, rows, cols):
    return (rng.standard_normal((rows, cols), dtype=F32),)


def softmax_numpy(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_numpy_out(x):
    out = np.empty_like(x)
    red = np.empty((x.shape[0], 1), x.dtype)

    def run(x):
        np.max(x, axis=1, keepdims=True, out=red)
        np.subtract(x, red, out=out)
        np.exp(out, out=out)
        np.sum(out, axis=1, keepdims=True, out=red)
        np.divide(out, red, out=out)
        return out

    return run


def softmax_graph(cols, **_):
    b = FunctionBuilder("softmax", [mat(None, cols)])
    (x,) = b.args
    m = _bcast(b, b.op("max", x, axes=(1,), keepdims=True), x)
    e = b.op("exp", b.op("sub", x, m))
    s = _bcast(b, b.op("sum", e, axes=(1,), keepdims=True), x)
    return b.finish([b.op("div", e, s)])


def softmax_numba():
    import numba

    @numba.njit(parallel=True)
    def softmax(x):
        rows, cols = x.shape
        out = np.empty_like(x)
        for i in numba.prange(rows):
            m = x[i, 0]
            for j in range(1, cols):
                m = max(m, x[i, j])
            s = F32(0.0)
            for j in range(cols):
                e = np.exp(x[i, j] - m)
                out[i, j] = e
                s += e
            for j in range(cols):
                out[i, j] = out[i, j] / s
        return out

    return softmax


def softmax_torch(x):
    import torch

    e = torch.exp(x - x.amax(dim=1, keepdim=True))
    return e / e.sum(dim=1, keepdim=True)


# ----------------------------------------------------------------------------- 4. layernorm


def layernorm_inputs(rng, rows, cols):
    return (
        rng.standard_normal((rows, cols), dtype=F32),
        rng.standard_normal(cols, dtype=F32),
        rng.standard_normal(cols, dtype=F32),
    )


def layernorm_numpy(x, gamma, beta):
    mu = x.mean(axis=1, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(axis=1, keepdims=True)
    return xc / np.sqrt(var + LN_EPS) * gamma + beta


def layernorm_numpy_out(x, gamma, beta):
    out = np.empty_like(x)
    tmp = np.empty_like(x)
    red = np.empty((x.shape[0], 1), x.dtype)

    def run(x, gamma, beta):
        np.mean(x, axis=1, keepdims=True, out=red)
        np.subtract(x, red, out=out)
        np.multiply(out, out, out=tmp)
        np.mean(tmp, axis=1, keepdims=True, out=red)
        np.add(red, LN_EPS, out=red)
        np.sqrt(red, out=red)
        np.divide(out, red, out=out)
        np.multiply(out, gamma, out=out)
        np.add(out, beta, out=out)
        return out

    return run


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


def layernorm_numba():
    import numba

    eps = F32(LN_EPS)

    @numba.njit(parallel=True)
    def layernorm(x, gamma, beta):
        rows, cols = x.shape
        out = np.empty_like(x)
        for i in numba.prange(rows):
            s = F32(0.0)
            for j in range(cols):
                s += x[i, j]
            mu = s / F32(cols)
            v = F32(0.0)
            for j in range(cols):
                d = x[i, j] - mu
                v += d * d
            inv = F32(1.0) / np.sqrt(v / F32(cols) + eps)
            for j in range(cols):
                out[i, j] = (x[i, j] - mu) * inv * gamma[j] + beta[j]
        return out

    return layernorm


def layernorm_torch(x, gamma, beta):
    import torch

    mu = x.mean(dim=1, keepdim=True)
    xc = x - mu
    var = (xc * xc).mean(dim=1, keepdim=True)
    return xc / torch.sqrt(var + LN_EPS) * gamma + beta


# ----------------------------------------------------------------------------- 5. mse


def mse_inputs(rng, n):
    return (rng.standard_normal(n, dtype=F32), rng.standard_normal(n, dtype=F32))


def mse_numpy(x, y):
    return ((x - y) ** 2).sum()


def mse_numpy_out(x, y):
    tmp = np.empty_like(x)

    def run(x, y):
        np.subtract(x, y, out=tmp)
        np.multiply(tmp, tmp, out=tmp)
        return tmp.sum()

    return run


def mse_graph(**_):
    b = FunctionBuilder("mse", [vec(), vec()])
    x, y = b.args
    d = b.op("sub", x, y)
    return b.finish([b.op("sum", b.op("mul", d, d), axes=(0,), keepdims=False)])


def mse_numba():
    import numba

    @numba.njit(parallel=True)
    def mse(x, y):
        s = 0.0  # float64 accumulator: a float32 one drifts past 1e-4 over 16M terms
        for i in numba.prange(x.shape[0]):
            d = x[i] - y[i]
            s += d * d
        return np.float32(s)

    return mse


def mse_torch(x, y):
    return ((x - y) ** 2).sum()


# ----------------------------------------------------------------------------- 6. relu(A @ B + bias)


def matmul_inputs(rng, m, k, n):
    # Weights scaled by 1/sqrt(k), as initialised in practice: outputs of order 1, where
    # rtol 1e-4 / atol 1e-5 separate a wrong answer from another summation order (with
    # unscaled N(0, 1) weights the outputs are ~32 and the order alone moves them 2e-4).
    return (
        rng.standard_normal((m, k), dtype=F32),
        rng.standard_normal((k, n), dtype=F32) * F32(1 / np.sqrt(k)),
        rng.standard_normal(n, dtype=F32),
    )


def matmul_numpy(a, w, bias):
    return np.maximum(a @ w + bias, 0)


def matmul_numpy_out(a, w, bias):
    out = np.empty((a.shape[0], w.shape[1]), a.dtype)

    def run(a, w, bias):
        np.matmul(a, w, out=out)
        np.add(out, bias, out=out)
        np.maximum(out, 0, out=out)
        return out

    return run


def _linear(b, x, w, bias):
    y = b.op("matmul", x, w)
    return b.op("add", y, _bcast(b, bias, y))


def _relu(b, x):
    return b.op("maximum", x, _scalar(b, 0.0, x))


def matmul_graph(k, n, **_):
    b = FunctionBuilder("matmul_relu", [mat(None, k), mat(k, n), vec(n)])
    a, w, bias = b.args
    return b.finish([_relu(b, _linear(b, a, w, bias))])


def _numba_matmul_bias(numba):
    """``x @ w + bias`` as a user writes it in Numba: rows in parallel, i-k-j order."""

    @numba.njit(parallel=True)
    def linear(x, w, bias, relu):
        m, k = x.shape
        n = w.shape[1]
        out = np.empty((m, n), x.dtype)
        for i in numba.prange(m):
            for j in range(n):
                out[i, j] = bias[j]
            for p in range(k):
                xv = x[i, p]
                for j in range(n):
                    out[i, j] += xv * w[p, j]
            if relu:
                for j in range(n):
                    out[i, j] = max(out[i, j], F32(0.0))
        return out

    return linear


def matmul_numba():
    import numba

    linear = _numba_matmul_bias(numba)

    def matmul_relu(a, w, bias):
        return linear(a, w, bias, True)

    return matmul_relu


def matmul_torch(a, w, bias):
    import torch

    return torch.relu(a @ w + bias)


# ----------------------------------------------------------------------------- 7. 2-layer MLP


def mlp_inputs(rng, m, d, h):
    scale = F32(1 / np.sqrt(d))
    return (
        rng.standard_normal((m, d), dtype=F32),
        rng.standard_normal((d, h), dtype=F32) * scale,
        rng.standard_normal(h, dtype=F32),
        rng.standard_normal((h, d), dtype=F32) * F32(1 / np.sqrt(h)),
        rng.standard_normal(d, dtype=F32),
    )


def mlp_numpy(x, w1, b1, w2, b2):
    return np.maximum(x @ w1 + b1, 0) @ w2 + b2


def mlp_numpy_out(x, w1, b1, w2, b2):
    hidden = np.empty((x.shape[0], w1.shape[1]), x.dtype)
    out = np.empty((x.shape[0], w2.shape[1]), x.dtype)

    def run(x, w1, b1, w2, b2):
        np.matmul(x, w1, out=hidden)
        np.add(hidden, b1, out=hidden)
        np.maximum(hidden, 0, out=hidden)
        np.matmul(hidden, w2, out=out)
        np.add(out, b2, out=out)
        return out

    return run


def mlp_graph(d, h, **_):
    b = FunctionBuilder("mlp", [mat(None, d), mat(d, h), vec(h), mat(h, d), vec(d)])
    x, w1, b1, w2, b2 = b.args
    hidden = _relu(b, _linear(b, x, w1, b1))
    return b.finish([_linear(b, hidden, w2, b2)])


def mlp_numba():
    import numba

    linear = _numba_matmul_bias(numba)

    def mlp(x, w1, b1, w2, b2):
        return linear(linear(x, w1, b1, True), w2, b2, False)

    return mlp


def mlp_torch(x, w1, b1, w2, b2):
    import torch

    return torch.relu(x @ w1 + b1) @ w2 + b2


# ----------------------------------------------------------------------------- the list

N_FULL, N_QUICK, N_TINY = 1 << 24, 1 << 20, 1000

WORKLOADS = [
    Workload(
        "chain",
        "tanh(x*1.5+b)*0.5+x",
        {"full": {"n": N_FULL}, "quick": {"n": N_QUICK}, "tiny": {"n": N_TINY}},
        chain_inputs,
        chain_numpy,
        chain_numpy_out,
        chain_graph,
        chain_numba,
        chain_torch,
    ),
    Workload(
        "gelu",
        "tanh-GELU",
        {"full": {"n": N_FULL}, "quick": {"n": N_QUICK}, "tiny": {"n": N_TINY}},
        gelu_inputs,
        gelu_numpy,
        gelu_numpy_out,
        gelu_graph,
        gelu_numba,
        gelu_torch,
    ),
    Workload(
        "softmax",
        "row softmax",
        {"full": {"rows": 4096, "cols": 1024}, "quick": {"rows": 512, "cols": 1024}, "tiny": {"rows": 13, "cols": 24}},
        rows_inputs,
        softmax_numpy,
        softmax_numpy_out,
        softmax_graph,
        softmax_numba,
        softmax_torch,
    ),
    Workload(
        "layernorm",
        "layernorm, last axis",
        {"full": {"rows": 4096, "cols": 1024}, "quick": {"rows": 512, "cols": 1024}, "tiny": {"rows": 13, "cols": 24}},
        layernorm_inputs,
        layernorm_numpy,
        layernorm_numpy_out,
        layernorm_graph,
        layernorm_numba,
        layernorm_torch,
    ),
    Workload(
        "mse",
        "((x-y)**2).sum()",
        {"full": {"n": N_FULL}, "quick": {"n": N_QUICK}, "tiny": {"n": N_TINY}},
        mse_inputs,
        mse_numpy,
        mse_numpy_out,
        mse_graph,
        mse_numba,
        mse_torch,
        reduction_to_scalar=True,
    ),
    Workload(
        "matmul_relu",
        "relu(A@B+bias)",
        {
            "full": {"m": 1024, "k": 1024, "n": 1024},
            "quick": {"m": 256, "k": 256, "n": 256},
            "tiny": {"m": 9, "k": 16, "n": 12},
        },
        matmul_inputs,
        matmul_numpy,
        matmul_numpy_out,
        matmul_graph,
        matmul_numba,
        matmul_torch,
        streaming=False,
    ),
    Workload(
        "mlp",
        "relu(x@W1+b1)@W2+b2",
        {
            "full": {"m": 256, "d": 512, "h": 2048},
            "quick": {"m": 64, "d": 128, "h": 512},
            "tiny": {"m": 7, "d": 16, "h": 32},
        },
        mlp_inputs,
        mlp_numpy,
        mlp_numpy_out,
        mlp_graph,
        mlp_numba,
        mlp_torch,
        streaming=False,
    ),
]

BY_NAME = {w.name: w for w in WORKLOADS}
