// RUN: ember-opt %s --allow-unregistered-dialect | FileCheck %s
// RUN: not ember-opt %s 2>&1 | FileCheck %s --check-prefix=ERR

// CHECK-LABEL: func.func @f
// CHECK-NEXT: "foo.bar"(%{{.*}}) {baz = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>

// ERR: unregistered_dialect.mlir:9:{{[0-9]+}}: error: operation being parsed with an unregistered dialect
func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "foo.bar"(%a) {baz = 1 : i64} : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
