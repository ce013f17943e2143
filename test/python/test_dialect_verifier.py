"""The Ember verifier: every op family rejects bad operands and attributes with a
located diagnostic (``"-":LINE:COL: 'ember.<op>' op <complaint>``).

Each case is the text of one bad op inside an otherwise valid function; the op sits
on a known line after some unrelated lines, so the assertion on the line number
checks that the diagnostic points at the op, not at the function or the module.
"""

from __future__ import annotations

import pytest

from compiler.dialects import ember
from compiler.mlir import ir

ARGS = (
    "%f: tensor<2x3xf32>, %g: tensor<3x2xf32>, %i: tensor<2x3xi32>, %b: tensor<2x3xi1>, "
    "%d: tensor<?x3xf32>, %s: tensor<f32>, %n: index"
)

# case id -> (op name, bad op text, expected complaint)
BAD_OPS = {
    "unary dtype": ("exp", '"ember.exp"(%i) : (tensor<2x3xi32>) -> tensor<2x3xi32>', "element type i32 not supported"),
    "unary result": (
        "neg",
        '"ember.neg"(%f) : (tensor<2x3xf32>) -> tensor<3x2xf32>',
        "result type tensor<3x2xf32> does not match the expected tensor<2x3xf32>",
    ),
    "binary types": (
        "add",
        '"ember.add"(%f, %g) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>',
        "operand types differ",
    ),
    "binary dtype": (
        "div",
        '"ember.div"(%i, %i) : (tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xi32>',
        "element type i32 not supported",
    ),
    "binary dynamic vs static": (
        "sub",
        '"ember.sub"(%f, %d) : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<2x3xf32>',
        "operand types differ",
    ),
    "cmp predicate": (
        "cmp",
        '"ember.cmp"(%f, %f) {predicate = "less"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>',
        "unknown predicate 'less'",
    ),
    "cmp result": (
        "cmp",
        '"ember.cmp"(%f, %f) {predicate = "lt"} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>',
        "does not match the expected tensor<2x3xi1>",
    ),
    "cmp missing predicate": (
        "cmp",
        '"ember.cmp"(%f, %f) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xi1>',
        "requires attribute 'predicate'",
    ),
    "select cond": (
        "select",
        '"ember.select"(%f, %f, %f) : (tensor<2x3xf32>, tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>',
        "condition must have element type i1",
    ),
    "select branches": (
        "select",
        '"ember.select"(%b, %f, %i) : (tensor<2x3xi1>, tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>',
        "branch types differ",
    ),
    "cast shape": ("cast", '"ember.cast"(%f) : (tensor<2x3xf32>) -> tensor<3x2xi32>', "cast changes shape"),
    "cast element type": (
        "cast",
        '"ember.cast"(%f) : (tensor<2x3xf32>) -> tensor<2x3xi4>',
        "unsupported element type i4",
    ),
    "reduce axes": (
        "sum",
        '"ember.sum"(%f) {axes = array<i64: 2>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>',
        "axes [2] out of range for rank 2",
    ),
    "reduce repeated axes": (
        "max",
        '"ember.max"(%f) {axes = array<i64: 1, 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>',
        "repeat an axis",
    ),
    "reduce keepdims result": (
        "sum",
        '"ember.sum"(%f) {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2xf32>',
        "expected tensor<2x1xf32>",
    ),
    "reduce attribute kind": (
        "min",
        '"ember.min"(%f) {axes = 1, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>',
        "attribute 'axes' must be i64s",
    ),
    "reduce missing keepdims": (
        "prod",
        '"ember.prod"(%f) {axes = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2xf32>',
        "requires attribute 'keepdims'",
    ),
    "mean of ints": (
        "mean",
        '"ember.mean"(%i) {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xi32>) -> tensor<2xi32>',
        "'mean' needs a float element type",
    ),
    "sum of bools": (
        "sum",
        '"ember.sum"(%b) {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xi1>) -> tensor<2xi1>',
        "'sum' of i1 is undefined",
    ),
    "matmul contraction": (
        "matmul",
        '"ember.matmul"(%f, %f) : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>',
        "contracted dimensions differ",
    ),
    "matmul result": (
        "matmul",
        '"ember.matmul"(%f, %g) : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<3x3xf32>',
        "expected tensor<2x2xf32>",
    ),
    "matmul dtypes": (
        "matmul",
        '"ember.matmul"(%f, %i) : (tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>',
        "element types differ",
    ),
    "transpose perm": (
        "transpose",
        '"ember.transpose"(%f) {perm = array<i64: 0, 2>} : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "perm [0, 2] is not a permutation of rank 2",
    ),
    "reshape count": (
        "reshape",
        '"ember.reshape"(%f) : (tensor<2x3xf32>) -> tensor<5xf32>',
        "cannot reshape tensor<2x3xf32> (6 elements)",
    ),
    "reshape size operands": (
        "reshape",
        '"ember.reshape"(%f) : (tensor<2x3xf32>) -> tensor<?xf32>',
        "expects 1 size operands (one per '?' of the result), got 0",
    ),
    "reshape extra size operand": (
        "reshape",
        '"ember.reshape"(%f, %n) : (tensor<2x3xf32>, index) -> tensor<6xf32>',
        "expects 0 size operands",
    ),
    "broadcast dims": (
        "broadcast_to",
        '"ember.broadcast_to"(%f) : (tensor<2x3xf32>) -> tensor<4x3xf32>',
        "dimension 0 of tensor<2x3xf32> is neither 1 nor equal to dimension 0",
    ),
    "broadcast dtype": (
        "broadcast_to",
        '"ember.broadcast_to"(%s) : (tensor<f32>) -> tensor<2xf64>',
        "element type changes from f32 to f64",
    ),
    "expand_dims axes": (
        "expand_dims",
        '"ember.expand_dims"(%f) {axes = array<i64: 5>} : (tensor<2x3xf32>) -> tensor<2x3x1xf32>',
        "axes [5] out of range for rank 3",
    ),
    "squeeze non-1": (
        "squeeze",
        '"ember.squeeze"(%f) {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>',
        "cannot squeeze dimension 0",
    ),
    "slice range": (
        "slice",
        '"ember.slice"(%f) {starts = array<i64: 0, 1>, steps = array<i64: 1, 1>} : '
        "(tensor<2x3xf32>) -> tensor<2x3xf32>",
        "dimension 1: 3 elements from 1 by 1",
    ),
    "slice zero step": (
        "slice",
        '"ember.slice"(%f) {starts = array<i64: 0, 0>, steps = array<i64: 1, 0>} : '
        "(tensor<2x3xf32>) -> tensor<2x1xf32>",
        "step of dimension 1 is zero",
    ),
    "slice arity": (
        "slice",
        '"ember.slice"(%f) {starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "starts and steps need 2 entries",
    ),
    "update_slice range": (
        "update_slice",
        '"ember.update_slice"(%f, %g) {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : '
        "(tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<2x3xf32>",
        "dimension 0: 3 elements from 0 by 1 leave the size 2",
    ),
    "update_slice dtype": (
        "update_slice",
        '"ember.update_slice"(%f, %i) {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : '
        "(tensor<2x3xf32>, tensor<2x3xi32>) -> tensor<2x3xf32>",
        "element types differ: dest f32 vs src i32",
    ),
    "gather index dtype": (
        "gather",
        '"ember.gather"(%f, %i) {axes = array<i64: 0>, at = 0 : i64} : (tensor<2x3xf32>, tensor<2x3xi32>) -> '
        "tensor<2x3xf32>",
        "indices must have element type i64",
    ),
    "scatter dtype": (
        "scatter",
        '"ember.scatter"(%f, %i, %i) {axes = array<i64: 0>, at = 0 : i64} : '
        "(tensor<2x3xf32>, tensor<2x3xi32>, tensor<2x3xi32>) -> tensor<2x3xf32>",
        "element types differ: dest f32 vs updates i32",
    ),
    "sort axis": (
        "sort",
        '"ember.sort"(%f) {axis = 2 : i64} : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "axis [2] out of range for rank 2",
    ),
    "partition kth": (
        "partition",
        '"ember.partition"(%f, %f) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<2x3xf32>',
        "partition's kth must be a 1-d i64 tensor, got tensor<2x3xf32>",
    ),
    "scan kind": (
        "scan",
        '"ember.scan"(%f) {axis = 0 : i64, kind = "mean"} : (tensor<2x3xf32>) -> tensor<2x3xf32>',
        "scan kind 'mean' is not one of ['sum', 'prod', 'max', 'min', 'fmax', 'fmin']",
    ),
    "lapack rank": (
        "lapack",
        '"ember.lapack"(%f) {routine = "inv"} : (tensor<2x3xf32>) -> tensor<1x2x4xf64>',
        "'inv' needs a stack of matrices (batch, m, n), got tensor<2x3xf32>",
    ),
    "iota i1": (
        "iota",
        '"ember.iota"(%n) {axis = 0 : i64} : (index) -> tensor<?xi1>',
        "iota of i1 is not supported",
    ),
    "iota sizes": (
        "iota",
        '"ember.iota"() {axis = 0 : i64} : () -> tensor<?x3xf32>',
        "expects 1 size operands",
    ),
    "concatenate dims": (
        "concatenate",
        '"ember.concatenate"(%f, %g) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<3x2xf32>) -> tensor<5x3xf32>',
        "dimension 1 differs",
    ),
    "concatenate axis": (
        "concatenate",
        '"ember.concatenate"(%f, %f) {axis = 2 : i64} : (tensor<2x3xf32>, tensor<2x3xf32>) -> tensor<4x3xf32>',
        "axis [2] out of range for rank 2",
    ),
    "concatenate result": (
        "concatenate",
        '"ember.concatenate"(%f, %d) {axis = 0 : i64} : (tensor<2x3xf32>, tensor<?x3xf32>) -> tensor<5x3xf32>',
        "expected tensor<?x3xf32>",
    ),
    "constant type": (
        "constant",
        '"ember.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>',
        "expected tensor<2xf32>",
    ),
    "constant attribute": (
        "constant",
        '"ember.constant"() {value = 1.0 : f32} : () -> tensor<f32>',
        "attribute 'value' must be dense",
    ),
    "dim axis": (
        "dim",
        '"ember.dim"(%f) {axis = 2 : i64} : (tensor<2x3xf32>) -> index',
        "axis [2] out of range for rank 2",
    ),
    "size_arith op": (
        "size_arith",
        '"ember.size_arith"(%n, %n) {op = "pow"} : (index, index) -> index',
        "unknown size arithmetic 'pow', expected one of add, sub, mul, floordiv, mod, max, min",
    ),
    "size_constant attribute": (
        "size_constant",
        '"ember.size_constant"() : () -> index',
        "requires attribute 'value'",
    ),
    "to_index rank": (
        "to_index",
        '"ember.to_index"(%i) : (tensor<2x3xi32>) -> index',
        "to_index needs a 0-d tensor, got tensor<2x3xi32>",
    ),
    "to_index dtype": (
        "to_index",
        '"ember.to_index"(%s) : (tensor<f32>) -> index',
        "to_index needs an integer element type (i32, i64, i8, i16, ui8, ui16, ui32, ui64), got f32",
    ),
    "from_index result": (
        "from_index",
        '"ember.from_index"(%n) : (index) -> tensor<i32>',
        "result type tensor<i32> does not match the expected tensor<i64>",
    ),
}


