"""Differential fuzzing of the frontend: random programs, compiled vs plain CPython.

Each example is a generated module (``program_source.py``): its function ``f`` runs
plainly and compiled (``cpu`` backend, sometimes ``eager``) on the same arguments.
The compiled function is called twice on the first arguments (the second call must
hit the cache) and once on other arguments of the same types (new values, maybe other
ints/strings/bools: guards and recompiles). Results must match structurally: same
Python types (``np.float32`` scalar vs 0-d array), dtypes, shapes, values (exact for
ints and bools, NaN where NumPy has NaN), and the same exception type when the plain
function raises. Programs write into their arguments and into views of them, so each
call gets copies of the arguments, which must afterwards hold what the plain call left
in its own, and a result must share memory with the same arguments NumPy's does. What
a program prints (graph-break programs do, ``test_graph_break_fuzz.py``) must be the
same text, numbers within the result's tolerance. A failure prints the generated source.
"""

from __future__ import annotations

import contextlib
import copy
import io
import itertools
import math
import re
import warnings

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from program_source import PRELUDE, make_module, programs

from compiler import compile

pytestmark = pytest.mark.usefixtures("fresh_compiler")

_modules = itertools.count()
RTOL = {
    np.dtype(np.float16): 1e-3,
    np.dtype(np.float32): 1e-5,
    np.dtype(np.float64): 1e-12,
    np.dtype(np.complex64): 1e-5,
    np.dtype(np.complex128): 1e-12,
}


def _call(fn, args):
    """``("ok", (result, arguments after the call, which arrays the result shares memory
    with), printed)`` or ``("raised", exception, printed)``, on a copy of ``args`` (the
    program may write into them), NumPy's warnings silenced, what it prints captured."""
    args = copy.deepcopy(args)
    printed = io.StringIO()
    with warnings.catch_warnings(), np.errstate(all="ignore"), contextlib.redirect_stdout(printed):
        warnings.simplefilter("ignore")
        try:
            result = fn(*args)
        except Exception as e:  # the plain function may raise: the compiled one must too
            return "raised", e, printed.getvalue()
    return "ok", (result, list(args), _shared(result, args)), printed.getvalue()


def _shared(result, args) -> list:
    """For each array in the result (in order), the indices of the arguments it shares memory with."""
    arrays = [a for a in _leaves(result) if isinstance(a, np.ndarray)]
    return [
        [i for i, arg in enumerate(args) if isinstance(arg, np.ndarray) and np.shares_memory(a, arg)] for a in arrays
    ]


def _leaves(value):
    if isinstance(value, (tuple, list)):
        return [leaf for item in value for leaf in _leaves(item)]
    if isinstance(value, dict):
        return [leaf for item in value.values() for leaf in _leaves(item)]
    return [value]


def assert_same(want, got, path="result", rtol=0.0):
    """``got`` is ``want``: types, dtypes, shapes, values; ``rtol`` raises the dtype's own
    tolerance (a float64 result computed from float32 intermediates is float32-accurate)."""
    assert type(got) is type(want), f"{path}: type {type(got).__name__}, plain Python gives {type(want).__name__}"
    if isinstance(want, (np.ndarray, np.generic)):
        assert got.dtype == want.dtype, f"{path}: dtype {got.dtype}, NumPy gives {want.dtype}"
        assert np.shape(got) == np.shape(want), f"{path}: shape {np.shape(got)}, NumPy gives {np.shape(want)}"
        _assert_values(np.asarray(want), np.asarray(got), path, rtol)
    elif isinstance(want, (tuple, list)):
        assert len(got) == len(want), f"{path}: length {len(got)}, plain Python gives {len(want)}"
        for i, (w, g) in enumerate(zip(want, got)):
            assert_same(w, g, f"{path}[{i}]", rtol)
    elif isinstance(want, dict):
        assert list(got) == list(want), f"{path}: keys {list(got)}, plain Python gives {list(want)}"
        for k in want:
            assert_same(want[k], got[k], f"{path}[{k!r}]", rtol)
    elif isinstance(want, float) and math.isnan(want):
        assert math.isnan(got), f"{path}: {got!r}, plain Python gives nan"
    elif isinstance(want, float):
        assert got == pytest.approx(want, rel=max(rtol, 1e-12), abs=1e-12), (
            f"{path}: {got!r}, plain Python gives {want!r}"
        )
    else:
        assert got == want, f"{path}: {got!r}, plain Python gives {want!r}"


def _assert_values(want: np.ndarray, got: np.ndarray, path: str, rtol: float):
    if want.dtype.kind in "biu":
        np.testing.assert_array_equal(got, want, err_msg=path)
        return
    np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=f"{path}: NaN positions")
    finite = np.isfinite(want)
    np.testing.assert_array_equal(
        got[~finite & ~np.isnan(want)], want[~finite & ~np.isnan(want)], err_msg=f"{path}: infinities"
    )
    if finite.any():
        rtol = max(RTOL[want.dtype], rtol)
        scale = max(1.0, float(np.max(np.abs(want[finite]))))  # reductions and cancellations: absolute slack
        np.testing.assert_allclose(got[finite], want[finite], rtol=rtol, atol=64 * rtol * scale, err_msg=path)


