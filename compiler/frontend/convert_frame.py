"""One cache miss: trace the call, build the graph, compile it, generate the entry.

``convert(fn, args, kwargs, options)`` returns an ``Entry``. When the code cannot be
captured (``Unsupported``) or the user's own code raises while tracing, the entry
runs the function in CPython instead — guarded by the guards gathered up to the
failure, which is exactly the condition under which tracing would fail the same way.
"""

from __future__ import annotations

import dis
import inspect
import sys
import time
import warnings
from dataclasses import dataclass, field

import numpy as np

from compiler import config, logs
from compiler.backends import EagerGraph, compile_graph
from compiler.dialects.guard_metadata import GuardMetadata, Symbol
from compiler.dialects.write_in_place import mark_written_in_place
from compiler.errors import BackendError, GraphBreakError, InvalidBackend, Location, Unsupported
from compiler.frontend import bytecode_versions, entry_codegen, graph_break, loop_decisions, loops, mutation
from compiler.frontend import variables as v
from compiler.frontend import wrap as wrapping
from compiler.frontend.dynamic_policy import DynamicPolicy
from compiler.frontend.output_graph import TRACE_LOCK, OutputGraph, format_graph
from compiler.frontend.sources import ClosureSource, LocalSource
from compiler.frontend.symbolic_convert import BreakHere, InstructionTranslator
from compiler.frontend.user_frames import user_stacklevel

# Opcodes and their stack effects differ between CPython versions: the tracer reads the
# versions of one table, frontend/bytecode_versions.py (SUPPORTED_VERSIONS, and a row of
# differences for each); a call on any other version runs in CPython.


@dataclass
class Entry:
    run: object  # the generated function: returns entry_codegen.MISS when its guards fail
    guards: list
    guard_namespace: dict
    graph_module: object = None  # the Ember module (None when the call runs in CPython)
    graph: object = None  # the compiled graph (a CPU kernel, an eager graph, a custom backend's callable)
    fallback_reason: Unsupported | None = None
    op_count: int = 0
    compile_times: dict = field(default_factory=dict)
    graph_break: Unsupported | None = None  # why the trace stopped before the code it hands to CPython
    resumes: list = field(default_factory=list)  # the resume functions (compiled) the entry may call


def convert(fn, args: tuple, kwargs: dict, options, policy: DynamicPolicy | None = None, started=None) -> Entry:
    """The entry for this call of ``fn``: traced, compiled, guarded. ``started``: when
    the first of the traces this entry took began (traced again with a loop as a loop,
    or with static sizes), so that its times count the traces thrown away too."""
    if logs.enabled("bytecode"):
        logs.log(
            "bytecode",
            "ORIGINAL BYTECODE %s %s:%d\n%s",
            fn.__qualname__,
            fn.__code__.co_filename,
            fn.__code__.co_firstlineno,
            dis.Bytecode(fn.__code__).dis(),
        )
    with TRACE_LOCK:
        start = time.perf_counter() if started is None else started
        policy = policy or DynamicPolicy(options.dynamic)
        output = _new_output(fn, options, policy)
        loop_decisions.load_into(policy, fn.__code__, output.max_ops)
        tx = None
        try:
            unsupported = bytecode_versions.unsupported_reason(sys.version_info)
            if unsupported is not None:
                raise Unsupported(unsupported, hint="the function runs in CPython")
            reserved = entry_codegen.reserved_parameter(fn)
            if reserved is not None:
                raise Unsupported(
                    f"the parameter name {reserved!r} (names starting with "
                    f"{entry_codegen.RESERVED_PREFIX!r} are the generated code's own)",
                    hint="rename the parameter to compile the function",
                )
            tx = _root_translator(fn, args, kwargs, output)
            result = tx.run()
            loop_decisions.remember(policy, fn.__code__, output.loop_failures, output.max_ops)
            return _finish(fn, output, result, options, start)
        except v.UserError as e:
            return _fallback(
                fn, output, Unsupported(f"the function raised {e.error!r} while being traced"), options, tx
            )
        except Unsupported as e:
            if _capture_loop(fn, policy, e):
                return convert(fn, args, kwargs, options, policy, start)
            point = None if options.fullgraph else graph_break.break_point(fn, e)
            if point is not None:
                entry = _trace_to_break(fn, args, kwargs, options, point, policy, start)
                if entry is not None:
                    return entry
            if _give_up_symbolic_sizes(fn, output, policy, e):
                return convert(fn, args, kwargs, options, policy, start)
            if options.fullgraph:
                raise GraphBreakError(e) from None
            return _fallback(fn, output, e, options, tx)
        except (GraphBreakError, BackendError):
            raise
        except Exception as bug:  # a bug of Ember's: the user still gets the right answer
            if options.strict:
                raise
            where = tx.location() if tx is not None else None
            warnings.warn(
                f"ember: internal error while compiling {fn.__qualname__}"
                f"{f' at {where}' if where else ''} ({type(bug).__name__}: {bug}); "
                "running it in CPython",
                RuntimeWarning,
                stacklevel=user_stacklevel(),
            )
            reason = Unsupported(f"internal error {type(bug).__name__}: {bug}", where)
            if _give_up_symbolic_sizes(fn, output, policy, reason):
                return convert(fn, args, kwargs, options, policy, start)
            return _fallback(fn, output, reason, options, tx)


