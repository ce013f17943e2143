"""Random Python programs over NumPy arrays, generated as *source text* (for the fuzzer).

``programs()`` is a Hypothesis strategy of ``Program``s: the source of a module (a
fixed prelude of helpers and globals, then one generated function ``f``) and two
argument sets of the same types. The body of ``f`` is straight-line NumPy code mixed
with Python structure: tuples, lists and dicts built, indexed and unpacked; loops
over ``range``/``zip``/``enumerate``/lists; ``if``/``elif`` on int/str/bool arguments
and on ``len()``/shapes; calls of the prelude's helpers (defaults, keywords, ``*args``,
recursion), closures, lambdas, nested functions, ``functools.partial``, f-string dict
keys and list/dict comprehensions; it returns arrays, NumPy and Python scalars, or
tuples/lists/dicts of them.

Generation *runs* each statement on the first argument set while it is chosen, so
most programs are valid (ops are picked to fit the actual shapes and dtypes); a
statement that raises is retried, and now and then kept on purpose, so that programs
which raise are generated too (the compiled function must raise the same).

``programs(breaks=True)`` inserts *graph-break statements* at random points
(``_BreakBody``): ``print`` of constants and of array data, branches on array data
(``if a.sum() > c:``, ``elif``, conditional expressions, with statements in the arms),
data turned into Python values (``float(a.max())``, ``.item()``, ``.tolist()``), NumPy
functions Ember does not compile (``np.std``, ``np.median``, ...), helpers that print or
call those inside, seeded ``np.random`` and loops that print. While it generates, it
follows the path the first arguments take and counts the *segments* between the
breaks that must compile to a graph: ``Program.min_graphs`` (None where the count
cannot be known: loops, cells, a statement that raises, a dtype Ember does not
compile, a statement Ember is documented to run in CPython).
"""

from __future__ import annotations

import contextlib
import copy
import dis
import io
import re
import sys
import types
import warnings
from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

PRELUDE = """\
import functools
import numpy as np

SCALE = 0.5
OFFSET = 2
TAG = "k"
CFG = {"scale": 1.5, "bias": -1}
WEIGHTS = [0.25, 2.0, -1.0]


def h_affine(a, k=2.0, *, shift=0.5):
    return a * k + shift


def h_pair(a, b):
    return a - b, a * b


def h_total(*arrays, scale=1.0):
    total = arrays[0]
    for a in arrays[1:]:
        total = total + a
    return total * scale


def h_cfg(a, cfg):
    return a * cfg["scale"] + cfg["bias"]


def h_apply(fn, a, *rest):
    return fn(a, *rest)


def make_scaler(k):
    def scaler(a):
        return a * k
    return scaler


def h_keys(prefix, n):
    return {f"{prefix}{i}": i * OFFSET for i in range(n)}


def h_center(a, axis=None):
    return a - np.mean(a, axis=axis, keepdims=True)


def h_rec(a, depth):
    if depth == 0:
        return a
    return h_rec(a * SCALE, depth - 1)


def h_weighted(values, weights=WEIGHTS):
    out = 0
    for value, w in zip(values, weights):
        out = out + value * w
    return out


PARTIAL = functools.partial(h_affine, k=3.0)


def h_show(a, label="h"):
    print(label, a.shape, a.dtype)
    return a * 2


def h_spread(a):
    return (a - a.mean()) / (np.std(a) + 1)


def h_sign(a):
    if a.sum() > 0:
        return a
    return -a


class Logger:
    def log(self, a):
        print("log", a.shape)
        return a + 1


LOG = Logger()
"""

DTYPES = ("float32", "float64", "int32", "int64", "bool", "int8", "uint8", "uint16", "float16", "complex128")
BASE_SHAPES = [(), (0,), (1,), (3,), (4,), (2, 3), (3, 3), (1, 3), (3, 1), (2, 0), (2, 1, 3), (2, 2, 2)]
MODES = ("a", "b", "c")
MAX_TRIES = 4


@dataclass
class Program:
    source: str
    args: tuple  # first argument set
    other_args: tuple  # same types, other values (and other ints/strs/bools)
    arg_names: tuple
    # graph-break programs (``programs(breaks=True)``) only:
    min_graphs: int | None = None  # graphs the first call must compile at least; None: not known
    unchecked: str = ""  # why min_graphs is None
    break_lines: frozenset = field(default_factory=frozenset)  # lines of f (in source) that break or may

    def __str__(self):
        return self.source


def make_module(source: str, name: str) -> types.ModuleType:
    """Exec ``source`` as a fresh module registered in ``sys.modules`` (so globals read
    by inlined helpers can be guarded through the module, as for an imported file)."""
    module = types.ModuleType(name)
    module.__file__ = f"<{name}>"
    sys.modules[name] = module
    exec(compile(source, f"<{name}>", "exec"), module.__dict__)
    return module


# ----------------------------------------------------------------------------- arguments


def _array(draw, dtype: str, shape: tuple) -> np.ndarray:
    size = int(np.prod(shape))
    seed = draw(st.integers(0, 2**32 - 1))
    rng = np.random.default_rng(seed)
    if dtype == "bool":
        data = rng.random(size) < 0.5
    elif dtype.startswith("int"):
        data = rng.integers(-4, 5, size)
    elif dtype.startswith("uint"):
        data = rng.integers(0, 9, size)
    elif dtype.startswith("complex"):
        data = np.round(rng.normal(0.0, 2.0, size), 3) + 1j * np.round(rng.normal(0.0, 2.0, size), 3)
    else:
        data = np.round(rng.normal(0.0, 2.0, size), 3)
    return np.asarray(data, dtype=dtype).reshape(shape)


def _broadcast_partner(draw, shape: tuple) -> tuple:
    """A shape that broadcasts with ``shape``: equal, leading dims dropped, dims set to 1."""
    kind = draw(st.sampled_from(["same", "same", "drop", "ones", "scalar"]))
    if kind == "same" or not shape:
        return shape
    if kind == "drop":
        return shape[draw(st.integers(1, len(shape))) :]
    if kind == "scalar":
        return ()
    return tuple(1 if draw(st.booleans()) else d for d in shape)


@st.composite
def arguments(draw, dtypes=DTYPES):
    """(names, first values, other values): 1-3 arrays, then maybe n:int, mode:str, flag:bool, cfg:dict."""
    n_arrays = draw(st.integers(1, 3))
    base = draw(st.sampled_from(BASE_SHAPES))
    specs = [
        (draw(st.sampled_from(dtypes)), base if i == 0 else _broadcast_partner(draw, base)) for i in range(n_arrays)
    ]
    names = [f"x{i}" for i in range(n_arrays)]
    first = [_array(draw, d, s) for d, s in specs]
    other = [_array(draw, d, s) for d, s in specs]
    extras = {
        "n": st.integers(0, 3),
        "mode": st.sampled_from(MODES),
        "flag": st.booleans(),
        "cfg": st.fixed_dictionaries({"scale": st.sampled_from([0.5, 2.0, -1.0]), "bias": st.integers(-2, 2)}),
    }
    for name, strategy in extras.items():
        if draw(st.booleans()):
            names.append(name)
            first.append(draw(strategy))
            other.append(draw(strategy) if draw(st.booleans()) else first[-1])
    return tuple(names), tuple(first), tuple(other)


# ----------------------------------------------------------------------------- the body


