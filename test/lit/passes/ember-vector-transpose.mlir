// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-vector-transpose{vector-bits=128})' | FileCheck %s

// NCHW -> NHWC of a window (x[:, :, r:r + Ho, s:s + Wo].transpose(0, 2, 3, 1)): loops
// over the output's other axes (N, H), then blocks of 4 x 4 (128-bit float32 rows).
// A whole block: four row loads along W from four channels, two rounds of shuffles,
// four stores along C. A block at an edge: the same through masks, rows past the last
// channel reading the last one again, and the rows stored last first (one past the
// output's edge goes to its last row, then the real one overwrites it).
// CHECK-LABEL: func.func @plane
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<2x3x?x5xf32, strided<[4096, 1024, 32, 1], offset: ?>>, %[[Y:[a-z0-9]+]]: memref<2x?x5x3xf32>
// CHECK-DAG: %[[C4:.*]] = arith.constant 4 : index
// CHECK-DAG: %[[H:.*]] = memref.dim %[[Y]], %{{.*}} : memref<2x?x5x3xf32>
// CHECK: scf.for %[[N:.*]] = %{{.*}} to %{{.*}} step %{{.*}} {
// CHECK: scf.for %[[HI:.*]] = %{{.*}} to %[[H]] step %{{.*}} {
// CHECK: scf.for %[[I0:.*]] = %{{.*}} to %{{.*}} step %[[C4]] {
// CHECK: scf.for %[[J0:.*]] = %{{.*}} to %{{.*}} step %[[C4]] {
// CHECK: %[[FULL:.*]] = arith.andi
// CHECK: scf.if %[[FULL]] {
// CHECK: %[[R0:.*]] = vector.load %[[X]][%[[N]], %[[I0]], %[[HI]], %[[J0]]]
// CHECK: %[[ROW1:.*]] = arith.addi %[[I0]]
// CHECK: %[[R1:.*]] = vector.load %[[X]][%[[N]], %[[ROW1]], %[[HI]], %[[J0]]]
// CHECK: %[[R2:.*]] = vector.load
// CHECK: %[[R3:.*]] = vector.load
// CHECK: %[[A:.*]] = vector.shuffle %[[R0]], %[[R2]] [0, 1, 4, 5]
// CHECK: %[[B:.*]] = vector.shuffle %[[R0]], %[[R2]] [2, 3, 6, 7]
// CHECK: %[[C:.*]] = vector.shuffle %[[R1]], %[[R3]] [0, 1, 4, 5]
// CHECK: %[[D:.*]] = vector.shuffle %[[R1]], %[[R3]] [2, 3, 6, 7]
// CHECK: %[[T0:.*]] = vector.shuffle %[[A]], %[[C]] [0, 4, 2, 6]
// CHECK: %[[T1:.*]] = vector.shuffle %[[A]], %[[C]] [1, 5, 3, 7]
// CHECK: %[[T2:.*]] = vector.shuffle %[[B]], %[[D]] [0, 4, 2, 6]
// CHECK: %[[T3:.*]] = vector.shuffle %[[B]], %[[D]] [1, 5, 3, 7]
// CHECK: vector.store %[[T0]], %[[Y]][%[[N]], %[[HI]], %[[J0]], %[[I0]]]
// CHECK: vector.store %[[T1]]
// CHECK: vector.store %[[T2]]
// CHECK: vector.store %[[T3]]
// CHECK: } else {
// CHECK: %[[LOADMASK:.*]] = vector.create_mask %{{.*}} : vector<4xi1>
// CHECK: %[[STOREMASK:.*]] = vector.create_mask %{{.*}} : vector<4xi1>
// CHECK: %[[E0:.*]] = vector.maskedload %[[X]][%[[N]], %{{.*}}, %[[HI]], %[[J0]]], %[[LOADMASK]]
// CHECK: %[[EROW1:.*]] = arith.minsi
// CHECK: vector.maskedload %[[X]][%[[N]], %[[EROW1]], %[[HI]], %[[J0]]], %[[LOADMASK]]
// CHECK-COUNT-2: vector.maskedload
// CHECK-COUNT-8: vector.shuffle
// CHECK: %[[COL3:.*]] = arith.minsi
// CHECK: vector.maskedstore %[[Y]][%[[N]], %[[HI]], %[[COL3]], %[[I0]]], %[[STOREMASK]]
// CHECK-COUNT-3: vector.maskedstore %{{.*}}, %[[STOREMASK]]
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @plane(%x: memref<2x3x?x5xf32, strided<[4096, 1024, 32, 1], offset: ?>>, %y: memref<2x?x5x3xf32>) {
  linalg.transpose ins(%x : memref<2x3x?x5xf32, strided<[4096, 1024, 32, 1], offset: ?>>) outs(%y : memref<2x?x5x3xf32>) permutation = [0, 2, 3, 1]
  return
}

// float64 at 128 bits: blocks of 2 x 2, one round of shuffles.
// CHECK-LABEL: func.func @matrix
// CHECK: scf.for
// CHECK: scf.for
// CHECK-COUNT-2: vector.load {{.*}} : memref<?x?xf64>, vector<2xf64>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [0, 2] : vector<2xf64>, vector<2xf64>
// CHECK: vector.shuffle %{{.*}}, %{{.*}} [1, 3] : vector<2xf64>, vector<2xf64>
// CHECK-COUNT-2: vector.store
// CHECK: } else {
// CHECK-COUNT-2: vector.maskedload {{.*}} : memref<?x?xf64>, vector<2xi1>, vector<2xf64> into vector<2xf64>
// CHECK-COUNT-2: vector.shuffle
// CHECK-COUNT-2: vector.maskedstore
// CHECK-NOT: linalg.transpose
func.func @matrix(%x: memref<?x?xf64>, %y: memref<?x?xf64>) {
  linalg.transpose ins(%x : memref<?x?xf64>) outs(%y : memref<?x?xf64>) permutation = [1, 0]
  return
}

// Left as they are: the innermost axis kept (whole rows copied), an input whose rows
// are strided, and bools.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: vector.
// CHECK: linalg.transpose {{.*}} permutation = [0, 1]
// CHECK: linalg.transpose {{.*}} permutation = [1, 0]
// CHECK: linalg.transpose {{.*}} permutation = [1, 0]
func.func @left_alone(%a: memref<4x8xf32>, %b: memref<4x8xf32>, %c: memref<4x8xf32, strided<[1, 4]>>, %d: memref<8x4xf32>, %e: memref<4x8xi1>, %f: memref<8x4xi1>) {
  linalg.transpose ins(%a : memref<4x8xf32>) outs(%b : memref<4x8xf32>) permutation = [0, 1]
  linalg.transpose ins(%c : memref<4x8xf32, strided<[1, 4]>>) outs(%d : memref<8x4xf32>) permutation = [1, 0]
  linalg.transpose ins(%e : memref<4x8xi1>) outs(%f : memref<8x4xi1>) permutation = [1, 0]
  return
}

// Bytes: blocks of 16 x 16 (one 128-bit register a row; at 512 bits, 64 x 64 would take
// 64 registers, so bytes stay 16 x 16 there too), four rounds of shuffles.
// CHECK-LABEL: func.func @bytes
// CHECK-COUNT-16: vector.load {{.*}} vector<16xi8>
// CHECK-COUNT-64: vector.shuffle
// CHECK-COUNT-16: vector.store
func.func @bytes(%x: memref<?x?xi8>, %y: memref<?x?xi8>) {
  linalg.transpose ins(%x : memref<?x?xi8>) outs(%y : memref<?x?xi8>) permutation = [1, 0]
  return
}
