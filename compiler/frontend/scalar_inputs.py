"""Unspecialized scalars: a float argument as a graph input, not a constant.

A learning rate or a scale that changes on every call would otherwise be guarded by
its value (``L['lr'] == 0.01``) and recompile each time — then, past the recompile
limit, run in CPython. Like JAX's weakly typed traced scalars and TorchDynamo's
unspecialized floats, a Python ``float`` argument (and a NumPy floating scalar, such
as a value computed before a graph break) becomes a 0-d ``float64`` graph input
guarded by its type only; the entry hands it to the kernel as a 0-d array.

It keeps NumPy's promotion: a Python float is *weak* (``float32_array * lr`` stays
float32, NEP 50), a NumPy scalar strong. Arithmetic between such scalars that
Python and NumPy compute alike (``+ - *``, negation) stays in the graph, and its
result is still a weak scalar (returned to the caller as a Python ``float``).
Anything that needs the value in Python — a comparison, a branch, a shape, a
division (Python raises on zero where NumPy gives inf), a method — specializes it:
the value is guarded and used as a constant, as before.
"""

from __future__ import annotations

import numpy as np

from compiler.frontend import variables as v

# Operators whose result Python and NumPy agree on for floats (bit for bit).
EXACT_OPERATORS = ("+", "-", "*")


def unspecialized(value) -> bool:
    """Whether an argument of this value becomes a scalar graph input (an argument of
    the function only: floats in lists, globals and closures stay constants, since
    NumPy reads a list of them as an array literal)."""
    return type(value) is float or isinstance(value, (np.float32, np.float64))


def weak_dtype(value) -> np.dtype:
    return np.dtype(np.float64) if type(value) is float else value.dtype


class ScalarVariable(v.TensorVariable):
    """A number traced as a 0-d graph value: a float argument (``inputs`` is itself) or
    exact arithmetic on such arguments (``inputs``: the arguments it was computed
    from). ``value`` is its value in this trace; using it in Python specializes every
    argument it came from."""

    def __init__(self, tensor, source, value, inputs=None, guards=None):
        super().__init__(tensor, source)
        self.value = value
        self.inputs = (self,) if inputs is None else tuple(inputs)
        self.guards = guards

    def python_type(self):
        return type(self.value)

    def specialize(self) -> v.ConstantVariable:
        """The value as a constant, its arguments guarded by value from now on."""
        for arg in self.inputs:
            arg.pin()
        return v.ConstantVariable(self.value, self.source if self.inputs == (self,) else None)

    def pin(self) -> None:
        """Guard this argument by its value (what specializing a value computed from it needs)."""
        self.guards.constant_match(self.source, self.value)

    def is_constant(self) -> bool:
        return False

    def as_constant(self):
        return self.specialize().value

    def truth(self, tx) -> bool:
        return bool(self.as_constant())

    def getattr(self, tx, name):
        return self.specialize().getattr(tx, name)

    def iterate(self, tx):
        return self.specialize().iterate(tx)


def is_array(tracker) -> bool:
    """A traced array proper, not a number standing in for a Python or NumPy scalar."""
    return isinstance(tracker, v.TensorVariable) and not isinstance(tracker, ScalarVariable)
