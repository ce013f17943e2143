"""Imports inside a compiled function, and ``math`` on constants.

Real functions import what they use locally (``import math``, ``from scipy.special
import erf``). The import runs while tracing, as the call would run it; later calls read
the module from ``sys.modules`` behind an identity guard, so the function stays one graph.
"""

import math
import sys

import numpy as np
import pytest

import compiler


def _one_graph(fn, *args):
    out = compiler.explain(fn)(*args)
    assert out.graph_break_count == 0, out.break_reasons
    assert out.graph_count == 1
    return out


def test_import_module_and_from_import_compile_in_one_graph():
    def f(x):
        import math as m

        from numpy import linalg  # noqa: F401 - a submodule, imported and unused

        return x * m.pi + m.sqrt(2 * m.pi)

    x = np.linspace(-1, 1, 7)
    _one_graph(f, x)
    np.testing.assert_array_equal(compiler.compile(f)(x), f(x))


def test_import_of_a_dotted_name_binds_the_top_package():
    def f(x):
        import numpy.random

        return numpy.add(x, 1.0)

    x = np.arange(5.0)
    _one_graph(f, x)
    np.testing.assert_array_equal(compiler.compile(f)(x), x + 1.0)


def test_math_functions_of_constants_fold():
    def f(x):
        return x * math.sqrt(2.0) + math.log(10.0) - math.floor(2.5)

    x = np.arange(4, dtype=np.float32)
    _one_graph(f, x)
    np.testing.assert_array_equal(compiler.compile(f)(x), f(x))


def test_math_error_of_a_constant_is_the_users():
    def f(x):
        return x + math.sqrt(-1.0)

    with pytest.raises(ValueError, match="math domain error"):
        compiler.compile(f)(np.ones(3))


def test_a_failing_import_raises_the_users_error():
    def f(x):
        import ember_no_such_module  # noqa: F401

        return x

    with pytest.raises(ModuleNotFoundError):
        compiler.compile(f)(np.ones(3))


def test_the_imported_module_is_guarded_by_identity():
    name = "ember_test_fake_module"
    first = type(sys)(name)
    first.scale = 2.0
    sys.modules[name] = first
    try:

        def f(x):
            import ember_test_fake_module as mod

            return x * mod.scale

        c = compiler.compile(f)
        x = np.ones(3)
        np.testing.assert_array_equal(c(x), 2 * x)
        second = type(sys)(name)
        second.scale = 3.0
        sys.modules[name] = second  # a reloaded module: the guard fails, the function retraces
        np.testing.assert_array_equal(c(x), 3 * x)
    finally:
        sys.modules.pop(name, None)


def test_scipy_erf_imported_inside_the_function():
    special = pytest.importorskip("scipy.special")

    def f(x):
        from scipy.special import erf

        return 0.5 * (1.0 + erf(x / np.sqrt(2.0)))

    x = np.concatenate([np.linspace(-6, 6, 101), [0.0, -0.0, np.inf, -np.inf, np.nan]])
    _one_graph(f, x)
    got = compiler.compile(f)(x)
    # libm's erf and SciPy's agree within an ulp of erf; 1 + erf cancels near -1, so absolute
    np.testing.assert_allclose(got, f(x), rtol=0, atol=2e-16)

    def g(x):
        from scipy.special import erf

        return erf(x)

    np.testing.assert_allclose(compiler.compile(g)(x), special.erf(x), rtol=3e-16, atol=0)
    x32 = x.astype(np.float32)
    got32 = compiler.compile(f)(x32)
    assert got32.dtype == f(x32).dtype
    np.testing.assert_allclose(got32, f(x32), rtol=1e-6, atol=1e-7)  # Ember's float32 erf: a few ulp
