// RUN: ember-opt %s --split-input-file | FileCheck %s
// RUN: not ember-opt %S/Inputs/split_with_error.mlir --split-input-file 2>&1 | FileCheck %s --check-prefix=ERR

// Each chunk is parsed on its own (so @f can be defined twice) and the outputs
// are separated by the marker.

// CHECK: func.func @f() {
// CHECK-NEXT: return
// CHECK: // -----
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @f(%{{.*}}: tensor<2xf32>) -> tensor<2xf32>
// CHECK-NEXT: "ember.neg"

func.func @f() {
  return
}

// -----

func.func @f(%a: tensor<2xf32>) -> tensor<2xf32> {
  %0 = "ember.neg"(%a) : (tensor<2xf32>) -> tensor<2xf32>
  return %0 : tensor<2xf32>
}

// Line numbers stay those of the whole file; the good chunks still print.
// ERR-DAG: split_with_error.mlir:7:8: error: 'ember.neg' op element type i1 not supported
// ERR-DAG: func.func @ok
