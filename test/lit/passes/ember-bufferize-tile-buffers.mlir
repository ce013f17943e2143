// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-fuse,ember-bufferize)' | FileCheck %s

// A fused softmax keeps two per-row temporaries (row maxima, row sums) per tile. They
// are allocated once, before the tile loop, at the largest tile's size (31 rows), and
// each tile views them at its own size: no malloc inside the loop, one free after it.
// CHECK-LABEL: func.func @softmax
// CHECK: %[[MAX:.*]] = memref.alloc() {alignment = 64 : i64} : memref<31xf32>
// CHECK: %[[SUM:.*]] = memref.alloc() {alignment = 64 : i64} : memref<31xf32>
// CHECK: scf.forall
// CHECK-NOT: memref.alloc
// CHECK: memref.reinterpret_cast %[[MAX]] to offset: [0], sizes: [%{{.*}}], strides: [1] : memref<31xf32> to memref<?xf32>
// CHECK-NOT: memref.alloc
// CHECK: memref.reinterpret_cast %[[SUM]]
// CHECK-NOT: memref.alloc
// CHECK-DAG: memref.dealloc %[[MAX]]
// CHECK-DAG: memref.dealloc %[[SUM]]
// CHECK: return
#id = affine_map<(d0, d1) -> (d0, d1)>
#row = affine_map<(d0, d1) -> (d0)>
func.func @softmax(%x: tensor<?x1024xf32>) -> tensor<?x1024xf32> {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %x, %c0 : tensor<?x1024xf32>
  %ninf = arith.constant 0xFF800000 : f32
  %zero = arith.constant 0.0 : f32
  %e0 = tensor.empty(%n) : tensor<?xf32>
  %m0 = linalg.fill ins(%ninf : f32) outs(%e0 : tensor<?xf32>) -> tensor<?xf32>
  %m = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%x : tensor<?x1024xf32>) outs(%m0 : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.maximumf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %e1 = tensor.empty(%n) : tensor<?x1024xf32>
  %ex = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%x, %m : tensor<?x1024xf32>, tensor<?xf32>) outs(%e1 : tensor<?x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %s = arith.subf %a, %b : f32
    %t = math.exp %s : f32
    linalg.yield %t : f32
  } -> tensor<?x1024xf32>
  %s0 = linalg.fill ins(%zero : f32) outs(%e0 : tensor<?xf32>) -> tensor<?xf32>
  %s = linalg.generic {indexing_maps = [#id, #row], iterator_types = ["parallel", "reduction"]} ins(%ex : tensor<?x1024xf32>) outs(%s0 : tensor<?xf32>) {
  ^bb0(%a: f32, %acc: f32):
    %r = arith.addf %a, %acc : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %out = linalg.generic {indexing_maps = [#id, #row, #id], iterator_types = ["parallel", "parallel"]} ins(%ex, %s : tensor<?x1024xf32>, tensor<?xf32>) outs(%e1 : tensor<?x1024xf32>) {
  ^bb0(%a: f32, %b: f32, %o: f32):
    %r = arith.divf %a, %b : f32
    linalg.yield %r : f32
  } -> tensor<?x1024xf32>
  return %out : tensor<?x1024xf32>
}
