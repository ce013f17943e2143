// Locations name the input file, as under mlir-opt (not "-"), also for passes that
// record locations, and keep whole-file line numbers under --split-input-file.

// RUN: ember-opt %s -split-input-file -mlir-print-debuginfo -mlir-print-local-scope | FileCheck %s -DFILE=%s
// RUN: ember-opt %s -split-input-file -snapshot-op-locations='filename=%t' -mlir-print-local-scope -mlir-print-debuginfo | FileCheck %s --check-prefix=SNAP -DFILE=%t
// RUN: ember-opt -mlir-print-debuginfo -mlir-print-local-scope < %s | FileCheck %s --check-prefix=STDIN

// CHECK-LABEL: func.func @first(
// CHECK-SAME: %arg0: i32 loc("[[FILE]]":15:18)
// CHECK: return %arg0 : i32 loc("[[FILE]]":16:3)
// CHECK: } loc("[[FILE]]":15:1)
// CHECK: } loc("[[FILE]]":0:0)
// SNAP-LABEL: func.func @first(
// SNAP: return %arg0 : i32 loc("[[FILE]]":{{[0-9]+}}:{{[0-9]+}})
func.func @first(%a: i32) -> i32 {
  return %a : i32
}

// -----

// CHECK-LABEL: func.func @second(
// CHECK: arith.constant 7 : i64 loc("[[FILE]]":25:8)
// STDIN: arith.constant 7 : i64 loc("<stdin>":25:8)
func.func @second() -> i64 {
  %c = arith.constant 7 : i64
  return %c : i64
}