class _Body:
    """Builds ``f``'s body statement by statement, running each on the first arguments."""

    def __init__(self, draw, namespace: dict, arg_names):
        self.draw = draw
        self.ns = namespace
        self.lines: list[str] = []
        self.count = 0
        self.arg_names = arg_names
        self.failed = False  # a statement that raises was kept: only the return follows

    # -- plumbing

    def fresh(self, prefix="v") -> str:
        self.count += 1
        return f"{prefix}{self.count}"

    def value(self, text: str):
        with warnings.catch_warnings(), np.errstate(all="ignore"):
            warnings.simplefilter("ignore")
            return eval(text, dict(self.ns))  # noqa: S307 - our own generated text

    def valid(self, text: str) -> bool:
        try:
            self.value(text)
            return True
        except Exception:
            return False

    def run(self, lines: list[str]) -> bool:
        """Exec a statement on the current values; keep its effect when it succeeds. A
        statement may write into arrays, so it is tried on copies first: one that fails
        halfway must leave nothing written (copies lose views' aliasing, which only
        values depend on, not whether the statement runs)."""
        copies = {
            k: copy.deepcopy(v) if isinstance(v, (np.ndarray, list, dict, tuple)) else v for k, v in self.ns.items()
        }
        if not self._runs(lines, copies):
            return False
        trial = dict(self.ns)
        if not self._runs(lines, trial):
            return False
        self.ns.clear()
        self.ns.update(trial)
        return True

    @staticmethod
    def _runs(lines: list[str], namespace: dict) -> bool:
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                exec("\n".join(lines), namespace)  # noqa: S102
        except Exception:
            return False
        return True

    def choice(self, options):
        return self.draw(st.sampled_from(options))

    def arrays(self) -> list[str]:
        names = [
            k
            for k, val in self.ns.items()
            if isinstance(val, (np.ndarray, np.generic))
            and (k.startswith("x") or k.startswith("v"))
            and k[1:].isdigit()
        ]
        return names or ["x0"]  # in definition order: the newest last

    def has(self, name) -> bool:
        return name in self.arg_names

    # -- expressions

    def leaf(self) -> str:
        return self.choice(self.arrays())

    def expr(self, depth: int = 2) -> str:
        """An array-valued expression that runs on the current values (or a leaf)."""
        if depth <= 0 or self.draw(st.integers(0, 3)) == 0:
            return self.leaf()
        for _ in range(MAX_TRIES):
            maker = self.choice(
                [
                    self.binary,
                    self.binary,
                    self.unary,
                    self.reduce,
                    self.shape_op,
                    self.index,
                    self.join,
                    self.matmul,
                    self.astype,
                    self.where,
                    self.library,
                    self.library,
                ]
            )
            text = maker(depth - 1)
            if text is not None and self.valid(text):
                return text
        return self.leaf()

    def kind(self, text: str) -> str:
        value = self.value(text)
        return np.asarray(value).dtype.kind

    def scalar_literal(self, kind: str) -> str:
        if kind == "b":
            return self.choice(["True", "False", "1", "2.5"])
        if kind == "i":
            return self.choice(
                [
                    "1",
                    "2",
                    "-3",
                    "0",
                    "1.5",
                    "SCALE",
                    "OFFSET",
                    "n" if self.has("n") else "2",
                    'CFG["bias"]',
                    "np.int32(2)",
                    "np.float32(0.5)",
                    "np.pi",
                ]
            )
        return self.choice(
            [
                "0.5",
                "2.0",
                "-1.5",
                "3",
                "SCALE",
                "np.float32(2)",
                "np.float64(0.25)",
                "np.pi",
                'cfg["scale"]' if self.has("cfg") else "1.0",
                "True",
            ]
        )

    def binary(self, depth):
        a = self.expr(depth)
        ka = self.kind(a)
        ops = ["+", "-", "*", "/", "//", "%", "<", "<=", "==", "!=", ">", ">="]
        if ka in "bi":
            ops += ["&", "|", "^"]
        op = self.choice(ops + ["**"])
        if op == "**":
            exponent = self.choice(["2", "3", "0.5", "-1", "2.0"] if ka == "f" else ["2", "3", "0", "1"])
            return f"({a} ** {exponent})" if ka != "f" or exponent != "0.5" else f"(np.abs({a}) ** 0.5)"
        if self.draw(st.booleans()):
            b = self.expr(depth)
        else:
            b = self.scalar_literal(ka)
        if self.draw(st.integers(0, 4)) == 0:
            a, b = b, a
        return f"({a} {op} {b})"

    def unary(self, depth):
        a = self.expr(depth)
        ka = self.kind(a)
        options = [
            "np.exp({})",
            "np.tanh({})",
            "np.abs({})",
            "np.sqrt(np.abs({}))",
            "np.maximum({}, 0)",
            "np.minimum({}, 1)",
            "np.clip({}, -1, 2)",
            "{}.clip(0, None)",
            "np.negative({})",
            "np.log(np.abs({}) + 1)",
            "np.sin({})",
            "np.cos({})",
        ]
        if ka != "b":
            options.append("(-{})")
        if ka in "bi":
            options.append("(~{})")
        return self.choice(options).format(a)

    def _axis(self, ndim: int) -> str:
        if ndim == 0:
            return "None"
        return self.choice(["None"] + [str(i) for i in range(-ndim, ndim)] + (["(0, 1)"] if ndim >= 2 else []))

    def reduce(self, depth):
        a = self.expr(depth)
        ndim = np.ndim(self.value(a))
        axis = self._axis(ndim)
        keepdims = self.choice(["", ", keepdims=True", ", keepdims=False"])
        fn = self.choice(["np.sum", "np.mean", "np.max", "np.min", "method_sum", "method_mean", "method_max"])
        if fn.startswith("method_"):
            name = fn[len("method_") :]
            return self.choice([f"{a}.{name}()", f"{a}.{name}(axis={axis}{keepdims})"])
        return f"{fn}({a}, axis={axis}{keepdims})"

    def shape_op(self, depth):
        a = self.expr(depth)
        value = np.asarray(self.value(a))
        ndim = value.ndim
        options = [
            "{}.T",
            "np.transpose({})",
            "{}.reshape(-1)",
            "np.expand_dims({}, 0)",
            "np.squeeze({})",
            f"np.expand_dims({{}}, {-1 if ndim else 0})",
            "{}.reshape(" + repr(value.shape[::-1]) + ")",
        ]
        if ndim >= 2:
            options += ["{}.transpose(1, 0" + ", 2" * (ndim == 3) + ")", "{}.reshape(" + str(value.shape[0]) + ", -1)"]
        if value.size:
            options.append("{}.reshape(1, -1)")
        return self.choice(options).format(a)

    def index(self, depth):
        a = self.expr(depth)
        shape = np.shape(self.value(a))
        if not shape:
            return self.choice([f"{a}[None]", f"{a}[...]", f"{a}[()]"])
        options = ["[1:]", "[::-1]", "[::2]", "[None]", "[:, None]", "[..., None]", "[-2:]", "[:1]"]
        if shape[0] > 0:
            options += ["[0]", "[-1]"]
        if shape[-1] > 0:
            options.append("[..., 0]")
        if len(shape) >= 2 and shape[1] > 1:
            options += ["[:, 1]", "[0, ::-1]" if shape[0] else "[:, ::-1]"]
        return a + self.choice(options)

    def join(self, depth):
        a = self.expr(depth)
        ndim = np.ndim(self.value(a))
        b = self.choice([a, self.expr(depth)])
        fn = self.choice(["np.concatenate", "np.stack", "np.concatenate_tuple"])
        if fn == "np.concatenate_tuple":
            return f"np.concatenate(({a}, {b}), axis={-1 if ndim else 0})"
        axis = self.draw(st.integers(0, max(ndim - 1, 0)))
        return f"{fn}([{a}, {b}], axis={axis})"

    def matmul(self, depth):
        a = self.expr(depth)
        ndim = np.ndim(self.value(a))
        if ndim == 2:
            return self.choice([f"({a} @ {a}.T)", f"np.matmul({a}.T, {a})", f"np.dot({a}, {a}.T)"])
        if ndim == 1:
            return self.choice([f"({a} @ {a})", f"np.matmul({a}[:, None], {a}[None, :])"])
        return None

    def astype(self, depth):
        a = self.expr(depth)
        kind = self.kind(a)
        targets = ["np.float32", "np.float64", "bool", "float"]
        if kind in "bi":
            targets += ["np.int32", "np.int64", "int"]
        return f"{a}.astype({self.choice(targets)})"

    # NumPy's wider surface (numpy_math, numpy_reductions, numpy_structure, ...): a draw
    # that does not run plainly on the current values (a bad axis, a dtype a function
    # refuses) is dropped by ``valid`` and drawn again.
    UNARY_FUNCTIONS = (
        "np.arctan({})",
        "np.sinh({})",
        "np.arcsinh({})",
        "np.log1p(np.abs({}))",
        "np.expm1({})",
        "np.log2(np.abs({}) + 1)",
        "np.cbrt({})",
        "np.square({})",
        "np.sign({})",
        "np.floor({})",
        "np.ceil({})",
        "np.trunc({})",
        "np.rint({})",
        "np.round({}, 1)",
        "np.isnan({})",
        "np.isfinite({})",
        "np.signbit({})",
        "np.nan_to_num({})",
        "np.logical_not({})",
        "np.deg2rad({})",
        "np.exp2({})",
        "np.std({}, ddof=1)",
        "np.var({}, axis=0)",
        "np.argmax({})",
        "np.argmin({}, axis=-1)",
        "np.any({})",
        "np.all({}, axis=0)",
        "np.count_nonzero({})",
        "np.ptp({})",
        "np.cumsum({}, axis=0)",
        "np.cumprod({})",
        "np.maximum.accumulate({})",
        "np.fmin.accumulate({}, axis=-1)",
        "np.nansum({})",
        "np.nanmax({}, axis=-1)",
        "np.average({}, axis=0)",
        "np.flip({})",
        "np.flip({}, axis=-1)",
        "np.roll({}, 1)",
        "np.roll({}, -2, axis=0)",
        "np.tile({}, 2)",
        "np.repeat({}, 2, axis=0)",
        "np.pad({}, 1)",
        "np.pad({}, (1, 2), mode='edge')",
        "np.pad({}, 1, mode='reflect')",
        "np.diff({})",
        "np.diff({}, axis=0)",
        "np.tril({})",
        "np.triu({}, 1)",
        "np.diag({})",
        "np.diagonal({})",
        "np.trace({})",
        "np.atleast_2d({})",
        "np.fliplr({})",
        "np.swapaxes({}, 0, -1)",
        "np.moveaxis({}, 0, -1)",
        "{}.ravel()",
        "np.ravel({})",
        "np.sort({})",
        "np.sort({}, axis=None)",
        "np.argsort({}, axis=0)",
        "np.median({})",
        "np.median({}, axis=-1)",
        "np.percentile({}, 30)",
        "np.quantile({}, [0.25, 0.75], axis=0)",
        "np.linalg.norm({})",
        "np.linalg.norm({}, axis=-1)",
        "np.einsum('...i->...', {})",
        "np.einsum('ij->ji', {})",
        "np.einsum('ii', {})",
        "{}[np.array([0, -1, 0])]",
        "{}[[1, 0]]",
        "{0}[{0} > 0].sum()",
        "{0}[{0} != 0].mean()",
        "np.take({}, [1, 0], axis=-1)",
        "np.take({}, [2, -1])",
        "np.linalg.inv({} + 4 * np.eye(3))",
        "np.linalg.det({})",
        "np.real({})",
        "np.imag({})",
        "np.abs({} + 0.5j)",
        "np.angle({})",
    )
    BINARY_FUNCTIONS = (
        "np.arctan2({}, {})",
        "np.hypot({}, {})",
        "np.copysign({}, {})",
        "np.fmod({}, {})",
        "np.fmax({}, {})",
        "np.fmin({}, {})",
        "np.logical_and({}, {})",
        "np.logical_xor({}, {})",
        "np.heaviside({}, {})",
        "np.outer({}, {})",
        "np.vstack([{}, {}])",
        "np.hstack([{}, {}])",
        "np.column_stack([{}, {}])",
        "np.divmod({}, {})[0]",
        "np.remainder({}, {})",
        "np.inner({}, {})",
        "np.vdot({}, {})",
        "np.tensordot({}, {}, axes=0)",
        "np.einsum('...,...->...', {}, {})",
        "np.einsum('ij,jk->ik', {}, {})",
        "np.linalg.solve({} + 4 * np.eye(3), {})",
        "np.where({1} > 0, {0} * 1j, {1})",
    )

    def library(self, depth):
        a = self.expr(depth)
        if self.draw(st.booleans()):
            return self.choice(self.UNARY_FUNCTIONS).format(a)
        b = self.choice([a, self.expr(depth), self.scalar_literal(self.kind(a))])
        return self.choice(self.BINARY_FUNCTIONS).format(a, b)

    def where(self, depth):
        a, b = self.expr(depth), self.expr(depth)
        return self.choice(
            [f"np.where({a} > 0, {a}, {b})", f"np.where({a}, {b}, 0.5)", f"np.where({a} < {b}, {a}, -1)"]
        )

    # -- statements

    def statement(self):
        for _ in range(MAX_TRIES):
            maker = self.choice(
                [
                    self.assign,
                    self.assign,
                    self.tuples,
                    self.lists,
                    self.dicts,
                    self.loop,
                    self.branch,
                    self.helper,
                    self.closure,
                    self.comprehension,
                    self.inplace,
                    self.inplace,
                    self.create,
                ]
            )
            lines = maker()
            if lines and self.run(lines):
                self.lines += lines
                return
        if lines and self.draw(st.integers(0, 9)) == 0:  # keep a statement that raises, now and then
            self.lines += lines
            self.failed = True

    def assign(self):
        return [f"{self.fresh()} = {self.expr()}"]

    def tuples(self):
        a, b, c = self.expr(1), self.expr(1), self.expr(1)
        x, y, t = self.fresh(), self.fresh(), self.fresh("t")
        return self.choice(
            [
                [f"{x}, {y} = {a}, {b}"],
                [f"{x}, {y} = h_pair({a}, {b})"],
                [f"{t} = ({a}, {b}, {c})", f"{x} = {t}[1] + {t}[-1]", f"{y} = {t}[:2][0]"],
                [f"{x}, *{t} = [{a}, {b}, {c}]", f"{y} = {t}[-1] * len({t})"],
                [f"{t} = ({a},) * 2 + ({b},)", f"({x}, _, {y}) = {t}"],
            ]
        )

    def lists(self):
        a, b, c = self.expr(1), self.expr(1), self.expr(1)
        x, items = self.fresh(), self.fresh("lst")
        return self.choice(
            [
                [f"{items} = [{a}, {b}]", f"{items}.append({c})", f"{x} = {items}[-1] - {items}[0]"],
                [
                    f"{items} = [{a}]",
                    f"{items}.extend([{b}, {c}])",
                    f"{x} = {items}.pop()",
                    f"{x} = {x} + len({items})",
                ],
                [f"{items} = [{a}, {b}, {c}]", f"{x} = h_total(*{items}, scale=SCALE)"],
                [f"{items} = list(({a}, {b}))", f"{items}.insert(0, {c})", f"{x} = h_weighted({items})"],
            ]
        )

    def dicts(self):
        a, b = self.expr(1), self.expr(1)
        x, d = self.fresh(), self.fresh("d")
        key = self.choice(
            ['f"{TAG}{OFFSET}"', 'f"{mode}_1"' if self.has("mode") else '"m_1"', 'f"w{n}"' if self.has("n") else '"w"']
        )
        return self.choice(
            [
                [f"{d} = {{'a': {a}, {key}: {b}}}", f"{d}['c'] = {d}['a'] * 2", f"{x} = {d}[{key}] + {d}['c']"],
                [f"{d} = dict(p={a}, q={b})", f"{x} = {d}.get('q', 0) + {d}.get('zz', 1)"],
                [f"{d} = {{f'{{TAG}}{{i}}': val for i, val in enumerate([{a}, {b}])}}", f"{x} = {d}['k1'] - {d}['k0']"],
                [f"{d} = h_keys(TAG, 3)", f"{x} = {a} * {d}['k2'] + len({d})"],
                [
                    f"{d} = {{'s': {a}, 't': {b}}}",
                    f"{x} = 0",
                    f"for key, val in {d}.items():",
                    f"    {x} = {x} + val * len(key)",
                ],
            ]
        )

    def loop(self):
        a, b = self.expr(1), self.expr(1)
        acc = self.fresh()
        bound = self.choice(["3", "2", "n" if self.has("n") else "1", "len(x0)" if np.ndim(self.ns["x0"]) else "1"])
        return self.choice(
            [
                [f"{acc} = {a}", f"for i in range({bound}):", f"    {acc} = {acc} * SCALE + {b}"],
                [f"{acc} = {a}", f"for i, item in enumerate([{a}, {b}]):", f"    {acc} = {acc} + item * (i + 1)"],
                [f"{acc} = 0", f"for p, q in zip([{a}, {b}], (1, 2.5)):", f"    {acc} = {acc} + p * q"],
                [f"{acc} = {a}", "for k in [1, 2]:", "    if k == 2:", "        continue", f"    {acc} = {acc} - k"],
                [f"{acc} = {a}", "i = 0", f"while i < {bound}:", f"    {acc} = np.tanh({acc})", "    i += 1"],
            ]
        )

    def condition(self) -> str:
        options = [
            "len(x0) > 2" if np.ndim(self.ns["x0"]) else "x0.ndim == 0",
            "x0.shape[-1] == 3" if np.ndim(self.ns["x0"]) else "x0.size == 1",
            "x0.dtype == np.float32",
            "x0.ndim >= 2",
            "isinstance(x0, np.ndarray)",
            "OFFSET > 1",
        ]
        if self.has("n"):
            options += ["n > 1", "n == 0", "n % 2 == 1"]
        if self.has("mode"):
            options += ['mode == "a"', 'mode in ("b", "c")', 'mode != "c"']
        if self.has("flag"):
            options += ["flag", "not flag", "flag and OFFSET == 2"]
        if self.has("cfg"):
            options += ['cfg["bias"] > 0', '"scale" in cfg']
        return self.choice(options)

    def branch(self):
        x = self.fresh()
        a, b, c = self.expr(), self.expr(), self.expr()
        shape = self.choice(["if", "if-else", "if-elif-else"])
        lines = [f"{x} = {c}", f"if {self.condition()}:", f"    {x} = {a}"]
        if shape == "if-elif-else":
            lines += [f"elif {self.condition()}:", f"    {x} = {b} + 1"]
        if shape != "if":
            lines += ["else:", f"    {x} = {b}"]
        return lines

    def helper(self):
        a, b = self.expr(1), self.expr(1)
        x = self.fresh()
        k = "n" if self.has("n") else "2"
        return [
            f"{x} = "
            + self.choice(
                [
                    f"h_affine({a})",
                    f"h_affine({a}, 0.5)",
                    f"h_affine({a}, shift={k})",
                    f"h_affine(k=-1.0, a={a})",
                    f"h_total({a}, {b}, {a})",
                    f"h_cfg({a}, CFG)",
                    f"h_cfg({a}, cfg)" if self.has("cfg") else f"h_cfg({a}, CFG)",
                    f"h_apply(np.tanh, {a})",
                    f"h_apply(np.maximum, {a}, {b})",
                    f"h_apply(lambda p, q: p * q - 1, {a}, {b})",
                    f"make_scaler(1.5)({a})",
                    f"PARTIAL({a})",
                    f"PARTIAL({a}, shift=-2)",
                    f"functools.partial(h_affine, shift=1.0)({a}, 2.0)",
                    f"h_rec({a}, {k})",
                    f"h_center({a})",
                    f"h_weighted(({a}, {b}))",
                    f"h_weighted([{a}, {b}], weights=(1, -1))",
                ]
            )
        ]

    def closure(self):
        a, b = self.expr(1), self.leaf()
        x, fn = self.fresh(), self.fresh("fn")
        return self.choice(
            [
                [f"def {fn}(p, q={b}):", "    return p * 2 - q", f"{x} = {fn}({a})"],
                [f"def {fn}(p):", f"    return p + {b} * OFFSET", f"{x} = {fn}({a}) + {fn}({b})"],
                [f"{fn} = lambda p, *rest: p - len(rest)", f"{x} = {fn}({a}, 1, 2)"],
                [
                    f"def {fn}(p):",
                    "    def inner(q):",
                    "        return q * p",
                    "    return inner",
                    f"{x} = {fn}({a})({b})",
                ],
                [f"{fn} = make_scaler({b})", f"{x} = h_apply({fn}, {a})"],
            ]
        )

    def comprehension(self):
        a, b = self.expr(1), self.expr(1)
        x, items = self.fresh(), self.fresh("lst")
        return self.choice(
            [
                [f"{items} = [np.tanh(p) * i for i, p in enumerate(({a}, {b}))]", f"{x} = {items}[-1] + {items}[0]"],
                [f"{items} = [p for p in [{a}, {b}, {a}] if p is not None]", f"{x} = sum({items})"],
                [f"{items} = [{a} * k for k in range(3) if k != 1]", f"{x} = {items}[1] - {items}[0]"],
            ]
        )

    def _slice(self) -> str:
        return self.choice(["1:", ":-1", "::2", "::-1", "1::2", "-2:", "...", ":"])

    def inplace(self):
        """Writes into an existing array (an argument or a local) or a view of it."""
        target, x, view = self.leaf(), self.expr(1), self.fresh()
        op = self.choice(["+=", "-=", "*=", "/=", "//=", "**=", "|=", "&="])
        return self.choice(
            [
                [f"{target} {op} {x}"],
                [f"{target}[{self._slice()}] = {x}"],
                [f"{target}[{self._slice()}] {op} {x}"],
                [f"{view} = {target}[{self._slice()}]", f"{view} {op} {x}"],
                [f"{view} = {target}.T", f"{view}[{self._slice()}] = {x}"],
                [f"{view} = {target}.reshape(-1)", f"{view}[::2] += 1"],
                [f"{target}[1:] += {target}[:-1]"],
                [f"{target}[:] = {target}[::-1]"],
                [f"np.add({target}, {x}, out={target})"],
                [f"np.copyto({target}, {x})"],
                [f"{target}.fill(OFFSET)"],
                [f"{target}[0] = {x}[0] if np.ndim({x}) else {x}"],
            ]
        )

    def create(self):
        """An array made in the function, then written."""
        like, x, v = self.leaf(), self.expr(1), self.fresh()
        shape = "x0.shape"
        return self.choice(
            [
                [f"{v} = np.zeros_like({like})", f"{v} += {x}"],
                [f"{v} = np.empty({shape}, {like}.dtype)", f"{v}[...] = {x}"],
                [f"{v} = np.ones({shape})", f"{v}[::2] = {x}[::2] if np.ndim({x}) else {x}"],
                [f"{v} = np.full({shape}, SCALE, dtype=np.float32)", f"{v} *= {x}"],
                [f"{v} = {like}.copy()", f"{v}[-1:] = 7"],
                [f"{v} = np.arange(x0.size, dtype=np.float64).reshape({shape})", f"{v} -= {x}"],
                [f"{v} = np.linspace(0.0, 1.0, x0.size).reshape({shape}) + {x}"],
                [f"{v} = np.array({like})", f"{v}[...] = 0"],
            ]
        )

    # -- the return value

    def returned(self) -> str:
        names = self.arrays()
        recent = names[-2:]  # mostly the newest values, so that the statements matter
        a = self.choice(recent if self.draw(st.integers(0, 3)) else names)
        b = self.choice(recent if self.draw(st.booleans()) else names)
        extra = self.choice(
            [
                "n" if self.has("n") else "1",
                "mode" if self.has("mode") else "'m'",
                "len(x0.shape)",
                "x0.shape",
                "x0.dtype",
                "None",
                "SCALE",
                f"{a}.ndim",
            ]
        )
        return self.choice(
            [
                a,
                a,
                a,
                f"({a}, {b})",
                f"({a}, {b})",
                f"[{a}, {extra}]",
                f"{{'out': {a}, f'{{TAG}}1': {b}}}",
                f"{a}.sum()",
                f"np.sum({a}) * 2",
                f"{a}.max() if {a}.size else {a}.shape",
                f"({a}.mean(), {extra})",
                extra,
                f"{a}[()] if {a}.ndim == 0 else {a}[0]" if np.size(self.ns.get(a, 0)) else a,
                f"float(np.sum({a}))",
                f"{a}.astype(np.float32)",
                f"{a}.shape",
                f"({a}, ({b}, {extra}))",
            ]
        )


