// Bad command-line and pass options: one line of error, exit 1.

// RUN: not ember-opt %s --emitt=llvm 2>&1 | FileCheck %s --check-prefix=FLAG
// FLAG: ember-opt: error: unknown command line argument '--emitt=llvm' (did you mean '--emit'?)

// RUN: not ember-opt %s --emit=bitcode 2>&1 | FileCheck %s --check-prefix=EMIT
// EMIT: ember-opt: error: unknown --emit=bitcode (choose one of: mlir, llvm, asm, obj, ptx)

// RUN: not ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg{bogus=1})' 2>&1 | FileCheck %s --check-prefix=EMBER
// EMBER: ember-opt: error: pass 'ember-to-linalg' has no option 'bogus'

// RUN: not ember-opt %s --pass-pipeline='builtin.module(canonicalize{bogus=1})' 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// UPSTREAM: ember-opt: error: {{.*}}no such option bogus

// RUN: not ember-opt %s.does-not-exist 2>&1 | FileCheck %s --check-prefix=MISSING
// MISSING: ember-opt: error: cannot open input file '{{.*}}bad_option.mlir.does-not-exist': No such file or directory

// mlir-opt's single-dash spelling of long options is accepted.
// RUN: ember-opt -allow-unregistered-dialect %s | FileCheck %s --check-prefix=DASH
// DASH: func.func @f

func.func @f() {
  return
}