def _capture_loop(fn, policy: DynamicPolicy, reason: Unsupported) -> bool:
    """Whether to trace again with one more loop traced as a loop (``loops.py``): the
    innermost loop around a graph that outgrew its budget, not tried before."""
    if not isinstance(reason, loops.GraphTooLarge) or len(policy.loops) >= loops.MAX_CAPTURED:
        return False
    for key in reason.loops:
        if key not in policy.loops:
            policy.loops.add(key)
            logs.log(
                "graph_breaks",
                "%s: %s; tracing again with the loop at offset %d as a loop",
                fn.__qualname__,
                reason.reason,
                key[1],
            )
            return True
    return False


def _give_up_symbolic_sizes(fn, output: OutputGraph, policy: DynamicPolicy, reason: Unsupported) -> bool:
    """Whether to trace again with static sizes, after a trace with symbolic ones could not
    compile the function: automatic dynamic must never leave in CPython what a static trace
    per size compiles. From then on this function's sizes stay static (not under
    ``dynamic=True``, the user's explicit choice)."""
    if policy.mode is not None or policy.static_only or not output.shape_env.symbols_table():
        return False
    policy.static_only = True
    logs.log(
        "dynamic",
        "%s: symbolic sizes off from now on, tracing again with static ones (%s)",
        fn.__qualname__,
        reason.describe(),
    )
    return True


def _new_output(fn, options, policy=None) -> OutputGraph:
    budget = config.max_graph_ops if options.max_graph_ops is None else options.max_graph_ops
    return OutputGraph(_graph_name(fn), max_ops=budget, policy=policy or DynamicPolicy(options.dynamic))


def _graph_name(fn) -> str:
    return "".join(c if c.isalnum() else "_" for c in fn.__qualname__)


def _root_translator(fn, args, kwargs, output) -> InstructionTranslator:
    signature = inspect.signature(fn)
    try:
        bound = signature.bind(*args, **kwargs)
    except TypeError as e:
        raise v.UserError(e) from None
    bound.apply_defaults()
    probe = InstructionTranslator(
        output, fn.__code__, fn.__globals__, {}, tuple(fn.__closure__ or ()), ClosureSource(), fn.__qualname__
    )
    local_vars = {}
    for name, value in bound.arguments.items():
        local_vars[name] = _wrap_argument(probe, signature.parameters[name], name, value)
    probe.locals = local_vars
    return probe


def _wrap_argument(tx, param, name, value):
    if param.kind is param.VAR_POSITIONAL:
        tx.output.guards.length_match(LocalSource(name), value)
        from compiler.frontend.sources import ItemSource

        return v.TupleVariable(
            [wrapping.wrap(tx, item, ItemSource(LocalSource(name), i)) for i, item in enumerate(value)]
        )
    return wrapping.wrap(tx, value, LocalSource(name))


