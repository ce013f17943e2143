"""Write ``docs/numpy-reference.md``: the supported NumPy, generated from the table.

    python -m tools.numpy_reference            # rewrite the page
    python -m tools.numpy_reference --check    # exit 1 when the page and the table differ

One row per rule of ``compiler.frontend.numpy_semantics`` (its ``_ROWS``): how users
spell it (``np.`` functions, array methods, operators, attributes), the parameters the
rule takes (NumPy's own names and defaults: what keyword forms bind), the Ember ops it
emits and where its result dtype comes from. ``test/python/test_numpy_reference.py``
runs the check, so the page cannot drift from the code.
"""

from __future__ import annotations

import argparse
import inspect
import operator
import sys
from pathlib import Path

import numpy as np

from compiler.frontend.numpy_semantics import ufunc_method_name
from compiler.frontend.symbolic_convert import ARRAY_ATTRIBUTES

PAGE = Path(__file__).resolve().parent.parent / "docs" / "numpy-reference.md"

_HEADER = """# Supported NumPy (generated)

Generated from `compiler/frontend/numpy_semantics.py` by `python -m tools.numpy_reference`;
`test/python/test_numpy_reference.py` fails when this page and the table disagree. What a
rule does not model (an argument, a dtype, a shape that depends on data) runs in CPython:
the `graph_breaks` log and `compiler.explain` name it. `docs/numpy-semantics.md` explains the
rules; dtypes: bool, int8, int16, int32, int64, uint8, uint16, uint32, uint64, float16,
float32, float64, and complex64, complex128 where the `complex` column says so (others run
in CPython).

Columns: how it is spelled (`np.` functions, `x.` array methods and attributes, Python
operators); the parameters the rule binds, with NumPy's defaults (`...`: a default that
means "not given"); the Ember ops it emits; where the result dtype comes from (`ufunc`:
NumPy's own loop resolution; `result_type`; `reduce`: NumPy's reduction dtypes; `same`:
the input's; `given`: the `dtype=` argument); whether complex arrays compile (`yes`) or
run in CPython (`-`); the rule's own note.

| spelled | parameters | Ember ops | dtype | complex | notes |
|---|---|---|---|---|---|
"""

_OPERATOR_TEXT = {
    operator.add: "+",
    operator.sub: "-",
    operator.mul: "*",
    operator.truediv: "/",
    operator.floordiv: "//",
    operator.mod: "%",
    operator.pow: "**",
    operator.matmul: "@",
    operator.and_: "&",
    operator.or_: "|",
    operator.xor: "^",
    operator.lshift: "<<",
    operator.rshift: ">>",
    operator.lt: "<",
    operator.le: "<=",
    operator.gt: ">",
    operator.ge: ">=",
    operator.eq: "==",
    operator.ne: "!=",
    operator.neg: "-x",
    operator.pos: "+x",
    operator.invert: "~x",
    operator.inv: "~x",
    operator.abs: "abs(x)",
    operator.getitem: "x[...]",
    abs: "abs(x)",
    pow: "pow(x, y)",
    max: "max(a, b, ...)",
    min: "min(a, b, ...)",
}


def _spelled(keys, methods: set) -> str:
    names = []
    for key in keys:
        if isinstance(key, str):
            if key in methods:
                names.append(f"`x.{key}()`")
            elif key in ARRAY_ATTRIBUTES:
                names.append(f"`x.{key}`")
            continue  # an operator's internal name: its operator function is listed too
        text = _OPERATOR_TEXT.get(key)
        if text is not None:
            names.append(f"`{text}`")
        elif isinstance(key, type) and issubclass(key, np.generic):
            names.append(f"`np.{key.__name__}`")
        elif (method := ufunc_method_name(key)) is not None:
            names.append(f"`{method}`")
        else:
            module = getattr(key, "__module__", None) or "numpy"
            prefix = "np.linalg." if module.startswith("numpy.linalg") else "np."
            names.append(f"`{prefix}{getattr(key, '__name__', repr(key))}`")
    return ", ".join(dict.fromkeys(names)) or "-"


def _parameters(rule, keys) -> str:
    ufunc = next((k for k in keys if isinstance(k, np.ufunc)), None)
    try:
        params = list(inspect.signature(rule).parameters.values())[1:]  # the emitter first
    except (TypeError, ValueError):
        return "-"
    if ufunc is not None and [p.kind for p in params] == [
        inspect.Parameter.VAR_POSITIONAL,
        inspect.Parameter.VAR_KEYWORD,
    ]:
        operands = ", ".join(f"x{i + 1}" for i in range(ufunc.nin))
        return f"`{operands}` (a ufunc's `out=`, `where=`, `dtype=`: CPython)"
    parts = []
    for p in params:
        if p.kind is p.VAR_POSITIONAL:
            parts.append(f"*{p.name}")
        elif p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
        elif p.default is p.empty:
            parts.append(p.name)
        elif p.default is np._NoValue:
            parts.append(f"{p.name}=...")
        else:
            parts.append(f"{p.name}={p.default!r}")
    return f"`{', '.join(parts)}`" if parts else "-"


def _note(rule) -> str:
    """The first sentence of the rule's docstring (``-`` for rules without one)."""
    doc = rule.__doc__ if inspect.isfunction(rule) else None
    if not doc:
        return "-"
    paragraph = " ".join(inspect.cleandoc(doc).split("\n\n")[0].split())
    sentence = paragraph.split(". ")[0].rstrip(".")
    return sentence.replace("``", "`") + "."


def _complex(keys) -> str:
    """``yes`` where complex operands compile (``numpy_complex``'s lists), else ``-``."""
    from compiler.frontend.numpy_complex import COMPLEX_FUNCTIONS, COMPLEX_UFUNCS

    def listed(key):
        try:
            return key in COMPLEX_FUNCTIONS or key in COMPLEX_UFUNCS
        except TypeError:  # an unhashable key
            return False

    return "yes" if any(listed(k) for k in keys) else "-"


def _cell(text: str) -> str:
    """Text for a table cell: a ``|`` (an operator, an alternative) escaped."""
    return text.replace("|", "\\|")


def render() -> str:
    from compiler.frontend import numpy_semantics as ns

    methods = set(ns.ARRAY_METHODS)
    rows = [
        f"| {_cell(_spelled(keys, methods))} | {_cell(_parameters(rule, keys))} | {_cell(ops)} | {_cell(dtypes)} "
        f"| {_complex(keys)} | {_cell(_note(rule))} |"
        for keys, rule, ops, dtypes in ns._ROWS
    ]
    return _HEADER + "\n".join(rows) + "\n"


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--check", action="store_true", help="exit 1 when the page is not the table's")
    args = parser.parse_args(argv)
    text = render()
    if args.check:
        if not PAGE.exists() or PAGE.read_text() != text:
            print(f"{PAGE} differs from the table: run python -m tools.numpy_reference", file=sys.stderr)
            return 1
        return 0
    PAGE.write_text(text)
    print(f"wrote {PAGE} ({text.count(chr(10)) - _HEADER.count(chr(10))} rows)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
