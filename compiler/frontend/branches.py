"""Branches on array data traced both ways: ``if count > 0: c[j] = s / count`` as a select.

An ``if`` on a value the graph computes has no answer while tracing: TorchDynamo
breaks the graph there (``torch.cond`` is the explicit form), JAX asks for
``lax.cond``. When the branches only compute arrays — they write arrays in place,
rebind array variables, leave an array on the stack (``a if c else b``) — and meet
again after the statement, the tracer runs each branch from the same state instead,
and every array the two leave different becomes ``np.where(cond, then, else)``: the
``if`` becomes data flow, and the graph goes on.

Both branches then run in the kernel, the one NumPy skips included. That is safe
because nothing in a kernel traps: an integer division by zero gives 0 there, a float
one inf or nan, and an index out of range (a run-time check, ``add_check``) re-runs
the whole call in CPython, which takes NumPy's own path. Branches that both return
merge their return values the same way. Not converted, and a graph break as before: a
branch with a Python side effect (``print``, a list append), one that raises or ends
elsewhere than the other (a return against a fall-through), Python values
or array identities (``a = b``) that differ between the branches, a NumPy scalar in
one and a 0-d array in the other (which one NumPy returns is data), a condition that is
not a single value (``if x:`` of a larger array), or anything the tracer cannot trace
inside a branch.
"""

from __future__ import annotations

import numpy as np

from compiler import logs
from compiler.errors import Unsupported
from compiler.frontend import variables as v
from compiler.frontend.frame_state import Snapshot, fresh_version, same_constant
from compiler.frontend.numpy_core import same_shape
from compiler.frontend.scalar_inputs import ScalarVariable


class _NotData(Exception):  # noqa: N818 - a control-flow signal, not an error
    """Why the branches cannot become a select (the jump is then a graph break)."""


def condition(tracker) -> bool:
    """Whether ``tracker`` is a value of the graph a branch could be traced both ways on."""
    if not isinstance(tracker, v.TensorVariable) or isinstance(tracker, ScalarVariable):
        return False
    t = tracker.tensor
    return t.type.rank == 0


def trace_both(tx, inst, cond, jump_when: bool) -> bool:
    """``inst`` jumps when ``cond`` is ``jump_when``: trace the fall-through and the
    jump target from the same state and merge them where they meet. True when done (the
    frame is at the meeting point); False when not (the frame is as it was)."""
    start, target = tx.ip, tx.index_of[inst.argval]
    if target <= start or (tx.stop_at is not None and start <= tx.stop_at < _join_guess(tx, target)):
        return False  # a graph break's trace stopping inside the statement: no both ways
    snapshot = Snapshot.take(tx)
    try:
        fall = _run_branch(tx, start, (start, target))
        fall_state = _state(tx, snapshot, fall)
        snapshot.restore(graph=False)
        if isinstance(fall, int):
            end = fall if fall > target else len(tx.instructions)  # an else branch; or back to a loop's head
            jump = _run_branch(tx, target, (target, end), stop=fall)
        else:  # both branches end in a return (3.12+ copies a short tail into each)
            jump = _run_branch(tx, target, (target, len(tx.instructions)))
        if isinstance(jump, int) != isinstance(fall, int) or (isinstance(jump, int) and jump != fall):
            raise _NotData("the branches continue at different places")
        jump_state = _state(tx, snapshot, jump)
        snapshot.restore(graph=False)
        truth = _as_bool(tx, cond)
        if jump_when:
            returned = _merge(tx, snapshot, truth, jump_state, fall_state)
        else:
            returned = _merge(tx, snapshot, truth, fall_state, jump_state)
    except (_NotData, Unsupported, v.UserError) as e:
        snapshot.restore(graph=False)
        reason = e.reason if isinstance(e, Unsupported) else str(e)
        logs.log(
            "graph_breaks", "the branch at %s:%d is not traced both ways: %s", tx.code.co_filename, tx.line, reason
        )
        return False
    logs.log("graph_breaks", "the branch at %s:%d traced both ways (a select)", tx.code.co_filename, tx.line)
    if returned is not None:
        from compiler.frontend.symbolic_convert import _Return

        raise _Return(returned)
    tx.ip = fall
    return True


def _join_guess(tx, target: int) -> int:
    """Where the statement ends, read from the bytecode: after the else branch when the
    if branch ends by jumping over it, else at the jump's target."""
    last = tx.instructions[target - 1]
    if last.opname.startswith("JUMP") and "BACKWARD" not in last.opname and last.argval in tx.index_of:
        return max(target, tx.index_of[last.argval])
    return target


