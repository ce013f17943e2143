// Plain upstream input without tensors goes through --emit=llvm and lower-to-llvm:
// the Ember stages leave it alone (ember-bufferize used to reject its f64 result).

// RUN: ember-opt %s --emit=llvm | FileCheck %s
// RUN: ember-opt %s -p lower-to-llvm --emit=llvm | FileCheck %s
// CHECK: define double @f(double %{{.*}}, double %{{.*}})
// CHECK: fmul double

// RUN: ember-opt %s -p lower-to-llvm | FileCheck %s --check-prefix=MLIR
// MLIR: llvm.func @f(%{{.*}}: f64, %{{.*}}: f64) -> f64
// MLIR: llvm.fmul

func.func @f(%a: f64, %b: f64) -> f64 {
  %c = arith.mulf %a, %b : f64
  return %c : f64
}
