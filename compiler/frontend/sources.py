"""Sources: how to fetch a traced value again from a call's arguments and globals.

Every value the tracer sees from outside the function carries a source. Guards are
expressions over sources, and the generated entry code reads the graph's inputs
through them. ``expr()`` is Python text evaluated in the generated function, where
the function's own parameters are plain local names and every other name is the
generated code's own, spelled with ``RESERVED_PREFIX`` so that no parameter of the
user's can shadow it (``generated("G")`` is the function's globals dict,
``generated("CELLS")`` its closure cells, ``generated("type")`` the builtin);
``name()`` is the readable form used in logs (``L['x']``, ``G['scale']``,
``L['cfg'].alpha``).
"""

from __future__ import annotations

import builtins
import sys
from dataclasses import dataclass

# Every name the generated entry code binds or reads, other than the user's parameters,
# starts with this; a function with a parameter spelled so runs in CPython.
RESERVED_PREFIX = "__ember_"


def generated(name: str) -> str:
    """The generated code's name for ``name`` (a parameter ``G``, ``OUT`` or ``type`` is the user's)."""
    return RESERVED_PREFIX + name


def builtin_names() -> dict:
    """The builtins the generated code calls, under their generated names, and
    ``sys.modules`` (``generated("MODULES")``: where a module imported in the function is read)."""
    names = {
        generated(n): getattr(builtins, n)
        for n in ("type", "len", "tuple", "Exception", "float", "int", "bool", "max", "min")
    }
    names[generated("MODULES")] = sys.modules
    return names


class Source:
    def expr(self) -> str:
        raise NotImplementedError

    def name(self) -> str:
        raise NotImplementedError

    def __str__(self) -> str:
        return self.name()


@dataclass(frozen=True)
class LocalSource(Source):
    local: str

    def expr(self) -> str:
        return self.local

    def name(self) -> str:
        return f"L[{self.local!r}]"


@dataclass(frozen=True)
class GlobalSource(Source):
    global_name: str

    def expr(self) -> str:
        return f"{generated('G')}[{self.global_name!r}]"

    def name(self) -> str:
        return f"G[{self.global_name!r}]"


@dataclass(frozen=True)
class ModuleSource(Source):
    """A module the function imports itself (``import math``, ``from scipy.special import
    erf``): read again from ``sys.modules``, where the import left it."""

    module_name: str

    def expr(self) -> str:
        return f"{generated('MODULES')}[{self.module_name!r}]"

    def name(self) -> str:
        return f"sys.modules[{self.module_name!r}]"


@dataclass(frozen=True)
class ClosureSource(Source):
    """The compiled function's closure (the tuple of cells): ``generated("CELLS")`` in generated code."""

    def expr(self) -> str:
        return generated("CELLS")

    def name(self) -> str:
        return "closure"


@dataclass(frozen=True)
class AttrSource(Source):
    base: Source
    attr: str

    def expr(self) -> str:
        return f"{self.base.expr()}.{self.attr}"

    def name(self) -> str:
        return f"{self.base.name()}.{self.attr}"


@dataclass(frozen=True)
class ItemSource(Source):
    base: Source
    key: object  # an int or str (a constant key)

    def expr(self) -> str:
        return f"{self.base.expr()}[{self.key!r}]"

    def name(self) -> str:
        return f"{self.base.name()}[{self.key!r}]"
