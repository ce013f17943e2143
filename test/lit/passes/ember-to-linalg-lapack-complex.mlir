// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg{define-helpers=true})' | FileCheck %s
// RUN: ember-opt %s -p lower-to-loops | FileCheck %s --check-prefix=LOOPS

// Complex stacks run the z routines (NumPy's complex128 work) on complex<f64> buffers,
// which hold LAPACK's interleaved (re, im) pairs; real outputs (here the eigenvalues)
// come from an f64 buffer and are stored as complex numbers with a zero imaginary part.
// The hermitian eigensolver takes a real workspace (rwork) whose size it reports.
// CHECK-DAG: func.func private @ember_lapack_zheevd(i32, i32, i32, i64, !llvm.ptr, i64, !llvm.ptr, !llvm.ptr, i64, !llvm.ptr, i64, !llvm.ptr, i64) -> i64
// CHECK-DAG: func.func private @ember_la_from_real_z(%{{.*}}: f64) -> complex<f64>
// CHECK-DAG: complex.create
// CHECK-DAG: func.func private @ember_la_load_z(%{{.*}}: memref<?x?x?xcomplex<f64>, strided<[?, ?, ?], offset: ?>>
// CHECK-LABEL: func.func private @ember_lapack_eigh_L_complex(
// CHECK: %[[RQ:.*]] = call @ember_la_buffer_d(
// CHECK: call @ember_lapack_zheevd(
// CHECK: %[[LRWORK:.*]] = call @ember_la_query_d(
// CHECK: call @ember_la_store_vec_z(
// CHECK: call @ember_la_store_z(

// CHECK-LABEL: func.func @eigh
// CHECK: bufferization.to_buffer %{{.*}} read_only : tensor<?x?x?xcomplex<f64>> to memref<?x?x?xcomplex<f64>, strided<[?, ?, ?], offset: ?>>
// CHECK: memref.alloc() : memref<2x3x9xcomplex<f64>>
// CHECK: call @ember_lapack_eigh_L_complex(
// LOOPS-LABEL: func.func @eigh
// LOOPS: call @ember_lapack_eigh_L_complex
func.func @eigh(%a: tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x9xcomplex<f64>> {
  %0 = "ember.lapack"(%a) {routine = "eigh_L"} : (tensor<2x3x3xcomplex<f64>>) -> tensor<2x3x9xcomplex<f64>>
  return %0 : tensor<2x3x9xcomplex<f64>>
}
