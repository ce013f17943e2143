// RUN: ember-opt %s | ember-opt | FileCheck %s

// Guard metadata rides on func.func as attributes and survives a round trip.

// CHECK-LABEL: func.func @graph
// CHECK-SAME: (%[[X:.*]]: tensor<?x4xf32> {ember.source = "L['x']"}, %[[Y:.*]]: tensor<4xf32> {ember.source = "L['y']"}) -> tensor<?x4xf32>
// CHECK-SAME: attributes {ember.guards = [{expr = "isinstance(L['x'], np.ndarray)", kind = "type", sources = ["L['x']"]}, {expr = "L['x'].shape[1] == 4", kind = "shape", sources = ["L['x']"]}]
// CHECK-SAME: ember.symbols = [{hint = 8 : i64, name = "s0", source = "L['x'].shape[0]"}]
func.func @graph(%x: tensor<?x4xf32> {ember.source = "L['x']"}, %y: tensor<4xf32> {ember.source = "L['y']"}) -> tensor<?x4xf32>
    attributes {ember.guards = [{kind = "type", expr = "isinstance(L['x'], np.ndarray)", sources = ["L['x']"]},
                                {kind = "shape", expr = "L['x'].shape[1] == 4", sources = ["L['x']"]}],
                ember.symbols = [{name = "s0", source = "L['x'].shape[0]", hint = 8 : i64}]} {
  // CHECK-NEXT: %[[D:.*]] = "ember.dim"(%[[X]]) {axis = 0 : i64}
  // CHECK-NEXT: %[[B:.*]] = "ember.broadcast_to"(%[[Y]], %[[D]]) : (tensor<4xf32>, index) -> tensor<?x4xf32>
  // CHECK-NEXT: %[[S:.*]] = "ember.add"(%[[X]], %[[B]])
  // CHECK-NEXT: return %[[S]]
  %d = "ember.dim"(%x) {axis = 0 : i64} : (tensor<?x4xf32>) -> index
  %b = "ember.broadcast_to"(%y, %d) : (tensor<4xf32>, index) -> tensor<?x4xf32>
  %0 = "ember.add"(%x, %b) : (tensor<?x4xf32>, tensor<?x4xf32>) -> tensor<?x4xf32>
  return %0 : tensor<?x4xf32>
}
