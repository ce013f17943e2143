"""A float32 division by a loop invariant as a multiplication in float64
(``ember-invariant-division``).

Why: normalising a row divides each element by one value per row (layer norm's
``(x - mu) / np.sqrt(var + eps)``, softmax's ``e / e.sum(-1, keepdims=True)``), and a
vector division is several times slower than a multiplication: with the rows in the
cache it set the pace of the loop. Measured on a 2-core AVX-512 Xeon, (4096, 1024)
float32: layer norm 0.756 -> 0.705 ms. Multiplying by a float32 reciprocal would be
faster still (0.670 ms) but rounds differently from NumPy's division; this does not.
Where the hardware divides quickly the division is the faster of the two and stays
(``slow-division=false``, the default on AMD Zen hosts: ``runtime.target.fast_float32_division``;
there the float64 multiply made the layer norm 0.553 -> 0.745 ms).

The rewrite, for ``a / d`` with ``d`` computed in the loop from values that do not
change in it: ``y = 1 / double(d)`` once, before the loop, and in the loop
``float(double(a) * y)``. That is exactly NumPy's float32 quotient. ``y`` and the
product each round once in float64, so the product is within 2**-52 (relative) of
``a / d``; a quotient of two 24-bit significands that is not exactly halfway between
two floats is at least 2**-49 (relative) from halfway, and one is never halfway
unless ``d`` is a power of two, where ``y`` and the product are exact. So rounding the
product to float32 rounds ``a / d`` itself, in the subnormals too (the float64 product
is nowhere near its own range's ends), and zeros, infinities and NaN give division's
answers (``0 * inf`` is NaN as ``0 / 0`` is, ``a * 0`` a signed zero as ``a / inf``).

``d`` is invariant when every op that computes it inside the loop is pure or a load,
at invariant indices, from a buffer the loop does not store to (buffers told apart by
their roots, as in ``ember-fuse-loop-nests``). Those ops are copied before the loop,
inside an ``scf.if`` on the loop running at all: a load the loop would never have
made is not made either.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, field

from compiler.mlir import arith, clone_ops, collect, constant_attr, defined_inside, ir, operation_of, scf
from compiler.passes.base import EmberPass
from compiler.passes.buffers import root_buffer
from compiler.passes.loop_nest_fusion import access_buffer, effects, pure
from runtime.target import fast_float32_division


def _in_loop_chain(value: ir.Value, loop: ir.Operation, written: set, chain: list, seen: set) -> bool:
    """Whether ``value`` is the same on every iteration of ``loop``; appends the ops of
    ``loop`` that compute it to ``chain``, operands first."""
    if not defined_inside(value, loop):
        return True
    owner = operation_of(value.owner)
    if owner is None or operation_of(owner.parent) != loop:  # the induction variable, or nested deeper
        return False
    if owner in seen:
        return True
    if owner.name == "memref.load":
        if root_buffer(access_buffer(owner)) in written:
            return False
    elif not pure(owner) or owner.regions:
        return False
    if not all(_in_loop_chain(o, loop, written, chain, seen) for o in owner.operands):
        return False
    seen.add(owner)
    chain.append(owner)
    return True


def _divisions(loop: ir.Operation) -> list:
    """The float32 ``arith.divf`` ops directly in ``loop``'s body."""
    body = loop.regions[0].blocks[0]
    return [
        op.operation
        for op in body.operations
        if op.operation.name == "arith.divf"
        and isinstance(op.operation.results[0].type, ir.F32Type)
        and _plain(op.operation)
    ]


def _plain(op: ir.Operation) -> bool:
    """No fast-math flags: a division LLVM may already approximate is left to it."""
    return "fastmath" not in op.attributes or str(op.attributes["fastmath"]) == "#arith.fastmath<none>"


def _power_of_two(value: ir.Value) -> bool:
    attr = constant_attr(value)
    if attr is None or not isinstance(attr, ir.FloatAttr):
        return False
    mantissa, _ = math.frexp(ir.FloatAttr(attr).value)
    return abs(mantissa) == 0.5


def _reciprocal_before(loop: ir.Operation, divisor: ir.Value, chain: list) -> ir.Value:
    """``1 / double(divisor)``, computed before ``loop`` when it runs (1 otherwise)."""
    f64 = ir.F64Type.get()
    lower, upper = loop.operands[0], loop.operands[1]
    with ir.InsertionPoint(loop), loop.location:
        runs = arith.cmpi(arith.CmpIPredicate.slt, lower, upper)
        guard = scf.IfOp(runs, [f64], has_else=True)
        with ir.InsertionPoint(guard.then_block):
            d = clone_ops(chain, {}).get(divisor, divisor)
            one = arith.constant(f64, 1.0)
            scf.YieldOp([arith.divf(one, arith.extf(f64, d))])
        with ir.InsertionPoint(guard.else_block):
            scf.YieldOp([arith.constant(f64, 1.0)])
    return guard.results[0]


def _rewrite(division: ir.Operation, reciprocal: ir.Value) -> None:
    f32, f64 = ir.F32Type.get(), ir.F64Type.get()
    with ir.InsertionPoint(division), division.location:
        product = arith.mulf(arith.extf(f64, division.operands[0]), reciprocal)
        quotient = arith.truncf(f32, product)
    division.results[0].replace_all_uses_with(quotient)
    division.erase()


def _rewrite_loop(loop: ir.Operation) -> None:
    """Rewrite the invariant float32 divisions of one ``scf.for``."""
    divisions = _divisions(loop)
    found = effects(loop) if divisions else None
    if found is None:
        return
    reciprocals: dict = {}  # the divisor -> its reciprocal, one per distinct divisor
    for division in divisions:
        divisor = division.operands[1]
        if _power_of_two(divisor):
            continue  # LLVM multiplies by its exact reciprocal already
        if divisor not in reciprocals:
            chain: list = []
            if not _in_loop_chain(divisor, loop, found.writes, chain, set()):
                continue
            reciprocals[divisor] = _reciprocal_before(loop, divisor, chain)
        _rewrite(division, reciprocals[divisor])


@dataclass
class EmberInvariantDivision(EmberPass):
    """Float32 divisions by a loop invariant as float64 multiplications by its reciprocal
    (NumPy's quotient exactly), on hosts whose vector division is slow."""

    name = "ember-invariant-division"
    summary = (
        "f32 a / d with d invariant in the loop -> float(double(a) * (1 / double(d))), d hoisted,"
        " where the host's vector division is slow"
    )
    slow_division: bool = field(default_factory=lambda: not fast_float32_division())  # per run: tests patch it

    def run(self, module):
        if not self.slow_division:
            return
        for loop in collect(module, lambda op: op.name == "scf.for"):
            _rewrite_loop(loop)
