// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-matmul-to-blas{force=true define-helpers=true})' | FileCheck %s
// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-matmul-to-blas{force=true},symbol-dce)' | FileCheck %s --check-prefix=DECL

// By default the helpers are only declared (symbol-dce keeps those called): the CPU
// backend links them from its helper library, compiled once per process, instead of
// compiling them into every kernel. define-helpers=true shows their bodies (below).
// DECL-NOT: func.func private @ember_{{.*}}{{[{]$}}
// DECL: func.func private @ember_matmul_f32(memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, memref<?x?xf32, strided<[?, ?], offset: ?>>, f32){{$}}
// DECL-NOT: func.func private @ember_{{.*}}{{[{]$}}
// DECL-NOT: @ember_gemm_f32
// DECL-LABEL: func.func @mm(
// DECL: call @ember_matmul_f32(

// A float matmul on buffers calls a per-type helper added at the top of the module.
// The helper calls BLAS gemm, with alpha = 1 and the beta it is given: 1 where
// linalg.matmul accumulates into what the output holds, 0 where a zero fill right
// before it is dropped (BLAS then does not read C; the loop fallback fills it),
// when each operand is row- or column-major with a big enough leading dimension
// (@ember_blas_layout says which; the output's layout picks the order, each input's
// its transpose flag) and no dimension is empty; otherwise it runs the matmul as loops.
// CHECK-LABEL: func.func private @ember_blas_layout
// CHECK-LABEL: func.func private @ember_blas_operand
// CHECK: %[[L:.*]]:4 = call @ember_blas_layout(
// CHECK: arith.select %{{.*}}, %c111_i32, %c112_i32 : i32
// CHECK: func.func private @ember_blas_sgemm(i32, i32, i32, i64, i64, i64, f32, !llvm.ptr, i64, !llvm.ptr, i64, f32, !llvm.ptr, i64)
// CHECK: func.func private @ember_blas_sgemv(i32, i32, i64, i64, f32, !llvm.ptr, i64, !llvm.ptr, i64, f32, !llvm.ptr, i64)
// An operand BLAS cannot take (no unit stride) is first packed into a contiguous copy
// (freed after), so gemm still does the work.
// CHECK-LABEL: func.func private @ember_matmul_f32
// CHECK: %[[PA:.*]] = call @ember_blas_packed_f32(%arg0)
// CHECK: %[[PB:.*]] = call @ember_blas_packed_f32(%arg1)
// CHECK: call @ember_gemm_f32(%[[PA]], %[[PB]], %arg2, %arg3)
// CHECK: call @ember_blas_unpacked_f32(%[[PA]], %arg0)
// CHECK-LABEL: func.func private @ember_blas_packed_f32
// CHECK: scf.if
// CHECK: memref.alloc
// CHECK: linalg.copy
// CHECK-LABEL: func.func private @ember_gemm_f32
// CHECK-SAME: (%{{.*}}: memref<?x?xf32, strided<[?, ?], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, ?], offset: ?>>, %{{.*}}: memref<?x?xf32, strided<[?, ?], offset: ?>>, %[[BETA:.*]]: f32)
// CHECK: %[[C:.*]]:4 = call @ember_blas_layout(
// CHECK: %[[ORDER:.*]] = arith.select %[[C]]#0, %c101_i32, %c102_i32 : i32
// CHECK: %[[A:.*]]:3 = call @ember_blas_operand(%[[C]]#0,
// CHECK: %[[B:.*]]:3 = call @ember_blas_operand(%[[C]]#0,
// CHECK: scf.if %{{.*}} {
// CHECK: call @ember_blas_sgemm(%[[ORDER]], %[[A]]#1, %[[B]]#1, {{.*}}, %[[A]]#2, {{.*}}, %[[B]]#2, %[[BETA]],
// CHECK: } else {
// CHECK-NEXT: call @ember_blas_zero_f32(%{{.*}}, %[[BETA]])
// CHECK-NEXT: linalg.matmul
// CHECK-LABEL: func.func private @ember_elem_ptr_f32
// CHECK: memref.extract_aligned_pointer_as_index
// CHECK: llvm.getelementptr

// CHECK-LABEL: func.func @mm
// CHECK-SAME: (%[[X:[a-z0-9_]+]]: memref<4x3xf32>, %[[W:[a-z0-9_]+]]: memref<3x2xf32>, %[[O:[a-z0-9_]+]]: memref<4x2xf32>)
// CHECK: %[[XC:.*]] = memref.cast %[[X]] : memref<4x3xf32> to memref<?x?xf32, strided<[?, ?], offset: ?>>
// CHECK: %[[WC:.*]] = memref.cast %[[W]]
// CHECK: %[[OC:.*]] = memref.cast %[[O]]
// CHECK: call @ember_matmul_f32(%[[XC]], %[[WC]], %[[OC]], %cst)
// CHECK-NOT: linalg.matmul
// CHECK: return
func.func @mm(%x: memref<4x3xf32>, %w: memref<3x2xf32>, %out: memref<4x2xf32>) {
  linalg.matmul ins(%x, %w : memref<4x3xf32>, memref<3x2xf32>) outs(%out : memref<4x2xf32>)
  return
}

// Into a zero fill (what ember-to-linalg makes of x @ w): the fill goes, beta is 0.
// CHECK-LABEL: func.func @mm_into_zeros
// CHECK: arith.constant 0.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: %[[ZERO:.*]] = arith.constant 0.000000e+00 : f32
// CHECK-NOT: linalg.fill
// CHECK: call @ember_matmul_f32(%{{.*}}, %{{.*}}, %{{.*}}, %[[ZERO]])
func.func @mm_into_zeros(%x: memref<4x3xf32>, %w: memref<3x2xf32>, %out: memref<4x2xf32>) {
  %zero = arith.constant 0.0 : f32
  linalg.fill ins(%zero : f32) outs(%out : memref<4x2xf32>)
  linalg.matmul ins(%x, %w : memref<4x3xf32>, memref<3x2xf32>) outs(%out : memref<4x2xf32>)
  return
}

// Integer matmuls stay loops.
// CHECK-LABEL: func.func @imm
// CHECK-NOT: call
// CHECK: linalg.matmul
func.func @imm(%x: memref<4x3xi32>, %w: memref<3x2xi32>, %out: memref<4x2xi32>) {
  linalg.matmul ins(%x, %w : memref<4x3xi32>, memref<3x2xi32>) outs(%out : memref<4x2xi32>)
  return
}
