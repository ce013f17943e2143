"""Every corpus program (benchmarks/corpus) gives NumPy's answer when compiled.

Each program runs at its small size as plain NumPy and as ``compiler.compile(kernel)``,
on separate copies of the same inputs; the return value and every argument array must
agree (dtypes, shapes, values: exact for integers and bools, float tolerances from
``benchmarks.corpus.TOLERANCES``). Whether Ember compiled the program, broke or fell
back is not asserted: coverage grows over time, a wrong answer never may.

``KNOWN_WRONG`` holds the programs that currently give a wrong answer (compiler bugs,
reported to be fixed): they are strict xfails, so the fix makes them fail until the
entry is removed.
"""

import numpy as np
import pytest

import compiler
from benchmarks.corpus import PROGRAMS, check_call, fresh

KNOWN_WRONG: dict[str, str] = {}


def _param(p):
    marks = []
    if p.name in KNOWN_WRONG:
        marks.append(pytest.mark.xfail(strict=True, reason=KNOWN_WRONG[p.name]))
    return pytest.param(p, id=p.name, marks=marks)


@pytest.mark.parametrize("program", [_param(p) for p in PROGRAMS])
def test_corpus_program_matches_numpy(program):
    missing = program.missing()
    if missing:
        pytest.skip(f"{program.name} needs {', '.join(missing)}, not installed")
    args = program.inputs("small")
    want_args = fresh(args)
    want = (program.kernel(*want_args), want_args)
    got_args = fresh(args)
    got = (compiler.compile(program.kernel)(*got_args), got_args)
    problems = check_call(got, want)
    assert not problems, f"{program.name}: " + "; ".join(problems)


def test_corpus_is_complete():
    """At least 50 programs, unique names, every one with small inputs."""
    assert len(PROGRAMS) >= 50
    assert len({p.name for p in PROGRAMS}) == len(PROGRAMS)
    for p in PROGRAMS:
        assert isinstance(p.inputs("small"), tuple)
    assert set(KNOWN_WRONG) <= {p.name for p in PROGRAMS}


def test_check_call_catches_differences():
    """The comparison the corpus relies on fails on what it must."""
    a = np.arange(4.0)
    assert check_call((a + 1e-6, (a,)), (a, (a,)))  # values
    assert check_call((a.astype(np.float32), (a,)), (a, (a,)))  # dtype
    assert check_call((a, (a.reshape(2, 2),)), (a, (a.reshape(4, 1),)))  # an argument's shape
    assert check_call((np.arange(4), ()), (np.arange(4) + (np.arange(4) == 3), ()))  # ints: exact
    assert check_call((1.0, ()), (np.float64(1.0), ()))  # scalar type
    assert not check_call(((a + 1e-13, 2), (a,)), ((a, 2), (a,)))


def test_numpy_and_ember_are_timed_in_alternating_turns():
    """The corpus runner times NumPy and Ember in three alternating turns (a phase of the
    machine during one burst must not decide a ratio) on fresh copies of the inputs."""
    from benchmarks.corpus.run import interleaved_ms

    calls = []

    def kernel(name):
        def fn(a):
            calls.append(name)
            a[0] += 1  # a fresh copy each call: never seen twice
            assert a[0] == 1

        return fn

    times = interleaved_ms([kernel("numpy"), kernel("ember")], (np.zeros(3),), target_s=0.0, settle_s=0.0)
    assert len(times) == 2 and all(t >= 0 for t in times)
    assert calls == ["numpy", "ember"] * 3
