// mlir-opt's printing flags that the bindings' printer offers, and --no-implicit-module.

// RUN: ember-opt %s --no-implicit-module --mlir-print-skip-regions | FileCheck %s --check-prefix=SKIP
// SKIP: func.func @f(%{{.*}}: f32) -> f32 {...}
// SKIP-NOT: module

// RUN: ember-opt %s -mlir-use-nameloc-as-prefix | FileCheck %s --check-prefix=NAMELOC
// NAMELOC: %twice = arith.addf

// RUN: ember-opt %s -mlir-print-debuginfo -mlir-pretty-debuginfo | FileCheck %s --check-prefix=PRETTY
// PRETTY: arith.addf %{{.*}} : f32 "twice"

// RUN: not ember-opt %s -mlir-elide-elementsattrs-if-larger=many 2>&1 | FileCheck %s --check-prefix=BADNUM
// BADNUM: takes a number

func.func @f(%x: f32) -> f32 {
  %0 = arith.addf %x, %x : f32 loc("twice")
  return %0 : f32
}
