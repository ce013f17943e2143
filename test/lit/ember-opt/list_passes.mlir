// RUN: ember-opt --list-passes | FileCheck %s

// CHECK-LABEL: Ember passes:
// CHECK-DAG: {{^  }}ember-fuse {{.+}}
// CHECK-DAG: {{^  }}ember-to-linalg {{.+}}
// CHECK-LABEL: Ember pipelines:
// CHECK-DAG: {{^  }}lower-to-llvm {{.+}}
// CHECK-DAG: {{^  }}lower-to-loops {{.+}}
// CHECK-LABEL: Upstream MLIR passes:
// CHECK: {{^  }}canonicalize{{$}}
// CHECK: {{^  }}convert-linalg-to-loops{{$}}
