"""Multi-step stencils (in-place slice updates, unrolled into one graph).

``b[1:-1, 1:-1] = f(a); a, b = b, a`` repeated ``n`` times is one graph of ``n``
``update_slice``s over two bases. Each step must cost one pass over the grid: one
fused ``linalg.generic`` that reads the previous grid and writes the interior of the
other one in place. Before the fix, ``ember-tile`` recomputed every earlier step
inside the last step's tile loop (while also computing them outside it), and
canonicalization cut the update chain of each grid, so one-shot bufferization gave
every step its own full copy of a grid: the cost per step grew with the number of
steps. The structure is pinned on the lowered IR; the results are compared with
NumPy bit for bit (the arithmetic order is the same).
"""

import numpy as np
import pytest

import compiler
from benchmarks.corpus.physics import wave_2d
from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import TensorType
from compiler.mlir import ir
from compiler.passes.pass_manager import run_pipeline

pytestmark = pytest.mark.usefixtures("fresh_compiler")


def jacobi(a, b, steps):
    for _ in range(steps):
        b[1:-1, 1:-1] = 0.2 * (a[1:-1, 1:-1] + a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
        a, b = b, a
    return a


def same_grid(a, steps):
    """Each step overwrites the interior of the grid it reads (a new value each time)."""
    for _ in range(steps):
        a[1:-1, 1:-1] = 0.25 * (a[:-2, 1:-1] + a[2:, 1:-1] + a[1:-1, :-2] + a[1:-1, 2:])
    return a


def rows_then_columns(a, b, steps):
    """Updates of two different regions of each grid, interleaved."""
    for _ in range(steps):
        b[1:-1, :] = 0.5 * (a[:-2, :] + a[2:, :])
        b[:, 1:-1] = b[:, 1:-1] - 0.25 * a[:, :-2]
        a, b = b, a
    return a


# ------------------------------------------------------------------ structure


def jacobi_graph(steps: int, n: int = 200, m: int = 200) -> ir.Module:
    """The graph the frontend traces from ``jacobi(a, b, steps)`` on ``n x m`` f64 grids."""
    grid, inner = TensorType((n, m), "f64"), TensorType((n - 2, m - 2), "f64")
    b = FunctionBuilder("jacobi", [grid, grid])
    a, other = b.args
    one = (1, 1)
    for _ in range(steps):
        parts = [b.op("slice", a, result=inner, starts=s, steps=one) for s in [(1, 1), (0, 1), (2, 1), (1, 0), (1, 2)]]
        total = parts[0]
        for part in parts[1:]:
            total = b.op("add", total, part)
        scale = b.op("broadcast_to", b.constant(np.float64(0.2)), result=inner)
        other = b.op("update_slice", other, b.op("mul", scale, total), starts=one, steps=one)
        a, other = other, a
    return b.finish([a] if steps == 1 else [a, other])  # the final value of each grid written


def lowered(steps: int) -> str:
    module = jacobi_graph(steps)
    run_pipeline(module, "builtin.module(ember-to-linalg,ember-fuse,ember-tile,ember-bufferize)")
    return str(module)


@pytest.mark.parametrize("steps", [1, 2, 3, 5])
def test_each_step_is_one_pass_written_in_place(steps):
    ir_text = lowered(steps)
    # One fused stencil per step: no step is recomputed inside a later step's tiles.
    assert ir_text.count("linalg.generic") == steps
    assert ir_text.count("arith.mulf") == steps
    # The grids are updated in place in the output buffers: one copy of each input
    # grid into its output (its border) and no temporary grid, whatever the steps.
    copies = 1 if steps == 1 else 2
    assert ir_text.count("linalg.copy") == copies, ir_text
    assert ir_text.count("memref.alloc") == 0, ir_text


# ------------------------------------------------------------------ results

# Odd sizes down to 3 (a single interior point); (65, 301) spans several tiles.
SMALL = [(3, 3), (5, 7), (7, 3), (9, 11), (3, 5)]
TILED = (65, 301)


def run_both(fn, arrays, *args):
    mine = [x.copy() for x in arrays]
    theirs = [x.copy() for x in arrays]
    got = compiler.compile(fn)(*mine, *args)
    want = fn(*theirs, *args)
    assert compiler.explain(fn)(*[x.copy() for x in arrays], *args).graph_count == 1
    return (got, *mine), (want, *theirs)


def assert_exact(got, want):
    for g, w in zip(got, want):
        assert g.dtype == w.dtype and g.shape == w.shape
        np.testing.assert_array_equal(g, w)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("steps", [1, 2, 3, 4, 5])
def test_jacobi_steps_match_numpy(steps, dtype):
    rng = np.random.default_rng(steps)
    for shape in [SMALL[steps - 1], TILED]:
        a, b = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
        assert_exact(*run_both(jacobi, [a, b], steps))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("fn", [same_grid, rows_then_columns])
def test_other_multi_step_updates_match_numpy(fn, dtype):
    rng = np.random.default_rng(7)
    arrays = [rng.standard_normal(TILED).astype(dtype) for _ in range(fn.__code__.co_argcount - 1)]
    assert_exact(*run_both(fn, arrays, 3))


# ------------------------------------------------------------------ leapfrog: three grids, copies between steps


# The corpus's wave equation: a third grid, and the two others copied into each step.
leapfrog = wave_2d


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("steps", [1, 2, 5])
def test_leapfrog_matches_numpy(steps, dtype):
    rng = np.random.default_rng(steps)
    for shape in [(3, 3), (9, 11), TILED]:
        u, u_prev = (rng.standard_normal(shape).astype(dtype) for _ in range(2))
        assert_exact(*run_both(leapfrog, [u, u_prev], 0.25, steps))


def _top_level(function_text: str) -> list[str]:
    """The lines of a function's body at its top level (not inside loops)."""
    lines, depth = [], 0
    for line in function_text.splitlines()[1:]:
        if depth == 0:
            lines.append(line.strip())
        depth += line.count("{") - line.count("}")
    return lines


def _most_live_buffers(steps: int) -> tuple[int, int]:
    """(allocations, the most alive at once) in the leapfrog kernel of ``steps`` steps."""
    from graph_building import loops_of

    u = np.zeros(TILED)
    text = loops_of(leapfrog, u, u.copy(), 0.25, steps)
    kernel = text[text.index("func.func @wave_2d") :]
    kernel = kernel[: kernel.index("\n  }\n")]
    live = most = allocs = 0
    for line in _top_level(kernel):
        if "memref.alloc(" in line:
            allocs += 1
            live += 1
            most = max(most, live)
        elif line.startswith("memref.dealloc"):
            live -= 1
    return allocs, most


def test_each_steps_temporaries_are_freed_before_the_next_step(monkeypatch):
    """Every step's stencil is a parallel loop, and its temporaries are freed after their
    last use (``ember-free-early``), not all at the return: with ``steps`` times more
    allocations, the most buffers alive at once does not grow. (The steps unrolled: eight
    would be traced as a loop, ``config.time_steps_as_loop_ops``.)"""
    from graph_building import loops_of

    monkeypatch.setattr(compiler.config, "time_steps_as_loop_ops", None)

    few, many = _most_live_buffers(4), _most_live_buffers(8)
    assert many[0] >= few[0] + 4 * 4, (few, many)  # four or more temporaries a step
    assert few[1] <= 7, few
    assert many[1] == few[1], (few, many)
    u = np.zeros(TILED)
    text = loops_of(leapfrog, u, u.copy(), 0.25, 4)
    assert text.count("ember_fork_wave_2d_") >= 2 * 4  # a declaration and a call per step, at least
