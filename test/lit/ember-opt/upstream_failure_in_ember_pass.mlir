// An upstream pipeline that fails inside an Ember pass keeps its diagnostics, and
// the pass names the pipeline (no "internal error: MLIRError").

// RUN: not ember-opt %s -p ember-bufferize 2>&1 | FileCheck %s
// CHECK: upstream_failure_in_ember_pass.mlir:[[# @LINE + 5]]:8: error: op was not bufferized
// CHECK: error: ember-bufferize: upstream pipeline '{{.*}}one-shot-bufferize{{.*}}' failed
// CHECK-NOT: internal error

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ember.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
