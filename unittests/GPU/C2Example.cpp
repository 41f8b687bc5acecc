//===- C2Example.cpp - examples/c2_image_classifier.cpp inside ember-gpu-jit ===//
//
// The example itself, unchanged, as `ember-gpu-jit --c2 [its flags]`: one
// program carries MLIR and LLVM to the GPU machine (scripts/gpu-bundle.sh),
// whose size is limited, so the example rides in it rather than beside it.
//
//===----------------------------------------------------------------------===//

#define main emberC2ExampleMain
#include "../../examples/c2_image_classifier.cpp"