def _finish(fn, output: OutputGraph, result, options, start, point=None, tx=None) -> Entry:
    """The entry for a finished trace (``result``: the return value's tracker) or, with
    ``point`` (a BreakPoint) and ``tx`` (the translator stopped before it), for a trace
    that ends in a graph break: the entry then runs the breaking instruction and
    returns what the resume function returns (``graph_break.py``)."""
    plan = entry_codegen.ResultPlan(
        input_index=output.input_index,
        input_sources=[i.source for i in output.inputs],
        size_exprs=output.guards.size_exprs,
    )
    array_writes = mutation.writebacks(output)
    effects = entry_codegen.effect_lines(
        plan, output.mutated, output.attribute_writes, output.global_writes, array_writes
    )
    resumes, break_lines = [], []
    if point is None:
        result_expr = plan.expr(result)
    else:
        break_lines, result_expr, resumes = graph_break.instruction_lines(fn, point, tx, plan, options)
    check_expr = entry_codegen.check_expr(plan, output)  # run-time checks: re-run in CPython when one fails
    status_lines = output.status_lines(plan)  # after the effects, which came before the fallible ops
    inout = entry_codegen.inout_outputs(plan, effects, array_writes, [i.type for i in output.inputs])
    if check_expr is not None:  # a failed check must find the caller's arrays untouched
        inout = {}
    trace_time = time.perf_counter() - start
    module = _finish_graph(fn, output, plan, inout) if plan.outputs else None
    graph = _compile_graph(fn, module, output, options) if module is not None else None
    effects = effects.without(getattr(graph, "written_inputs", {}))
    guards = output.guards.ordered()
    call = getattr(graph, "call_from_guarded_entry", graph)  # a CPU kernel: the guards did its checks
    body, write_lines = effects.reads, effects.writes + status_lines
    if point is not None:  # effects first: the breaking instruction may read what they wrote
        body, write_lines = effects.reads + effects.writes + status_lines + break_lines, ()
    entry = entry_codegen.build_entry(
        fn,
        guards,
        output.guards.objects,
        [_input_expr(plan, i) for i in output.inputs],
        call,
        body,
        result_expr,
        plan.namespace,
        write_lines=write_lines,
        check_expr=check_expr,
        inline_graph=getattr(graph, "inline_guarded_call", None),
    )
    logs.log("guards", "GUARDS %s\n%s", fn.__qualname__, "\n".join(f"  - {_guard_line(g, output)}" for g in guards))
    logs.log("output_code", "ENTRY CODE %s\n%s", fn.__qualname__, entry.__ember_source__)
    total = time.perf_counter() - start
    logs.log(
        "perf", "%s: trace %.1f ms, compile %.1f ms", fn.__qualname__, trace_time * 1e3, (total - trace_time) * 1e3
    )
    return Entry(
        entry,
        guards,
        output.guards.objects,
        module,
        graph,
        None,
        output.op_count() if module else 0,
        {"trace": trace_time, "total": total},
        graph_break=point.reason if point is not None else None,
        resumes=resumes,
    )


def _guard_line(guard, output) -> str:
    """A guard for the ``guards`` log; a symbolic one also over symbols (``# 2*s0 < 16``)."""
    if guard.kind != "symbolic":
        return guard.text
    shape_guard = next((g for g in output.shape_env.guards if g.text == guard.text), None)
    if shape_guard is None or shape_guard.symbolic == guard.text:
        return guard.text
    return f"{guard.text}  # {shape_guard.symbolic}"


def _input_expr(plan, graph_input) -> str:
    """How the entry fetches a graph input: a float argument as a 0-d array."""
    if graph_input.scalar:
        return f"{plan.ref(np.asarray)}({graph_input.source.expr()}, {plan.ref(graph_input.example.dtype)})"
    return graph_input.source.expr()


def _finish_graph(fn, output: OutputGraph, plan, inout):
    """The traced graph as a module returning ``plan.outputs``, logged."""
    symbols = [Symbol(name, source, hint) for name, source, hint in output.shape_env.symbols_table()]
    module = output.builder.finish(
        [t.tensor.value for t in plan.outputs],
        GuardMetadata(
            output.guards.records(), symbols, [i.source.name() for i in output.inputs], output.written_sources
        ),
    )
    with module.context:
        mark_written_in_place(module.body.operations[0], inout)
    if logs.enabled("graph_code"):
        logs.log(
            "graph_code",
            "TRACED GRAPH %s (%s:%d)\n%s",
            fn.__qualname__,
            fn.__code__.co_filename,
            fn.__code__.co_firstlineno,
            format_graph(module, output.inputs),
        )
    if logs.enabled("graph_sizes"):
        logs.log("graph_sizes", "TRACED GRAPH TENSOR SIZES %s\n%s", fn.__qualname__, graph_sizes(module, output))
    return module


def graph_sizes(module, output: OutputGraph) -> str:
    """Every value's sizes, symbolic and concrete, as Dynamo's ``graph_sizes`` prints them:
    ``%arg0 <- L['x']: (s0, 3)`` then ``(concrete): (8, 3)``."""
    from compiler.dialects.types import TensorType
    from compiler.frontend.numpy_core import Tensor, shape_text

    em, env = output.emitter, output.shape_env
    block = module.body.operations[0].regions[0].blocks[0]
    named = [(f"%arg{i}", a, f" <- {g.source.name()}") for i, (a, g) in enumerate(zip(block.arguments, output.inputs))]
    named += [(f"%{k}", op.results[0], f" ({op.name})") for k, op in enumerate(_tensor_ops(block))]
    lines = []
    for name, value, note in named:
        try:
            shape = em.shape(Tensor(value, TensorType.from_mlir(value.type)))
        except (NotImplementedError, ValueError):
            continue
        concrete = tuple(env.size_hint(d) for d in shape)
        lines.append(f"  {name}{note}: {shape_text(shape)}")
        if any(not isinstance(d, int) for d in shape):
            lines.append(f"  {name} (concrete): {shape_text(concrete)}")
    return "\n".join(lines)


