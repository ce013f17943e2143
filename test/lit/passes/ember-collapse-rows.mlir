// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-collapse-rows)' | FileCheck %s

// An elementwise nest over rows of 10 contiguous elements is one loop over the
// buffers' 1-D views, from row lb * 10 to row ub * 10.
// CHECK-LABEL: func.func @exp_rows
// CHECK-DAG: %[[LO:.*]] = arith.muli %c0, %{{.*}} : index
// CHECK-DAG: %[[HI:.*]] = arith.muli %arg2, %{{.*}} : index
// CHECK-DAG: %[[OUT:.*]] = memref.collapse_shape %arg1 {{\[\[}}0, 1]] : memref<?x10xf64> into memref<?xf64>
// CHECK-DAG: %[[IN:.*]] = memref.collapse_shape %arg0 {{\[\[}}0, 1]] : memref<?x10xf64, strided<[10, 1], offset: ?>> into memref<?xf64, strided<[1], offset: ?>>
// CHECK: scf.for %[[K:.*]] = %[[LO]] to %[[HI]] step
// CHECK-NEXT: memref.load %[[IN]][%[[K]]]
// CHECK-NEXT: math.exp
// CHECK-NEXT: memref.store %{{.*}}, %[[OUT]][%[[K]]]
// CHECK-NOT: scf.for
func.func @exp_rows(%a: memref<?x10xf64, strided<[10, 1], offset: ?>>, %b: memref<?x10xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c10 step %c1 {
      %x = memref.load %a[%i, %j] : memref<?x10xf64, strided<[10, 1], offset: ?>>
      %y = math.exp %x : f64
      memref.store %y, %b[%i, %j] : memref<?x10xf64>
    }
  }
  return
}

// Left as two loops: a row-broadcast operand (x - m[i]), rows that are not
// contiguous (unknown strides: a view), and a reduction into the row.
// CHECK-LABEL: func.func @kept
// CHECK-NOT: memref.collapse_shape
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK: scf.for
// CHECK-NEXT: scf.for
// CHECK-NOT: memref.collapse_shape
func.func @kept(%a: memref<?x10xf64>, %m: memref<?x1xf64>, %v: memref<?x10xf64, strided<[?, ?], offset: ?>>, %b: memref<?x10xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c10 = arith.constant 10 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c10 step %c1 {
      %x = memref.load %a[%i, %j] : memref<?x10xf64>
      %y = memref.load %m[%i, %c0] : memref<?x1xf64>
      %z = arith.subf %x, %y : f64
      memref.store %z, %b[%i, %j] : memref<?x10xf64>
    }
  }
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c10 step %c1 {
      %x = memref.load %v[%i, %j] : memref<?x10xf64, strided<[?, ?], offset: ?>>
      memref.store %x, %b[%i, %j] : memref<?x10xf64>
    }
  }
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c10 step %c1 {
      %x = memref.load %a[%i, %j] : memref<?x10xf64>
      %s = memref.load %m[%i, %c0] : memref<?x1xf64>
      %t = arith.addf %s, %x : f64
      memref.store %t, %m[%i, %c0] : memref<?x1xf64>
    }
  }
  return
}

// An image with 3 channels: the loops over a row's pixels and their channels are one
// loop over the row's 3 * 64 elements of the views with the last two dims collapsed;
// the loop over rows stays (its index still addresses the rows).
// CHECK-LABEL: func.func @channels
// CHECK: scf.for %[[I:.*]] = %c0 to %arg2 step %c1 {
// CHECK-DAG: %[[IN:.*]] = memref.collapse_shape %arg0 {{\[\[}}0], [1, 2]] : memref<?x64x3xi8> into memref<?x192xi8>
// CHECK-DAG: %[[OUT:.*]] = memref.collapse_shape %arg1 {{\[\[}}0], [1, 2]] : memref<?x64x3xf32, strided<[192, 3, 1], offset: ?>> into memref<?x192xf32, strided<[192, 1], offset: ?>>
// CHECK: scf.for %[[K:.*]] = %{{.*}} to %{{.*}} step %c1 {
// CHECK-NEXT: memref.load %[[IN]][%[[I]], %[[K]]]
// CHECK-NEXT: arith.uitofp
// CHECK-NEXT: memref.store %{{.*}}, %[[OUT]][%[[I]], %[[K]]]
// CHECK-NOT: %c3 step
func.func @channels(%a: memref<?x64x3xi8>, %b: memref<?x64x3xf32, strided<[192, 3, 1], offset: ?>>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c3 = arith.constant 3 : index
  %c64 = arith.constant 64 : index
  scf.for %i = %c0 to %n step %c1 {
    scf.for %j = %c0 to %c64 step %c1 {
      scf.for %k = %c0 to %c3 step %c1 {
        %v = memref.load %a[%i, %j, %k] : memref<?x64x3xi8>
        %f = arith.uitofp %v : i8 to f32
        memref.store %f, %b[%i, %j, %k] : memref<?x64x3xf32, strided<[192, 3, 1], offset: ?>>
      }
    }
  }
  return
}