def _run_branch(tx, start: int, region: tuple, stop: int | None = None):
    """Run from instruction ``start`` until the frame leaves ``region`` (or reaches
    ``stop``): the instruction index it continues at, or ``(value,)`` when it returns."""
    from compiler.frontend.symbolic_convert import BreakHere

    if start == stop or not region[0] <= start < region[1]:
        return start  # an empty branch
    outer_region, outer_stop = tx.region, tx.stop_at
    tx.ip, tx.region = start, region
    if stop is not None:
        tx.stop_at = stop
    try:
        value = tx.run()
    except BreakHere:
        return tx.ip
    else:
        return (value,)
    finally:
        tx.region, tx.stop_at = outer_region, outer_stop


def _state(tx, snapshot: Snapshot, end) -> dict:
    change = snapshot.python_change()
    if change is not None:
        raise _NotData(f"a branch {change}")
    if any(b.mutated and not snapshot.knows(b) for b in tx.output.input_bases):
        raise _NotData("a branch writes an argument it reads first")
    return {
        "stack": list(tx.stack),
        "locals": dict(tx.locals),
        "bases": {id(b): (b.value, b.mutated) for b, _ in snapshot.bases},
        "returned": None if isinstance(end, int) else end[0],
    }


def _as_bool(tx, cond):
    em = tx.output.emitter
    t = cond.tensor
    return em.cast(t, np.bool_) if t.dtype != np.bool_ else t


def _merge(tx, snapshot: Snapshot, taken, jump: dict, fall: dict):
    """The frame after the statement: what the branches leave alike as it is, what
    they leave different as ``select(taken, jump's, fall's)`` (``jump``: the state of
    the branch taken when ``taken`` is true). Returns the merged return value of
    branches that return (None when they continue)."""
    em = tx.output.emitter
    if jump["returned"] is not None:
        _merge_bases(em, snapshot, taken, jump, fall)
        return _merged(tx, snapshot, taken, jump["returned"], fall["returned"], "the returned value")
    if len(jump["stack"]) != len(fall["stack"]):
        raise _NotData("the branches leave different stacks")
    stack = [_merged(tx, snapshot, taken, a, b, "a value on the stack") for a, b in zip(jump["stack"], fall["stack"])]
    names = {}
    for name in set(jump["locals"]) | set(fall["locals"]):
        a, b = jump["locals"].get(name), fall["locals"].get(name)
        if a is None or b is None:
            raise _NotData(f"`{name}` is assigned in one branch only, and unbound before")
        names[name] = _merged(tx, snapshot, taken, a, b, f"`{name}`")
    _merge_bases(em, snapshot, taken, jump, fall)
    tx.stack[:] = stack
    tx.locals = names
    return None


def _merge_bases(em, snapshot: Snapshot, taken, jump: dict, fall: dict) -> None:
    for base, _ in snapshot.bases:
        (a, a_written), (b, b_written) = jump["bases"][id(base)], fall["bases"][id(base)]
        if a.value == b.value and a_written == b_written:
            base.value, base.mutated = a, a_written
            continue
        base.value = em.emit("select", em.broadcast_to(taken, em.shape(a)), a, b)
        base.version = fresh_version()
        base.mutated = a_written or b_written


def _merged(tx, snapshot: Snapshot, taken, a, b, what: str):
    if a is b:
        return a
    if type(a) is v.TupleVariable and type(b) is v.TupleVariable and len(a.items) == len(b.items):
        return v.TupleVariable([_merged(tx, snapshot, taken, x, y, what) for x, y in zip(a.items, b.items)])
    if a.is_constant() and b.is_constant() and not isinstance(a, v.TensorVariable):
        if same_constant(a.as_constant(), b.as_constant()):
            return a
        raise _NotData(f"{what} is a different Python value in each branch")
    if not (_plain_array(a, snapshot) and _plain_array(b, snapshot)):
        raise _NotData(f"{what} is a different array (not only different values) in each branch")
    ta, tb = a.tensor, b.tensor
    em = tx.output.emitter
    if ta.type != tb.type or (not ta.type.is_static and not same_shape(em.shape(ta), em.shape(tb))):
        raise _NotData(f"{what} has a different type in each branch ({ta.type}, {tb.type})")
    if ta.scalar != tb.scalar:  # np.sum(x) against np.where(c, x, y) of a 0-d x: which one comes back is data
        raise _NotData(f"{what} is a NumPy scalar in one branch and a 0-d array in the other")
    if ta.value == tb.value:
        return a
    out = em.emit("select", em.broadcast_to(taken, em.shape(ta)), ta, tb)
    return v.TensorVariable(type(ta)(out.value, out.type, scalar=ta.scalar, weak=ta.weak and tb.weak))


def _plain_array(tracker, snapshot: Snapshot) -> bool:
    """An array value without an identity the merge would lose: no base, or one made in
    the branch that only this tracker holds (not an argument, not a view)."""
    if not isinstance(tracker, v.TensorVariable) or isinstance(tracker, ScalarVariable):
        return False
    base = tracker.base
    if base is None:
        return True
    return not snapshot.knows(base) and base.graph_input is None and base.owner is tracker and tracker.steps == ()
