//===- ember.h - everything a user of ember's C++ API needs ------*- C++ -*-===//
#ifndef EMBER_EMBER_H
#define EMBER_EMBER_H

#include "ember/ControlFlow.h"
#include "ember/CustomGradient.h"
#include "ember/DType.h"
#include "ember/Device.h"
#include "ember/Error.h"
#include "ember/Function.h"
#include "ember/GradientTape.h"
#include "ember/Ops.h"
#include "ember/Tensor.h"
#include "ember/Variable.h"

#endif // EMBER_EMBER_H
