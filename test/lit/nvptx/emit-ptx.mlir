// REQUIRES: libdevice, ptxas
// RUN: ember-opt %s --emit=ptx --gpu-arch=sm_90 -o %t.sm90.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM90 --input-file=%t.sm90.ptx
// RUN: FileCheck %s --check-prefix=INTERNAL --input-file=%t.sm90.ptx
// RUN: %ptxas -arch=sm_90 %t.sm90.ptx -o %t.sm90.cubin
// RUN: ember-opt %s --emit=ptx --gpu-arch=sm_80 -o %t.sm80.ptx
// RUN: FileCheck %s --check-prefixes=CHECK,SM80 --input-file=%t.sm80.ptx
// RUN: FileCheck %s --check-prefix=INTERNAL --input-file=%t.sm80.ptx
// RUN: %ptxas -arch=sm_80 %t.sm80.ptx -o %t.sm80.cubin

// --emit=ptx on a gpu.module not yet lowered: gpu-to-nvvm runs first, then the
// kernels become PTX for the architecture asked for, with libdevice linked in and
// internalized (its functions inlined or dropped: nothing is left to resolve
// elsewhere), and ptxas assembles it.

// SM90: .version 8.0
// SM90: .target sm_90
// SM80: .version 7.0
// SM80: .target sm_80
// CHECK: .address_size 64

// CHECK-LABEL: .visible .entry exp_kernel(
// CHECK: ex2.approx
// CHECK: ret;

// CHECK-LABEL: .visible .entry sum_kernel(
// CHECK: .shared .align 4 .b8 __wg_sum_kernel_0[1024];
// CHECK: shfl.sync.bfly.b32
// CHECK: st.shared.b32
// CHECK: bar.sync 0;
// CHECK: ld.shared.b32
// CHECK: shfl.sync.bfly.b32
// CHECK: ret;

// INTERNAL: .target
// INTERNAL-NOT: .extern
// INTERNAL-NOT: __nv_

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

    // out[blockIdx.x] = sum of the block's elements of x (blockDim.x <= 256 threads):
    // each warp sums its lanes with xor shuffles, lane 0 of each warp stores the
    // warp's sum in workgroup memory, and after the barrier warp 0 sums those.
    gpu.func @sum_kernel(%x: memref<?xf32>, %out: memref<?xf32>, %n: index)
        workgroup(%smem : memref<256xf32, #gpu.address_space<workgroup>>) kernel {
      %c0 = arith.constant 0 : index
      %c1 = arith.constant 1 : index
      %c5 = arith.constant 5 : index
      %c32 = arith.constant 32 : index
      %c16_i32 = arith.constant 16 : i32
      %width = arith.constant 32 : i32
      %zero = arith.constant 0.0 : f32
      %tid = gpu.thread_id x
      %bid = gpu.block_id x
      %bdim = gpu.block_dim x
      %base = arith.muli %bid, %bdim : index
      %i = arith.addi %base, %tid : index
      %in = arith.cmpi ult, %i, %n : index
      %v = scf.if %in -> (f32) {
        %l = memref.load %x[%i] : memref<?xf32>
        scf.yield %l : f32
      } else {
        scf.yield %zero : f32
      }
      %warp_sum = scf.for %k = %c0 to %c5 step %c1 iter_args(%acc = %v) -> (f32) {
        %k_i32 = arith.index_cast %k : index to i32
        %offset = arith.shrui %c16_i32, %k_i32 : i32
        %other, %valid = gpu.shuffle xor %acc, %offset, %width : f32
        %sum = arith.addf %acc, %other : f32
        scf.yield %sum : f32
      }
      %lane = arith.remui %tid, %c32 : index
      %warp = arith.divui %tid, %c32 : index
      %lane0 = arith.cmpi eq, %lane, %c0 : index
      scf.if %lane0 {
        memref.store %warp_sum, %smem[%warp] : memref<256xf32, #gpu.address_space<workgroup>>
      }
      gpu.barrier
      %first_warp = arith.cmpi eq, %warp, %c0 : index
      scf.if %first_warp {
        %warps = arith.ceildivui %bdim, %c32 : index
        %has = arith.cmpi ult, %lane, %warps : index
        %p = scf.if %has -> (f32) {
          %s = memref.load %smem[%lane] : memref<256xf32, #gpu.address_space<workgroup>>
          scf.yield %s : f32
        } else {
          scf.yield %zero : f32
        }
        %total = scf.for %k = %c0 to %c5 step %c1 iter_args(%acc = %p) -> (f32) {
          %k_i32 = arith.index_cast %k : index to i32
          %offset = arith.shrui %c16_i32, %k_i32 : i32
          %other, %valid = gpu.shuffle xor %acc, %offset, %width : f32
          %sum = arith.addf %acc, %other : f32
          scf.yield %sum : f32
        }
        %t0 = arith.cmpi eq, %tid, %c0 : index
        scf.if %t0 {
          memref.store %total, %out[%bid] : memref<?xf32>
        }
      }
      gpu.return
    }
  }
}