# ----------------------------------------------------------------------------- graph breaks

# Whether to generate a break at a method call of a Python object (``LOG.log(a)``).
METHOD_CALL_BREAKS = True
# Whether to generate a bound method on the stack across a break (``LOG.log(b * float(a.max()))``).
METHOD_ON_STACK_BREAKS = True

# Complex values count as exotic: many functions (max, min, sort, cumsum, ...) run in
# CPython on them, so work on them is not known to make a graph.
_EMBER_DTYPES = frozenset(np.dtype(d) for d in DTYPES if not d.startswith("complex"))
# NumPy functions that make views or read metadata: no work of their own in a graph.
_NO_WORK = frozenset(
    [np.shape, np.ndim, np.size, np.transpose, np.reshape, np.expand_dims, np.squeeze, np.ravel, np.copyto]
)
# A name bound by plain assignment (``v1 = ...``, ``v1, v2 = ...``): the left side is no read.
_TARGETS = re.compile(r"^\s*\(?\s*\*?\w+(?:\s*,\s*\*?\w+)*\s*\)?\s*=(?!=)")


def _reads_data(line: str, name: str) -> bool:
    """Whether ``line`` reads the data of the value bound to ``name`` (not only binds the
    name or writes into it, nor reads only its shape, dtype or length)."""
    line = _TARGETS.sub("", line)
    line = re.sub(rf"^\s*{name}\s*\[[^\]]*\]\s*=(?!=)", "", line)  # a write into it
    line = re.sub(rf"\b{name}\s*\.\s*(?:shape|ndim|dtype|size|fill)\b", "", line)
    line = re.sub(rf"\b(?:len|np\.ndim|np\.shape|np\.size|np\.\w+_like)\(\s*{name}\s*[,)]", "", line)
    return re.search(rf"\b{name}\b", line) is not None


