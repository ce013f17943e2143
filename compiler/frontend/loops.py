"""Loops traced as loops: ``for i in range(a, b, s)`` as one ``scf.for`` in the graph.

The tracer unrolls loops: every iteration's ops go into the graph, which is right for
short loops (each iteration specialized, everything fused) and wrong for long ones —
a time-stepping loop of a stencil or a row sweep makes thousands of ops, and past the
graph budget (``compiler.config.max_graph_ops``) the loop ran in CPython. Such a loop
(``GraphTooLarge`` names the loops the trace was in) is traced again, this time as a
loop: its body once, inside an ``scf.for`` over the same range, as Numba and JAX's
``fori_loop`` run it.

* **Carried values.** What one iteration leaves for the next becomes the loop's
  iteration arguments: each array the body writes (a base of ``mutation.py``: an
  argument written in place, ``u[1:-1] = ...``), each array variable it rebinds
  (``crc = (crc >> 1) ^ ...``) and the run-time index checks. A first trace of the
  body (the *probe*, inside a loop carrying nothing, then erased with every change
  it made undone) finds them; the second trace builds the loop with them.
* **The loop index** is a traced ``int64`` (``LoopIndexVariable``), weak as a Python
  int: arithmetic on it stays in the graph, indexing with it is a gather (or a
  scatter to write), like indexing with a NumPy integer.
* **What makes a body a loop body**: every iteration must trace the same ops. A
  Python value the body changes (``half *= 2``), a carried array whose type or shape
  changes, a branch or a slice bound on the loop index (``A[i, :i]``), a Python side
  effect (``print``, a list append), ``break`` or ``return`` — any of them, or
  anything the tracer cannot trace inside the body, undoes the attempt and the loop
  is unrolled as before (and the reason is logged and reported with the budget's).

After the loop every carried value is the loop's result; the index holds its last
value (when read later), and values made inside the body only are not read after it.

* **Arrays swapped between iterations** (double buffering: ``b[1:-1] = f(a); a, b = b,
  a``) make a body that is the same only every second iteration: the names come back
  to their arrays after a whole cycle of the swap. Such a loop is traced with that many
  copies of the body in each ``scf.for`` iteration (the *period*, up to
  ``MAX_PERIOD``), and the iterations left over (``len(range) % period``) unrolled
  after it.
* ``scf.for`` only counts up: a range counting down runs over its negated indices.
"""

from __future__ import annotations

import dataclasses
import dis
import math

import numpy as np

from compiler import config, logs
from compiler.dialects.types import TensorType
from compiler.errors import Unsupported
from compiler.frontend import mutation
from compiler.frontend import variables as v
from compiler.frontend.frame_state import Snapshot, fresh_version, same_constant
from compiler.frontend.numpy_core import Tensor, same_shape
from compiler.frontend.scalar_inputs import ScalarVariable

MAX_CAPTURED = 16  # loops one function may ask to trace as loops (each costs a trace)
MAX_PERIOD = 4  # body copies per scf.for iteration, for names permuted between iterations


class GraphTooLarge(Unsupported):
    """The graph outgrew its budget; ``loops``: the (code, FOR_ITER offset) of the loops
    the trace was in, innermost first (``convert_frame`` traces one of them as a loop)."""

    def __init__(self, reason: str, hint: str, loops: list):
        super().__init__(reason, hint=hint)
        self.loops = loops


class LoopIndexVariable(ScalarVariable):
    """The index of a loop traced as a loop: an ``int64`` graph value, weak as a Python int.
    Its value differs per iteration, so a Python use of it ends the attempt."""

    def pin(self) -> None:
        raise Unsupported("the loop index used as a Python value (a branch, a slice bound, a size)")


