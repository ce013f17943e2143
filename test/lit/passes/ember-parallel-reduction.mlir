// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-parallel-reduction)' | FileCheck %s

// A sum of squared differences to one value: each part accumulates its block of the
// loop into its own slot of the runtime's scratch, then the last part to finish
// (atomic counter) combines the slots into the output.
// CHECK-LABEL: func.func @mse
// CHECK-SAME: %[[OUT:[^:]*]]: memref<f32> {llvm.noalias}, %[[PARTIALS:[^:]*]]: memref<256xf32>, %[[COUNTER:[^:]*]]: memref<1xi64>, %[[PART:[^:]*]]: index, %[[PARTS:[^:]*]]: index)
// CHECK-SAME: ember.parallel = true, ember.scratch = array<i64: 256, 1>
// CHECK: %[[SLOT:.*]] = memref.reinterpret_cast %[[PARTIALS]] to offset: [%[[PART]]], sizes: [], strides: []
// CHECK: memref.store %[[INIT:.*]], %[[SLOT]][]
// CHECK: %[[LO:.*]] = arith.divui %{{.*}}, %[[PARTS]]
// CHECK: %[[HI:.*]] = arith.divui %{{.*}}, %[[PARTS]]
// CHECK: scf.for %{{.*}} = %[[LO]] to %[[HI]]
// CHECK: memref.load %[[SLOT]][]
// CHECK: arith.addf
// CHECK: memref.store %{{.*}}, %[[SLOT]][]
// CHECK: %[[OLD:.*]] = memref.atomic_rmw addi %{{.*}}, %[[COUNTER]]
// CHECK: %[[LAST:.*]] = arith.cmpi eq, %[[OLD]]
// CHECK: scf.if %[[LAST]]
// CHECK-NEXT: memref.store %[[INIT]], %[[OUT]][]
// CHECK-NEXT: scf.for %[[P:.*]] = %{{.*}} to %[[PARTS]]
// CHECK-NEXT: %[[ACC:.*]] = memref.load %[[OUT]][]
// CHECK-NEXT: %[[V:.*]] = memref.load %[[PARTIALS]][%[[P]]]
// CHECK-NEXT: %[[SUM:.*]] = arith.addf %[[ACC]], %[[V]] fastmath<reassoc>
// CHECK-NEXT: memref.store %[[SUM]], %[[OUT]][]
func.func @mse(%x: memref<?xf32> {llvm.noalias}, %y: memref<?xf32> {llvm.noalias}, %out: memref<f32> {llvm.noalias}) attributes {ember.num_outputs = 1 : i64, ember.parallel = false} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %init = arith.constant -0.000000e+00 : f32
  memref.store %init, %out[] : memref<f32>
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %b = memref.load %y[%i] : memref<?xf32>
    %acc = memref.load %out[] : memref<f32>
    %d = arith.subf %a, %b : f32
    %s = arith.mulf %d, %d : f32
    %r = arith.addf %acc, %s fastmath<reassoc> : f32
    memref.store %r, %out[] : memref<f32>
  }
  return
}

// The accumulator is updated by a select, not an associative combiner: left alone.
// CHECK-LABEL: func.func @not_a_combiner
// CHECK-SAME: ember.parallel = false
// CHECK-NOT: atomic_rmw
func.func @not_a_combiner(%x: memref<?xf32> {llvm.noalias}, %out: memref<f32> {llvm.noalias}) attributes {ember.num_outputs = 1 : i64, ember.parallel = false} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %init = arith.constant 0.000000e+00 : f32
  memref.store %init, %out[] : memref<f32>
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %acc = memref.load %out[] : memref<f32>
    %bigger = arith.cmpf ogt, %a, %acc : f32
    %r = arith.select %bigger, %a, %acc : f32
    memref.store %r, %out[] : memref<f32>
  }
  return
}

// A kernel the tile split already made parallel is not touched.
// CHECK-LABEL: func.func @already_parallel
// CHECK-SAME: (%{{[^:]*}}: memref<?xf32>, %{{[^:]*}}: memref<f32>)
func.func @already_parallel(%x: memref<?xf32>, %out: memref<f32>) attributes {ember.parallel = true} {
  return
}

