"""Turning values from outside the traced function into trackers, with their guards.

Arguments, globals, closure cells and attributes of user objects all enter the
trace here. Each kind of value gets the guard that makes the trace valid for it:
arrays their class/dtype/shape, constants their value, containers their length (and
their elements in turn), functions/modules/classes their identity, other objects
their type (their attributes are guarded when read).
"""

from __future__ import annotations

import builtins
import contextlib
import functools
import types

import numpy as np

from compiler.errors import Unsupported
from compiler.frontend import numpy_semantics
from compiler.frontend import variables as v
from compiler.frontend.builtin_calls import MATH_FUNCTIONS
from compiler.frontend.scalar_inputs import unspecialized
from compiler.frontend.sources import AttrSource, ItemSource, LocalSource, Source

SCALAR_TYPES = (bool, int, float, str, type(None), bytes, complex)
_BUILTIN_FUNCTIONS = {getattr(builtins, n) for n in dir(builtins) if callable(getattr(builtins, n))}


def is_numpy_callable(value) -> bool:
    module = getattr(value, "__module__", "") or ""
    return isinstance(value, np.ufunc) or (
        callable(value) and module.startswith("numpy") and not isinstance(value, type)
    )


def wrap(tx, value, source: Source) -> v.VariableTracker:
    g = tx.output.guards
    if isinstance(value, np.ndarray):
        if type(value) is not np.ndarray:
            # np.matrix, np.ma.MaskedArray, user subclasses: their operators, methods and
            # results are theirs, not ndarray's (the graph would hand back a plain ndarray).
            g.type_match(source, value)
            raise Unsupported(
                f"the ndarray subclass {type(value).__module__}.{type(value).__qualname__} ({source.name()})",
                hint="only exact numpy.ndarray arguments are compiled; subclasses run in CPython",
            )
        return tx.output.add_input(source, value)  # guarded there: which sizes are symbolic is its call
    if unspecialized(value) and isinstance(source, LocalSource):  # an argument, not a list's item
        g.type_match(source, value)
        return tx.output.add_scalar_input(source, value)
    if _dynamic_int(tx, value, source):
        g.type_match(source, value)
        return tx.output.symbolic_int(source, value)
    if isinstance(value, SCALAR_TYPES) or isinstance(value, np.generic):
        g.constant_match(source, value)
        return v.ConstantVariable(value, source)
    if type(value) in (tuple, list):
        g.length_match(source, value)
        items = [wrap(tx, item, ItemSource(source, i)) for i, item in enumerate(value)]
        cls = v.TupleVariable if type(value) is tuple else v.ListVariable
        return cls(items, source)
    if type(value) is dict:
        if not all(isinstance(k, (str, int)) for k in value):
            raise Unsupported("a dict whose keys are not all str or int")
        g.keys_match(source, value)
        return v.DictVariable({k: wrap(tx, item, ItemSource(source, k)) for k, item in value.items()}, source)
    return wrap_identity(tx, value, source)


def _dynamic_int(tx, value, source: Source) -> bool:
    """Whether an int argument is traced symbolically (``dynamic_policy.py``): ints of
    int64's range only (a larger one stays a constant, as NumPy reads it differently)."""
    return (
        type(value) is int
        and isinstance(source, LocalSource)
        and -(2**62) < value < 2**62
        and tx.output.policy.int_is_dynamic(source.name(), value)
    )


def wrap_identity(tx, value, source: Source | None) -> v.VariableTracker:
    """Values guarded by identity (or type, for plain objects)."""
    g = tx.output.guards
    if source is not None and not isinstance(value, (types.MethodType, functools.partial)):
        if isinstance(
            value, (types.FunctionType, types.ModuleType, type, np.ufunc, types.BuiltinFunctionType)
        ) or is_numpy_callable(value):
            g.id_match(source, value)
    if isinstance(value, types.FunctionType) and numpy_semantics.lookup(value) is None:
        # NumPy functions written in Python (np.eye, np.identity...) with a rule of their
        # own are called through it, not inlined: their bodies use what tracing cannot.
        return v.PythonFunctionVariable(value, source)
    if isinstance(value, (types.MethodType, functools.partial)) and source is None:
        raise Unsupported(f"a {type(value).__name__} reached without a source (its parts cannot be guarded)")
    if isinstance(value, types.MethodType):
        self_var = wrap(tx, value.__self__, AttrSource(source, "__self__"))
        fn = wrap_identity(tx, value.__func__, AttrSource(source, "__func__"))
        if isinstance(fn, v.PythonFunctionVariable):
            return v.PythonFunctionVariable(fn.fn, fn.source, self_var)
        return v.OpaqueCallableVariable(value, source)
    if isinstance(value, functools.partial):
        g.type_match(source, value)  # and which positional/keyword arguments it binds:
        g.length_match(AttrSource(source, "args"), value.args)
        g.keys_match(AttrSource(source, "keywords"), value.keywords)
        fn = wrap_identity(tx, value.func, AttrSource(source, "func"))
        args = [wrap(tx, a, ItemSource(AttrSource(source, "args"), i)) for i, a in enumerate(value.args)]
        kwargs = {k: wrap(tx, a, ItemSource(AttrSource(source, "keywords"), k)) for k, a in value.keywords.items()}
        return v.PartialVariable(fn, args, kwargs)
    if isinstance(value, types.ModuleType):
        return v.ModuleVariable(value, source)
    if value is np.errstate or value is contextlib.nullcontext:
        return v.InertContextFactory(value)
    if is_numpy_callable(value) or (isinstance(value, type) and issubclass(value, np.generic)):
        return v.NumpyCallableVariable(value)
    if isinstance(value, type):
        return v.ClassVariable(value, source)
    if isinstance(value, types.BuiltinFunctionType) and (value in _BUILTIN_FUNCTIONS or value in MATH_FUNCTIONS):
        return v.BuiltinVariable(value)
    if isinstance(value, types.BuiltinFunctionType):  # an unknown C function: calling it is a graph break
        return v.OpaqueCallableVariable(value, source)
    if source is None:
        raise Unsupported(f"a {type(value).__name__} object reached without a source")
    g.type_match(source, value)
    return v.UserObjectVariable(value, source)
