// An unknown pass is an error before any work, with the nearest known names.

// RUN: not ember-opt %s -p canonicalise 2>&1 | FileCheck %s --check-prefix=UPSTREAM
// UPSTREAM: ember-opt: error: {{.*}}'canonicalise' does not refer to a registered pass or pass pipeline
// UPSTREAM: did you mean 'canonicalize'

// RUN: not ember-opt %s --pass-pipeline='builtin.module(ember-to-linalgg)' 2>&1 | FileCheck %s --check-prefix=EMBER
// EMBER: ember-opt: error: {{.*}}'ember-to-linalgg' does not refer to a registered pass
// EMBER: did you mean 'ember-to-linalg'

// RUN: not ember-opt %s -p lower-to-llmv 2>&1 | FileCheck %s --check-prefix=PIPELINE
// PIPELINE: did you mean 'lower-to-llvm'

// RUN: not ember-opt %s --pass-pipeline='builtin.module(cse' 2>&1 | FileCheck %s --check-prefix=SYNTAX
// SYNTAX: ember-opt: error: missing ')'

// The caret points into the pipeline as typed, for --pass-pipeline as for -p.
// RUN: not ember-opt %s --pass-pipeline='builtin.module(cse,func.func(canonicalise))' 2>&1 | FileCheck %s --check-prefix=CARET
// CARET: ember-opt: error: 'canonicalise' does not refer to a registered pass or pass pipeline (did you mean 'canonicalize'
// CARET-NEXT: {{^}}--pass-pipeline=builtin.module(cse,func.func(canonicalise))
// CARET-NEXT: {{^ {45}\^$}}

// CHECK-NOT: Traceback
func.func @f() {
  return
}