def module_text(bad_op: str, padding: int) -> tuple[str, int]:
    """A module with ``bad_op`` after ``padding`` valid ops; returns (text, its line)."""
    lines = ["module {", f"  func.func @f({ARGS}) {{"]
    for k in range(padding):
        lines.append(f'    %ok{k} = "ember.neg"(%f) : (tensor<2x3xf32>) -> tensor<2x3xf32>')
    lines.append(f"    %bad = {bad_op}")
    line = len(lines)
    lines += ["    return", "  }", "}"]
    return "\n".join(lines), line


def parse_error(text: str) -> str:
    with ember.new_context():
        with pytest.raises(ir.MLIRError) as info:
            ir.Module.parse(text)
    return str(info.value)


@pytest.mark.parametrize("case", sorted(BAD_OPS))
def test_bad_op_gets_a_located_diagnostic(case):
    op, bad, complaint = BAD_OPS[case]
    padding = len(case) % 4  # vary the line the op is on
    text, line = module_text(bad, padding)
    message = parse_error(text)
    assert f"'ember.{op}' op" in message, message
    assert complaint in message, message
    assert f'"-":{line}:' in message, message


def test_every_op_family_has_a_verifier_case():
    from compiler.dialects import ops

    families = {ops.OPS[op].family for op, _, _ in BAD_OPS.values()}
    assert families == {spec.family for spec in ops.OPS.values()}


