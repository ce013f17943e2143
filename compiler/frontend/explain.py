"""``compiler.explain(fn)(*args)``: what compiling ``fn`` for these arguments does.

The call traces and compiles once and runs once (so side effects happen once),
exactly as a first call of ``compile(fn)`` would, and reports the graphs, the breaks
with their reasons and locations, the ops per graph, the guards and the times.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from compiler.frontend.convert_frame import convert
from compiler.frontend.entry_codegen import MISS
from compiler.frontend.eval_frame import Options


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


def explain(fn, *, backend="cpu"):
    def run(*args, **kwargs) -> ExplainOutput:
        entry = convert(fn, args, kwargs, Options(backend=backend))
        result = entry.run(*args, **kwargs)
        if result is MISS:
            result = fn(*args, **kwargs)
        breaks = []
        if entry.fallback_reason is not None:
            reason = entry.fallback_reason
            breaks.append(BreakReason(reason.reason + (f" ({reason.hint})" if reason.hint else ""),
                                      str(reason.location)))
        graphs = 1 if entry.graph_module is not None else 0
        return ExplainOutput(graphs, len(breaks), breaks, [entry.op_count] * graphs,
                             [g.text for g in entry.guards], dict(entry.compile_times), result)

    return run
