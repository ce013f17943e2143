"""Random well-typed Ember functions, for property tests (hypothesis).

``programs()`` draws a ``Program``: input types (some sizes dynamic) and a recipe of
ops that ``Program.build()`` replays through the builder, so a failing example shrinks
to a short, readable list of ops.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from hypothesis import strategies as st

from compiler.dialects.builder import FunctionBuilder
from compiler.dialects.types import DYN, TensorType

FLOAT_UNARY = ["neg", "abs", "exp", "tanh", "sin", "cos", "sigmoid", "floor", "sqrt", "log", "erf"]
INT_UNARY = ["neg", "abs"]
FLOAT_BINARY = ["add", "sub", "mul", "div", "maximum", "minimum", "floordiv", "mod", "pow"]
INT_BINARY = ["add", "sub", "mul", "maximum", "minimum", "floordiv", "mod", "and", "or", "xor"]
BOOL_BINARY = ["and", "or", "xor", "maximum", "minimum"]
REDUCTIONS = ["sum", "max", "min", "prod"]
DTYPES = ["f32", "f64", "i32", "i64", "i1"]


@dataclass
class Program:
    arg_types: list[TensorType]
    steps: list[tuple] = field(default_factory=list)  # (kind, value indices, params)
    results: list[int] = field(default_factory=list)

    def build(self):
        b = FunctionBuilder("f", self.arg_types)
        values = list(b.args)
        for kind, operands, params in self.steps:
            values.append(_apply(b, kind, [values[i] for i in operands], params))
        return b.finish([values[i] for i in self.results])

    def __repr__(self):
        lines = [f"args: {', '.join(map(str, self.arg_types))}"]
        lines += [f"  v{len(self.arg_types) + i} = {k}{tuple(o)} {p}" for i, (k, o, p) in enumerate(self.steps)]
        return "\n".join(lines + [f"  return {self.results}"])


def _apply(b: FunctionBuilder, kind, operands, params):
    if kind == "broadcast":  # a new leading dim; the other sizes are the operand's
        (x,) = operands
        result = TensorType(params["shape"], b.type_of(x).dtype)
        return b.op("broadcast_to", x, result=result, sizes=[b.dim(x, a - 1) for a in result.dynamic_axes()])
    if kind == "cast":
        x = operands[0]
        return b.op("cast", x, result=b.type_of(x).with_dtype(params["dtype"]))
    if kind == "slice":
        x = operands[0]
        t = b.type_of(x)
        sizes = [b.dim(x, a) for a in t.dynamic_axes()]
        return b.op("slice", x, result=t, sizes=sizes, starts=params["starts"], steps=params["steps"])
    return b.op(kind, *operands, **params)


def _same_type(types, t):
    """Values of exactly ``t``'s type *and* symbolic shape: ``?`` sizes must be equal
    at run time too, not merely both dynamic."""
    return [i for i, u in enumerate(types) if u == t]


@dataclass(frozen=True)
class _Typed:
    """A value's type with its sizes written symbolically (``s0``, ``2*s0``, ints)."""

    type: TensorType
    sym: tuple

    @property
    def dtype(self):
        return self.type.dtype

    @property
    def rank(self):
        return self.type.rank

    @property
    def is_float(self):
        return self.type.is_float

    def with_dtype(self, dtype):
        return _Typed(self.type.with_dtype(dtype), self.sym)

    def with_sym(self, sym):
        shape = tuple(d if isinstance(d, int) else DYN for d in sym)
        return _Typed(self.type.with_shape(shape), tuple(sym))


@st.composite
def programs(draw, max_steps: int = 6, dynamic: bool = True) -> Program:
    rank = draw(st.integers(0, 3))
    shape = tuple(draw(st.integers(1, 5)) for _ in range(rank))
    dyn = tuple(draw(st.booleans()) and dynamic for _ in range(rank))
    declared = tuple(DYN if d else s for s, d in zip(shape, dyn))
    n_args = draw(st.integers(1, 3))
    dtypes = [draw(st.sampled_from(DTYPES)) for _ in range(n_args)]
    program = Program([TensorType(declared, dt) for dt in dtypes])
    sym = tuple(f"s{a}" if d else s for a, (s, d) in enumerate(zip(shape, dyn)))
    types = [_Typed(t, sym) for t in program.arg_types]
    for _ in range(draw(st.integers(1, max_steps))):
        step = draw(_step(types))
        if step is None:
            continue
        kind, operands, params, result = step
        if kind == "cast":
            params = {"dtype": result.dtype}
        program.steps.append((kind, operands, params))
        types.append(result)
    n_results = draw(st.integers(1, 2))
    program.results = sorted({draw(st.integers(0, len(types) - 1)) for _ in range(n_results)})
    return program


