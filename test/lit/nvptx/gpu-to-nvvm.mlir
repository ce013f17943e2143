// RUN: ember-opt %s -p gpu-to-nvvm | FileCheck %s

// gpu-to-nvvm lowers the kernels of a gpu.module to the LLVM and NVVM dialects: the
// thread and block ids become NVVM special registers, math.exp a libdevice call,
// memref accesses LLVM loads and stores on the descriptor's aligned pointer.

// CHECK-LABEL: gpu.module @ember_kernels
// CHECK: llvm.func @__nv_expf(f32) -> f32
// CHECK: llvm.func @exp_kernel(%{{.*}}: !llvm.ptr, {{.*}} attributes {gpu.kernel, nvvm.kernel}
// CHECK-DAG: nvvm.read.ptx.sreg.tid.x : i32
// CHECK-DAG: nvvm.read.ptx.sreg.ctaid.x : i32
// CHECK-DAG: nvvm.read.ptx.sreg.ntid.x : i32
// CHECK: llvm.icmp "ult"
// CHECK: llvm.cond_br
// CHECK: %[[X:.*]] = llvm.load %{{.*}} : !llvm.ptr -> f32
// CHECK: %[[E:.*]] = llvm.call @__nv_expf(%[[X]]) : (f32) -> f32
// CHECK: llvm.store %[[E]], %{{.*}} : f32, !llvm.ptr
// CHECK: llvm.return
// CHECK-NOT: gpu.func
// CHECK-NOT: gpu.thread_id
// CHECK-NOT: math.exp
// CHECK-NOT: memref.
// CHECK-NOT: scf.
// CHECK-NOT: unrealized_conversion_cast

module attributes {gpu.container_module} {
  gpu.module @ember_kernels {
    // y[i] = exp(x[i]) for i = blockIdx.x * blockDim.x + threadIdx.x < n
    gpu.func @exp_kernel(%x: memref<?xf32>, %y: memref<?xf32>, %n: index) kernel {
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      scf.if %in {
        %v = memref.load %x[%i] : memref<?xf32>
        %e = math.exp %v : f32
        memref.store %e, %y[%i] : memref<?xf32>
      }
      gpu.return
    }
  }
}
