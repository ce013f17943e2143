// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg,ember-fuse{tile-bytes=0},ember-bufferize,ember-gpu-kernels)' | FileCheck %s

// Each linalg op of the bufferized function becomes a kernel of @ember_kernels and a
// launch whose grid and block the runtime sizes per call (placeholders here).
// CHECK: module attributes {gpu.container_module}

// Row softmax: fills and the output are elementwise (a grid-stride loop); the max and
// the sum are block reductions, each with a finish kernel for split rows, their
// partials in a host buffer the runtime views as (rows, chunks).
// CHECK-LABEL: func.func @softmax
// CHECK: gpu.launch_func @ember_kernels::@softmax_k0 {{.*}}ember.launch = "elementwise"
// CHECK: memref.alloc({{.*}}) : memref<?x?xf32>
// CHECK: gpu.launch_func @ember_kernels::@softmax_k1 {{.*}}ember.launch = "reduce"
// CHECK: gpu.launch_func @ember_kernels::@softmax_k1_finish {{.*}}ember.launch = "reduce-finish"
// CHECK: ember.launch = "elementwise"
// CHECK: ember.launch = "reduce"
// CHECK: ember.launch = "reduce-finish"
// CHECK: gpu.launch_func @ember_kernels::@softmax_k4 {{.*}}ember.launch = "elementwise", ember.loop_dims = array<i64: 0, 0, 0, 1>
// CHECK-NOT: linalg.
// CHECK: return
func.func @softmax(%x: tensor<8x16xf32>) -> tensor<8x16xf32> {
  %m = "ember.max"(%x) {axes = array<i64: 1>, keepdims = true} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  %mb = "ember.broadcast_to"(%m) : (tensor<8x1xf32>) -> tensor<8x16xf32>
  %d = "ember.sub"(%x, %mb) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  %e = "ember.exp"(%d) : (tensor<8x16xf32>) -> tensor<8x16xf32>
  %s = "ember.sum"(%e) {axes = array<i64: 1>, keepdims = true} : (tensor<8x16xf32>) -> tensor<8x1xf32>
  %sb = "ember.broadcast_to"(%s) : (tensor<8x1xf32>) -> tensor<8x16xf32>
  %r = "ember.div"(%e, %sb) : (tensor<8x16xf32>, tensor<8x16xf32>) -> tensor<8x16xf32>
  return %r : tensor<8x16xf32>
}

// A matmul is one tiled kernel: 16x16 tiles of A and B staged in shared memory.
// CHECK-LABEL: func.func @matmul
// CHECK: gpu.launch_func @ember_kernels::@matmul_m0 {{.*}}ember.launch = "matmul"{{.*}}ember.tile = 16
func.func @matmul(%a: tensor<?x8xf32>, %b: tensor<8x3xf32>) -> tensor<?x3xf32> {
  %c = "ember.matmul"(%a, %b) : (tensor<?x8xf32>, tensor<8x3xf32>) -> tensor<?x3xf32>
  return %c : tensor<?x3xf32>
}

// The kernels read every size from their memref arguments. Matmuls are mapped first
// (before the other named ops are generalized).
// CHECK: gpu.module @ember_kernels
// CHECK: gpu.func @matmul_m0({{.*}}) workgroup(%{{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>, %{{.*}} : memref<16x16xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: gpu.barrier
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: gpu.barrier
// CHECK: gpu.func @softmax_k0(%{{.*}}: memref<8x1xf32>) kernel
// CHECK: memref.dim
// CHECK: gpu.grid_dim x
// CHECK: scf.for
// The reduction: threads stride over the row, then a shared-memory tree and shuffles.
// CHECK: gpu.func @softmax_k1({{.*}}) workgroup(%{{.*}} : memref<256xf32, #gpu.address_space<workgroup>>) kernel
// CHECK: scf.for {{.*}} iter_args
// CHECK: arith.maximumf
// CHECK: gpu.barrier
// CHECK: gpu.shuffle xor
// CHECK: gpu.func @softmax_k1_finish
