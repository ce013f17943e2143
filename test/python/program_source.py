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
"""

from __future__ import annotations

import copy
import sys
import types
import warnings
from dataclasses import dataclass

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
"""

DTYPES = ("float32", "float64", "int32", "int64", "bool")
BASE_SHAPES = [(), (0,), (1,), (3,), (4,), (2, 3), (3, 3), (1, 3), (3, 1), (2, 0), (2, 1, 3), (2, 2, 2)]
MODES = ("a", "b", "c")
MAX_TRIES = 4


@dataclass
class Program:
    source: str
    args: tuple  # first argument set
    other_args: tuple  # same types, other values (and other ints/strs/bools)
    arg_names: tuple

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
def arguments(draw):
    """(names, first values, other values): 1-3 arrays, then maybe n:int, mode:str, flag:bool, cfg:dict."""
    n_arrays = draw(st.integers(1, 3))
    base = draw(st.sampled_from(BASE_SHAPES))
    specs = [
        (draw(st.sampled_from(DTYPES)), base if i == 0 else _broadcast_partner(draw, base)) for i in range(n_arrays)
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


@st.composite
def programs(draw, max_statements: int = 6) -> Program:
    names, first, other = draw(arguments())
    module = make_module(PRELUDE, "_ember_fuzz_generation")
    namespace = dict(module.__dict__)
    namespace.update(zip(names, copy.deepcopy(first)))  # statements may write into them
    body = _Body(draw, namespace, names)
    for _ in range(draw(st.integers(1, max_statements))):
        body.statement()
        if body.failed:
            break
    lines = body.lines + [f"return {body.returned()}"]
    source = PRELUDE + f"\n\ndef f({', '.join(names)}):\n" + "".join(f"    {line}\n" for line in lines)
    return Program(source, first, other, names)
