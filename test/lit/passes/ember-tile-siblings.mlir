// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-tile{tile-bytes=4096})' | FileCheck %s

// Two results of the same input over the same tiles: one loop writes both, tile i
// of each in iteration i (transform.loop.fuse_sibling), so the kernel has a single
// loop to split across threads.
// CHECK-LABEL: func.func @siblings
// CHECK: %[[R:.*]]:2 = scf.forall (%{{.*}}) in (%{{.*}}) shared_outs(%[[O1:.*]] = %{{.*}}, %[[O2:.*]] = %{{.*}})
// CHECK: arith.mulf
// CHECK: arith.addf
// CHECK: scf.forall.in_parallel
// CHECK-NEXT: tensor.parallel_insert_slice {{.*}} into %[[O1]]
// CHECK-NEXT: tensor.parallel_insert_slice {{.*}} into %[[O2]]
// CHECK-NOT: scf.forall
// CHECK: return %[[R]]#0, %[[R]]#1
#id1 = affine_map<(d0) -> (d0)>
func.func @siblings(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}

// The second loop reads the first one's result (through a slice, which is not a
// linalg op, so both are roots): the loops stay apart, in order.
// CHECK-LABEL: func.func @dependent
// CHECK: %[[FIRST:.*]] = scf.forall
// CHECK: arith.mulf
// CHECK: tensor.extract_slice %[[FIRST]]
// CHECK: scf.forall
// CHECK: arith.addf
func.func @dependent(%a: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %m = arith.mulf %x, %x : f32
    linalg.yield %m : f32
  } -> tensor<?xf32>
  %v = tensor.extract_slice %0[0] [%n] [1] : tensor<?xf32> to tensor<?xf32>
  %1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%v : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %s = arith.addf %x, %x : f32
    linalg.yield %s : f32
  } -> tensor<?xf32>
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}

// Inputs of unrelated sizes: different iteration counts, two loops.
// CHECK-LABEL: func.func @unrelated_sizes
// CHECK: scf.forall
// CHECK: arith.mulf
// CHECK: scf.forall
// CHECK: arith.addf
func.func @unrelated_sizes(%a: tensor<?xf32>, %b: tensor<?xf32>) -> (tensor<?xf32>, tensor<?xf32>) {
  %c0 = arith.constant 0 : index
  %n = tensor.dim %a, %c0 : tensor<?xf32>
  %m = tensor.dim %b, %c0 : tensor<?xf32>
  %e = tensor.empty(%n) : tensor<?xf32>
  %f = tensor.empty(%m) : tensor<?xf32>
  %0 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%a : tensor<?xf32>) outs(%e : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.mulf %x, %x : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  %1 = linalg.generic {indexing_maps = [#id1, #id1], iterator_types = ["parallel"]} ins(%b : tensor<?xf32>) outs(%f : tensor<?xf32>) {
  ^bb0(%x: f32, %o: f32):
    %r = arith.addf %x, %x : f32
    linalg.yield %r : f32
  } -> tensor<?xf32>
  return %0, %1 : tensor<?xf32>, tensor<?xf32>
}
