func.func @div_no_fold_overflow() -> tensor<i32> {
  %a = ember.constant dense<-2147483648> : tensor<i32>
  %b = ember.constant dense<-1> : tensor<i32>
  %0 = ember.div %a, %b : tensor<i32>
  return %0 : tensor<i32>
}