def test_valid_module_parses_and_verifies():
    good = '"ember.sum"(%f) {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>'
    text, _ = module_text(good, 2)
    with ember.new_context():
        module = ir.Module.parse(text)
        assert module.operation.verify()


def test_verify_on_a_built_module_reports_the_op():
    """A module that was valid when built and then broken is caught by ``verify()``."""
    text, _ = module_text('"ember.neg"(%f) : (tensor<2x3xf32>) -> tensor<2x3xf32>', 0)
    with ember.new_context():
        module = ir.Module.parse(text)
        neg = module.body.operations[0].regions[0].blocks[0].operations[0]
        neg.attributes["junk"] = ir.StringAttr.get("ok")  # extra attributes are allowed
        assert module.operation.verify()
        sum_text, _ = module_text(
            '"ember.sum"(%f) {axes = array<i64: 1>, keepdims = false} : (tensor<2x3xf32>) -> tensor<2xf32>', 0
        )
        module = ir.Module.parse(sum_text)
        op = module.body.operations[0].regions[0].blocks[0].operations[0]
        op.attributes["axes"] = ir.DenseI64ArrayAttr.get([7])
        with pytest.raises(ir.MLIRError, match=r"'ember.sum' op axes \[7\] out of range"):
            module.operation.verify()


def test_printing_and_copying_a_built_module_skip_the_python_verifier(monkeypatch):
    """The cache key prints the graph and the backend copies it to lower: neither runs the
    ops' type rules again (the builder ran them), as ``str`` and ``Module.parse`` do."""
    from compiler.mlir import copy_module
    from compiler.mlir import module_text as print_module

    text, _ = module_text(
        '"ember.sum"(%f) {axes = array<i64: 1>, keepdims = true} : (tensor<2x3xf32>) -> tensor<2x1xf32>', 1
    )
    calls = []
    real = ember.check_op
    monkeypatch.setattr(ember, "check_op", lambda op: calls.append(op.name) or real(op))
    with ember.new_context():
        module = ir.Module.parse(text.replace("module {", 'module attributes {ember.note = "kept"} {'))
        calls.clear()
        printed = print_module(module)
        copy = copy_module(module)
        assert calls == []
        assert print_module(copy) == printed and 'ember.note = "kept"' in printed
        assert str(module) == printed and "ember.sum" in calls  # str verifies every op first
