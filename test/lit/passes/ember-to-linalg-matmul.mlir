// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s

// The affine maps print at the top of the module (@batched4's, @rows', @transposed_operands').
// CHECK-DAG: #[[LMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d4)>
// CHECK-DAG: #[[RMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d4, d3)>
// CHECK-DAG: #[[OMAP:.*]] = affine_map<(d0, d1, d2, d3, d4) -> (d0, d1, d2, d3)>
// CHECK-DAG: #[[TA:.*]] = affine_map<(d0, d1, d2) -> (d2, d0)>
// CHECK-DAG: #[[TB:.*]] = affine_map<(d0, d1, d2) -> (d1, d2)>
// CHECK-DAG: #[[PB:.*]] = affine_map<(d0, d1, d2) -> (d2, d1)>
// CHECK-DAG: #[[PC:.*]] = affine_map<(d0, d1, d2) -> (d0, d1)>
// CHECK-DAG: #[[ROWS:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d3)>
// CHECK-DAG: #[[MAT:.*]] = affine_map<(d0, d1, d2, d3) -> (d3, d2)>
// CHECK-DAG: #[[ROWS_OUT:.*]] = affine_map<(d0, d1, d2, d3) -> (d0, d1, d2)>
// CHECK-DAG: #[[VROWS:.*]] = affine_map<(d0, d1, d2) -> (d0, d1, d2)>
// CHECK-DAG: #[[VEC:.*]] = affine_map<(d0, d1, d2) -> (d2)>

// CHECK-LABEL: func.func @mm
// CHECK-SAME: (%[[A:.*]]: tensor<?x8xf32>, %[[B:.*]]: tensor<8x?xf32>)
// CHECK-DAG: %[[M:.*]] = tensor.dim %[[A]], %{{.*}} : tensor<?x8xf32>
// CHECK-DAG: %[[N:.*]] = tensor.dim %[[B]], %{{.*}} : tensor<8x?xf32>
// CHECK: %[[E:.*]] = tensor.empty(%[[M]], %[[N]]) : tensor<?x?xf32>
// CHECK: %[[Z:.*]] = arith.constant 0.000000e+00 : f32
// CHECK: %[[F:.*]] = linalg.fill ins(%[[Z]] : f32) outs(%[[E]] : tensor<?x?xf32>)
// CHECK: %[[R:.*]] = linalg.matmul ins(%[[A]], %[[B]] : tensor<?x8xf32>, tensor<8x?xf32>) outs(%[[F]] : tensor<?x?xf32>)
// CHECK: return %[[R]]
func.func @mm(%a: tensor<?x8xf32>, %b: tensor<8x?xf32>) -> tensor<?x?xf32> {
  %0 = "ember.matmul"(%a, %b) : (tensor<?x8xf32>, tensor<8x?xf32>) -> tensor<?x?xf32>
  return %0 : tensor<?x?xf32>
}

// CHECK-LABEL: func.func @vector_cases
// CHECK: linalg.matvec ins(%{{.*}}, %{{.*}} : tensor<3x4xi64>, tensor<4xi64>) outs(%{{.*}} : tensor<3xi64>)
// CHECK: linalg.vecmat ins(%{{.*}}, %{{.*}} : tensor<4xi64>, tensor<4x5xi64>) outs(%{{.*}} : tensor<5xi64>)
// CHECK: linalg.dot ins(%{{.*}}, %{{.*}} : tensor<4xi64>, tensor<4xi64>) outs(%{{.*}} : tensor<i64>)
func.func @vector_cases(%m: tensor<3x4xi64>, %v: tensor<4xi64>, %w: tensor<4x5xi64>) -> (tensor<3xi64>, tensor<5xi64>, tensor<i64>) {
  %0 = "ember.matmul"(%m, %v) : (tensor<3x4xi64>, tensor<4xi64>) -> tensor<3xi64>
  %1 = "ember.matmul"(%v, %w) : (tensor<4xi64>, tensor<4x5xi64>) -> tensor<5xi64>
  %2 = "ember.matmul"(%v, %v) : (tensor<4xi64>, tensor<4xi64>) -> tensor<i64>
  return %0, %1, %2 : tensor<3xi64>, tensor<5xi64>, tensor<i64>
}

// CHECK-LABEL: func.func @batched
// CHECK: linalg.batch_matmul ins(%{{.*}}, %{{.*}} : tensor<2x3x4xf64>, tensor<2x4x5xf64>) outs(%{{.*}} : tensor<2x3x5xf64>)
func.func @batched(%a: tensor<2x3x4xf64>, %b: tensor<2x4x5xf64>) -> tensor<2x3x5xf64> {
  %0 = "ember.matmul"(%a, %b) : (tensor<2x3x4xf64>, tensor<2x4x5xf64>) -> tensor<2x3x5xf64>
  return %0 : tensor<2x3x5xf64>
}

