//===- power.h - story D8's power(x, y), shared by the benchmarks --------===//
#ifndef EMBER_BENCH_POWER_H
#define EMBER_BENCH_POWER_H

#include "ember/ember.h"

/// x multiplied into the identity y times (10x10 int32 in the benchmarks).
inline ember::Tensor power(const ember::Tensor &x, int y) {
  ember::Tensor result = ember::eye(x.size(0), ember::DType::Int32);
  for (int i = 0; i < y; ++i)
    result = ember::matmul(result, x);
  return result;
}

#endif // EMBER_BENCH_POWER_H