class _NotALoop(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Why this body is not the same every iteration (the loop is unrolled instead)."""


class _Permuted(Exception):  # noqa: N818 - a control-flow signal, not an error
    """The body permutes arrays among names: it is the same every ``period`` iterations."""

    def __init__(self, period: int):
        self.period = period


# ----------------------------------------------------------------------------- where loops are


def loop_spans(tx) -> list[tuple[int, int]]:
    """(FOR_ITER index, exit index) of every ``for`` loop of ``tx``'s code."""
    spans = []
    for i, inst in enumerate(tx.instructions):
        if inst.opname == "FOR_ITER":
            spans.append((i, tx.index_of[inst.argval]))
    return spans


def enclosing_loops(tx) -> list:
    """The loops around the instruction ``tx`` is executing, innermost first."""
    here = tx.ip - 1
    spans = [(start, end) for start, end in loop_spans(tx) if start < here < end]
    return [(tx.code, tx.instructions[start].offset) for start, _ in sorted(spans, reverse=True)]


def wanted(tx, inst, iterator) -> bool:
    """Whether this ``FOR_ITER`` starts a loop to trace as a loop: asked for, over a
    ``range``, at its first iteration, with at least two iterations."""
    return (
        iterator.index == 0
        and iterator.range is not None
        and len(iterator.range) >= 2
        and (tx.code, inst.offset) in tx.output.policy.loops
        and not (tx.stop_at is not None and tx.index_of[inst.offset] <= tx.stop_at < tx.index_of[inst.argval])
    )


def too_large(tx, what: str, around: list) -> GraphTooLarge:
    """The error stopping a trace past its budget; ``around``: the loops it is in,
    innermost first (with the reason the innermost could not be traced as a loop)."""
    failed = [tx.output.loop_failures[k] for k in around if k in tx.output.loop_failures]
    why = f"; traced as a loop, its body {failed[0]}" if failed else ""
    return GraphTooLarge(
        f"{what} while tracing (compiler.config.max_graph_ops){why}",
        "a loop unrolled while tracing; raise the budget with options={'max_graph_ops': N}",
        around,
    )


def too_large_ahead(tx, inst, iterator) -> None:
    """Stop the unrolled trace of an innermost loop over a ``range`` (or an array's
    rows) as soon as its first two iterations show the rest will not fit the budget,
    so that it is traced again as a loop: a loop of 2,000 iterations traced to the
    budget first cost ~150 ms of every first call (a warm disk-cache hit included),
    most of it the thousand ops thrown away. The estimate is the smaller of the two
    iterations' op counts. A loop already tried as a loop (its body was not a loop
    body) is not estimated: the budget decides, as for any other loop, whether its
    unrolled trace fits (a body whose later iterations do less may). A loop with
    another loop in its body is not estimated either: the inner one is the one to
    trace as a loop. A loop of time steps that fits is stopped the same way when the
    rest of it would add ``config.time_steps_as_loop_ops`` ops or more."""
    tx.output.loop_steps += 1
    budget = tx.output.max_ops
    if budget is None or not isinstance(iterator, v.IteratorVariable) or iterator.index > 2:
        return
    if iterator.range is None or (tx.code, inst.offset) in tx.output.policy.loops:
        return
    builder = tx.output.builder
    ops = builder.ops_emitted
    iterator.marks.append((ops, tx.output.loop_steps, len(builder.region_updates)))
    if iterator.index < 2 or len(iterator.marks) != 3:
        return
    (ops0, steps0, updates0), (ops1, _, updates1), _ = iterator.marks
    each = min(ops1 - ops0, ops - ops1)
    left = len(iterator.range) - 2
    if tx.output.loop_steps - steps0 != 2 or each <= 0:
        return
    if ops + each * left > budget:
        what = f"the graph would grow past {budget} ops ({left} more iterations of {each} or more ops)"
        raise too_large(tx, what, [(tx.code, inst.offset), *enclosing_loops(tx)])
    first, second = builder.region_updates[updates0:updates1], builder.region_updates[updates1:]
    most = config.time_steps_as_loop_ops
    if (
        first
        and first == second
        and most is not None
        and each * left >= most
        and len(tx.output.policy.loops) < MAX_CAPTURED
    ):
        raise GraphTooLarge(
            f"{len(iterator.range)} time steps, each updating the same regions of arrays, would unroll into "
            f"{each * (left + 2)} ops or more",
            "a loop of time steps is traced as a loop",
            [(tx.code, inst.offset)],
        )


# ----------------------------------------------------------------------------- capture


def capture(tx, inst, iterator) -> bool:
    """Trace the loop starting at ``inst`` as an ``scf.for``: True when done (the frame
    is then past the loop), False when its body is not a loop body (the frame is as it
    was, and the loop is unrolled)."""
    key = (tx.code, inst.offset)
    where = f"{tx.code.co_filename}:{tx.line}"
    snapshot = Snapshot.take(tx)
    if snapshot.emitter["status_checks"]:
        return _give_up(tx, key, where, "a np.linalg call that may raise comes before it")
    policy = tx.output.policy
    period = policy.loop_periods.get(key, 1)
    if not _traced_as_before(tx, inst, iterator, snapshot, policy.loop_carried.get(key), period, where):
        try:
            period, carried = _probe_period(tx, inst, iterator, snapshot, period)
            _trace(tx, inst, iterator, snapshot, carried, period)
        except (_NotALoop, Unsupported, v.UserError) as e:
            snapshot.restore()
            reason = e.reason if isinstance(e, Unsupported) else str(e)
            if isinstance(e, GraphTooLarge):
                reason = "is itself past the graph budget"
            if isinstance(e, v.UserError):
                reason = f"the body raised {e.error!r}"
            policy.loop_carried.pop(key, None)
            return _give_up(tx, key, where, reason)
        _remember(policy.loop_periods, key, period if period > 1 else None)
        _remember(policy.loop_carried, key, _described(carried))
    n = len(iterator.range)
    copies = "" if period == 1 else f", {period} copies of the body per iteration, {n % period} left over"
    logs.log("graph_breaks", "the loop at %s traced as a loop (scf.for, %d iterations%s)", where, n, copies)
    return True


def _probe_period(tx, inst, iterator, snapshot: Snapshot, known: int) -> tuple[int, _Carried]:
    """The loop's period and what it carries. A body that permutes arrays among names is
    probed twice, once to find the period and once with that many copies; ``known``, the
    period an earlier trace of this loop found (``DynamicPolicy.loop_periods``, kept
    across processes by ``loop_decisions.py``), is tried first, which saves the first
    probe: a fifth of a 10-step Jacobi's warm start. A wrong one (one copy permutes the
    names with another period: a swap under a Python condition) costs part of a probe."""
    n = len(iterator.range)
    if 1 < known <= min(n, MAX_PERIOD):
        try:
            return known, _probe(tx, inst, iterator, snapshot, known)
        except _Permuted:
            pass
    try:
        return 1, _probe(tx, inst, iterator, snapshot, 1)
    except _Permuted as permuted:
        period = permuted.period
    if period > MAX_PERIOD:
        raise _NotALoop(f"its arrays come back to their names every {period} iterations (at most {MAX_PERIOD} traced)")
    if n < period:
        raise _NotALoop(f"it swaps arrays every {period} iterations, and runs fewer")
    try:
        return period, _probe(tx, inst, iterator, snapshot, period)
    except _Permuted:
        raise _NotALoop(f"its first {period} iterations do not permute its arrays alike") from None


def _remember(hints: dict, key, hint) -> None:
    if hint is None:
        hints.pop(key, None)
    else:
        hints[key] = hint


def _traced_as_before(tx, inst, iterator, snapshot: Snapshot, described, period: int, where: str) -> bool:
    """Trace the loop with what an earlier trace found it carries (``described``: see
    ``_described``), without the probe: True when done. The body traced over those
    iteration arguments must change nothing else, as the probe would have found it
    (``_changes``), and permute its names with the same period; otherwise the attempt is
    undone (False) and the loop probed. Half of a 10-step Jacobi's warm start was the
    probe: two copies of the body traced to be thrown away."""
    carried = _carried_from(tx, snapshot, described) if described is not None else None
    if carried is None or period > len(iterator.range):
        return False
    try:
        _trace(tx, inst, iterator, snapshot, carried, period, as_before=True)
    except (_NotALoop, Unsupported, v.UserError) as e:
        snapshot.restore()
        logs.log("graph_breaks", "the loop at %s is probed again: %s", where, e)
        return False
    return True


def _described(carried: _Carried) -> tuple | None:
    """What the loop carries, by name, for a later trace (``_carried_from``), kept in
    ``DynamicPolicy.loop_carried`` and on disk by ``loop_decisions.py``: the arguments it
    writes (their sources), the variables it rebinds, whether it adds run-time checks.
    None where that does not name it all: an array made before the loop and written in
    it, a variable that is not an array before it (a number it starts as)."""
    if carried.new_bases or any(b.graph_input is None for b in carried.bases):
        return None
    return (tuple(b.graph_input.source.name() for b in carried.bases), tuple(carried.names), carried.check)


def _carried_from(tx, snapshot: Snapshot, described: tuple) -> _Carried | None:
    """``described`` in this trace (None where one of its arrays or variables is not there)."""
    sources, names, check = described
    inputs = {b.graph_input.source.name(): b for b, _ in snapshot.bases if b.graph_input is not None}
    if any(s not in inputs for s in sources):
        return None
    held = {}
    for name in names:
        tracker = tx.locals.get(name)
        if not isinstance(tracker, v.TensorVariable):
            return None
        held[name] = tracker.tensor
    return _Carried([inputs[s] for s in sources], held, check, [])


def _give_up(tx, key, where: str, reason: str) -> bool:
    tx.output.loop_failures[key] = reason
    logs.log("graph_breaks", "the loop at %s is unrolled: %s", where, reason)
    return False


@dataclasses.dataclass
class _Carried:
    """What the probe found the body changes: the loop's iteration arguments."""

    bases: list  # mutation.ArrayBase written by the body
    names: dict  # local name -> its Tensor at the end of the probe's body (rebound arrays)
    check: bool  # the body adds run-time checks
    new_bases: list  # trackers the body gave a base (written arrays made before the loop)


def _probe(tx, inst, iterator, snapshot: Snapshot, period: int) -> _Carried:
    """Trace ``period`` copies of the body in a loop carrying nothing, note what they
    changed, undo it. Raises ``_Permuted`` when one copy permutes arrays among names with
    another period than ``period`` (the names come back after that many copies)."""
    r = iterator.range
    loop = _open(tx, r, period, [])
    try:
        for j in range(period):
            index = _index(tx, loop, r, j)
            _run_body(tx, inst, index, iterator)
            if j == 0 and (cycle := _permutation_period(tx, snapshot)) != period:
                raise _Permuted(cycle)
        _check_returned_names(tx, snapshot, period)
        _check_python_state(tx, snapshot)
        return _changes(tx, inst, snapshot, index)
    finally:
        tx.output.builder.discard_loop(loop)
        snapshot.restore()


def _check_returned_names(tx, snapshot: Snapshot, period: int) -> None:
    if period > 1 and _permutation_period(tx, snapshot) != 1:
        raise _NotALoop(f"its arrays do not come back to their names after {period} iterations")


def _changes(tx, inst, snapshot: Snapshot, index) -> _Carried:
    """What the body traced since ``snapshot`` changed: the loop's iteration arguments."""
    before = {id(b): fields["version"] for b, fields in snapshot.bases}
    bases = [b for b, _ in snapshot.bases if b.version != before[id(b)]]
    fresh_inputs = [b for b in tx.output.input_bases if id(b) not in before and b.mutated]
    if fresh_inputs:
        raise _NotALoop(f"it writes {fresh_inputs[0].graph_input.source.name()}, first read inside it")
    new_bases = [t for t, fields in snapshot.trackers if fields["base"] is None and t.base is not None]
    names = {}
    for name, tracker in tx.locals.items():
        if snapshot.locals.get(name) is tracker or tracker is index or not isinstance(tracker, v.TensorVariable):
            continue
        if not _live_after(tx, inst, name) and name not in snapshot.locals:
            continue  # made and used inside the body only
        if isinstance(tracker, ScalarVariable) or tracker.base is not None:
            raise _NotALoop(f"`{name}`, read after the loop, is {_what(tracker, snapshot)}")
        names[name] = tracker.tensor
    check = tx.output.emitter.check is not snapshot.emitter["check"]
    return _Carried(bases, names, check, new_bases)


def _check_as_before(tx, inst, snapshot: Snapshot, slots: list, index) -> None:
    """A body traced over the iteration arguments an earlier trace found (``slots``)
    changed nothing the probe would carry besides them."""
    changed = _changes(tx, inst, snapshot, index)
    carried_bases = {id(what) for kind, what in slots if kind == "base"}
    if changed.new_bases or any(id(b) not in carried_bases for b in changed.bases):
        raise _NotALoop("it writes an array an earlier trace of it did not")
    if set(changed.names) != {what for kind, what in slots if kind == "name"}:
        raise _NotALoop("it rebinds other variables than an earlier trace of it")
    if changed.check and all(kind != "check" for kind, _ in slots):
        raise _NotALoop("it adds run-time checks an earlier trace of it did not")


def _permutation_period(tx, snapshot: Snapshot) -> int:
    """After the probe's copies of the body: how many times more bring every name holding
    an array from before the loop back to it (1: none moved; ``_NotALoop`` when the names
    do not permute)."""
    held = {id(t): name for name, t in snapshot.locals.items() if isinstance(t, v.TensorVariable)}
    moved = {}  # name -> the name whose array it holds now
    for name, tracker in tx.locals.items():
        if snapshot.locals.get(name) is not tracker and id(tracker) in held:
            moved[name] = held[id(tracker)]
    if not moved:
        return 1
    if set(moved) != set(moved.values()):
        name = next(n for n in moved if n not in moved.values())
        raise _NotALoop(f"`{name}` takes the array of `{moved[name]}`, which does not take another in turn")
    period = 1
    for name in moved:
        length, at = 1, moved[name]
        while at != name:
            length, at = length + 1, moved[at]
        period = math.lcm(period, length)
    return period


def _what(tracker, snapshot: Snapshot) -> str:
    if isinstance(tracker, ScalarVariable):
        return "a number made from the loop index"
    if any(tracker is t for t, _ in snapshot.trackers):  # names swapping arrays are _permutation_period's
        return "after one iteration an array from before the loop that no variable held (from a container)"
    return "a view made in the body"


def _trace(tx, inst, iterator, snapshot: Snapshot, carried: _Carried, period: int, as_before: bool = False) -> None:
    """The loop itself: the body traced over the carried values' iteration arguments
    (``as_before``: as an earlier trace found them, checked here instead of probed)."""
    em = tx.output.emitter
    for tracker in carried.new_bases:
        carried.bases.append(mutation.ensure_base(tx, tracker))
    inits, slots = [], []
    for base in carried.bases:
        inits.append(base.value)
        slots.append(("base", base))
    for name, end in carried.names.items():
        inits.append(_initial(tx, name, end))
        slots.append(("name", name))
    if carried.check:
        inits.append(em.check if em.check is not None else em.constant(np.bool_(False)))
        slots.append(("check", None))
    loop = _open(tx, iterator.range, period, [t.value for t in inits])
    try:
        _trace_body(tx, inst, iterator, snapshot, loop, slots, inits, period, as_before)
    except BaseException:
        tx.output.builder.discard_loop(loop)
        raise
    left = len(iterator.range) % period
    if left:  # the iterations after the last whole period: unrolled, by FOR_ITER itself
        iterator.index = len(iterator.range) - left
        tx.ip = tx.index_of[inst.offset]
    else:
        _exit(tx, inst)


def _trace_body(tx, inst, iterator, snapshot, loop, slots: list, inits: list, period: int, as_before: bool) -> None:
    em = tx.output.emitter
    for (kind, what), init, arg in zip(slots, inits, loop.inner_iter_args):
        _bind(tx, kind, what, _like(em, init, arg))
    for j in range(period):
        index = _index(tx, loop, iterator.range, j)
        _run_body(tx, inst, index, iterator)
        if as_before and j == 0 and (cycle := _permutation_period(tx, snapshot)) != period:
            raise _NotALoop(f"its arrays come back to their names every {cycle} iterations, not every {period}")
    if as_before:
        _check_returned_names(tx, snapshot, period)
        _check_as_before(tx, inst, snapshot, slots, index)
    _check_python_state(tx, snapshot, allow=[name for kind, name in slots if kind == "name"])
    yields = []
    for (kind, what), init in zip(slots, inits):
        end = _current(tx, kind, what)
        if end.type != init.type or (not init.type.is_static and not same_shape(em.shape(end), em.shape(init))):
            raise _NotALoop(f"{_slot_text(kind, what)} changes from {init.type} to {end.type} in one iteration")
        yields.append(end.value)
    results = tx.output.builder.close_loop(loop, yields)
    em._size_values = snapshot.emitter["_size_values"]  # sizes computed in the body stay there
    for (kind, what), init, result in zip(slots, inits, results):
        _bind(tx, kind, what, _like(em, init, result))
    last = iterator.range[len(iterator.range) // period * period - 1]
    _finish_locals(tx, inst, last, snapshot, index, [what for kind, what in slots if kind == "name"])


def _open(tx, r: range, period: int, inits: list):
    """An ``scf.for`` over ``r``'s whole periods: ``period`` iterations of ``r`` in each
    of its own. ``scf.for`` counts up: a range counting down runs over its negated
    values (``_index`` turns them back)."""
    b, sign = tx.output.builder, 1 if r.step > 0 else -1
    start, step = sign * r.start, sign * r.step * period
    stop = start + len(r) // period * step
    return b.open_loop(b.size_constant(start), b.size_constant(stop), b.size_constant(step), inits)


def _index(tx, loop, r: range, j: int) -> LoopIndexVariable:
    """The loop index in the ``j``-th copy of the body: the induction variable (negated
    for a range counting down) plus ``j`` steps."""
    b = tx.output.builder
    value = loop.induction_variable
    if r.step < 0:
        value = b.size_arith("sub", b.size_constant(0), value)
    if j:
        value = b.size_arith("add", value, b.size_constant(j * r.step))
    tensor = Tensor(b.from_index(value), TensorType((), "i64"), scalar=True, weak=True)
    return LoopIndexVariable(tensor, None, r.start + j * r.step)


def _like(em, init: Tensor, value) -> Tensor:
    """``value`` (a block argument or a loop result) as a Tensor of ``init``'s kind."""
    t = dataclasses.replace(init, value=value)
    if not init.type.is_static:
        em._shapes[value] = em.shape(init)
    return t


def _initial(tx, name: str, end: Tensor) -> Tensor:
    """The value entering the loop for the rebound variable ``name``: its array, or the
    number it held, as an array of the type the body gives it."""
    em = tx.output.emitter
    tracker = tx.locals.get(name)
    if isinstance(tracker, v.TensorVariable):
        return tracker.tensor
    if isinstance(tracker, v.ConstantVariable) and isinstance(tracker.value, (int, float, np.number)):
        if end.ndim == 0 and (not isinstance(tracker.value, bool) or end.dtype == np.bool_):
            value = np.asarray(tracker.value).astype(end.dtype)
            if value == tracker.value:
                return dataclasses.replace(em.constant(value), scalar=end.scalar, weak=end.weak)
    raise _NotALoop(f"`{name}` is {v.describe(tracker) if tracker else 'unbound'} before the loop, an array in it")


def _bind(tx, kind: str, what, tensor: Tensor) -> None:
    em = tx.output.emitter
    if kind == "base":
        what.value = mutation._array_value(tensor)
        what.version = fresh_version()
    elif kind == "name":
        tx.locals[what] = v.TensorVariable(tensor)
    else:
        em.check = tensor


def _current(tx, kind: str, what) -> Tensor:
    if kind == "base":
        return what.value
    if kind == "name":
        tracker = tx.locals.get(what)
        if not isinstance(tracker, v.TensorVariable):
            raise _NotALoop(f"`{what}` is {v.describe(tracker) if tracker else 'unbound'} after one iteration")
        return tracker.tensor
    return tx.output.emitter.check


def _slot_text(kind: str, what) -> str:
    if kind == "base":
        source = what.graph_input.source.name() if what.graph_input is not None else "an array"
        return f"the array {source}"
    return f"`{what}`" if kind == "name" else "the index check"


def _run_body(tx, inst, index, iterator) -> None:
    """Run the body from the instruction after ``inst`` (the FOR_ITER) back to it; the
    loop's item is the index (a range) or the row at the index (an array)."""
    from compiler.frontend.symbolic_convert import BreakHere, _Return

    depth, outer_stop = len(tx.stack), tx.stop_at
    tx.push(index if iterator.make is None else iterator.make(index))
    tx.ip = tx.index_of[inst.offset] + 1
    tx.stop_at = tx.index_of[inst.offset]
    try:
        tx.run()
    except BreakHere:
        pass
    except _Return:
        raise _NotALoop("it returns from inside the loop") from None
    else:
        raise _NotALoop("it leaves the loop early (break or return)")
    finally:
        tx.stop_at = outer_stop
    if len(tx.stack) != depth:
        raise _NotALoop("the body leaves values on the stack")


def _check_python_state(tx, snapshot: Snapshot, allow=()) -> None:
    """The body changed no Python value the next iteration would see differently."""
    change = snapshot.python_change()
    if change is not None:
        raise _NotALoop(f"the body {change}")
    for name, tracker in tx.locals.items():
        before = snapshot.locals.get(name)
        if tracker is before or name in allow or isinstance(tracker, v.TensorVariable):
            continue
        if before is None or not (tracker.is_constant() and before.is_constant()):
            continue  # made in the body each time (read after it: _finish_locals)
        if not same_constant(tracker.as_constant(), before.as_constant()):
            raise _NotALoop(f"the body changes the Python value `{name}`")


def _finish_locals(tx, inst, last: int, snapshot: Snapshot, index, carried_names: list) -> None:
    """After the loop: the index holds its ``last`` value; what only the body made is gone."""
    for name in list(tx.locals):
        tracker = tx.locals[name]
        if tracker is snapshot.locals.get(name) or name in carried_names:
            continue
        if tracker is index:
            tx.locals[name] = v.ConstantVariable(last)
        elif isinstance(tracker, (v.TensorVariable, v.MaskedVariable)):
            if _live_after(tx, inst, name):
                raise _NotALoop(f"`{name}`, read after the loop, is made in its body")
            del tx.locals[name]
        elif not tracker.is_constant():
            raise _NotALoop(f"the body makes `{name}`, {v.describe(tracker)}")


_STOPS = ("RETURN_VALUE", "RETURN_CONST", "RAISE_VARARGS", "RERAISE")
_JUMPS = set(dis.hasjrel) | set(dis.hasjabs) | set(getattr(dis, "hasjump", ()))


def _live_after(tx, inst, name: str) -> bool:
    """Whether ``name`` may be read after the loop before it is assigned again: a walk of
    the bytecode's paths from the loop's exit (into enclosing loops' next iterations too)."""
    exit_index = tx.index_of[inst.argval]
    todo, seen = [exit_index], set()
    while todo:
        i = todo.pop()
        if i in seen or i >= len(tx.instructions):
            continue
        seen.add(i)
        other = tx.instructions[i]
        names = other.argval if isinstance(other.argval, tuple) else (other.argval,)
        if name in names and other.opname.startswith(("LOAD_FAST", "LOAD_DEREF", "DELETE_FAST")):
            return True
        if name in names and other.opname in ("STORE_FAST", "STORE_DEREF"):
            continue
        if other.opname in _STOPS:
            continue
        if other.opcode in _JUMPS:
            todo.append(tx.index_of[other.argval])
            if "JUMP" in other.opname and not other.opname.startswith(("POP_JUMP", "JUMP_IF")):
                continue  # unconditional
        todo.append(i + 1)
    return False


def _exit(tx, inst) -> None:
    """Leave the frame where an exhausted ``FOR_ITER`` leaves it."""
    tx.pop()
    tx.jump(inst)
    tx.ip += tx.bytecode.for_iter_exit_skip
