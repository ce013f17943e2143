// RUN: ember-opt %s --split-input-file --verify-diagnostics

// The verifier errors of the size ops: their type rules (compiler/dialects/ops.py)
// speak, or IRDL for the structure (operand count, index vs tensor).

func.func @unknown_arith(%a: index) -> index {
  // expected-error @+1 {{'ember.size_arith' op unknown size arithmetic 'div', expected one of add, sub, mul, floordiv, mod, max, min}}
  %0 = "ember.size_arith"(%a, %a) {op = "div"} : (index, index) -> index
  return %0 : index
}

// -----

func.func @arith_arity(%a: index) -> index {
  // expected-error @+1 {{op expects exactly 2 operands, but got 1}}
  %0 = "ember.size_arith"(%a) {op = "add"} : (index) -> index
  return %0 : index
}

// -----

func.func @missing_value() -> index {
  // expected-error @+1 {{'ember.size_constant' op requires attribute 'value'}}
  %0 = "ember.size_constant"() : () -> index
  return %0 : index
}

// -----

func.func @to_index_rank(%x: tensor<1xi64>) -> index {
  // expected-error @+1 {{'ember.to_index' op to_index needs a 0-d tensor, got tensor<1xi64>}}
  %0 = "ember.to_index"(%x) : (tensor<1xi64>) -> index
  return %0 : index
}

// -----

func.func @to_index_bool(%x: tensor<i1>) -> index {
  // expected-error @+1 {{'ember.to_index' op to_index needs an integer element type (i32, i64, i8, i16, ui8, ui16, ui32, ui64), got i1}}
  %0 = "ember.to_index"(%x) : (tensor<i1>) -> index
  return %0 : index
}

// -----

func.func @to_index_result(%x: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{expected base type 'builtin.index' but got 'builtin.tensor'}}
  %0 = "ember.to_index"(%x) : (tensor<i64>) -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @from_index_result(%a: index) -> tensor<i32> {
  // expected-error @+1 {{'ember.from_index' op result type tensor<i32> does not match the expected tensor<i64>}}
  %0 = "ember.from_index"(%a) : (index) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @from_index_operand(%x: tensor<i64>) -> tensor<i64> {
  // expected-error @+1 {{expected base type 'builtin.index' but got 'builtin.tensor'}}
  %0 = "ember.from_index"(%x) : (tensor<i64>) -> tensor<i64>
  return %0 : tensor<i64>
}
