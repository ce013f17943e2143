// REQUIRES: ptxas
// RUN: ember-opt %s --emit=ptx --gpu-arch=sm_90 -o %t.ptx
// RUN: FileCheck %s --input-file=%t.ptx
// RUN: %ptxas -arch=sm_90 %t.ptx -o %t.cubin
// RUN: ember-opt %s -p lower-to-nvvm | FileCheck %s --check-prefix=NVVM

// Ember input all the way to PTX (lower-to-nvvm runs first): a fused elementwise
// kernel, a row reduction with its finish kernel, and a tiled matmul.
// CHECK: .target sm_90
// CHECK-DAG: .visible .entry layer_m0(
// CHECK-DAG: .visible .entry layer_k{{[0-9]+}}_finish(
// CHECK-DAG: shfl.sync.bfly.b32
// CHECK-DAG: bar.sync
// CHECK-DAG: .shared
// CHECK-NOT: .extern .func {{.*}}__nv_

// NVVM: gpu.module @ember_kernels
// NVVM: llvm.func @layer_m0({{.*}}) attributes {gpu.kernel, nvvm.kernel}
// NVVM: nvvm.barrier
// NVVM-NOT: gpu.func
func.func @layer(%x: tensor<?x64xf32>, %w: tensor<64x32xf32>) -> (tensor<?x32xf32>, tensor<?x1xf32>) {
  %y = "ember.matmul"(%x, %w) : (tensor<?x64xf32>, tensor<64x32xf32>) -> tensor<?x32xf32>
  %t = "ember.tanh"(%y) : (tensor<?x32xf32>) -> tensor<?x32xf32>
  %s = "ember.sum"(%t) {axes = array<i64: 1>, keepdims = true} : (tensor<?x32xf32>) -> tensor<?x1xf32>
  return %t, %s : tensor<?x32xf32>, tensor<?x1xf32>
}
