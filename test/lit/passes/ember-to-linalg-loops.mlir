// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s
// RUN: ember-opt %s --pass-pipeline='builtin.module(lower-to-llvm)' | FileCheck %s --check-prefix=LLVM

// A loop the frontend traced as a loop (frontend/loops.py): an scf.for of Ember ops
// carrying arrays. The ops of its body are lowered where they are; a carried uiN
// tensor becomes iN like the function's own arguments (block argument and result).
// CHECK-LABEL: func.func @bit_steps
// CHECK-SAME: (%[[CRC:.*]]: tensor<4xi32>, %[[ONE:.*]]: tensor<4xi32>) -> tensor<4xi32>
// CHECK: %[[R:.*]] = scf.for %{{.*}} = %{{.*}} to %{{.*}} step %{{.*}} iter_args(%[[ARG:.*]] = %[[CRC]]) -> (tensor<4xi32>)
// CHECK: arith.shrui
// CHECK: arith.xori
// CHECK: scf.yield %{{.*}} : tensor<4xi32>
// CHECK: return %[[R]] : tensor<4xi32>
// CHECK-NOT: ember.
// LLVM-LABEL: llvm.func @bit_steps
// LLVM: llvm.lshr
// LLVM: llvm.xor
func.func @bit_steps(%crc0: tensor<4xui32>, %one: tensor<4xui32>) -> tensor<4xui32> {
  %lo = "ember.size_constant"() {value = 0 : i64} : () -> index
  %hi = "ember.size_constant"() {value = 8 : i64} : () -> index
  %step = "ember.size_constant"() {value = 1 : i64} : () -> index
  %r = scf.for %i = %lo to %hi step %step iter_args(%crc = %crc0) -> (tensor<4xui32>) {
    %s = "ember.shr"(%crc, %one) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    %x = "ember.xor"(%s, %crc) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
    scf.yield %x : tensor<4xui32>
  }
  return %r : tensor<4xui32>
}
