// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-bufferize)' | FileCheck %s

// Two reductions whose zero-filled inits CSE merged into one: each still writes its
// own output buffer (the shared init once made the second overwrite the first).
// CHECK-LABEL: func.func @two_sums
// CHECK-SAME: %[[O0:[a-z0-9_]+]]: memref<1xi64> {llvm.noalias}, %[[O1:[a-z0-9_]+]]: memref<1xi64> {llvm.noalias})
// CHECK-DAG: linalg.fill ins(%{{.*}} : i64) outs(%[[O0]] : memref<1xi64>)
// CHECK-DAG: linalg.fill ins(%{{.*}} : i64) outs(%[[O1]] : memref<1xi64>)
// CHECK: linalg.generic {{.*}} ins(%arg0 : {{.*}}) outs(%[[O0]] : memref<1xi64>)
// CHECK: linalg.generic {{.*}} ins(%arg1 : {{.*}}) outs(%[[O1]] : memref<1xi64>)
// CHECK-NOT: linalg.copy
#in = affine_map<(d0, d1) -> (d1)>
#out = affine_map<(d0, d1) -> (d0)>
func.func @two_sums(%x: tensor<5xi64>, %y: tensor<5xi64>) -> (tensor<1xi64>, tensor<1xi64>) {
  %zero = arith.constant 0 : i64
  %e = tensor.empty() : tensor<1xi64>
  %init = linalg.fill ins(%zero : i64) outs(%e : tensor<1xi64>) -> tensor<1xi64>
  %0 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<5xi64>) outs(%init : tensor<1xi64>) {
  ^bb0(%a: i64, %acc: i64):
    %s = arith.addi %a, %acc : i64
    linalg.yield %s : i64
  } -> tensor<1xi64>
  %1 = linalg.generic {indexing_maps = [#in, #out], iterator_types = ["parallel", "reduction"]} ins(%y : tensor<5xi64>) outs(%init : tensor<1xi64>) {
  ^bb0(%a: i64, %acc: i64):
    %s = arith.addi %a, %acc : i64
    linalg.yield %s : i64
  } -> tensor<1xi64>
  return %0, %1 : tensor<1xi64>, tensor<1xi64>
}
