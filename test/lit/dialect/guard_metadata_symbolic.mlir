// RUN: ember-opt %s | ember-opt | FileCheck %s

// A graph traced with symbolic sizes: the symbol table and the symbolic guards (plain
// Python over the sources, with // and %) survive a round trip unchanged.

// CHECK-LABEL: func.func @half
// CHECK-SAME: ember.guards = [{expr = "L['x'].shape[0] >= 2", kind = "symbolic", sources = ["L['x'].shape[0]"]}, {expr = "L['x'].shape[0] // 2 >= 2", kind = "symbolic", sources = ["L['x'].shape[0]"]}, {expr = "L['x'].shape[0] % 2 == 0", kind = "symbolic", sources = ["L['x'].shape[0]"]}]
// CHECK-SAME: ember.symbols = [{hint = 12 : i64, name = "s0", source = "L['x'].shape[0]"}]
func.func @half(%x: tensor<?xf64> {ember.source = "L['x']"}) -> tensor<?xf64>
    attributes {ember.guards = [{kind = "symbolic", expr = "L['x'].shape[0] >= 2", sources = ["L['x'].shape[0]"]},
                                {kind = "symbolic", expr = "L['x'].shape[0] // 2 >= 2", sources = ["L['x'].shape[0]"]},
                                {kind = "symbolic", expr = "L['x'].shape[0] % 2 == 0", sources = ["L['x'].shape[0]"]}],
                ember.symbols = [{name = "s0", source = "L['x'].shape[0]", hint = 12 : i64}]} {
  // CHECK: "ember.size_arith"
  %d = "ember.dim"(%x) {axis = 0 : i64} : (tensor<?xf64>) -> index
  %two = "ember.size_constant"() {value = 2 : i64} : () -> index
  %n = "ember.size_arith"(%d, %two) {op = "floordiv"} : (index, index) -> index
  %0 = "ember.slice"(%x, %n) {starts = array<i64: 0>, steps = array<i64: 1>} : (tensor<?xf64>, index) -> tensor<?xf64>
  return %0 : tensor<?xf64>
}
