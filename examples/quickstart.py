"""Ember quick start: compile a NumPy function, call it, look at what Ember did.

Run:  python examples/quickstart.py
"""

import numpy as np

import compiler
from compiler import compile


@compile
def mse(x, y):
    z = (x - y) ** 2
    return z.sum()


@compile
def softmax(x):
    e = np.exp(x - x.max(axis=1, keepdims=True))
    return e / e.sum(axis=1, keepdims=True)


x = np.linspace(0, 1, 1_000_000, dtype=np.float32)
y = np.ones_like(x)
print("mse     ember:", mse(x, y), " numpy:", ((x - y) ** 2).sum())

rows = np.random.default_rng(0).standard_normal((4, 5)).astype(np.float32)
assert np.allclose(softmax(rows), np.exp(rows) / np.exp(rows).sum(axis=1, keepdims=True), rtol=1e-5)
print("softmax ember matches numpy; rows sum to", softmax(rows).sum(axis=1))

# What happened: one graph, its guards and compile times (EMBER_LOGS=graph_code,guards,perf shows more).
print(compiler.explain(mse.__wrapped__)(x, y))
