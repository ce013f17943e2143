"""``compiler.explain(fn)(*args)``: what compiling ``fn`` for these arguments does.

The call traces and compiles once and runs once (so side effects happen once),
exactly as a first call of ``compile(fn)`` would, and reports the graphs, the breaks
with their reasons and locations, the ops per graph, the guards and the times.
"""

from __future__ import annotations

import types
from dataclasses import dataclass, field, replace

from compiler.frontend.convert_frame import convert
from compiler.frontend.entry_codegen import MISS
from compiler.frontend.eval_frame import CompiledFunction, Options


@dataclass(frozen=True)
class BreakReason:
    reason: str
    location: str  # file:line

    def __str__(self) -> str:
        return f"{self.reason} ({self.location})"


@dataclass
class ExplainOutput:
    graph_count: int
    graph_break_count: int
    break_reasons: list[BreakReason]
    ops_per_graph: list[int]
    guards: list[str]
    compile_times: dict = field(default_factory=dict)
    result: object = None

    def __str__(self) -> str:
        lines = [f"Graph count: {self.graph_count}", f"Graph break count: {self.graph_break_count}"]
        lines += ["Break reasons:"] + [f"  {i + 1}. {r}" for i, r in enumerate(self.break_reasons)]
        lines += ["Ops per graph:"] + [f"  graph {i}: {n} ops" for i, n in enumerate(self.ops_per_graph)]
        lines += ["Guards:"] + [f"  - {g}" for g in self.guards]
        lines += ["Compile times:"] + [f"  {k}: {v * 1e3:.1f} ms" for k, v in self.compile_times.items()]
        return "\n".join(lines)


def explain(fn, *, backend=None):
    """``fn``: a plain function, or what ``compile()`` returned (bound, for a compiled
    method). A compiled function is explained through the function it wraps, with its
    options -- backend (unless ``backend=`` is given), ``dynamic``, ``strict`` -- but not
    ``fullgraph``: a break is reported here where its call would raise GraphBreakError.
    Its own cache of compiled entries is left as it was."""
    fn, bound, options = _plain(fn)
    options = replace(options, fullgraph=False, backend=options.backend if backend is None else backend)

    def run(*args, **kwargs) -> ExplainOutput:
        args = bound + args  # a compiled method traces its function with self first, as its calls do
        entry = convert(fn, args, kwargs, options)
        result = entry.run(*args, **kwargs)
        if result is MISS:
            result = fn(*args, **kwargs)
        breaks = []
        if entry.fallback_reason is not None:
            reason = entry.fallback_reason
            breaks.append(
                BreakReason(reason.reason + (f" ({reason.hint})" if reason.hint else ""), str(reason.location))
            )
        graphs = 1 if entry.graph_module is not None else 0
        return ExplainOutput(
            graphs,
            len(breaks),
            breaks,
            [entry.op_count] * graphs,
            [g.text for g in entry.guards],
            dict(entry.compile_times),
            result,
        )

    return run


def _plain(fn) -> tuple:
    """The plain function behind ``fn``, the arguments bound before the caller's
    (``self`` of a compiled method) and the options it is compiled with."""
    if isinstance(fn, types.MethodType) and isinstance(fn.__func__, CompiledFunction):
        return fn.__func__.__wrapped__, (fn.__self__,), fn.__func__._options
    if isinstance(fn, CompiledFunction):
        return fn.__wrapped__, (), fn._options
    return fn, (), Options()