class _Tracker:
    """What NumPy did to ``Tracked`` arrays during
    one measured run: whether its latest operation had non-empty tracked inputs
    (``live``: a graph must compute that value), and whether any value had a dtype
    Ember does not compile (``exotic``: such work runs in CPython)."""

    def __init__(self):
        self.reset()

    def reset(self):
        self.live = False
        self.exotic = False


_TRACK = _Tracker()


def _flat(values):
    for v in values:
        if isinstance(v, (list, tuple)):
            yield from _flat(v)
        else:
            yield v


def _note(inputs, result, work: bool = True):
    for v in _flat([inputs, result]):
        if isinstance(v, (np.ndarray, np.generic)) and v.dtype not in _EMBER_DTYPES:
            _TRACK.exotic = True
    _TRACK.live = work and any(isinstance(v, Tracked) and v.size for v in _flat(inputs))


def _plain(value):
    return value.view(np.ndarray) if isinstance(value, Tracked) else value


def _wrap(value):
    if isinstance(value, np.ndarray) and not isinstance(value, Tracked):
        return value.view(Tracked)
    if isinstance(value, tuple):
        return tuple(_wrap(v) for v in value)
    return value


def _track(value):
    """``value`` with its arrays (in lists, tuples and dicts too) made ``Tracked`` views."""
    if isinstance(value, np.ndarray):
        return value if isinstance(value, Tracked) else value.view(Tracked)
    if isinstance(value, list):
        value[:] = [_track(v) for v in value]
    elif isinstance(value, dict):
        for k in list(value):
            value[k] = _track(value[k])
    elif type(value) is tuple:
        return tuple(_track(v) for v in value)
    return value


