// power(x, 100) on a 10x10 int32 matrix (story D8), for ahead-of-time
// compilation: bench/aot/run.sh compiles it with ember-compile and times a C
// program calling it (process start to result, peak memory).
func.func @power(%x: tensor<10x10xi32>) -> tensor<10x10xi32> {
  %c0 = arith.constant 0 : index
  %c1 = arith.constant 1 : index
  %c100 = arith.constant 100 : index
  %identity = ember.constant dense<[[1,0,0,0,0,0,0,0,0,0],[0,1,0,0,0,0,0,0,0,0],[0,0,1,0,0,0,0,0,0,0],[0,0,0,1,0,0,0,0,0,0],[0,0,0,0,1,0,0,0,0,0],[0,0,0,0,0,1,0,0,0,0],[0,0,0,0,0,0,1,0,0,0],[0,0,0,0,0,0,0,1,0,0],[0,0,0,0,0,0,0,0,1,0],[0,0,0,0,0,0,0,0,0,1]]> : tensor<10x10xi32>
  %r = scf.for %i = %c0 to %c100 step %c1 iter_args(%acc = %identity) -> (tensor<10x10xi32>) {
    %m = ember.matmul %acc, %x : tensor<10x10xi32>, tensor<10x10xi32> -> tensor<10x10xi32>
    scf.yield %m : tensor<10x10xi32>
  }
  return %r : tensor<10x10xi32>
}