// More than one batch dim: a linalg.contract (a named op, which elementwise fusion
// leaves whole for BLAS) with one reduction loop; an integer one is a generic.
// CHECK-LABEL: func.func @batched4
// CHECK: linalg.contract indexing_maps = [#[[LMAP]], #[[RMAP]], #[[OMAP]]] ins(%{{.*}}, %{{.*}} : tensor<2x?x3x4xf32>, tensor<2x?x4x5xf32>)
func.func @batched4(%a: tensor<2x?x3x4xf32>, %b: tensor<2x?x4x5xf32>) -> tensor<2x?x3x5xf32> {
  %0 = "ember.matmul"(%a, %b) : (tensor<2x?x3x4xf32>, tensor<2x?x4x5xf32>) -> tensor<2x?x3x5xf32>
  return %0 : tensor<2x?x3x5xf32>
}

// CHECK-LABEL: func.func @batched4_int
// CHECK: linalg.generic {indexing_maps = [#[[LMAP]], #[[RMAP]], #[[OMAP]]], iterator_types = ["parallel", "parallel", "parallel", "parallel", "reduction"]}
// CHECK-NEXT: ^bb0(%[[X:.*]]: i32, %[[Y:.*]]: i32, %[[ACC:.*]]: i32):
// CHECK-NEXT: %[[P:.*]] = arith.muli %[[X]], %[[Y]] : i32
// CHECK-NEXT: %[[S:.*]] = arith.addi %[[ACC]], %[[P]] : i32
// CHECK-NEXT: linalg.yield %[[S]] : i32
func.func @batched4_int(%a: tensor<2x?x3x4xi32>, %b: tensor<2x?x4x5xi32>) -> tensor<2x?x3x5xi32> {
  %0 = "ember.matmul"(%a, %b) : (tensor<2x?x3x4xi32>, tensor<2x?x4x5xi32>) -> tensor<2x?x3x5xi32>
  return %0 : tensor<2x?x3x5xi32>
}

// A stack of rows times one matrix or vector: no batch to broadcast the matrix over,
// the rows of the stack (d0, d1) against it.
// CHECK-LABEL: func.func @rows
// CHECK: linalg.contract indexing_maps = [#[[ROWS]], #[[MAT]], #[[ROWS_OUT]]] ins(%{{.*}}, %{{.*}} : tensor<2x3x8xf64>, tensor<8x5xf64>) outs(%{{.*}} : tensor<2x3x5xf64>)
// CHECK: linalg.contract indexing_maps = [#[[VROWS]], #[[VEC]], #[[PC]]] ins(%{{.*}}, %{{.*}} : tensor<2x3x8xf64>, tensor<8xf64>) outs(%{{.*}} : tensor<2x3xf64>)
func.func @rows(%a: tensor<2x3x8xf64>, %b: tensor<8x5xf64>, %v: tensor<8xf64>) -> (tensor<2x3x5xf64>, tensor<2x3xf64>) {
  %0 = "ember.matmul"(%a, %b) : (tensor<2x3x8xf64>, tensor<8x5xf64>) -> tensor<2x3x5xf64>
  %1 = "ember.matmul"(%a, %v) : (tensor<2x3x8xf64>, tensor<8xf64>) -> tensor<2x3xf64>
  return %0, %1 : tensor<2x3x5xf64>, tensor<2x3xf64>
}

