//===- ember.h - everything a user of ember's C++ API needs ------*- C++ -*-===//
//
// The four public libraries, each on the ones above it in this list:
// Frontend, the core (tensors, ops, tracing, gradients, devices); Train, the
// Keras-like training library; Data, input pipelines; IO, file formats.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_EMBER_H
#define EMBER_EMBER_H

#include "ember/Support/DType.h"

#include "ember/Frontend/Collectives.h"
#include "ember/Frontend/ControlFlow.h"
#include "ember/Frontend/CustomGradient.h"
#include "ember/Frontend/Device.h"
#include "ember/Frontend/Error.h"
#include "ember/Frontend/Function.h"
#include "ember/Frontend/GradientTape.h"
#include "ember/Frontend/NN.h"
#include "ember/Frontend/Ops.h"
#include "ember/Frontend/Tensor.h"
#include "ember/Frontend/Threads.h"
#include "ember/Frontend/UserCallSite.h"
#include "ember/Frontend/Variable.h"

#include "ember/IO/Npy.h"
#include "ember/IO/Safetensors.h"
#include "ember/IO/Summary.h"

#include "ember/Data/Data.h"

#include "ember/Distributed/Distributed.h"

#include "ember/ONNX/ONNX.h"

#include "ember/Train/Checkpoint.h"
#include "ember/Train/Layers.h"
#include "ember/Train/Losses.h"
#include "ember/Train/Metrics.h"
#include "ember/Train/Optimizers.h"
#include "ember/Train/Plot.h"
#include "ember/Train/Progbar.h"

#endif // EMBER_EMBER_H
