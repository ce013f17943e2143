// RUN: ember-opt %s --split-input-file --verify-diagnostics

// The verifier errors of ember.update_slice and ember.iota: their type rules
// (compiler/dialects/ops.py) speak, located at the op.

func.func @update_slice_dtype(%a: tensor<4xf32>, %s: tensor<2xf64>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.update_slice' op element types differ: dest f32 vs src f64 (cast first)}}
  %0 = "ember.update_slice"(%a, %s) {starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<4xf32>, tensor<2xf64>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @update_slice_rank(%a: tensor<4x3xf32>, %s: tensor<3xf32>) -> tensor<4x3xf32> {
  // expected-error @+1 {{'ember.update_slice' op src tensor<3xf32> and dest tensor<4x3xf32> differ in rank (broadcast src to the region first)}}
  %0 = "ember.update_slice"(%a, %s) {starts = array<i64: 0, 0>, steps = array<i64: 1, 1>} : (tensor<4x3xf32>, tensor<3xf32>) -> tensor<4x3xf32>
  return %0 : tensor<4x3xf32>
}

// -----

func.func @update_slice_bounds(%a: tensor<4xf32>, %s: tensor<3xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.update_slice' op dimension 0: 3 elements from -1 by -2 leave the size 4}}
  %0 = "ember.update_slice"(%a, %s) {starts = array<i64: -1>, steps = array<i64: -2>} : (tensor<4xf32>, tensor<3xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @update_slice_step(%a: tensor<?xi32>, %s: tensor<?xi32>) -> tensor<?xi32> {
  // expected-error @+1 {{'ember.update_slice' op step of dimension 0 is zero}}
  %0 = "ember.update_slice"(%a, %s) {starts = array<i64: 0>, steps = array<i64: 0>} : (tensor<?xi32>, tensor<?xi32>) -> tensor<?xi32>
  return %0 : tensor<?xi32>
}

// -----

func.func @update_slice_attrs(%a: tensor<4x4xf32>, %s: tensor<1x1xf32>) -> tensor<4x4xf32> {
  // expected-error @+1 {{'ember.update_slice' op starts and steps need 2 entries, got 1 and 1}}
  %0 = "ember.update_slice"(%a, %s) {starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<4x4xf32>, tensor<1x1xf32>) -> tensor<4x4xf32>
  return %0 : tensor<4x4xf32>
}

// -----

func.func @update_slice_result(%a: tensor<4xf32>, %s: tensor<2xf32>) -> tensor<2xf32> {
  // expected-error @+1 {{'ember.update_slice' op result type tensor<2xf32> does not match the expected tensor<4xf32>}}
  %0 = "ember.update_slice"(%a, %s) {starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<4xf32>, tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// -----

func.func @iota_i1() -> tensor<4xi1> {
  // expected-error @+1 {{'ember.iota' op iota of i1 is not supported (compare an integer iota instead)}}
  %0 = "ember.iota"() {axis = 0 : i64} : () -> tensor<4xi1>
  return %0 : tensor<4xi1>
}

// -----

func.func @iota_axis() -> tensor<4x2xf32> {
  // expected-error @+1 {{'ember.iota' op axis [2] out of range for rank 2}}
  %0 = "ember.iota"() {axis = 2 : i64} : () -> tensor<4x2xf32>
  return %0 : tensor<4x2xf32>
}

// -----

func.func @iota_0d() -> tensor<i64> {
  // expected-error @+1 {{'ember.iota' op iota needs a result of rank 1 or more}}
  %0 = "ember.iota"() {axis = 0 : i64} : () -> tensor<i64>
  return %0 : tensor<i64>
}

// -----

func.func @iota_sizes(%n: index) -> tensor<?x?xi32> {
  // expected-error @+1 {{'ember.iota' op expects 2 size operands (one per '?' of the result), got 1}}
  %0 = "ember.iota"(%n) {axis = 0 : i64} : (index) -> tensor<?x?xi32>
  return %0 : tensor<?x?xi32>
}

// -----

func.func @iota_missing_axis() -> tensor<4xi32> {
  // expected-error @+1 {{'ember.iota' op requires attribute 'axis'}}
  %0 = "ember.iota"() : () -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
