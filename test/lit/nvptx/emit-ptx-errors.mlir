// --emit=ptx's errors: one line, exit 1.

// RUN: not ember-opt %s --emit=ptx --gpu-arch=sm_81 2>&1 | FileCheck %s --check-prefix=ARCH
// ARCH: ember-opt: error: unknown GPU architecture 'sm_81' (expected sm_XX, one of: sm_70, {{.*}}, sm_90, {{.*}})

// RUN: not env EMBER_CUDA_ARCH=compute_90 ember-opt %s --emit=ptx 2>&1 | FileCheck %s --check-prefix=ENV
// ENV: ember-opt: error: unknown GPU architecture 'compute_90' {{.*}} (from $EMBER_CUDA_ARCH)

// RUN: not ember-opt %s --gpu-arch=sm_90 2>&1 | FileCheck %s --check-prefix=ONLY
// ONLY: ember-opt: error: --gpu-arch only applies to --emit=ptx

// Two gpu.modules, neither named @ember_kernels: which one is meant is not guessed.
// RUN: not ember-opt %s --emit=ptx --gpu-arch=sm_90 2>&1 | FileCheck %s --check-prefix=WHICH
// WHICH: error: several gpu.modules (@a, @b) and none named @ember_kernels: which one holds the kernels?
// WHICH-NOT: Traceback

module attributes {gpu.container_module} {
  gpu.module @a {
    gpu.func @k() kernel {
      gpu.return
    }
  }
  gpu.module @b {
    gpu.func @k() kernel {
      gpu.return
    }
  }
}
