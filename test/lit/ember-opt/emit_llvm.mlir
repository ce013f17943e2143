// RUN: ember-opt %s --emit=llvm | FileCheck %s

// A module already in the LLVM dialect is translated as is.

// CHECK: define i32 @add(i32 %[[A:.*]], i32 %[[B:.*]])
// CHECK-NEXT: %[[S:.*]] = add i32 %[[A]], %[[B]]
// CHECK-NEXT: ret i32 %[[S]]

llvm.func @add(%a: i32, %b: i32) -> i32 {
  %0 = llvm.add %a, %b : i32
  llvm.return %0 : i32
}
