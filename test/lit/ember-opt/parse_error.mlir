// RUN: not ember-opt %s 2>&1 | FileCheck %s

// A parse error names the real file (not the bindings' "-"), line and column,
// shows the source line with a caret, and exits non-zero.

// CHECK: {{^.*}}ember-opt{{/|\\}}parse_error.mlir:12:8: error: custom op 'ember_typo' is unknown
// CHECK-NEXT: {{^}}  %0 = ember_typo %a
// CHECK-NEXT: {{^}}       ^
// CHECK-NOT: Traceback
// CHECK-NOT: "-":
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = ember_typo %a
  return %a : tensor<4xf32>
}
