// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-scalar-carries)' | FileCheck %s

// A running sum and a flag (0-d tensors, as a loop traced as a loop carries its
// Python numbers) are carried as f64 and i1; the body reads them through
// tensor.from_elements and yields tensor.extract of what it computed, and the loop's
// results are wrapped back for their users. A carried vector stays a tensor.
// CHECK-LABEL: func.func @running_sum
// CHECK-SAME: (%[[X:.*]]: tensor<100xf64>, %[[V:.*]]: tensor<3xf64>)
// CHECK-DAG: %[[S0:.*]] = tensor.extract %{{.*}}[] : tensor<f64>
// CHECK-DAG: %[[F0:.*]] = tensor.extract %{{.*}}[] : tensor<i1>
// CHECK: %[[LOOP:.*]]:3 = scf.for %[[I:.*]] = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[S:.*]] = %[[S0]], %[[F:.*]] = %[[F0]], %[[W:.*]] = %[[V]]) -> (f64, i1, tensor<3xf64>)
// CHECK-DAG: %[[FT:.*]] = tensor.from_elements %[[F]] : tensor<i1>
// CHECK-DAG: %[[ST:.*]] = tensor.from_elements %[[S]] : tensor<f64>
// CHECK: linalg.generic {{.*}} ins(%[[ST]], %{{.*}} : tensor<f64>, tensor<f64>)
// CHECK-DAG: %[[SN:.*]] = tensor.extract %{{.*}}[] : tensor<f64>
// CHECK-DAG: %[[FN:.*]] = tensor.extract %[[FT]][] : tensor<i1>
// CHECK: scf.yield %[[SN]], %[[FN]], %{{.*}} : f64, i1, tensor<3xf64>
// CHECK-DAG: %[[SUM:.*]] = tensor.from_elements %[[LOOP]]#0 : tensor<f64>
// CHECK-DAG: %[[FLAG:.*]] = tensor.from_elements %[[LOOP]]#1 : tensor<i1>
// CHECK: return %[[SUM]], %[[FLAG]], %[[LOOP]]#2 : tensor<f64>, tensor<i1>, tensor<3xf64>
#scalar = affine_map<() -> ()>
func.func @running_sum(%x: tensor<100xf64>, %v: tensor<3xf64>) -> (tensor<f64>, tensor<i1>, tensor<3xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %zero = arith.constant dense<0.0> : tensor<f64>
  %false = arith.constant dense<false> : tensor<i1>
  %r:3 = scf.for %i = %c0 to %c100 step %c1 iter_args(%s = %zero, %flag = %false, %w = %v) -> (tensor<f64>, tensor<i1>, tensor<3xf64>) {
    %xi = tensor.extract_slice %x[%i] [1] [1] : tensor<100xf64> to tensor<1xf64>
    %e = tensor.collapse_shape %xi [] : tensor<1xf64> into tensor<f64>
    %init = tensor.empty() : tensor<f64>
    %next = linalg.generic {indexing_maps = [#scalar, #scalar, #scalar], iterator_types = []} ins(%s, %e : tensor<f64>, tensor<f64>) outs(%init : tensor<f64>) {
    ^bb0(%a: f64, %b: f64, %out: f64):
      %sum = arith.addf %a, %b : f64
      linalg.yield %sum : f64
    } -> tensor<f64>
    scf.yield %next, %flag, %w : tensor<f64>, tensor<i1>, tensor<3xf64>
  }
  return %r#0, %r#1, %r#2 : tensor<f64>, tensor<i1>, tensor<3xf64>
}

// Complex numbers and vectors of one element are left as they are.
// CHECK-LABEL: func.func @kept
// CHECK: scf.for {{.*}} -> (tensor<complex<f64>>, tensor<1xf64>)
func.func @kept(%z: tensor<complex<f64>>, %u: tensor<1xf64>, %n: index) -> (tensor<complex<f64>>, tensor<1xf64>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r:2 = scf.for %i = %c0 to %n step %c1 iter_args(%a = %z, %b = %u) -> (tensor<complex<f64>>, tensor<1xf64>) {
    scf.yield %a, %b : tensor<complex<f64>>, tensor<1xf64>
  }
  return %r#0, %r#1 : tensor<complex<f64>>, tensor<1xf64>
}
