// IR dumps go to stderr, as mlir-opt's do; the output goes to -o.

// RUN: ember-opt %s -o %t --pass-pipeline='builtin.module(ember-to-linalg,canonicalize)' --mlir-print-ir-after-all 2>&1 | FileCheck %s --check-prefix=AFTER
// AFTER: IR Dump After ember-to-linalg
// AFTER: linalg.generic
// AFTER: IR Dump After {{.*}}canonicalize

// RUN: ember-opt %s -o %t --pass-pipeline='builtin.module(ember-to-linalg,canonicalize)' --mlir-print-ir-before=ember-to-linalg 2>&1 | FileCheck %s --check-prefix=BEFORE
// BEFORE: IR Dump Before ember-to-linalg
// BEFORE-NEXT: module {
// BEFORE: "ember.exp"
// BEFORE-NOT: IR Dump

// RUN: ember-opt %s -o %t --pass-pipeline='builtin.module(ember-to-linalg,canonicalize)' --mlir-print-ir-before=canonicalize 2>&1 | FileCheck %s --check-prefix=BEFORE-CANON
// BEFORE-CANON-NOT: IR Dump Before ember-to-linalg
// BEFORE-CANON: IR Dump Before {{.*}}canonicalize
// BEFORE-CANON-NOT: "ember.exp"

// RUN: ember-opt %s -o %t -p canonicalize --mlir-timing 2>&1 | FileCheck %s --check-prefix=TIMING
// TIMING: Execution time report
// TIMING: Canonicalizer

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ember.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}