def _tensor_ops(block):
    from compiler.mlir import ir

    for op in block.operations:
        op = op.operation
        if op.name != "func.return" and len(op.results) == 1 and isinstance(op.results[0].type, ir.RankedTensorType):
            yield op


def _trace_to_break(fn, args, kwargs, options, point, policy, start: float) -> Entry | None:
    """Trace ``fn`` again, stopping before the breaking instruction, and build the
    entry that breaks there; None (the caller falls back to CPython) when the state at
    the break cannot be handed to CPython. ``start``: when the first trace began."""
    output = _new_output(fn, options, policy)
    tx = _root_translator(fn, args, kwargs, output)
    tx.stop_at = point.index
    try:
        tx.run()
    except BreakHere:
        pass
    except (Unsupported, v.UserError):
        return None
    else:
        return None  # the second trace did not reach the break: it ran differently
    frames = point.reason.frames
    point.reason = graph_break.user_reason(fn, point, tx)
    try:
        entry = _finish(fn, output, None, options, start, point, tx)
    except Unsupported as e:
        logs.log("graph_breaks", "no graph break in %s: %s", fn.__qualname__, e.describe())
        return None
    _log_break(fn, point, frames)
    return entry


def _log_break(fn, point, frames) -> None:
    if not logs.enabled("graph_breaks"):
        return
    stack = "\n".join(f"    {t.location()}" for t in reversed(frames))
    logs.log(
        "graph_breaks",
        "Graph break in %s at %s: %s\n  user stack (outermost first):\n%s",
        fn.__qualname__,
        point.reason.location,
        point.reason.reason,
        stack,
    )


def _compile_graph(fn, module, output, options):
    """The backend's callable; on a backend failure the graph runs eagerly, with one warning.
    A custom backend that returns something not callable is a bug in the backend: an error."""
    try:
        graph = compile_graph(module, options.backend, example_inputs=tuple(i.example for i in output.inputs))
    except Exception as e:
        if options.strict:
            raise BackendError(f"backend {options.backend!r} failed on the graph of {fn.__qualname__}: {e}") from e
        warnings.warn(
            f"ember: backend {options.backend!r} failed on the graph of {fn.__qualname__} "
            f"({type(e).__name__}: {e}); running it eagerly",
            RuntimeWarning,
            stacklevel=user_stacklevel(),
        )
        return EagerGraph(module)
    if not callable(graph):
        raise InvalidBackend(
            f"backend {_backend_name(options.backend)} returned {graph!r} for the graph of {fn.__qualname__}: "
            "a backend(module, example_inputs) must return a callable that runs the graph"
        )
    return graph


def _backend_name(backend) -> str:
    name = getattr(backend, "__qualname__", None) or type(backend).__qualname__
    module = getattr(backend, "__module__", None) or type(backend).__module__
    return f"{module}.{name}" if module and module != "builtins" else name


def _fallback(fn, output: OutputGraph, reason: Unsupported, options, tx) -> Entry:
    if reason.location is None:
        code = fn.__code__
        reason.at(Location(fn.__qualname__, code.co_filename, code.co_firstlineno))
    logs.log("graph_breaks", "running %s in CPython: %s", fn.__qualname__, reason.describe())
    guards = output.guards.ordered()
    return Entry(_eager_entry(fn, guards, output.guards.objects), guards, output.guards.objects, None, None, reason)


def _eager_entry(fn, guards, objects):
    """An entry that runs ``fn`` itself when the guards (gathered before the failure) hold."""
    if entry_codegen.reserved_parameter(fn) is not None:  # no generated code over such parameters

        def run_always(*args, **kwargs):
            return fn(*args, **kwargs)

        run_always.__ember_source__ = ""
        return run_always
    check = entry_codegen.build_entry(fn, guards, objects, [], None, [], "True", {}, name="check")

    def run(*args, **kwargs):
        if check(*args, **kwargs) is entry_codegen.MISS:
            return entry_codegen.MISS
        return fn(*args, **kwargs)

    run.__ember_source__ = check.__ember_source__
    return run
