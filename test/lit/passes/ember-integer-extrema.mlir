// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-integer-extrema)' | FileCheck %s

// A running max carried by the loop: two integer keys (bits ^ ((bits >> 31) & 0x7fffffff))
// carried instead, an integer max and min of the element's key in the body; after the
// loop, a largest key above +inf's (0x7f800000) or a smallest below -inf's
// (~0x7f800000) is a NaN, the largest key otherwise, decoded by the same xor.
// CHECK-LABEL: func.func @row_max
// CHECK-SAME: %[[X:[a-z0-9]+]]: memref<?xf32>, %[[N:[a-z0-9]+]]: index, %[[INIT:[a-z0-9]+]]: f32
// CHECK: %[[IB:.*]] = arith.bitcast %[[INIT]] : f32 to i32
// CHECK: %[[IS:.*]] = arith.shrsi %[[IB]], %{{.*}} : i32
// CHECK: %[[IM:.*]] = arith.andi %[[IS]], %{{.*}} : i32
// CHECK: %[[IK:.*]] = arith.xori %[[IB]], %[[IM]] : i32
// CHECK: %[[R:.*]]:2 = scf.for %[[I:.*]] = %{{.*}} to %[[N]] step %{{.*}} iter_args(%[[HI:.*]] = %[[IK]], %[[LO:.*]] = %[[IK]]) -> (i32, i32)
// CHECK:   %[[V:.*]] = memref.load %[[X]][%[[I]]]
// CHECK:   %[[B:.*]] = arith.bitcast %[[V]] : f32 to i32
// CHECK:   %[[C31:.*]] = arith.constant 31 : i32
// CHECK:   %[[S:.*]] = arith.shrsi %[[B]], %[[C31]] : i32
// CHECK:   %[[LOW:.*]] = arith.constant 2147483647 : i32
// CHECK:   %[[M:.*]] = arith.andi %[[S]], %[[LOW]] : i32
// CHECK:   %[[K:.*]] = arith.xori %[[B]], %[[M]] : i32
// CHECK:   %[[NHI:.*]] = arith.maxsi %[[HI]], %[[K]] : i32
// CHECK:   %[[NLO:.*]] = arith.minsi %[[LO]], %[[K]] : i32
// CHECK:   scf.yield %[[NHI]], %[[NLO]] : i32, i32
// CHECK-NOT: arith.maximumf
// CHECK: %[[ABOVE:.*]] = arith.cmpi sgt, %[[R]]#0, %{{.*}} : i32
// CHECK: %[[BELOW:.*]] = arith.cmpi slt, %[[R]]#1, %{{.*}} : i32
// CHECK: %[[NAN:.*]] = arith.select %[[ABOVE]], %[[R]]#0, %[[R]]#1 : i32
// CHECK: %[[KEY:.*]] = arith.select %[[BELOW]], %[[NAN]], %[[R]]#0 : i32
// CHECK: arith.xori %[[KEY]]
// CHECK: %[[F:.*]] = arith.bitcast %{{.*}} : i32 to f32
// CHECK: return %[[F]] : f32
func.func @row_max(%x: memref<?xf32>, %n: index, %init: f32) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %r = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
    %v = memref.load %x[%i] : memref<?xf32>
    %m = arith.maximumf %acc, %v fastmath<reassoc> : f32
    scf.yield %m : f32
  }
  return %r : f32
}

// A running min kept in memory (acc[0] = min(x[i], acc[0])): loaded before the loop,
// carried as keys (i64 for f64), stored after; the smallest key is the answer unless a
// NaN key lies beyond +-inf's, the one below -inf's first. The sum carried beside it
// stays a float.
// CHECK-LABEL: func.func @min_in_memory
// CHECK: %[[A:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1xf64>
// CHECK: %[[S0:.*]] = memref.load %{{.*}}[%{{.*}}] : memref<1xf64>
// CHECK: %[[AB:.*]] = arith.bitcast %[[A]] : f64 to i64
// CHECK: %[[R:.*]]:3 = scf.for {{.*}} iter_args(%{{.*}} = %[[K:.*]], %{{.*}} = %[[K]], %{{.*}} = %[[S0]]) -> (i64, i64, f64)
// CHECK:   arith.constant 63 : i64
// CHECK:   arith.constant 9223372036854775807 : i64
// CHECK:   arith.maxsi
// CHECK:   arith.minsi
// CHECK:   arith.addf
// CHECK:   scf.yield
// CHECK: %[[ABOVE:.*]] = arith.cmpi sgt, %[[R]]#0, %{{.*}} : i64
// CHECK: %[[BELOW:.*]] = arith.cmpi slt, %[[R]]#1, %{{.*}} : i64
// CHECK: %[[NAN:.*]] = arith.select %[[BELOW]], %[[R]]#1, %[[R]]#0 : i64
// CHECK: %[[KEY:.*]] = arith.select %[[ABOVE]], %[[NAN]], %[[R]]#1 : i64
// CHECK: %[[F:.*]] = arith.bitcast %{{.*}} : i64 to f64
// CHECK-DAG: memref.store %[[F]], %{{.*}}[%{{.*}}] : memref<1xf64>
// CHECK-DAG: memref.store %[[R]]#2, %{{.*}}[%{{.*}}] : memref<1xf64>
func.func @min_in_memory(%x: memref<?xf64>, %acc: memref<1xf64>, %sum: memref<1xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    %a = memref.load %acc[%c0] : memref<1xf64>
    %m = arith.minimumf %v, %a fastmath<reassoc> : f64
    memref.store %m, %acc[%c0] : memref<1xf64>
    %s = memref.load %sum[%c0] : memref<1xf64>
    %t = arith.addf %s, %v fastmath<reassoc> : f64
    memref.store %t, %sum[%c0] : memref<1xf64>
  }
  return
}

// Left alone: NaN-ignoring maxnumf (np.nanmax), a max whose running value is also read
// elsewhere in the body, an elementwise maximum (nothing carried), and a vector max.
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: arith.maxsi
// CHECK: arith.maxnumf
// CHECK: arith.maximumf
// CHECK: arith.maximumf
// CHECK: arith.maximumf {{.*}} : vector<8xf32>
// CHECK-NOT: arith.maxsi
// CHECK: return
func.func @left_alone(%x: memref<?xf32>, %out: memref<?xf32>, %n: index, %init: f32, %vinit: vector<8xf32>) -> (f32, f32, vector<8xf32>) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %zero = arith.constant 0.0 : f32
  %a = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
    %v = memref.load %x[%i] : memref<?xf32>
    %m = arith.maxnumf %acc, %v : f32
    scf.yield %m : f32
  }
  %b = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %init) -> (f32) {
    %v = memref.load %x[%i] : memref<?xf32>
    memref.store %acc, %out[%i] : memref<?xf32>
    %m = arith.maximumf %acc, %v : f32
    scf.yield %m : f32
  }
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %r = arith.maximumf %v, %zero : f32
    memref.store %r, %out[%i] : memref<?xf32>
  }
  %c = scf.for %i = %c0 to %n step %c1 iter_args(%acc = %vinit) -> (vector<8xf32>) {
    %m = arith.maximumf %acc, %vinit : vector<8xf32>
    scf.yield %m : vector<8xf32>
  }
  return %a, %b, %c : f32, f32, vector<8xf32>
}
