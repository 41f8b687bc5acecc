// RUN: ember-opt %s "--ember-lower-to-nvvm=chip=sm_100" | FileCheck %s --check-prefix=SM100
// RUN: ember-opt %s "--ember-lower-to-nvvm=chip=sm_90 features=+ptx80" | FileCheck %s --check-prefix=SM90
// RUN: not ember-opt %s "--ember-lower-to-nvvm=chip=sm_9x" 2>&1 | FileCheck %s --check-prefix=BADCHIP

// Without features the PTX version is the lowest the chip supports, so any
// chip works (a fixed +ptx80 made LLVM abort for sm_100, which needs 8.6);
// features name one explicitly. A chip that is not one is an error.
// SM100: .version 8.6
// SM100: .target sm_100
// SM90: .version 8.0
// SM90: .target sm_90
// BADCHIP: error: Minimum NVVM target SM version is sm_20
func.func @add(%a: tensor<64xf32>, %b: tensor<64xf32>) -> tensor<64xf32> attributes {llvm.emit_c_interface} {
  %0 = ember.add %a, %b : tensor<64xf32>
  return %0 : tensor<64xf32>
}
