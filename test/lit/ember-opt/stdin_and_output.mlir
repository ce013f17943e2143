// Input from stdin (implicit or '-'), output to a file with -o.

// RUN: ember-opt < %s | FileCheck %s
// RUN: ember-opt - < %s | FileCheck %s
// RUN: ember-opt %s -o %t && FileCheck %s --input-file %t
// RUN: ember-opt - -o %t.2 < %s && FileCheck %s --input-file %t.2

// CHECK-LABEL: func.func @f
// CHECK-SAME: (%[[A:.*]]: tensor<3xf32>)
// CHECK-NEXT: %[[R:.*]] = "ember.sqrt"(%[[A]])
// CHECK-NEXT: return %[[R]]

// Errors in stdin input are located in <stdin>.
// RUN: not ember-opt < %S/Inputs/bad_return.mlir 2>&1 | FileCheck %s --check-prefix=ERR
// ERR: <stdin>:2:3: error: 'func.return' op has 2 operands

func.func @f(%a: tensor<3xf32>) -> tensor<3xf32> {
  %0 = "ember.sqrt"(%a) : (tensor<3xf32>) -> tensor<3xf32>
  return %0 : tensor<3xf32>
}
