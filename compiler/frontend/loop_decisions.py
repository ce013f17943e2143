"""Which loops of a function were traced as loops, kept with the artifact cache.

A loop is traced as a loop once a trace has shown it must be (past the graph budget,
or a loop of time steps: ``loops.py``); the function's ``DynamicPolicy`` remembers that
for the rest of the process. A new process learned it again on its first call: the
first two iterations unrolled, then the whole trace thrown away and done again, the
graph's artifact loaded from disk only then (a 10-step Jacobi's warm start traced
its body seven times instead of five). The offsets of the function's own loops traced
as loops in a trace that finished are therefore stored as a record of the artifact
cache (``runtime/cache.py``: bounded and cleared with the artifacts, off with
``EMBER_CACHE_DIR=off``), keyed by the function's code and by what decided (the graph
budget, ``config.time_steps_as_loop_ops``), and read before its first trace. Each
offset comes with the loop's period (arrays swapped between iterations: two copies of
the body per iteration) and what its ``scf.for`` carries (the arguments it writes, by
source, the variables it rebinds, whether it adds run-time checks), which spare the
warm trace the probe that finds them: the trace checks them instead (``loops.py``).
"""

from __future__ import annotations

import types

from compiler import config
from runtime.cache import ARTIFACTS, artifact_key


def _key(code: types.CodeType, budget: int | None) -> str:
    """The record's key: the code's identity as it reads (an edit makes another key)
    and the settings that decide which loops are traced as loops."""
    parts = (code.co_filename, code.co_qualname, code.co_firstlineno, code.co_code, code.co_names, code.co_varnames)
    return artifact_key(repr(parts), f"loops traced as loops, budget {budget}, steps {config.time_steps_as_loop_ops}")


def load(code: types.CodeType, budget: int | None) -> dict[int, tuple]:
    """The ``FOR_ITER`` offsets in ``code`` an earlier process traced as loops, each with
    the copies of the body its ``scf.for`` held (``loops.py``'s period) and what it
    carried (``loops._described``, or None): hints the trace checks."""
    record = ARTIFACTS.read_record(_key(code, budget))
    if not isinstance(record, list):
        return {}
    loops = {}
    for item in record:
        if not (isinstance(item, list) and len(item) == 3 and type(item[0]) is type(item[1]) is int):
            return {}
        carried = _carried(item[2])
        if item[2] is not None and carried is None:
            return {}
        loops[item[0]] = (item[1], carried)
    return loops


def _carried(stored) -> tuple | None:
    """``loops._described``'s tuple from its JSON form; None where it is not one."""
    if not (isinstance(stored, list) and len(stored) == 3 and type(stored[2]) is bool):
        return None
    sources, names, check = stored
    if not all(isinstance(part, list) and all(type(s) is str for s in part) for part in (sources, names)):
        return None
    return (tuple(sources), tuple(names), check)


def load_into(policy, code: types.CodeType, budget: int | None) -> None:
    """Add the loops an earlier process traced as loops to ``policy`` (a
    ``DynamicPolicy``: its ``loops``, ``loop_periods`` and ``loop_carried``), on its
    first trace."""
    if policy.stored_loops is not None:
        return
    policy.stored_loops = load(code, budget)
    for offset, (period, carried) in policy.stored_loops.items():
        policy.loops.add((code, offset))
        if period > 1:
            policy.loop_periods.setdefault((code, offset), period)
        if carried is not None:
            policy.loop_carried.setdefault((code, offset), carried)


def remember(policy, code: types.CodeType, failures: dict, budget: int | None) -> None:
    """Store the loops of ``code`` in ``policy.loops`` that a finished trace traced as
    loops (not in ``failures``), where there are some, with their periods and what
    they carry, unless the record holds them already."""
    found = {
        key[1]: (policy.loop_periods.get(key, 1), policy.loop_carried.get(key))
        for key in policy.loops
        if key[0] is code and key not in failures
    }
    if found and found != policy.stored_loops:
        record = [
            [offset, period, carried and [list(carried[0]), list(carried[1]), carried[2]]]
            for offset, (period, carried) in found.items()
        ]
        ARTIFACTS.write_record(_key(code, budget), sorted(record, key=lambda item: item[0]))
        policy.stored_loops = found
