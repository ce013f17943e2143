// RUN: ember-opt %s --split-input-file --verify-diagnostics

// The complex ops' type rules (compiler/dialects/ops.py), located at the op.

func.func @real_of_real(%x: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @+1 {{'ember.real' op element type f32 is not complex}}
  %0 = "ember.real"(%x) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// -----

func.func @cabs_keeps_complex(%z: tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'ember.cabs' op result type tensor<4xcomplex<f32>> does not match the expected tensor<4xf32>}}
  %0 = "ember.cabs"(%z) : (tensor<4xcomplex<f32>>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @complex_of_ints(%i: tensor<4xi32>) -> tensor<4xcomplex<f32>> {
  // expected-error @+1 {{'ember.complex' op parts must be f32 or f64, got i32}}
  %0 = "ember.complex"(%i, %i) : (tensor<4xi32>, tensor<4xi32>) -> tensor<4xcomplex<f32>>
  return %0 : tensor<4xcomplex<f32>>
}

// -----

func.func @no_complex_maximum(%z: tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>> {
  // expected-error @+1 {{'ember.maximum' op element type complex<f64> not supported}}
  %0 = "ember.maximum"(%z, %z) : (tensor<4xcomplex<f64>>, tensor<4xcomplex<f64>>) -> tensor<4xcomplex<f64>>
  return %0 : tensor<4xcomplex<f64>>
}