// A transposed 2-D operand is read in place, never copied: A.T @ v is v @ A
// (vecmat), v @ A.T is A @ v (matvec), and a 2-D matmul reads the untransposed
// operand through a transposed indexing map. The transposes, left unread, are gone.
// CHECK-LABEL: func.func @transposed_operands
// CHECK-SAME: (%[[A:[a-z0-9_]+]]: tensor<4x?xf64>, %[[V:[a-z0-9_]+]]: tensor<4xf64>, %[[W:[a-z0-9_]+]]: tensor<?xf64>, %[[B:[a-z0-9_]+]]: tensor<4x5xf64>, %[[C:[a-z0-9_]+]]: tensor<5x?xf64>)
// CHECK-NOT: linalg.transpose
// CHECK: linalg.vecmat ins(%[[V]], %[[A]] : tensor<4xf64>, tensor<4x?xf64>) outs(%{{.*}} : tensor<?xf64>)
// CHECK: linalg.matvec ins(%[[A]], %[[W]] : tensor<4x?xf64>, tensor<?xf64>) outs(%{{.*}} : tensor<4xf64>)
// CHECK: linalg.matmul indexing_maps = [#[[TA]], #[[PB]], #[[PC]]] ins(%[[A]], %[[B]] : tensor<4x?xf64>, tensor<4x5xf64>) outs(%{{.*}} : tensor<?x5xf64>)
// CHECK: linalg.matmul indexing_maps = [#[[TA]], #[[TB]], #[[PC]]] ins(%[[A]], %[[C]] : tensor<4x?xf64>, tensor<5x?xf64>) outs(%{{.*}} : tensor<?x5xf64>)
// CHECK-NOT: linalg.transpose
// CHECK: return
func.func @transposed_operands(%a: tensor<4x?xf64>, %v: tensor<4xf64>, %w: tensor<?xf64>, %b: tensor<4x5xf64>, %c: tensor<5x?xf64>)
    -> (tensor<?xf64>, tensor<4xf64>, tensor<?x5xf64>, tensor<?x5xf64>) {
  %c1 = arith.constant 1 : index
  %n = tensor.dim %a, %c1 : tensor<4x?xf64>
  %at = "ember.transpose"(%a) {perm = array<i64: 1, 0>} : (tensor<4x?xf64>) -> tensor<?x4xf64>
  %0 = "ember.matmul"(%at, %v) : (tensor<?x4xf64>, tensor<4xf64>) -> tensor<?xf64>
  %1 = "ember.matmul"(%w, %at) : (tensor<?xf64>, tensor<?x4xf64>) -> tensor<4xf64>
  %2 = "ember.matmul"(%at, %b) : (tensor<?x4xf64>, tensor<4x5xf64>) -> tensor<?x5xf64>
  %ct = "ember.transpose"(%c) {perm = array<i64: 1, 0>} : (tensor<5x?xf64>) -> tensor<?x5xf64>
  %3 = "ember.matmul"(%at, %ct) : (tensor<?x4xf64>, tensor<?x5xf64>) -> tensor<?x5xf64>
  return %0, %1, %2, %3 : tensor<?xf64>, tensor<4xf64>, tensor<?x5xf64>, tensor<?x5xf64>
}

// A transpose that something else reads too stays, for that reader.
// CHECK-LABEL: func.func @transpose_also_returned
// CHECK: %[[T:.*]] = linalg.transpose ins(%[[X:.*]] : tensor<3x2xf32>)
// CHECK: linalg.vecmat ins(%{{.*}}, %[[X]] : tensor<3xf32>, tensor<3x2xf32>)
// CHECK: return %{{.*}}, %[[T]]
func.func @transpose_also_returned(%x: tensor<3x2xf32>, %v: tensor<3xf32>) -> (tensor<2xf32>, tensor<2x3xf32>) {
  %t = "ember.transpose"(%x) {perm = array<i64: 1, 0>} : (tensor<3x2xf32>) -> tensor<2x3xf32>
  %0 = "ember.matmul"(%t, %v) : (tensor<2x3xf32>, tensor<3xf32>) -> tensor<2xf32>
  return %0, %t : tensor<2xf32>, tensor<2x3xf32>
}

// A float product of at most 4 terms (an RGB image times its weights): an elementwise
// generic over the result reading each term at a constant index, summed by fused
// multiply-adds in order from zero (never the output's value), not a BLAS-bound op.
// CHECK-LABEL: func.func @few_terms
// CHECK: linalg.generic {{.*}} iterator_types = ["parallel", "parallel"]} ins(%arg0, %arg1, %arg0, %arg1, %arg0, %arg1 : tensor<4x5x3xf32>, tensor<3xf32>, {{.*}})
// CHECK: ^bb0(%[[A0:.*]]: f32, %[[B0:.*]]: f32, %[[A1:.*]]: f32, %[[B1:.*]]: f32, %[[A2:.*]]: f32, %[[B2:.*]]: f32, %[[ACC:.*]]: f32):
// CHECK-NEXT: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NEXT: %[[S0:.*]] = math.fma %[[A0]], %[[B0]], %[[ZERO]] : f32
// CHECK-NEXT: %[[S1:.*]] = math.fma %[[A1]], %[[B1]], %[[S0]] : f32
// CHECK-NEXT: %[[S2:.*]] = math.fma %[[A2]], %[[B2]], %[[S1]] : f32
// CHECK-NEXT: linalg.yield %[[S2]] : f32
// CHECK-NOT: linalg.contract
func.func @few_terms(%img: tensor<4x5x3xf32>, %w: tensor<3xf32>) -> tensor<4x5xf32> {
  %0 = "ember.matmul"(%img, %w) : (tensor<4x5x3xf32>, tensor<3xf32>) -> tensor<4x5xf32>
  return %0 : tensor<4x5xf32>
}
