"""np.einsum as transposes, broadcasts, matmuls and reductions (filled in by issue 12's einsum work)."""

from __future__ import annotations

# (keys, rule, Ember ops emitted, dtype rule) rows, as numpy_semantics reads them.
ROWS: list = []

# Array methods (``x.name(...)``) these rows serve.
METHODS: tuple = ()

# NumPy functions whose 0-d results are 0-d arrays, not NumPy scalars.
ARRAY_RESULTS: set = set()

# Rules that read symbolic ints themselves.
SYMBOLIC_INT_RULES: set = set()
