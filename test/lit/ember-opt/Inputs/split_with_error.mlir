func.func @ok() {
  return
}
// -----
func.func @bad(%a: tensor<2xi1>) -> tensor<2xi1> {

  %0 = "ember.neg"(%a) : (tensor<2xi1>) -> tensor<2xi1>
  return %0 : tensor<2xi1>
}
