// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-opaque-identities)' | FileCheck %s

// A row max of where(mask, x, -inf): the select's -inf comes from an empty inline
// assembly statement returning the constant's bits, made once at the function's entry;
// the min's +inf likewise (its own statement).
// CHECK-LABEL: func.func @masked_max_and_min
// CHECK-DAG: %[[PC:.*]] = arith.constant 0x7FF0000000000000 : f64
// CHECK-DAG: %[[PBITS:.*]] = arith.bitcast %[[PC]] : f64 to i64
// CHECK-DAG: %[[PASM:.*]] = llvm.inline_asm "", "=r,0" %[[PBITS]] : (i64) -> i64
// CHECK-DAG: %[[PINF:.*]] = arith.bitcast %[[PASM]] : i64 to f64
// CHECK-DAG: %[[NC:.*]] = arith.constant 0xFFF0000000000000 : f64
// CHECK-DAG: %[[NBITS:.*]] = arith.bitcast %[[NC]] : f64 to i64
// CHECK-DAG: %[[NASM:.*]] = llvm.inline_asm "", "=r,0" %[[NBITS]] : (i64) -> i64
// CHECK-DAG: %[[NINF:.*]] = arith.bitcast %[[NASM]] : i64 to f64
// CHECK: scf.for
// CHECK: %[[M:.*]] = arith.select %{{.*}}, %{{.*}}, %[[NINF]] : f64
// CHECK: arith.maximumf %{{.*}}, %[[M]]
// CHECK: %[[P:.*]] = arith.select %{{.*}}, %[[PINF]], %{{.*}} : f64
// CHECK: arith.minimumf %[[P]], %{{.*}}
func.func @masked_max_and_min(%x: memref<?xf64>, %mask: memref<?xi1>, %acc: memref<2xf64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %ninf = arith.constant 0xFFF0000000000000 : f64
  %pinf = arith.constant 0x7FF0000000000000 : f64
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    %m = memref.load %mask[%i] : memref<?xi1>
    %a = memref.load %acc[%c0] : memref<2xf64>
    %s = arith.select %m, %v, %ninf : f64
    %b = arith.maximumf %a, %s : f64
    memref.store %b, %acc[%c0] : memref<2xf64>
    %c = memref.load %acc[%c1] : memref<2xf64>
    %t = arith.select %m, %pinf, %v : f64
    %d = arith.minimumf %t, %c : f64
    memref.store %d, %acc[%c1] : memref<2xf64>
  }
  return
}

// argmax's first index: minsi(acc, select(hit, i, INT64_MAX)); INT64_MAX from the
// inline assembly (an integer: no bitcast).
// CHECK-LABEL: func.func @first_index
// CHECK: %[[MAX:.*]] = arith.constant 9223372036854775807 : i64
// CHECK: %[[OPAQUE:.*]] = llvm.inline_asm "", "=r,0" %[[MAX]] : (i64) -> i64
// CHECK: scf.for
// CHECK: %[[S:.*]] = arith.select %{{.*}}, %{{.*}}, %[[OPAQUE]] : i64
// CHECK: arith.minsi %{{.*}}, %[[S]] : i64
func.func @first_index(%x: memref<?xf64>, %best: f64, %acc: memref<i64>, %n: index) {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %max = arith.constant 9223372036854775807 : i64
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf64>
    %a = memref.load %acc[] : memref<i64>
    %hit = arith.cmpf oeq, %v, %best : f64
    %k = arith.index_cast %i : index to i64
    %s = arith.select %hit, %k, %max : i64
    %m = arith.minsi %a, %s : i64
    memref.store %m, %acc[] : memref<i64>
  }
  return
}

// Left alone: a select with another constant, a max outside any loop, and a sum
// (LLVM vectorizes a masked sum as it is).
// CHECK-LABEL: func.func @left_alone
// CHECK-NOT: llvm.inline_asm
// CHECK: return
func.func @left_alone(%x: memref<?xf32>, %mask: memref<?xi1>, %acc: memref<f32>, %n: index, %y: f32, %c: i1) -> f32 {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %big = arith.constant -1.0e30 : f32
  %zero = arith.constant 0.0 : f32
  %ninf = arith.constant 0xFF800000 : f32
  scf.for %i = %c0 to %n step %c1 {
    %v = memref.load %x[%i] : memref<?xf32>
    %m = memref.load %mask[%i] : memref<?xi1>
    %a = memref.load %acc[] : memref<f32>
    %s = arith.select %m, %v, %big : f32
    %b = arith.maximumf %a, %s : f32
    %t = arith.select %m, %v, %zero : f32
    %u = arith.addf %b, %t : f32
    memref.store %u, %acc[] : memref<f32>
  }
  %w = arith.select %c, %y, %ninf : f32
  %r = arith.maximumf %w, %y : f32
  return %r : f32
}