@st.composite
def _step(draw, types):
    i = draw(st.integers(0, len(types) - 1))
    t = types[i]
    family = draw(
        st.sampled_from(
            ["unary", "binary", "cmp", "select", "cast", "reduce", "transpose", "slice", "concat", "broadcast"]
        )
    )
    if family == "unary":
        names = FLOAT_UNARY if t.is_float else INT_UNARY if t.dtype != "i1" else ["logical_not"]
        return draw(st.sampled_from(names)), [i], {}, t
    if family in ("binary", "cmp"):
        j = draw(st.sampled_from(_same_type(types, t)))
        if family == "cmp":
            return (
                "cmp",
                [i, j],
                {"predicate": draw(st.sampled_from(["eq", "ne", "lt", "le", "gt", "ge"]))},
                t.with_dtype("i1"),
            )
        names = FLOAT_BINARY if t.is_float else BOOL_BINARY if t.dtype == "i1" else INT_BINARY
        return draw(st.sampled_from(names)), [i, j], {}, t
    if family == "select":
        conds = [k for k, u in enumerate(types) if u == t.with_dtype("i1")]
        if not conds:
            return None
        j = draw(st.sampled_from(_same_type(types, t)))
        return "select", [draw(st.sampled_from(conds)), i, j], {}, t
    if family == "cast":
        dtype = draw(st.sampled_from(DTYPES))
        return "cast", [i], {"dtype": dtype}, t.with_dtype(dtype)
    if family == "reduce":
        name = draw(st.sampled_from(REDUCTIONS + (["mean"] if t.is_float else [])))
        if t.dtype == "i1" and name in ("sum", "prod"):
            return None
        axes = tuple(sorted(draw(st.sets(st.integers(0, max(t.rank - 1, 0)), max_size=t.rank)))) if t.rank else ()
        keepdims = draw(st.booleans())
        sym = (
            tuple(1 if k in axes else d for k, d in enumerate(t.sym))
            if keepdims
            else tuple(d for k, d in enumerate(t.sym) if k not in axes)
        )
        return name, [i], {"axes": axes, "keepdims": keepdims}, t.with_sym(sym)
    if family == "transpose":
        perm = tuple(draw(st.permutations(range(t.rank))))
        return "transpose", [i], {"perm": perm}, t.with_sym(tuple(t.sym[p] for p in perm))
    if family == "slice":
        return _draw_slice(draw, i, t)
    if family == "concat":
        if t.rank == 0:
            return None
        axis = draw(st.integers(0, t.rank - 1))
        d = t.sym[axis]
        joined = 2 * d if isinstance(d, int) else f"2*{d}"
        return "concatenate", [i, i], {"axis": axis}, t.with_sym(t.sym[:axis] + (joined,) + t.sym[axis + 1 :])
    return _draw_broadcast(draw, i, t)


def _draw_slice(draw, i, t):
    """Full-length slices with steps ±1 keep every size (static or dynamic) valid."""
    if t.rank == 0:
        return None
    steps = tuple(draw(st.sampled_from([1, -1])) for _ in range(t.rank))
    starts = tuple(0 if s == 1 else -1 for s in steps)
    return "slice", [i], {"starts": starts, "steps": steps}, t


def _draw_broadcast(draw, i, t):
    """Prepend a new static dimension of 1 to 3 (a NumPy broadcast of the whole value)."""
    if t.rank >= 3:
        return None
    new = draw(st.integers(1, 3))
    result = t.with_sym((new,) + t.sym)
    return "broadcast", [i], {"shape": result.type.shape}, result


def random_inputs(rng: np.random.Generator, arg_types, sizes: dict[int, int] | None = None):
    """Arrays for ``arg_types``: ``?`` dims take ``sizes[axis]`` (default: the drawn size 3)."""
    arrays = []
    for t in arg_types:
        shape = tuple((sizes or {}).get(a, 3) if d is DYN else d for a, d in enumerate(t.shape))
        arrays.append(sample(rng, t.dtype, shape))
    return arrays


def sample(rng, dtype: str, shape) -> np.ndarray:
    if dtype == "i1":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype in ("i32", "i64"):
        return rng.integers(-5, 6, shape).astype(np.int32 if dtype == "i32" else np.int64)
    values = rng.uniform(-3, 3, shape)
    if values.size:
        flat = values.reshape(-1)
        specials = [np.nan, np.inf, -np.inf, 0.0, -0.0]
        for k in rng.choice(flat.size, size=min(2, flat.size), replace=False):
            flat[k] = specials[rng.integers(len(specials))]
    return values.astype(np.float32 if dtype == "f32" else np.float64)
