"""Sources: how to fetch a traced value again from a call's arguments and globals.

Every value the tracer sees from outside the function carries a source. Guards are
expressions over sources, and the generated entry code reads the graph's inputs
through them. ``expr()`` is Python text evaluated in the generated function, where
the function's own parameters are plain local names, ``G`` is its globals dict and
``CELLS`` its closure cells; ``name()`` is the readable form used in logs
(``L['x']``, ``G['scale']``, ``L['cfg'].alpha``).
"""

from __future__ import annotations

from dataclasses import dataclass


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
        return f"G[{self.global_name!r}]"

    def name(self) -> str:
        return f"G[{self.global_name!r}]"


@dataclass(frozen=True)
class ClosureSource(Source):
    """The compiled function's closure (the tuple of cells): ``CELLS`` in generated code."""

    def expr(self) -> str:
        return "CELLS"

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