class Tracked(np.ndarray):
    """An array of ``f``'s, during generation only: the arguments and every array a kept
    statement leaves behind (Ember compiles work on arrays made in the function too: it
    folds no constants). Each NumPy operation on it is noted in ``_TRACK``. NumPy scalars
    stay untracked: Ember hands one computed before a break to the resume function as a
    guarded constant, so work on it there is no graph's."""

    def __array_ufunc__(self, ufunc, method, *inputs, out=None, **kwargs):
        if out is not None:
            kwargs["out"] = tuple(_plain(o) for o in out)
        result = getattr(ufunc, method)(*(_plain(i) for i in inputs), **kwargs)
        _note(inputs, result)
        if out is not None:
            return out[0] if len(out) == 1 else out
        return _wrap(result)

    def __array_function__(self, func, types, args, kwargs):
        result = super().__array_function__(func, types, args, kwargs)
        _note((args, tuple(kwargs.values())), result, work=func not in _NO_WORK)
        return _wrap(result)


class _BreakBody(_Body):
    """A ``_Body`` that also writes graph-break statements and, along the path the first
    arguments take, counts the segments between breaks that must compile to a graph.

    A segment counts when a value computed in it from the arguments (``Tracked``, non-empty,
    in a dtype Ember compiles) is *live* at its end: handed to the breaking instruction
    (``print(a.sum())``, ``if a.sum() > c:``, ``float(a.max())``), returned, or assigned
    by ``v = <expr>`` and read after the segment. Only statements that break by Ember's
    documented rules close a segment (``print``, a jump on array data, array data turned
    into a Python value); those that break today but may be compiled one day (``np.std``,
    a helper calling it) do not, so the count is a lower bound either way."""

    def __init__(self, draw, namespace: dict, arg_names):
        super().__init__(draw, namespace, arg_names)
        self.work = [False]  # per segment on the path: a graph must run in it
        self.ends: list[int] = []  # index in lines of the break that closed each segment
        self.candidates: list[tuple[int, str]] = []  # (segment, name bound there to live-if-read work)
        self.break_lines: set[int] = set()  # indices in lines that break, or may
        self.unchecked = ""  # why the graph count is not known
        self.exotic = False  # the latest run saw a dtype Ember does not compile
        self.last_live = False  # the latest run's last operation was live work
        self.pending_exotic = False  # an expression a break statement reads has such a dtype
        self._assigned = None  # the lines of the latest assign(), to recognise it when kept
        self._closure = None  # and of the latest closure()

    # -- plumbing

    def run(self, lines: list[str]) -> bool:
        _TRACK.reset()
        ok = super().run(lines)
        self.exotic = _TRACK.exotic
        self.last_live = _TRACK.live
        if ok:  # arrays the statement made from constants are the function's work too
            for name, value in self.ns.items():
                self.ns[name] = _track(value)
        return ok

    def loop(self):
        """Loops (which leave the graph count unknown) half as often as the frontend fuzzer."""
        return self.assign() if not self.draw(st.booleans()) else super().loop()

    def closure(self):
        """Local functions half as often: Ember cannot hand one to a resume function, so
        a break after it runs the whole function in CPython."""
        if not self.draw(st.booleans()):
            return self.assign()
        self._closure = super().closure()
        return self._closure

    def live(self, text: str, extra: dict | None = None) -> bool:
        """Whether the value of expression ``text`` is work a graph must do (see the class)."""
        namespace = dict(self.ns)
        namespace.update(extra or {})
        _TRACK.reset()
        try:
            with warnings.catch_warnings(), np.errstate(all="ignore"):
                warnings.simplefilter("ignore")
                value = eval(text, namespace)  # noqa: S307 - our own generated text
        except Exception:
            return False
        if _TRACK.exotic:
            self.pending_exotic = True
        return _TRACK.live and not (isinstance(value, np.ndarray) and value.size == 0)

    def uncheck(self, why: str):
        self.unchecked = self.unchecked or why

    def assign(self):
        self._assigned = super().assign()
        return self._assigned

    # Read-only views the tracer does not follow: live at a break, the resume function
    # cannot be handed one, and the whole call runs in CPython (correct, no graph).
    OPAQUE_VIEWS = re.compile(r"np\.diag\(|np\.diagonal\(|np\.real\(|np\.imag\(|np\.broadcast_to\(")

    def library(self, depth):
        text = super().library(depth)
        if text is not None and self.OPAQUE_VIEWS.search(text):
            self.uncheck("a read-only view the tracer does not follow may be live at a break")
        return text

    def statement(self):
        before = len(self.lines)
        self._assigned = self._closure = None
        super().statement()
        added = self.lines[before:]
        if self.failed:
            self.uncheck("a statement raises")
        elif added and added == self._closure:
            self.uncheck("a local function (f runs in CPython from a break on)")
        elif added and self.exotic:
            self.uncheck("a dtype Ember does not compile")
        elif added and added == self._assigned:
            name = added[0].split(" = ")[0]
            if self.last_live and np.size(self.ns[name]):
                self.candidates.append((len(self.work) - 1, name))

    def break_statement(self):
        makers = [
            lambda: self.guarded(self.print_constants()),
            lambda: self.guarded(self.print_data()),
            self.print_data,
            self.aliased_write,
            self.data_branch,
            self.data_branch,
            self.data_branch,
            self.to_python,
            self.unsupported,
            self.breaking_helper,
        ]
        if self.draw(st.integers(0, 19)) == 7:  # rarely (not 0: Hypothesis favours it): the count is unknown
            makers = [self.break_in_loop, self.random_numbers, self.format_data]
        for _ in range(MAX_TRIES):
            self.pending_exotic = False
            made = self.choice(makers)()
            if made is None:
                continue
            lines, events = made
            if self.run(lines):
                self.accept(lines, events)
                return
        # no break statement that runs here: the program goes on without one

    def accept(self, lines: list[str], events: list[tuple]):
        """Append a break statement's lines; ``events``, in the order the first arguments
        run into them: ``("break", line, live)`` a break after live work (or not),
        ``("may", line)`` a call that breaks today, ``("bind", name, live)`` a name bound
        to live-if-read work, ``("uncheck", why)``."""
        base = len(self.lines)
        self.lines += lines
        if self.exotic or self.pending_exotic:
            self.uncheck("a dtype Ember does not compile")
        for event in events:
            if event[0] == "break":
                self.work[-1] |= event[2]
                self.ends.append(base + event[1])
                self.work.append(False)
                self.break_lines.add(base + event[1])
            elif event[0] == "may":
                self.break_lines.add(base + event[1])
            elif event[0] == "bind":
                if event[2]:
                    self.candidates.append((len(self.work) - 1, event[1]))
            else:
                self.uncheck(event[1])

    def min_graphs(self, returned: str) -> int:
        """Segments on the first arguments' path that must run a graph."""
        work = list(self.work)
        work[-1] |= self.live(returned)
        ends = self.ends + [len(self.lines)]
        text = self.lines + [f"return {returned}"]
        for segment, name in self.candidates:
            if any(_reads_data(line, name) for line in text[ends[segment] :]):
                work[segment] = True
        return sum(work)

    def data(self) -> str | None:
        """A non-empty array expression (a jump on it or a conversion of it cannot be
        decided while tracing)."""
        for _ in range(MAX_TRIES):
            a = self.expr(1) if self.draw(st.booleans()) else self.leaf()
            value = self.value(a)
            if isinstance(value, Tracked) and value.size and value.dtype in _EMBER_DTYPES:
                return a
        return None

    def threshold(self, value) -> str:
        """A constant away from ``value``: no rounding difference may flip the comparison."""
        value = float(value)
        if not np.isfinite(value):
            return "0.5"
        c = round(round(value, 1) + self.choice([-0.0137, 0.0213, -0.5137, 1.0213]), 4)
        if abs(c - value) < 1e-3 * (1 + abs(value)):
            c = round(c + 0.5, 4)
        return repr(c)

    # -- break statements

    def guarded(self, made):
        """``made`` (a one-line ``print`` and its events), now and then under a Python-level
        condition: it breaks only when the first arguments make the condition hold."""
        if made is None or self.draw(st.integers(0, 3)) != 1:
            return made
        (line,), events = made
        condition = self.condition()
        if self.value(condition):
            return [f"if {condition}:", f"    {line}"], [(kind, 1, *rest) for kind, _, *rest in events]
        return [f"if {condition}:", f"    {line}"], [("may", 1)]

    def print_constants(self):
        options = [
            'print("step")',
            'print("a b", OFFSET, sep="-")',
            "print(OFFSET, TAG, SCALE)",
            "print(x0.shape, x0.dtype, x0.ndim)",
            'print(f"{TAG}-{OFFSET}", end="|\\n")',
            "print()",
            'print(len(x0.shape), "dims", CFG)',
            'print(WEIGHTS[1:], (1, "two"), None)',
        ]
        if self.has("n"):
            options.append("print(n, n * 2)")
        if self.has("mode"):
            options.append('print(mode, mode == "a")')
        if self.has("flag"):
            options.append("print(not flag)")
        if self.has("cfg"):
            options.append('print(cfg["scale"], cfg)')
        return [self.choice(options)], [("break", 0, False)]

    def print_data(self):
        """``print`` of array data: the values printed (the array itself, reductions, a
        count, a repr) are computed by the graph before it."""
        a = self.data()
        if a is None:
            return None
        args = self.choice(
            [
                [(f"{a}.sum()", True)],
                [('"sum:"', False), (f"np.sum({a})", True)],
                [(f"{a}.max()", True), (f"{a}.min()", True)],
                [(f"({a} > 0).sum()", True), ('"positive"', False)],
                [(a, True)],
                [(f"{a}.mean()", True)],
                [(f"{a}.shape", False), (f"{a}.sum()", True)],
                [(f"repr({a}.max())", True)],
                [(f"float({a}.sum())", True)],
                [(f"{a}.astype(np.int64).sum()", True), ('"ints"', False)],
            ]
        )
        live = any(self.live(text) for text, data in args if data)
        return [f"print({', '.join(text for text, _ in args)})"], [("break", 0, live)]

    def format_data(self):
        """An f-string of array data: FORMAT_VALUE is no break point, Ember runs the rest in CPython."""
        a = self.data()
        if a is None:
            return None
        return [f'print(f"{{TAG}}={{{a}.sum()}}")'], [("may", 0), ("uncheck", "an f-string of array data")]

    def data_condition(self) -> tuple[str, bool] | None:
        """(condition on array data, whether it reads live work)."""
        a = self.data()
        if a is None:
            return None
        form = self.choice(["sum", "max", "mean", "count", "not", "and"])
        if form == "sum":
            cond = f"{a}.sum() > {self.threshold(self.value(f'{a}.sum()'))}"
        elif form == "max":
            cond = f"{a}.max() < {self.threshold(self.value(f'{a}.max()'))}"
        elif form == "mean":
            cond = f"{a}.mean() >= {self.threshold(self.value(f'{a}.mean()'))}"
        elif form == "count":
            count = int(self.value(f"({a} > 0).sum()"))
            cond = f"({a} > 0).sum() > {count + self.choice([-0.5, 0.5])}"
        elif form == "not":
            cond = f"not {a}.min() > {self.threshold(self.value(f'{a}.min()'))}"
        else:  # two jumps: the second only when the first holds (its break is not counted)
            cond = (
                f"{a}.sum() > {self.threshold(self.value(f'{a}.sum()'))} "
                f"and {a}.max() < {self.threshold(self.value(f'{a}.max()'))}"
            )
        return cond, self.live(cond)

    def arm_values(self, count: int) -> list[str]:
        """``count`` expressions, of one shape and dtype where a few tries find them."""
        for _ in range(3):
            exprs = [self.expr() for _ in range(count)]
            values = [np.asarray(self.value(e)) for e in exprs]
            if all(v.shape == values[0].shape and v.dtype == values[0].dtype for v in values):
                break
        return exprs

    def data_branch(self):
        """A branch on array data, with a statement (and maybe a ``print``) in each arm."""
        first = self.data_condition()
        if first is None:
            return None
        cond, cond_live = first
        x = self.fresh()
        shape = self.choice(["if-else", "if-else", "if", "if-elif-else", "ternary"])
        taken = bool(self.value(cond))
        if shape == "ternary":
            e1, e2 = self.arm_values(2)
            return [f"{x} = {e1} if {cond} else {e2}"], [
                ("may", 0),  # traced both ways where the arms are array values (branches.py)
                ("bind", x, self.live(e1 if taken else e2)),
            ]
        conds = [(cond, cond_live, taken)]
        if shape == "if-elif-else":
            second = self.data_condition()
            if second is None:
                return None
            conds.append((second[0], second[1], bool(self.value(second[0]))))
        exprs = self.arm_values(len(conds) + (shape != "if"))
        lines, events = [], []
        if shape == "if":
            e0 = self.expr()
            lines.append(f"{x} = {e0}")
            if not taken:
                events.append(("bind", x, self.live(e0)))
        arms = [(f"{'if' if i == 0 else 'elif'} {c}:", c_live, c_taken) for i, (c, c_live, c_taken) in enumerate(conds)]
        if shape != "if":
            arms.append(("else:", None, True))
        on_path = True  # the first arguments reach this arm's test
        for i, (head, c_live, c_taken) in enumerate(arms):
            lines.append(head)
            if on_path and c_live is not None:  # a break, unless traced both ways (branches.py)
                events.append(("may", len(lines) - 1))
            runs = on_path and c_taken
            lines.append(f"    {x} = {exprs[i]}")
            value = self.value(exprs[i]) if runs else None
            if runs:
                events.append(("bind", x, self.live(exprs[i])))
            if self.draw(st.integers(0, 2)) == 0:
                shown = self.choice([('"then"', False), (f"{x}.sum()", True), (f"{x}.shape", False)])
                lines.append(f"    print({i}, {shown[0]})")
                if runs:
                    events.append(("break", len(lines) - 1, shown[1] and self.live(shown[0], {x: value})))
                else:
                    events.append(("may", len(lines) - 1))
            on_path = on_path and not c_taken
        return lines, events

    def to_python(self):
        """Array data turned into a Python value, then used with arrays: on a line of its
        own, or inside an expression (values already on the stack cross the break), or
        inside a tuple being built."""
        a = self.data()
        if a is None:
            return None
        x, y, b = self.fresh(), self.fresh(), self.expr(1)
        read, convert, use = self.choice(
            [
                (f"{a}.max()", f"float({a}.max())", "{B} * {X}"),
                (f"np.sum({a})", f"float(np.sum({a}))", "{B} - {X}"),
                (f"{a}.sum()", f"{a}.sum().item()", "{B} + {X}"),
                (f"({a} > 0).sum()", f"int(({a} > 0).sum())", "{B} * {X}"),
                (f"{a}.reshape(-1)", f"{a}.reshape(-1).tolist()", "{B} + len({X})"),
                (f"{a}.min()", f"{a}.min().tolist()", "{B} / (abs({X}) + 1)"),
            ]
        )
        try:
            value = self.value(convert)
        except Exception:
            return None
        used = self.live(use.format(B=b, X=x), {x: value})
        shape = self.choice(
            ["lines", "inline", "tuple", "dict", "call", "keyword"] + ["method"] * METHOD_ON_STACK_BREAKS
        )
        if shape == "lines":
            lines = [f"{x} = {convert}", f"{y} = {use.format(B=b, X=x)}"]
            return lines, [("break", 0, self.live(read)), ("bind", y, used)]
        before = self.live(read) or self.live(b)  # b is computed before the break, handed across it
        if shape == "inline":
            return [f"{y} = {use.format(B=b, X=f'({convert})')}"], [("break", 0, before), ("bind", y, used)]
        if shape == "tuple":
            lines = [f"{x} = ({b}, {convert})", f"{y} = {use.format(B=f'{x}[0]', X=f'{x}[1]')}"]
        elif shape == "dict":
            item_b, item_x = x + "['b']", x + "['x']"
            lines = [f"{x} = {{'b': {b}, 'x': {convert}}}", f"{y} = {use.format(B=item_b, X=item_x)}"]
        elif shape == "call":  # the callee and b on the stack across the break
            lines = [f"{y} = h_pair({b}, {convert})[0]"]
        elif shape == "keyword":
            lines = [f"{y} = h_affine({b}, shift=0.5, k={convert})"]
        else:  # a bound method on the stack across the break
            lines = [f"{y} = LOG.log({use.format(B=b, X=f'({convert})')})"]
        return lines, [("break", 0, before)]

    def unsupported(self):
        """A NumPy function Ember does not compile today (a break), its result then used."""
        a = self.data()
        if a is None:
            return None
        s, y = self.fresh(), self.fresh()
        ndim = np.ndim(self.value(a))
        call, array = self.choice(
            [
                (f"np.std({a})", False),
                (f"np.var({a})", False),
                (f"np.median({a})", False),
                (f"np.percentile({a}, 75)", False),
                (f"np.linalg.norm({a})", False),
                (f"np.cumsum({a})", True),
                (f"np.sort({a}, axis=-1)" if ndim else f"np.std({a})", bool(ndim)),
                (f"np.unique({a})", True),
                (f"np.std({a}, axis=0)" if ndim else f"np.var({a})", bool(ndim)),
            ]
        )
        use = f"{s} * 2 - 1" if array else f"{self.expr(1)} / ({s} + 1)"
        try:
            value = self.value(call)
        except Exception:
            return None
        return [f"{s} = {call}", f"{y} = {use}"], [
            ("may", 0),
            ("bind", s, self.live(a)),
            ("bind", y, self.live(use, {s: value})),
        ]

    def breaking_helper(self):
        """A prelude helper that breaks inside: Ember breaks at its call and runs it in Python."""
        a, x = self.expr(1), self.fresh()
        options = [
            ([f"{x} = h_show({a})"], True),
            ([f"{x} = h_show({a}, label=TAG)"], True),
            ([f"{x} = h_spread({a})"], False),
            ([f"{x} = h_sign({a})"], False),  # a jump on data inside: breaks unless Ember folds it
        ]
        if METHOD_CALL_BREAKS:
            options.append(([f"{x} = LOG.log({a})"], True))
        lines, prints = self.choice(options)
        if prints:
            return lines, [("break", 0, self.live(a))]
        return lines, [("may", 0), ("bind", x, self.live(a))]

    def aliased_write(self):
        """A view taken, a break, then a write through the view (into an argument, maybe)."""
        target, x, view = self.leaf(), self.expr(1), self.fresh()
        op = self.choice(["+=", "-=", "*=", "="])
        write = f"{view}[...] = {x}" if op == "=" else f"{view} {op} {x}"
        return [f"{view} = {target}[{self._slice()}]", 'print("view")', write], [("break", 1, False)]

    def break_in_loop(self):
        """A ``print`` in a loop (Ember runs the loop, or the function, in CPython)."""
        x, a = self.fresh(), self.expr(1)
        return [f"{x} = {a}", "for i in range(2):", f"    {x} = {x} + i", f"    print(i, {x}.sum())"], [
            ("may", 3),
            ("uncheck", "a break inside a loop"),
        ]

    def random_numbers(self):
        """Seeded ``np.random``, then a draw (bound methods of NumPy's global generator)."""
        x, a = self.fresh(), self.expr(1)
        seed = self.draw(st.integers(0, 9))
        return [f"np.random.seed({seed})", f"{x} = {a} * np.random.uniform(0.5, 1.5)"], [
            ("may", 0),
            ("may", 1),
            ("uncheck", "np.random"),
        ]


