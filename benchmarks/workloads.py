"""The benchmark workloads: for each, a plain NumPy function and its inputs, and the
same computation for the other libraries where that function itself cannot run there.

The NumPy function is what both the NumPy and the Ember column run (Ember through
``compiler.compile``), so the table measures what a user gets. The JAX and torch
versions are the NumPy function itself where it uses only operators (``@``, ``*``,
``.T``, ``.sum()``: JAX and torch arrays implement them), and the same lines with
``jax.numpy`` / ``torch`` otherwise. Numba gets a hand-written ``prange`` kernel where
one is listed, else ``numba.njit`` of the NumPy function. Every other-library version
imports its library when called, so this module needs none of them.

``test/python/test_benchmarks_smoke.py`` checks Ember (and JAX and torch's library
ops, when installed) against NumPy at the tiny sizes, so this file cannot rot.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

import numpy as np

from benchmarks.inplace import jacobi, matvec_update

F32 = np.float32
GELU_C = 0.7978845608  # sqrt(2 / pi)
GELU_A = 0.044715
LN_EPS = 1e-5

# (rtol, atol as a fraction of the reference's largest magnitude) per result dtype: float32
# allows another summation order over 16M terms; float64 only rounding.
TOLERANCE = {np.dtype(np.float32): (1e-4, 1e-5), np.dtype(np.float64): (1e-9, 1e-12)}


# ----------------------------------------------------------------------------- the workload record


@dataclass
class Workload:
    name: str
    description: str
    sizes: dict  # size name -> int, for "full", "quick" and "tiny"
    make_inputs: Callable  # (rng, **sizes) -> tuple of arguments
    numpy: Callable  # the user's function: NumPy and Ember (compiler.compile) run it
    jax: Callable | None = None  # with jax.numpy, for jax.jit; None: ``numpy`` itself
    torch: Callable | None = None  # with torch, for torch.compile; None: ``numpy`` itself
    torch_ops: Callable | None = None  # torch's fused library op(s), eager; None: it has none
    numba: Callable | None = None  # () -> a hand-written kernel; None: numba.njit(numpy)
    streaming: bool = True  # memory bound: report Ember's bandwidth
    mutates: tuple = ()  # positions of the arguments the NumPy function writes in place

    def inputs(self, rng: np.random.Generator, scale: str):
        return self.make_inputs(rng, **self.sizes[scale])

    def fresh(self, args: tuple) -> tuple:
        """``args`` with a copy of each argument the function writes in place: a timing
        loop may then call it again and again without touching the inputs that every
        other column and check starts from."""
        return tuple(_copy(a) if i in self.mutates else a for i, a in enumerate(args))

    def outcome(self, fn, args: tuple, functional: bool = False) -> list:
        """What a call leaves that NumPy's must match: its results, then the arguments
        it writes in place (a call on fresh copies of them). A ``functional`` version
        (JAX's: its arrays are immutable) returns those arguments' new values after its
        results instead."""
        if functional or not self.mutates:
            return results(fn(*args))
        args = self.fresh(args)
        out = fn(*args)
        return ([] if out is None else results(out)) + [args[i] for i in self.mutates]

    def module(self, scale: str):
        """The hand-built Ember graph (``run.py --backend-unit``); KeyError if it has none."""
        from benchmarks.graphs import GRAPHS

        return GRAPHS[self.name](**self.sizes[scale])

    def bytes_moved(self, inputs, output) -> int:
        """Array inputs read once plus outputs written once."""
        arrays = [a for a in inputs if isinstance(a, np.ndarray)] + results(output)
        return sum(np.asarray(a).nbytes for a in arrays)


def _copy(a):
    """A copy of a NumPy array or torch tensor."""
    return a.clone() if hasattr(a, "clone") else a.copy()


def results(output) -> list:
    """A function's results as a list: one array, or the arrays of a returned tuple."""
    return list(output) if isinstance(output, (tuple, list)) else [output]


def check(got, want) -> tuple[bool, str]:
    """Does ``got`` agree with NumPy's ``want`` (dtypes, shapes, values)? (ok, description)."""
    gots, wants = results(got), results(want)
    if len(gots) != len(wants):
        return False, f"{len(gots)} results where NumPy has {len(wants)}"
    details = []
    for g, w in zip(gots, map(np.asarray, wants)):
        # Numba returns a scalar result as a Python float: its value is compared, not its type.
        g = np.asarray(g, w.dtype) if isinstance(g, float) else np.asarray(g)
        if g.dtype != w.dtype or g.shape != w.shape:
            return False, f"{g.dtype}{list(g.shape)} where NumPy has {w.dtype}{list(w.shape)}"
        rtol, atol = TOLERANCE[w.dtype]
        scale = float(np.max(np.abs(w))) if w.size else 0.0
        err = float(np.max(np.abs(g.astype(np.float64) - w))) if w.size else 0.0
        if not np.allclose(g, w, rtol=rtol, atol=atol * max(scale, 1.0)):
            return False, f"max abs error {err:.2e} (largest |value| {scale:.3g})"
        details.append(f"{err:.2e}")
    return True, f"max abs error {', '.join(details)}"


# ----------------------------------------------------------------------------- 1. chain


def chain_inputs(rng, n):
    return (rng.standard_normal(n, dtype=F32), rng.standard_normal(n, dtype=F32))


def chain_numpy(x, b):
    return np.tanh(x * 1.5 + b) * 0.5 + x


def chain_jax(x, b):
    import jax.numpy as jnp

    return jnp.tanh(x * 1.5 + b) * 0.5 + x


def chain_torch(x, b):
    import torch

    return torch.tanh(x * 1.5 + b) * 0.5 + x


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


# ----------------------------------------------------------------------------- 2. tanh-GELU


def gelu_inputs(rng, n):
    return (rng.standard_normal(n, dtype=F32),)


def gelu_numpy(x):
    return 0.5 * x * (1 + np.tanh(GELU_C * (x + GELU_A * x**3)))


def gelu_jax(x):
    import jax.numpy as jnp

    return 0.5 * x * (1 + jnp.tanh(GELU_C * (x + GELU_A * x**3)))


def gelu_torch(x):
    import torch

    return 0.5 * x * (1 + torch.tanh(GELU_C * (x + GELU_A * x**3)))


def gelu_torch_ops(x):
    import torch

    return torch.nn.functional.gelu(x, approximate="tanh")


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


# ----------------------------------------------------------------------------- 3. row softmax


def rows_inputs(rng, rows, cols):
    return (rng.standard_normal((rows, cols), dtype=F32),)


def softmax_numpy(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_jax(x):
    import jax.numpy as jnp

    e = jnp.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


def softmax_torch(x):
    import torch

    e = torch.exp(x - x.amax(dim=1, keepdim=True))
    return e / e.sum(dim=1, keepdim=True)


def softmax_torch_ops(x):
    import torch

    return torch.softmax(x, dim=1)


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


def layernorm_jax(x, gamma, beta):
    import jax.numpy as jnp

    mu = x.mean(axis=1, keepdims=True)
    xc = x - mu
    var = (xc * xc).mean(axis=1, keepdims=True)
    return xc / jnp.sqrt(var + LN_EPS) * gamma + beta


def layernorm_torch(x, gamma, beta):
    import torch

    mu = x.mean(dim=1, keepdim=True)
    xc = x - mu
    var = (xc * xc).mean(dim=1, keepdim=True)
    return xc / torch.sqrt(var + LN_EPS) * gamma + beta


def layernorm_torch_ops(x, gamma, beta):
    import torch

    return torch.nn.functional.layer_norm(x, x.shape[-1:], gamma, beta, LN_EPS)


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


# ----------------------------------------------------------------------------- 5. mse


def mse_inputs(rng, n):
    return (rng.standard_normal(n, dtype=F32), rng.standard_normal(n, dtype=F32))


def mse_numpy(x, y):
    return ((x - y) ** 2).sum()


def mse_torch_ops(x, y):
    import torch

    return torch.nn.functional.mse_loss(x, y, reduction="sum")


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


def matmul_jax(a, w, bias):
    import jax.numpy as jnp

    return jnp.maximum(a @ w + bias, 0)


def matmul_torch(a, w, bias):
    import torch

    return torch.relu(a @ w + bias)


def matmul_torch_ops(a, w, bias):
    import torch

    return torch.addmm(bias, a, w).relu_()


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


def mlp_jax(x, w1, b1, w2, b2):
    import jax.numpy as jnp

    return jnp.maximum(x @ w1 + b1, 0) @ w2 + b2


def mlp_torch(x, w1, b1, w2, b2):
    import torch

    return torch.relu(x @ w1 + b1) @ w2 + b2


def mlp_torch_ops(x, w1, b1, w2, b2):
    import torch

    return torch.addmm(b2, torch.addmm(b1, x, w1).relu_(), w2)


def mlp_numba():
    import numba

    linear = _numba_matmul_bias(numba)

    def mlp(x, w1, b1, w2, b2):
        return linear(linear(x, w1, b1, True), w2, b2, False)

    return mlp


# ----------------------------------------------------------------------------- 8.-13. matrix-vector, float64
# Memory bound: each reads A (160 MB at full size) once or twice. The functions use
# operators only, so JAX and torch.compile run them as they are.


def matvec_inputs(rng, m, n):
    return rng.standard_normal((m, n)), rng.standard_normal(n)


def matvec_numpy(A, x):
    return A @ x


def matvec_torch_ops(A, x):
    import torch

    return torch.mv(A, x)


def vecmat_inputs(rng, m, n):
    return rng.standard_normal(m), rng.standard_normal((m, n))


def vecmat_numpy(y, A):
    return y @ A


def vecmat_torch_ops(y, A):
    import torch

    return torch.mv(A.t(), y)


def matvec_t_inputs(rng, m, n):
    return rng.standard_normal((m, n)), rng.standard_normal(m)


def matvec_t_numpy(A, y):
    return A.T @ y


def matvec_t_torch_ops(A, y):
    import torch

    return torch.mv(A.t(), y)


def matvec_chain_numpy(A, x):
    return (A @ x) @ A


def matvec_chain_torch_ops(A, x):
    import torch

    return torch.mv(A.t(), torch.mv(A, x))


def bicg_inputs(rng, m, n):
    return rng.standard_normal((m, n)), rng.standard_normal(n), rng.standard_normal(m)


def bicg_numpy(A, p, r):
    """The two products of a BiCG step: one pass over A could serve both."""
    return r @ A, A @ p


def bicg_torch_ops(A, p, r):
    import torch

    return torch.mv(A.t(), r), torch.mv(A, p)


def gesummv_inputs(rng, m, n):
    return 1.5, 1.2, rng.standard_normal((m, n)), rng.standard_normal((m, n)), rng.standard_normal(n)


def gesummv_numpy(alpha, beta, A, B, x):
    """As written, Python reads ``alpha * A @ x`` as ``(alpha * A) @ x``: NumPy scales all of A."""
    return alpha * A @ x + beta * B @ x


def gesummv_torch_ops(alpha, beta, A, B, x):
    import torch

    return torch.addmv(torch.mv(B, x), A, x, beta=beta, alpha=alpha)


# ----------------------------------------------------------------------------- 14.-15. small and Gram matmuls, float64


def gram_inputs(rng, m, n):
    return (rng.standard_normal((m, n)),)


def gram_numpy(A):
    return A.T @ A


def gram_torch_ops(A):
    import torch

    return torch.mm(A.t(), A)


def dot_inputs(rng, n):
    return rng.standard_normal((n, n)), rng.standard_normal((n, n))


def dot_numpy(a, b):
    return np.dot(a, b)


def dot_jax(a, b):
    import jax.numpy as jnp

    return jnp.dot(a, b)


def dot_torch(a, b):
    import torch

    return torch.mm(a, b)


# ----------------------------------------------------------------------------- 16.-18. in place and loops
# The in-place programs of benchmarks/inplace.py (each writes into its arguments), and
# the loop over a diagonal: a Python loop as users write it.


def jacobi_inputs(rng, n):
    return rng.standard_normal((n, n)), rng.standard_normal((n, n)), JACOBI_STEPS


def jacobi_jax(a, b, steps):
    """The grids' new values, functionally: (result, the caller's a, the caller's b)."""
    grids, src, dst = [a, b], 0, 1
    for _ in range(steps):
        g = grids[src]
        five = g[1:-1, 1:-1] + g[:-2, 1:-1] + g[2:, 1:-1] + g[1:-1, :-2] + g[1:-1, 2:]
        grids[dst] = grids[dst].at[1:-1, 1:-1].set(0.2 * five)
        src, dst = dst, src
    return grids[src], grids[0], grids[1]


def matvec_update_inputs(rng, n):
    return tuple(rng.standard_normal(s) for s in [(n, n), n, n, n, n])


def matvec_update_jax(A, x1, x2, y1, y2):
    return x1 + A @ y1, x2 + A.T @ y2


def matvec_update_torch_ops(A, x1, x2, y1, y2):
    x1.addmv_(A, y1)
    x2.addmv_(A.t(), y2)


def diag_tanh_inputs(rng, n):
    return (rng.standard_normal((n, n)),)


def diag_tanh_numpy(a):
    trace = 0.0
    for i in range(a.shape[0]):
        trace += np.tanh(a[i, i])
    return a + trace


def diag_tanh_jax(a):
    import jax
    import jax.numpy as jnp

    return a + jax.lax.fori_loop(0, a.shape[0], lambda i, t: t + jnp.tanh(a[i, i]), 0.0)


def diag_tanh_torch(a):
    import torch

    return a + torch.tanh(torch.diagonal(a)).sum()


# ----------------------------------------------------------------------------- the list

N_FULL, N_QUICK, N_TINY = 1 << 24, 1 << 20, 1000
VECTOR_SIZES = {"full": {"n": N_FULL}, "quick": {"n": N_QUICK}, "tiny": {"n": N_TINY}}
ROWS_SIZES = {
    "full": {"rows": 4096, "cols": 1024},
    "quick": {"rows": 512, "cols": 1024},
    "tiny": {"rows": 13, "cols": 24},
}
JACOBI_STEPS = 10
MATVEC_SIZES = {"full": {"m": 4000, "n": 5000}, "quick": {"m": 800, "n": 1000}, "tiny": {"m": 7, "n": 9}}


def _matvec(name, description, inputs, numpy, torch_ops):
    """A float64 matrix-vector workload on ``MATVEC_SIZES``."""
    return Workload(name, description, MATVEC_SIZES, inputs, numpy, torch_ops=torch_ops)


WORKLOADS = [
    Workload(
        "chain",
        "tanh(x*1.5+b)*0.5+x",
        VECTOR_SIZES,
        chain_inputs,
        chain_numpy,
        jax=chain_jax,
        torch=chain_torch,
        numba=chain_numba,
    ),
    Workload(
        "gelu",
        "tanh-GELU",
        VECTOR_SIZES,
        gelu_inputs,
        gelu_numpy,
        jax=gelu_jax,
        torch=gelu_torch,
        torch_ops=gelu_torch_ops,
        numba=gelu_numba,
    ),
    Workload(
        "softmax",
        "row softmax",
        ROWS_SIZES,
        rows_inputs,
        softmax_numpy,
        jax=softmax_jax,
        torch=softmax_torch,
        torch_ops=softmax_torch_ops,
        numba=softmax_numba,
    ),
    Workload(
        "layernorm",
        "layernorm, last axis",
        ROWS_SIZES,
        layernorm_inputs,
        layernorm_numpy,
        jax=layernorm_jax,
        torch=layernorm_torch,
        torch_ops=layernorm_torch_ops,
        numba=layernorm_numba,
    ),
    Workload("mse", "((x-y)**2).sum()", VECTOR_SIZES, mse_inputs, mse_numpy, torch_ops=mse_torch_ops, numba=mse_numba),
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
        jax=matmul_jax,
        torch=matmul_torch,
        torch_ops=matmul_torch_ops,
        numba=matmul_numba,
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
        jax=mlp_jax,
        torch=mlp_torch,
        torch_ops=mlp_torch_ops,
        numba=mlp_numba,
        streaming=False,
    ),
    _matvec("matvec", "A @ x", matvec_inputs, matvec_numpy, matvec_torch_ops),
    _matvec("vecmat", "y @ A", vecmat_inputs, vecmat_numpy, vecmat_torch_ops),
    _matvec("matvec_t", "A.T @ y", matvec_t_inputs, matvec_t_numpy, matvec_t_torch_ops),
    _matvec("matvec_chain", "(A @ x) @ A", matvec_inputs, matvec_chain_numpy, matvec_chain_torch_ops),
    _matvec("bicg", "r @ A, A @ p", bicg_inputs, bicg_numpy, bicg_torch_ops),
    _matvec("gesummv", "alpha*A@x + beta*B@x", gesummv_inputs, gesummv_numpy, gesummv_torch_ops),
    Workload(
        "gram",
        "A.T @ A",
        {"full": {"m": 1000, "n": 800}, "quick": {"m": 300, "n": 240}, "tiny": {"m": 9, "n": 7}},
        gram_inputs,
        gram_numpy,
        torch_ops=gram_torch_ops,
        streaming=False,
    ),
    Workload(
        "dot64",
        "np.dot, 64x64",
        {"full": {"n": 64}, "quick": {"n": 64}, "tiny": {"n": 5}},
        dot_inputs,
        dot_numpy,
        jax=dot_jax,
        torch=dot_torch,
        torch_ops=dot_torch,
        streaming=False,
    ),
    Workload(
        "jacobi",
        "5-point stencil, 10 steps in place",
        {"full": {"n": 2000}, "quick": {"n": 400}, "tiny": {"n": 9}},
        jacobi_inputs,
        jacobi,
        jax=jacobi_jax,
        streaming=False,
        mutates=(0, 1),
    ),
    Workload(
        "matvec_update",
        "x1 += A @ y1; x2 += A.T @ y2",
        {"full": {"n": 4000}, "quick": {"n": 800}, "tiny": {"n": 7}},
        matvec_update_inputs,
        matvec_update,
        jax=matvec_update_jax,
        torch_ops=matvec_update_torch_ops,
        mutates=(1, 2),
    ),
    Workload(
        "diag_tanh",
        "loop: trace += tanh(a[i, i]); a + trace",
        {"full": {"n": 2000}, "quick": {"n": 500}, "tiny": {"n": 9}},
        diag_tanh_inputs,
        diag_tanh_numpy,
        jax=diag_tanh_jax,
        torch=diag_tanh_torch,
        torch_ops=diag_tanh_torch,
    ),
]
