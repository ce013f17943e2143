// mlir-opt's command line: every pass is a flag of its own, with its options as
// the flag's value, run in command-line order with -p and --pass-pipeline.
// Single-dash pass names are never read as short options with a glued value.

// RUN: ember-opt %s -promote-buffers-to-stack -canonicalize='max-iterations=3' --cse | FileCheck %s
// RUN: ember-opt %s --promote-buffers-to-stack -p cse --pass-pipeline='builtin.module(canonicalize)' | FileCheck %s
// CHECK-LABEL: func.func @f
// CHECK: memref.alloca() : memref<4xf32>

// RUN: ember-opt %s -cse -p canonicalize --mlir-print-ir-after-all -o %t 2>&1 | FileCheck %s --check-prefix=ORDER
// ORDER: IR Dump After CSEPass: cse
// ORDER: IR Dump After CanonicalizerPass: canonicalize

// RUN: not ember-opt %s -one-shot-bufferise 2>&1 | FileCheck %s --check-prefix=TYPO
// TYPO: ember-opt: error: unknown command line argument '-one-shot-bufferise' (did you mean '-one-shot-bufferize'

// RUN: not ember-opt %s -ofoo 2>&1 | FileCheck %s --check-prefix=GLUED
// GLUED: ember-opt: error: unknown command line argument '-ofoo' (did you mean '-o'?)

// RUN: ember-opt %s -o=%t -canonicalize && FileCheck %s --input-file %t --check-prefix=FILE
// FILE: memref.alloc() : memref<4xf32>

func.func @f() -> f32 {
  %c0 = arith.constant 0 : index
  %m = memref.alloc() : memref<4xf32>
  %v = memref.load %m[%c0] : memref<4xf32>
  return %v : f32
}