@st.composite
def programs(draw, max_statements: int = 6, breaks: bool = False) -> Program:
    """A program of 1..``max_statements`` statements; with ``breaks``, of 0..``max_statements - 1``
    statements with 1..3 graph-break statements placed among them at random."""
    # graph-break programs count the graphs that must compile: no complex arguments, on
    # which many functions run in CPython (max, min, sort, cumsum, ...)
    names, first, other = draw(arguments(tuple(d for d in DTYPES if not breaks or not d.startswith("complex"))))
    module = make_module(PRELUDE, "_ember_fuzz_generation")
    namespace = dict(module.__dict__)
    namespace.update(zip(names, copy.deepcopy(first)))  # statements may write into them
    if not breaks:
        body = _Body(draw, namespace, names)
        for _ in range(draw(st.integers(1, max_statements))):
            body.statement()
            if body.failed:
                break
        lines = body.lines + [f"return {body.returned()}"]
        return Program(_source(names, lines), first, other, names)
    for name in names:  # the function's arrays are tracked (``_BreakBody``)
        if isinstance(namespace[name], np.ndarray):
            namespace[name] = namespace[name].view(Tracked)
    body = _BreakBody(draw, namespace, names)
    kinds = draw(st.permutations(["s"] * draw(st.integers(0, max_statements - 1)) + ["b"] * draw(st.integers(1, 3))))
    with contextlib.redirect_stdout(io.StringIO()):  # the statements run while they are chosen
        for kind in kinds:
            body.break_statement() if kind == "b" else body.statement()
            if body.failed:
                break
        returned = body.returned()
        min_graphs = body.min_graphs(returned)
    lines = body.lines + [f"return {returned}"]
    source = _source(names, lines)
    fn_code = compile(source, "<program>", "exec")
    fn_code = next(c for c in fn_code.co_consts if isinstance(c, types.CodeType) and c.co_name == "f")
    unchecked = body.unchecked
    if not unchecked and any(isinstance(a, np.ndarray) and a.ndim == 0 for a in first):
        # arithmetic on 0-d arrays gives NumPy scalars: after a break such work may run in
        # Python on scalars (``(x0 + x0) * float(x0.max())``), rightly without a graph
        unchecked = "a 0-d argument"
    if not unchecked and fn_code.co_cellvars:
        unchecked = "an inner function reads f's locals (cells): f runs in CPython"
    if not unchecked and any("BACKWARD" in inst.opname for inst in dis.get_instructions(fn_code)):
        unchecked = "a loop"
    def_line = source.splitlines().index(f"def f({', '.join(names)}):") + 1
    break_lines = frozenset(def_line + 1 + i for i in body.break_lines | {len(lines) - 1})
    return Program(
        source,
        first,
        other,
        names,
        min_graphs=None if unchecked else min_graphs,
        unchecked=unchecked,
        break_lines=break_lines,
    )


def _source(names, lines) -> str:
    return PRELUDE + f"\n\ndef f({', '.join(names)}):\n" + "".join(f"    {line}\n" for line in lines)
