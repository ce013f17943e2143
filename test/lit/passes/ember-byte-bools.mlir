// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-byte-bools)' | FileCheck %s

// A bool (i1) load reads the byte and compares it with 0 (a nonzero byte is True); a
// bool store writes the bool zero-extended to a byte. The load's attributes stay.
// CHECK-LABEL: func.func @not_bools
// CHECK-SAME: (%[[SRC:.*]]: !llvm.ptr, %[[DST:.*]]: !llvm.ptr)
// CHECK-NOT: llvm.load {{.*}} -> i1
// CHECK: %[[BYTE:.*]] = llvm.load %[[SRC]] {alignment = 1 : i64, nontemporal} : !llvm.ptr -> i8
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK: %[[TRUTH:.*]] = arith.cmpi ne, %[[BYTE]], %[[ZERO]] : i8
// CHECK: %[[NOT:.*]] = arith.xori %[[TRUTH]], %{{.*}} : i1
// CHECK: %[[OUT:.*]] = arith.extui %[[NOT]] : i1 to i8
// CHECK: llvm.store %[[OUT]], %[[DST]] {alignment = 1 : i64} : i8, !llvm.ptr
// CHECK-NOT: i1, !llvm.ptr
func.func @not_bools(%src: !llvm.ptr, %dst: !llvm.ptr) {
  %true = arith.constant true
  %b = llvm.load %src {alignment = 1 : i64, nontemporal} : !llvm.ptr -> i1
  %n = arith.xori %b, %true : i1
  llvm.store %n, %dst {alignment = 1 : i64} : i1, !llvm.ptr
  return
}

// Other types, and vectors of bools, are left alone.
// CHECK-LABEL: func.func @others
// CHECK: llvm.load %{{.*}} : !llvm.ptr -> i8
// CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK-NEXT: llvm.load %{{.*}} : !llvm.ptr -> vector<4xi1>
// CHECK-NEXT: llvm.store %{{.*}}, %{{.*}} : i32, !llvm.ptr
// CHECK-NOT: arith.cmpi
func.func @others(%p: !llvm.ptr, %v: i32) {
  %a = llvm.load %p : !llvm.ptr -> i8
  %b = llvm.load %p : !llvm.ptr -> f32
  %c = llvm.load %p : !llvm.ptr -> vector<4xi1>
  llvm.store %v, %p : i32, !llvm.ptr
  return
}
