"""Ember's exceptions: one definition per kind of failure, each naming where it happened.

Every message names the user's function, its ``file:line`` and the construct at
fault, so a user never has to read an MLIR or LLVM traceback. Exceptions raised by
the user's own code are not wrapped: they propagate unchanged.
"""

from __future__ import annotations

from dataclasses import dataclass

from runtime.errors import CudaError, EmberError, NoCudaDriver, NoGpuVisible  # noqa: F401


@dataclass(frozen=True)
class Location:
    function: str
    filename: str
    line: int | None

    def __str__(self) -> str:
        return f"{self.filename}:{self.line}" if self.line is not None else self.filename


class Unsupported(EmberError):
    """A construct the tracer cannot turn into a graph (the call then runs in CPython).

    ``reason`` says what, ``hint`` what the user can do, ``location`` where.
    """

    def __init__(self, reason: str, location: Location | None = None, hint: str = ""):
        self.reason, self.location, self.hint = reason, location, hint
        self.frames: list = []  # the translators it went through (a graph break resumes the root's)
        super().__init__(self.describe())

    def describe(self) -> str:
        where = f" in {self.location.function} at {self.location}" if self.location else ""
        hint = f" ({self.hint})" if self.hint else ""
        return f"{self.reason}{where}{hint}"

    def at(self, location: Location) -> "Unsupported":
        """The same failure, located (the innermost location wins)."""
        if self.location is None:
            self.location = location
            self.args = (self.describe(),)
        return self


class GraphBreakError(EmberError):
    """``fullgraph=True`` and the function cannot be captured as one graph."""

    def __init__(self, unsupported: Unsupported):
        self.reason, self.location, self.hint = unsupported.reason, unsupported.location, unsupported.hint
        where = f" in {self.location.function} at {self.location}" if self.location else ""
        # fullgraph runs nothing in CPython: a hint saying what CPython would do does not apply
        hint = f" ({self.hint})" if self.hint and "CPython" not in self.hint else ""
        super().__init__(f"graph break{where}: {self.reason}{hint} (fullgraph=True)")


class BackendError(EmberError):
    """A backend failed to compile a graph (with ``options={"strict": True}``)."""


class InvalidBackend(BackendError):
    """A custom backend broke its contract: ``backend(module, example_inputs)`` must return
    a callable running the graph. Raised when the graph is compiled, whatever ``strict``."""


class InvalidArgument(EmberError, TypeError):
    """``compile()`` or a compiled function was called with arguments it cannot take."""
