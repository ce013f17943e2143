func.func @f(%a: tensor<4xf32>) -> tensor<4xf32> {
  // expected-error @below {{out of range}}
  %0 = "ember.sum"(%a) {axes = array<i64: 3>, keepdims = false} : (tensor<4xf32>) -> tensor<f32>
  return %a : tensor<4xf32>
}

// -----

func.func @g(%a: tensor<4xf32>) -> tensor<4xf32> {
  return %a, %a : tensor<4xf32>, tensor<4xf32>
  // expected-error @above {{'func.return' op has 2 operands}}
}

// -----

func.func @h(%a: tensor<4xi32>) -> tensor<4xi32> {
  %0 = "ember.exp"(%a) : (tensor<4xi32>) -> tensor<4xi32> // expected-error {{element type i32}}
  return %0 : tensor<4xi32>
}

// -----

func.func @re(%a: tensor<4xi32>) -> tensor<4xi32> {
  // expected-error-re @+1 {{'ember.{{[a-z]+}}' op element type i{{[0-9]+}} not supported}}
  %0 = "ember.exp"(%a) : (tensor<4xi32>) -> tensor<4xi32>
  return %0 : tensor<4xi32>
}

// -----

func.func @fine() {
  return
}
