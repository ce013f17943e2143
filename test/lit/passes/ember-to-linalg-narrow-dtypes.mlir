// RUN: ember-opt %s --pass-pipeline='builtin.module(ember-to-linalg)' | FileCheck %s
// RUN: ember-opt %s | ember-opt | FileCheck %s --check-prefix=ROUNDTRIP

// Unsigned integers are MLIR's uiN in Ember's types (printed and parsed as such); the
// lowering makes them signless iN, the signature included, and picks the unsigned ops.
// ROUNDTRIP-LABEL: func.func @unsigned
// ROUNDTRIP-SAME: tensor<?xui8>
// ROUNDTRIP: "ember.floordiv"(%{{.*}}, %{{.*}}) : (tensor<?xui8>, tensor<?xui8>) -> tensor<?xui8>
// ROUNDTRIP: dense<[1, 200, 4000000000, 7]> : tensor<4xui32>
// CHECK-LABEL: func.func @unsigned
// CHECK-SAME: (%[[A:.*]]: tensor<?xi8>, %[[B:.*]]: tensor<?xi8>, %[[W:.*]]: tensor<4xi32>)
// CHECK-SAME: -> (tensor<?xi8>, tensor<?xi1>, tensor<?xi8>, tensor<?xi8>, tensor<?xi32>, tensor<?xf32>, tensor<i8>, tensor<4xi32>)
// x // 0 == 0 and no trap: the divisor 0 becomes 1, then the quotient 0
// CHECK: arith.cmpi eq
// CHECK: arith.divui %{{.*}}, %{{.*}} : i8
// CHECK: arith.cmpi ult, %{{.*}}, %{{.*}} : i8
// a count outside [0, 8) gives 0: a logical shift
// CHECK: arith.shrui %{{.*}}, %{{.*}} : i8
// CHECK: arith.maxui %{{.*}}, %{{.*}} : i8
// CHECK: arith.extui %{{.*}} : i8 to i32
// CHECK: arith.uitofp %{{.*}} : i8 to f32
// max's identity is 0, not -128
// CHECK: %[[ZERO:.*]] = arith.constant 0 : i8
// CHECK: linalg.fill ins(%[[ZERO]] : i8)
// CHECK: arith.maxui
// the same bits as signless: 4000000000 is -294967296 as i32
// CHECK: arith.constant dense<[1, 200, -294967296, 7]> : tensor<4xi32>
// CHECK-NOT: ui8
// CHECK-NOT: ui32
// CHECK-NOT: ember.
func.func @unsigned(%a: tensor<?xui8>, %b: tensor<?xui8>, %w: tensor<4xui32>) -> (tensor<?xui8>, tensor<?xi1>, tensor<?xui8>, tensor<?xui8>, tensor<?xi32>, tensor<?xf32>, tensor<ui8>, tensor<4xui32>) {
  %0 = "ember.floordiv"(%a, %b) : (tensor<?xui8>, tensor<?xui8>) -> tensor<?xui8>
  %1 = "ember.cmp"(%a, %b) {predicate = "lt"} : (tensor<?xui8>, tensor<?xui8>) -> tensor<?xi1>
  %2 = "ember.shr"(%a, %b) : (tensor<?xui8>, tensor<?xui8>) -> tensor<?xui8>
  %3 = "ember.maximum"(%a, %b) : (tensor<?xui8>, tensor<?xui8>) -> tensor<?xui8>
  %4 = "ember.cast"(%a) : (tensor<?xui8>) -> tensor<?xi32>
  %5 = "ember.cast"(%a) : (tensor<?xui8>) -> tensor<?xf32>
  %6 = "ember.max"(%a) {axes = array<i64: 0>, keepdims = false} : (tensor<?xui8>) -> tensor<ui8>
  %c = "ember.constant"() {value = dense<[1, 200, 4000000000, 7]> : tensor<4xui32>} : () -> tensor<4xui32>
  %7 = "ember.add"(%w, %c) : (tensor<4xui32>, tensor<4xui32>) -> tensor<4xui32>
  return %0, %1, %2, %3, %4, %5, %6, %7 : tensor<?xui8>, tensor<?xi1>, tensor<?xui8>, tensor<?xui8>, tensor<?xi32>, tensor<?xf32>, tensor<ui8>, tensor<4xui32>
}

// Signed narrow integers keep the signed ops.
// CHECK-LABEL: func.func @signed
// CHECK: arith.cmpi slt, %{{.*}}, %{{.*}} : i16
// CHECK: arith.extsi %{{.*}} : i8 to i16
func.func @signed(%a: tensor<3xi16>, %b: tensor<3xi8>) -> (tensor<3xi1>, tensor<3xi16>) {
  %0 = "ember.cmp"(%a, %a) {predicate = "lt"} : (tensor<3xi16>, tensor<3xi16>) -> tensor<3xi1>
  %1 = "ember.cast"(%b) : (tensor<3xi8>) -> tensor<3xi16>
  return %0, %1 : tensor<3xi1>, tensor<3xi16>
}

// float16 is computed as NumPy's half loops: in f32, rounded back after each op; a sum
// accumulates in f32 and rounds once; f64 -> f16 rounds to f32 *to odd* first (no
// double rounding, no __truncdfhf2 libcall).
// CHECK-LABEL: func.func @half
// CHECK: ^bb0(%[[X:.*]]: f16, %[[Y:.*]]: f16, %{{.*}}: f16):
// CHECK-NEXT: %[[X32:.*]] = arith.extf %[[X]] : f16 to f32
// CHECK-NEXT: %[[Y32:.*]] = arith.extf %[[Y]] : f16 to f32
// CHECK-NEXT: %[[S:.*]] = arith.addf %[[X32]], %[[Y32]] : f32
// CHECK-NEXT: %[[H:.*]] = arith.truncf %[[S]] : f32 to f16
// CHECK-NEXT: linalg.yield %[[H]] : f16
// CHECK: math.exp %{{.*}} : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: linalg.fill ins(%{{.*}} : f32) outs(%{{.*}} : tensor<f32>)
// CHECK: arith.addf %{{.*}}, %{{.*}} fastmath<reassoc> : f32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK: arith.truncf %{{.*}} : f64 to f32
// CHECK: arith.cmpf one, %{{.*}}, %{{.*}} : f64
// CHECK: arith.ori %{{.*}}, %{{.*}} : i32
// CHECK: arith.truncf %{{.*}} : f32 to f16
// CHECK-NOT: arith.truncf %{{.*}} : f64 to f16
func.func @half(%x: tensor<8xf16>, %y: tensor<8xf16>, %d: tensor<8xf64>) -> (tensor<8xf16>, tensor<8xf16>, tensor<f16>, tensor<8xf16>) {
  %0 = "ember.add"(%x, %y) : (tensor<8xf16>, tensor<8xf16>) -> tensor<8xf16>
  %1 = "ember.exp"(%x) : (tensor<8xf16>) -> tensor<8xf16>
  %2 = "ember.sum"(%x) {axes = array<i64: 0>, keepdims = false} : (tensor<8xf16>) -> tensor<f16>
  %3 = "ember.cast"(%d) : (tensor<8xf64>) -> tensor<8xf16>
  return %0, %1, %2, %3 : tensor<8xf16>, tensor<8xf16>, tensor<f16>, tensor<8xf16>
}
