"""(filled in by issue 12's work)"""

from __future__ import annotations

# (keys, rule, Ember ops emitted, dtype rule), as numpy_semantics._ROWS.
ROWS: list = []

# Array methods this module answers (``x.name(...)`` with the array first).
METHODS: tuple = ()

# NumPy functions whose 0-d results are 0-d arrays, not NumPy scalars.
ARRAY_RESULTS: set = set()
