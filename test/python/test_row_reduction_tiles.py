"""Row reductions under a light elementwise root run on every thread (``ember-tile``'s
tile size counts the bytes fused into a root, ``tiling._light_root_rows``).

``np.sqrt((x * x).sum(1))`` and a variance's division by ``n`` are an elementwise op
of a few bytes a row over a row reduction of kilobytes a row. Sized by the root alone,
the whole reduction fit one tile and ran on one thread. The programs must give NumPy's
answers on shapes with empty, single and odd dims, and tile into several tiles where
the rows are many; layer norm, whose output carries its share of the work, keeps its
own tile size."""

import re

import numpy as np
import pytest
from graph_building import loops_of

import compiler

pytestmark = pytest.mark.filterwarnings("error:ember:RuntimeWarning")

RNG = np.random.default_rng(47)


def row_norms(x):
    return np.sqrt((x * x).sum(axis=1))


def row_variance(x):
    return ((x - x.mean(axis=1, keepdims=True)) ** 2).mean(axis=1, keepdims=True)


def row_max_shifted(x):
    return np.exp(x.max(axis=1) - 1.0)


def layer_norm(x):
    mu = x.mean(-1, keepdims=True)
    return (x - mu) / np.sqrt(((x - mu) ** 2).mean(-1, keepdims=True) + 1e-5)


PROGRAMS = [row_norms, row_variance, row_max_shifted]


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("shape", [(0, 5), (1, 1), (3, 7), (257, 129), (2000, 300)], ids=str)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_matches_numpy(fn, shape, dtype, thread_count):
    x = RNG.standard_normal(shape).astype(dtype)
    got, want = compiler.compile(fn)(x), fn(x)
    tol = 3e-5 if dtype == np.float32 else 1e-12
    assert got.shape == want.shape and got.dtype == want.dtype
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)


def _tiles(loops: str) -> list[int]:
    return [int(n) for n in re.findall(r"scf\.forall \([^)]*\) in \((\d+)\)", loops)]


@pytest.mark.parametrize("fn", PROGRAMS, ids=lambda f: f.__name__)
def test_a_light_root_over_many_rows_is_tiled(fn):
    tiles = _tiles(loops_of(fn, RNG.standard_normal((4096, 1024)).astype(np.float32)))
    assert tiles and tiles[0] >= 16  # 4 KiB a row: about 60 rows a 256 KiB tile


def test_layer_norm_keeps_its_own_tile_size():
    loops = loops_of(layer_norm, RNG.standard_normal((4096, 1024)).astype(np.float32))
    assert _tiles(loops) == [133] and "d0 * 31" in loops  # 31 rows of 8 KiB (x and the output)
