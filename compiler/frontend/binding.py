"""Binding call arguments (trackers) to a code object's parameters, as CPython does.

Inlined calls bind here: positional, keyword, defaults, keyword-only, ``*args`` and
``**kwargs``; a call CPython would reject raises the same ``TypeError`` (as a
``UserError``: the call then runs in CPython and raises it for real).
"""

from __future__ import annotations

import inspect

import numpy as np

from compiler.errors import Unsupported
from compiler.frontend import variables as v


def bind_arguments(code, args, kwargs, defaults, kwdefaults) -> dict:
    """Bind trackers to a code object's parameters as CPython would."""
    nargs, nkw = code.co_argcount, code.co_kwonlyargcount
    names = code.co_varnames
    positional, kwonly = names[:nargs], names[nargs : nargs + nkw]
    has_varargs = bool(code.co_flags & inspect.CO_VARARGS)
    has_varkw = bool(code.co_flags & inspect.CO_VARKEYWORDS)
    bound: dict = {}
    for name, value in zip(positional, args):
        bound[name] = value
    extra = list(args[nargs:])
    if extra and not has_varargs:
        raise v.UserError(TypeError(f"{code.co_name}() takes {nargs} positional arguments but {len(args)} were given"))
    rest = {}
    for key, value in kwargs.items():
        if key in positional or key in kwonly:
            if key in bound:
                raise v.UserError(TypeError(f"{code.co_name}() got multiple values for argument {key!r}"))
            bound[key] = value
        elif has_varkw:
            rest[key] = value
        else:
            raise v.UserError(TypeError(f"{code.co_name}() got an unexpected keyword argument {key!r}"))
    for i, name in enumerate(positional):
        if name not in bound:
            j = i - (nargs - len(defaults))
            if j < 0:
                raise v.UserError(TypeError(f"{code.co_name}() missing required argument {name!r}"))
            bound[name] = v.wrap_constant(defaults[j]) if _plain(defaults[j]) else _default_tracker(defaults[j])
    for name in kwonly:
        if name not in bound:
            if name not in kwdefaults:
                raise v.UserError(TypeError(f"{code.co_name}() missing keyword-only argument {name!r}"))
            bound[name] = (
                v.wrap_constant(kwdefaults[name]) if _plain(kwdefaults[name]) else _default_tracker(kwdefaults[name])
            )
    index = nargs + nkw
    if has_varargs:
        bound[names[index]] = v.TupleVariable(extra)
        index += 1
    if has_varkw:
        bound[names[index]] = v.DictVariable(rest)
    return bound


def _plain(value) -> bool:
    return isinstance(value, (bool, int, float, str, type(None), tuple)) and not isinstance(value, np.ndarray)


def _default_tracker(value):
    if isinstance(value, v.VariableTracker):
        return value  # defaults of functions made inside the trace
    raise Unsupported(f"a default argument of type {type(value).__name__}")
