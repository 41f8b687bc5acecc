//===- ember.h - everything a user of ember's C++ API needs ------*- C++ -*-===//
#ifndef EMBER_EMBER_H
#define EMBER_EMBER_H

#include "ember/Frontend/Checkpoint.h"
#include "ember/Frontend/ControlFlow.h"
#include "ember/Frontend/CustomGradient.h"
#include "ember/Frontend/Data.h"
#include "ember/Frontend/DType.h"
#include "ember/Frontend/Device.h"
#include "ember/Frontend/Error.h"
#include "ember/Frontend/Function.h"
#include "ember/Frontend/GradientTape.h"
#include "ember/Frontend/Layers.h"
#include "ember/Frontend/Losses.h"
#include "ember/Frontend/Metrics.h"
#include "ember/Frontend/NN.h"
#include "ember/Frontend/Ops.h"
#include "ember/Frontend/Optimizers.h"
#include "ember/Frontend/Plot.h"
#include "ember/Frontend/Progbar.h"
#include "ember/Frontend/Summary.h"
#include "ember/Frontend/Tensor.h"
#include "ember/Frontend/Threads.h"
#include "ember/Frontend/Variable.h"

#endif // EMBER_EMBER_H
