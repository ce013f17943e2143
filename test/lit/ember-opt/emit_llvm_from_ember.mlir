// RUN: ember-opt %s --emit=llvm | FileCheck %s
// RUN: ember-opt %s -p lower-to-llvm --emit=llvm | FileCheck %s

// Ember input is lowered with lower-to-llvm first when no pipeline is given.

// CHECK: define {{.*}}@f(
// CHECK-NOT: ember.

func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ember.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  return %0 : tensor<4xf32>
}

// A pipeline that stops short of the LLVM dialect is an error, not a crash.
// RUN: not ember-opt %s -p ember-to-linalg --emit=llvm 2>&1 | FileCheck %s --check-prefix=SHORT
// SHORT: error: cannot translate to LLVM IR: ops outside the LLVM dialect remain: {{.*}}linalg.generic
