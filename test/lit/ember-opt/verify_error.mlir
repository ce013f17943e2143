// RUN: not ember-opt %s 2>&1 | FileCheck %s

// A verifier error of an Ember op, and of an upstream op (with its note), both
// located in this file.

// CHECK: verify_error.mlir:11:8: error: 'ember.sum' op axes [3] out of range for rank 1
// CHECK-NOT: Traceback

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // The result type is right for axes = [0]; the axis is not.
  %0 = "ember.sum"(%a) {axes = array<i64: 3>, keepdims = false} : (tensor<4xf32>) -> tensor<f32>
  return %a : tensor<4xf32>
}

// RUN: not ember-opt %S/Inputs/bad_return.mlir 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// UPSTREAM: Inputs{{/|\\}}bad_return.mlir:2:3: error: 'func.return' op has 2 operands, but enclosing function (@g) returns 1
// UPSTREAM: Inputs{{/|\\}}bad_return.mlir:2:3: note: see current operation
