"""Differential fuzzing of programs that do shape arithmetic, counting compiles.

Each program is called with random sizes under the default policy (static first,
automatic dynamic after a size changes). Every result must equal NumPy's, and once
the second trace has made the changing sizes symbolic, no new size retraces: the
sizes drawn keep every size-dependent guard (0/1 specialization, slice clamping)
on one side. ``EMBER_SOAK=N`` draws N sizes per program instead of 12.
"""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from compiler import compile

DRAWS = int(os.environ.get("EMBER_SOAK", "12"))


def _stencil(x):
    return x[1:-1] * 2 - x[:-2] - x[2:]


def _center(x):
    return x - x.mean(axis=0, keepdims=True) * x.shape[0] / (x.shape[0] + 1)


def _pairs(x):
    return x.reshape(-1, 2).sum(1) * len(x)


def _mirror(x):
    return np.concatenate([x, x[::-1]]) * x.shape[0]


def _half(x):
    n = x.shape[0] // 2
    return np.zeros(n) + x[:n] - x[-n:]


def _ramp(x):
    return np.arange(len(x)) * x + x.size


def _strided(x):
    return x[::2] + x[1::2].sum()


def _where(x):
    return np.where(x > 0.5, x, -x)[2:] @ x[:-2]


def _gram(a):
    return a @ a.T + a.shape[1]


def _outer(x, y):
    return x[:, None] * y[None, :] - y.mean()


PROGRAMS = [  # (function, (make inputs from a size), smallest size its guards keep uniform)
    (_stencil, lambda n, r: (r.random(n),)),
    (_center, lambda n, r: (r.random((n, 3)),)),
    (_pairs, lambda n, r: (r.random(2 * n),)),
    (_mirror, lambda n, r: (r.random(n),)),
    (_half, lambda n, r: (r.random(n),)),
    (_ramp, lambda n, r: (r.random(n),)),
    (_strided, lambda n, r: (r.random(2 * n),)),
    (_where, lambda n, r: (r.random(n),)),
    (_gram, lambda n, r: (r.random((n, 4)),)),
    (_outer, lambda n, r: (r.random(n), r.random(n + 3))),
]


@pytest.mark.parametrize("program, make", PROGRAMS, ids=[p.__name__.strip("_") for p, _ in PROGRAMS])
def test_shape_arithmetic_matches_numpy_and_stops_retracing(program, make):
    rng = np.random.default_rng(hash(program.__name__) % 2**32)
    draw = random.Random(program.__name__)
    fn = compile(program)
    sizes = [6, 9] + [draw.randint(6, 300) for _ in range(DRAWS)]
    for i, n in enumerate(sizes):
        args = make(n, rng)
        want = program(*args)
        got = fn(*args)
        np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-12, err_msg=f"{program.__name__}, size {n}")
        if i >= 1:
            assert len(fn.entries) == 2, f"{program.__name__} retraced at size {n}"
    assert all(e.graph_module is not None for e in fn.entries), [e.fallback_reason for e in fn.entries]
