"""Global settings (per-function ones go in ``compile(..., options={...})``)."""

import sys
import types

from runtime import threads

recompile_limit = 8  # entries per code object before further misses run in CPython

# Ops one traced graph may hold (per function: ``options={"max_graph_ops": N}``). Loops
# are unrolled while tracing, and compile time grows faster than the graph: on a
# 2-core machine 400 ops compile in 1.4 s, 800 in 3.5 s, 1600 in 9.7 s (an unrolled
# stencil). A trace that grows past the budget stops, and the call runs in CPython.
max_graph_ops = 1000

# A loop of time steps (each iteration updates the same regions of arrays: ``b[1:-1,
# 1:-1] = f(a)``) is traced as a loop, within the budget too, once its iterations past the
# first two would add this many ops unrolled: the update is a fusion barrier, so the
# unrolled steps run no faster, and each costs its own compile (a 10-step 2000x2000
# Jacobi: 0.55 s unrolled, 0.2 s as a loop). None: unrolled while within the budget.
time_steps_as_loop_ops = 64


class _Config(types.ModuleType):
    """This module's class: ``num_threads`` is a property, so that reading and setting
    it reads and sets the runtime's own setting (the runtime runs the threads, and
    must not import the compiler to find out how many)."""

    @property
    def num_threads(self) -> int | None:
        """Worker threads a parallel kernel call splits into (like torch.set_num_threads).
        None: the EMBER_NUM_THREADS environment variable, else the cores this process
        may run on."""
        return threads.configured_threads()

    @num_threads.setter
    def num_threads(self, value: int | None) -> None:
        threads.set_num_threads(value)


sys.modules[__name__].__class__ = _Config