_NUMBER = re.compile(r"([-+]?(?:\d+\.\d*|\.\d+|\d+)(?:[eE][-+]?\d+)?)")


def assert_same_text(want: str, got: str, what: str, rtol: float):
    """The same printed text; where it differs, the numbers in it may differ within the
    result's tolerance (a sum printed from a graph is summed in another order), and the
    spaces NumPy pads array columns with may differ with them; all else is exact."""
    if got == want:
        return
    w_parts, g_parts = _NUMBER.split(want), _NUMBER.split(got)
    message = f"{what}: printed {got!r}, plain Python prints {want!r}"
    assert len(g_parts) == len(w_parts), message
    numbers = [float(w) for w in w_parts[1::2]]
    scale = max([1.0] + [abs(n) for n in numbers if math.isfinite(n)])
    rtol = max(rtol, 1e-7)  # NumPy prints arrays to 8 digits: a last-bit difference may round either way
    for i, (w, g) in enumerate(zip(w_parts, g_parts)):
        if i % 2 == 0:
            assert "".join(g.split()) == "".join(w.split()), message
        else:
            assert math.isclose(float(g), float(w), rel_tol=rtol, abs_tol=64 * rtol * scale), message


def _assert_same_outcome(plain, compiled, what, rtol):
    (p_kind, p_value, p_printed), (c_kind, c_value, c_printed) = plain, compiled
    assert_same_text(p_printed, c_printed, what, rtol)
    if p_kind == "raised":
        assert c_kind == "raised", f"{what}: plain Python raised {p_value!r}, compiled returned {c_value!r}"
        assert type(c_value) is type(p_value), f"{what}: compiled raised {c_value!r}, plain Python {p_value!r}"
        return
    assert c_kind == "ok", f"{what}: compiled raised {c_value!r}, plain Python returned {p_value!r}"
    (p_result, p_args, p_shared), (c_result, c_args, c_shared) = p_value, c_value
    assert_same(p_result, c_result, what, rtol)
    assert_same(p_args, c_args, f"{what}: arguments after the call", rtol)
    assert c_shared == p_shared, f"{what}: results share memory with arguments {c_shared}, NumPy's {p_shared}"


# Dtypes whose math NumPy runs in float16 (bool, 8-bit ints) or float32 (16-bit ints):
# a float64 result computed from such a value is only that accurate. Ember's float16 and
# float32 math functions are within an ulp or two of NumPy's, not bit for bit.
_HALF_LOOPS = ("bool", "int8", "uint8", "float16")
_SINGLE_LOOPS = ("int16", "uint16", "float32", "complex64")


def _narrowest_float_rtol(program) -> float:
    body = program.source[len(PRELUDE) :]
    names = {np.asarray(a).dtype.name for a in program.args} | {
        d for d in _HALF_LOOPS + _SINGLE_LOOPS if re.search(rf"\b{d}\b", body)
    }
    if names & (set(_HALF_LOOPS) - {"bool"}) or ("bool" in names and re.search(r"np\.\w+\(", body)):
        return RTOL[np.dtype(np.float16)]
    if names & set(_SINGLE_LOOPS):
        return RTOL[np.dtype(np.float32)]
    return 0.0


def check_program(program, backend="cpu", also=None):
    """``program``'s ``f`` compiled must do what it does plainly: on the first arguments
    (tracing), on them again (a cache hit), and on the other arguments. ``also(plain,
    compiled, want, rtol)`` runs further checks (``want``: the plain outcome on the
    first arguments); a failure prints the program."""
    name = f"_ember_fuzz_{next(_modules)}"
    plain_fn = make_module(program.source, name).f
    # strict: an internal error of Ember fails the test instead of running eagerly
    compiled_fn = compile(make_module(program.source, name + "_c").f, backend=backend, options={"strict": True})
    rtol = _narrowest_float_rtol(program)
    try:
        want = _call(plain_fn, program.args)
        _assert_same_outcome(want, _call(compiled_fn, program.args), "first call", rtol)
        entries = len(compiled_fn.entries)
        _assert_same_outcome(want, _call(compiled_fn, program.args), "second call (cache hit)", rtol)
        assert len(compiled_fn.entries) == entries, "the same arguments again missed the cache"
        _assert_same_outcome(
            _call(plain_fn, program.other_args),
            _call(compiled_fn, program.other_args),
            "call with other arguments",
            rtol,
        )
        if also is not None:
            also(plain_fn, compiled_fn, want, rtol)
    except AssertionError as e:
        function = program.source[len(PRELUDE) :].strip()
        raise AssertionError(
            f"{e}\n\n--- generated program (after program_source.PRELUDE) ---\n{function}\n"
            f"--- arguments ---\n"
            f"{program.arg_names}\n{program.args!r}\n--- other arguments ---\n"
            f"{program.other_args!r}"
        ) from None


@settings(max_examples=300, deadline=None, suppress_health_check=list(HealthCheck))
@given(program=programs(), eager=st.integers(0, 4))
def test_random_programs_match_plain_python(program, eager):
    check_program(program, backend="eager" if eager == 0 else "cpu")
