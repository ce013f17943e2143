// --split-input-file takes a custom marker, --output-split-marker sets what is
// printed between outputs, and a near miss of the marker is a warning (as mlir-opt).
// (The marker is split in two on the RUN line: the file is split wherever it occurs.)

// RUN: ember-opt %s --split-input-file='#'' cut' --output-split-marker='// ====' | FileCheck %s
// CHECK: func.func @f
// CHECK-NEXT: return
// CHECK: // ====
// CHECK-NEXT: module {
// CHECK-NEXT: func.func @g

// RUN: ember-opt %S/Inputs/near_miss.mlir -split-input-file 2>&1 >/dev/null | FileCheck %s --check-prefix=NEAR
// NEAR: near_miss.mlir:5:7: warning: near miss with file split marker
// NEAR-NEXT: // ----
// NEAR-NEXT: {{^      \^}}

func.func @f() {
  return
}

# cut

func.func @g() {
  return
}
