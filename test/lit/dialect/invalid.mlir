// RUN: ember-opt %s --split-input-file --verify-diagnostics

// Each op family's verifier errors: the op's type rule (compiler/dialects/ops.py)
// speaks, located at the op.

func.func @unary_dtype(%x: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error @+1 {{'ember.exp' op element type i32 not supported}}
  %0 = "ember.exp"(%x) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @unary_result(%x: tensor<4xf32>) -> tensor<4xf64> {
  // expected-error @+1 {{'ember.neg' op result type tensor<4xf64> does not match the expected tensor<4xf32>}}
  %0 = "ember.neg"(%x) : (tensor<4xf32>) -> tensor<4xf64>
  return %0 : tensor<4xf64>
}

// -----

func.func @binary_mismatch(%a: tensor<4xf32>, %b: tensor<1xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.add' op operand types differ: tensor<4xf32> vs tensor<1xf32> (broadcast and cast first)}}
  %0 = "ember.add"(%a, %b) : (tensor<4xf32>, tensor<1xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @binary_dtype(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ember.and"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  // expected-error @above {{'ember.and' op element type f32 not supported}}
  return %0 : tensor<4xf32>
}

// -----

func.func @binary_arity(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{'ember.add' op expects 2 tensor operands, got 1}}
  %0 = "ember.add"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cmp_predicate(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'ember.cmp' op unknown predicate 'less', expected one of eq, ne, lt, le, gt, ge}}
  %0 = "ember.cmp"(%a, %a) {predicate = "less"} : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @cmp_missing_predicate(%a: tensor<4xf32>) -> tensor<4xi1> {
  // expected-error @+1 {{'ember.cmp' op requires attribute 'predicate'}}
  %0 = "ember.cmp"(%a, %a) : (tensor<4xf32>, tensor<4xf32>) -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @select_condition(%c: tensor<4xf32>, %a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.select' op condition must have element type i1, got f32}}
  %0 = "ember.select"(%c, %a, %a) : (tensor<4xf32>, tensor<4xf32>, tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cast_shape(%x: tensor<4xi32>) -> tensor<2xf32> {
  // expected-error @+1 {{'ember.cast' op cast changes shape: tensor<4xi32> to tensor<2xf32>}}
  %0 = "ember.cast"(%x) : (tensor<4xi32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @reduce_axes(%x: tensor<4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'ember.sum' op axes [3] out of range for rank 1}}
  %0 = "ember.sum"(%x) {axes = array<i64: 3>, keepdims = false} : (tensor<4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_repeat(%x: tensor<4x4xf32>) -> tensor<f32> {
  // expected-error @+1 {{'ember.max' op axes [0, 0] repeat an axis}}
  %0 = "ember.max"(%x) {axes = array<i64: 0, 0>, keepdims = false} : (tensor<4x4xf32>) -> tensor<f32>
  return %0 : tensor<f32>
}

// -----

func.func @reduce_mean_int(%x: tensor<4xi32>) -> tensor<i32> {
  // expected-error @+1 {{'ember.mean' op 'mean' needs a float element type, got i32}}
  %0 = "ember.mean"(%x) {axes = array<i64: 0>, keepdims = false} : (tensor<4xi32>) -> tensor<i32>
  return %0 : tensor<i32>
}

// -----

func.func @reduce_keepdims(%x: tensor<4x5xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.sum' op result type tensor<4xf32> does not match the expected tensor<4x1xf32>}}
  %0 = "ember.sum"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<4x5xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @matmul_contract(%a: tensor<2x3xf32>, %b: tensor<4x5xf32>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'ember.matmul' op contracted dimensions differ: tensor<2x3xf32> @ tensor<4x5xf32>}}
  %0 = "ember.matmul"(%a, %b) : (tensor<2x3xf32>, tensor<4x5xf32>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @matmul_dtype(%a: tensor<2x3xf32>, %b: tensor<3x5xf64>) -> tensor<2x5xf32> {
  // expected-error @+1 {{'ember.matmul' op element types differ: f32 vs f64}}
  %0 = "ember.matmul"(%a, %b) : (tensor<2x3xf32>, tensor<3x5xf64>) -> tensor<2x5xf32>
  return %0 : tensor<2x5xf32>
}

// -----

func.func @transpose_perm(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'ember.transpose' op perm [0, 0] is not a permutation of rank 2}}
  %0 = "ember.transpose"(%x) {perm = array<i64: 0, 0>} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}

// -----

func.func @broadcast_dims(%x: tensor<3xf32>) -> tensor<2x4xf32> {
  // expected-error @+1 {{'ember.broadcast_to' op dimension 0 of tensor<3xf32> is neither 1 nor equal to dimension 1 of tensor<2x4xf32>}}
  %0 = "ember.broadcast_to"(%x) : (tensor<3xf32>) -> tensor<2x4xf32>
  return %0 : tensor<2x4xf32>
}

// -----

func.func @broadcast_sizes(%x: tensor<1xf32>) -> tensor<?xf32> {
  // expected-error @+1 {{'ember.broadcast_to' op expects 1 size operands (one per '?' of the result), got 0}}
  %0 = "ember.broadcast_to"(%x) : (tensor<1xf32>) -> tensor<?xf32>
  return %0 : tensor<?xf32>
}

// -----

func.func @reshape_elements(%x: tensor<2x3xf32>) -> tensor<5xf32> {
  // expected-error @+1 {{'ember.reshape' op cannot reshape tensor<2x3xf32> (6 elements) to tensor<5xf32>}}
  %0 = "ember.reshape"(%x) : (tensor<2x3xf32>) -> tensor<5xf32>
  return %0 : tensor<5xf32>
}

// -----

func.func @expand_dims_axes(%x: tensor<2xf32>) -> tensor<2x1xf32> {
  // expected-error @+1 {{'ember.expand_dims' op axes [2] out of range for rank 2}}
  %0 = "ember.expand_dims"(%x) {axes = array<i64: 2>} : (tensor<2xf32>) -> tensor<2x1xf32>
  return %0 : tensor<2x1xf32>
}

// -----

func.func @squeeze_size(%x: tensor<2x3xf32>) -> tensor<3xf32> {
  // expected-error @+1 {{'ember.squeeze' op cannot squeeze dimension 0 of tensor<2x3xf32>: its size is not 1}}
  %0 = "ember.squeeze"(%x) {axes = array<i64: 0>} : (tensor<2x3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @slice_bounds(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.slice' op dimension 0: 4 elements from 0 by -1 leave the size 4}}
  %0 = "ember.slice"(%x) {starts = array<i64: 0>, steps = array<i64: -1>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @slice_step(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.slice' op step of dimension 0 is zero}}
  %0 = "ember.slice"(%x) {starts = array<i64: 0>, steps = array<i64: 0>} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @slice_rank(%x: tensor<4x4xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'ember.slice' op starts and steps need 2 entries, got 1 and 1}}
  %0 = "ember.slice"(%x) {starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<4x4xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @concatenate_dims(%a: tensor<2x3xf32>, %b: tensor<3x3xf32>) -> tensor<2x6xf32> {
  // expected-error @+1 {{'ember.concatenate' op dimension 0 differs: tensor<2x3xf32> vs tensor<3x3xf32>}}
  %0 = "ember.concatenate"(%a, %b) {axis = 1 : i64} : (tensor<2x3xf32>, tensor<3x3xf32>) -> tensor<2x6xf32>
  return %0 : tensor<2x6xf32>
}

// -----

func.func @concatenate_axis(%a: tensor<2xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.concatenate' op axis [1] out of range for rank 1}}
  %0 = "ember.concatenate"(%a, %a) {axis = 1 : i64} : (tensor<2xf32>, tensor<2xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @constant_type() -> tensor<3xf32> {
  // expected-error @+1 {{'ember.constant' op result type tensor<3xf32> does not match the expected tensor<2xf32>}}
  %0 = "ember.constant"() {value = dense<1.0> : tensor<2xf32>} : () -> tensor<3xf32>
  return %0 : tensor<3xf32>
}

// -----

func.func @dim_axis(%x: tensor<?xf32>) -> index {
  // expected-error @+1 {{'ember.dim' op axis [1] out of range for rank 1}}
  %0 = "ember.dim"(%x) {axis = 1 : i64} : (tensor<?xf32>) -> index
  return %0 : index
}

// -----

func.func @attribute_kind(%x: tensor<2x3xf32>) -> tensor<3x2xf32> {
  // expected-error @+1 {{'ember.transpose' op attribute 'perm' must be i64s}}
  %0 = "ember.transpose"(%x) {perm = 1 : i64} : (tensor<2x3xf32>) -> tensor<3x2xf32>
  return %0 : tensor<3x2xf32>
}
