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
        _forget_runs(entry)
        result = entry.run(*args, **kwargs)
        if result is MISS:
            result = fn(*args, **kwargs)
        ran = _entries_run(entry)
        breaks = [_break_reason(e.graph_break or e.fallback_reason) for e in ran if e.graph_break or e.fallback_reason]
        graphs = [e for e in ran if e.graph_module is not None]
        times: dict = {}
        for e in ran:
            for k, t in e.compile_times.items():
                times[k] = times.get(k, 0.0) + t
        return ExplainOutput(
            len(graphs),
            len(breaks),
            breaks,
            [e.op_count for e in graphs],
            [g.text for e in ran for g in e.guards],
            times,
            result,
        )

    return run


def _forget_runs(entry, seen=None) -> None:
    """Clear ``last_entry`` of every resume function ``entry`` may reach (resume
    functions are shared with ``compile(fn)``'s entries, which may have run them)."""
    seen = set() if seen is None else seen
    for resume in entry.resumes:
        if id(resume) not in seen:
            seen.add(id(resume))
            resume.last_entry = None
            for e in resume.entries:
                _forget_runs(e, seen)


def _entries_run(entry) -> list:
    """``entry`` and, following its graph break, the entries its resume functions ran
    in this call (a jump's other branch has none)."""
    ran = [entry]
    for resume in entry.resumes:
        if resume.last_entry is not None:
            ran += _entries_run(resume.last_entry)
    return ran


def _break_reason(reason) -> BreakReason:
    return BreakReason(reason.reason + (f" ({reason.hint})" if reason.hint else ""), str(reason.location))


def _plain(fn) -> tuple:
    """The plain function behind ``fn``, the arguments bound before the caller's
    (``self`` of a compiled method) and the options it is compiled with."""
    if isinstance(fn, types.MethodType) and isinstance(fn.__func__, CompiledFunction):
        return fn.__func__.__wrapped__, (fn.__self__,), fn.__func__._options
    if isinstance(fn, CompiledFunction):
        return fn.__wrapped__, (), fn._options
    return fn, (), Options()