// The output starts from 5, not from the identity of + (every part's slot would
// start from it, counting it once per part): left alone.
// CHECK-LABEL: func.func @not_the_identity
// CHECK-SAME: ember.parallel = false
// CHECK-NOT: atomic_rmw
func.func @not_the_identity(%x: memref<?xf32> {llvm.noalias}, %out: memref<f32> {llvm.noalias}) attributes {ember.num_outputs = 1 : i64, ember.parallel = false} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %init = arith.constant 5.000000e+00 : f32
  memref.store %init, %out[] : memref<f32>
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %acc = memref.load %out[] : memref<f32>
    %r = arith.addf %acc, %a : f32
    memref.store %r, %out[] : memref<f32>
  }
  return
}

// A mean: the sum accumulates in a buffer and is divided into the output after the
// loop. The division runs once, on the combined total, in the last part; every part
// frees its own buffer.
// CHECK-LABEL: func.func @mean
// CHECK: %[[BUF:.*]] = memref.alloc()
// CHECK: scf.for
// CHECK: memref.atomic_rmw
// CHECK: scf.if
// CHECK: memref.store %{{.*}}, %[[BUF]][]
// CHECK: scf.for
// CHECK: arith.sitofp
// CHECK-NEXT: %[[TOTAL:.*]] = memref.load %[[BUF]][]
// CHECK-NEXT: %[[MEAN:.*]] = arith.divf %[[TOTAL]]
// CHECK-NEXT: memref.store %[[MEAN]], %arg1[]
// CHECK-NEXT: }
// CHECK-NEXT: memref.dealloc %[[BUF]]
func.func @mean(%x: memref<?xf32> {llvm.noalias}, %out: memref<f32> {llvm.noalias}) attributes {ember.num_outputs = 1 : i64, ember.parallel = false} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %init = arith.constant -0.000000e+00 : f32
  %buf = memref.alloc() : memref<f32>
  memref.store %init, %buf[] : memref<f32>
  %n = memref.dim %x, %c0 : memref<?xf32>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %x[%i] : memref<?xf32>
    %acc = memref.load %buf[] : memref<f32>
    %r = arith.addf %acc, %a : f32
    memref.store %r, %buf[] : memref<f32>
  }
  %ni = arith.index_cast %n : index to i64
  %nf = arith.sitofp %ni : i64 to f32
  %total = memref.load %buf[] : memref<f32>
  %mean = arith.divf %total, %nf : f32
  memref.store %mean, %out[] : memref<f32>
  memref.dealloc %buf : memref<f32>
  return
}

// A column read through a view made before the loop, and scalar math on the total
// (np.exp(-r) * column.sum()): still a reduction across threads; the exp runs once,
// in the last part.
// CHECK-LABEL: func.func @discounted_column_sum
// CHECK-SAME: ember.parallel = true
// CHECK: memref.subview
// CHECK: scf.for
// CHECK: memref.atomic_rmw
// CHECK: scf.if
// CHECK: scf.for
// CHECK: math.exp
// CHECK: memref.store %{{.*}}, %arg2[]
// CHECK-NEXT: }
func.func @discounted_column_sum(%x: memref<?x4xf64> {llvm.noalias}, %rate: memref<f64> {llvm.noalias}, %out: memref<f64> {llvm.noalias}) attributes {ember.num_outputs = 1 : i64, ember.parallel = false} {
  %c1 = arith.constant 1 : index
  %c0 = arith.constant 0 : index
  %init = arith.constant 0.0 : f64
  %n = memref.dim %x, %c0 : memref<?x4xf64>
  %col = memref.subview %x[0, 2] [%n, 1] [1, 1] : memref<?x4xf64> to memref<?x1xf64, strided<[4, 1], offset: 2>>
  %buf = memref.alloc() : memref<f64>
  memref.store %init, %buf[] : memref<f64>
  scf.for %i = %c0 to %n step %c1 {
    %a = memref.load %col[%i, %c0] : memref<?x1xf64, strided<[4, 1], offset: 2>>
    %acc = memref.load %buf[] : memref<f64>
    %r = arith.addf %acc, %a : f64
    memref.store %r, %buf[] : memref<f64>
  }
  %total = memref.load %buf[] : memref<f64>
  %rv = memref.load %rate[] : memref<f64>
  %neg = arith.negf %rv : f64
  %d = math.exp %neg : f64
  %v = arith.mulf %d, %total : f64
  memref.store %v, %out[] : memref<f64>
  memref.dealloc %buf : memref<f64>
  return
}
