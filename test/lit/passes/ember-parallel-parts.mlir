// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-parallel-parts)' | FileCheck %s

// One top-level scf.forall: the kernel gets (part, parts) and each call runs its
// own contiguous block of tiles, [n*part/parts, n*(part+1)/parts).
// CHECK-LABEL: func.func @one_loop
// CHECK-SAME: (%[[IN:[a-z0-9_]+]]: memref<?xf32>, %[[OUT:[a-z0-9_]+]]: memref<?xf32>, %[[PART:[a-z0-9_]+]]: index, %[[PARTS:[a-z0-9_]+]]: index)
// CHECK-SAME: ember.parallel = true
// CHECK: %[[N:.*]] = memref.dim %[[IN]]
// CHECK: %[[A:.*]] = arith.muli %[[N]], %[[PART]] : index
// CHECK: %[[LO:.*]] = arith.divui %[[A]], %[[PARTS]] : index
// CHECK: %[[NEXT:.*]] = arith.addi %[[PART]], %{{.*}} : index
// CHECK: %[[B:.*]] = arith.muli %[[N]], %[[NEXT]] : index
// CHECK: %[[HI:.*]] = arith.divui %[[B]], %[[PARTS]] : index
// CHECK: scf.forall (%[[TILE:.*]]) in (%[[N]])
// CHECK-NEXT: %[[GE:.*]] = arith.cmpi uge, %[[TILE]], %[[LO]] : index
// CHECK-NEXT: %[[LT:.*]] = arith.cmpi ult, %[[TILE]], %[[HI]] : index
// CHECK-NEXT: %[[MINE:.*]] = arith.andi %[[GE]], %[[LT]] : i1
// CHECK-NEXT: scf.if %[[MINE]] {
// CHECK: memref.subview %[[OUT]]
// CHECK: linalg.copy
func.func @one_loop(%in: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  scf.forall (%i) in (%n) {
    %a = memref.subview %in[%i] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    %b = memref.subview %out[%i] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.copy ins(%a : memref<1xf32, strided<[1], offset: ?>>) outs(%b : memref<1xf32, strided<[1], offset: ?>>)
  }
  return
}

// Work outside the loop (here a second loop that reads the first one's result)
// needs all tiles done first: the kernel stays whole, on one thread.
// CHECK-LABEL: func.func @two_loops
// CHECK-SAME: (%{{[a-z0-9_]+}}: memref<?xf32>, %{{[a-z0-9_]+}}: memref<?xf32>)
// CHECK-SAME: ember.parallel = false
// CHECK-NOT: arith.remui
func.func @two_loops(%in: memref<?xf32>, %out: memref<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = memref.dim %in, %c0 : memref<?xf32>
  scf.forall (%i) in (%n) {
    %a = memref.subview %in[%i] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    %b = memref.subview %out[%i] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.copy ins(%a : memref<1xf32, strided<[1], offset: ?>>) outs(%b : memref<1xf32, strided<[1], offset: ?>>)
  }
  scf.forall (%i) in (%n) {
    %a = memref.subview %out[%i] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    %b = memref.subview %in[%i] [1] [1] : memref<?xf32> to memref<1xf32, strided<[1], offset: ?>>
    linalg.copy ins(%a : memref<1xf32, strided<[1], offset: ?>>) outs(%b : memref<1xf32, strided<[1], offset: ?>>)
  }
  return
}
