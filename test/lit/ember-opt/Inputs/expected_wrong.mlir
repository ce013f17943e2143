func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  %0 = "ember.exp"(%a) : (tensor<4xf32>) -> tensor<4xf32>
  // expected-error @above {{no such message}}
  return %0 : tensor<4xf32>
}

// -----
func.func @g(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "ember.exp"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}
