// --verify-diagnostics passes when every expected diagnostic shows up...
// RUN: ember-opt %S/Inputs/expected_ok.mlir --split-input-file --verify-diagnostics

// ...and fails, naming both sides, when one is missing or unexpected.
// RUN: not ember-opt %S/Inputs/expected_wrong.mlir --split-input-file --verify-diagnostics 2>&1 | FileCheck %s
// CHECK-DAG: expected_wrong.mlir:3:6: error: expected error "no such message" was not produced
// CHECK-DAG: expected_wrong.mlir:9:8: error: unexpected error: 'ember.exp' op element type i32 not supported
