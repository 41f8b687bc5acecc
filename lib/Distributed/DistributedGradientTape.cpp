//===- DistributedGradientTape.cpp - gradients reduced over the ranks -----===//
//
// The tape's gradients, then one all-reduce per bucket: the gradients of a
// bucket flattened and concatenated, reduced together, and split back.
// Fewer, larger collectives cost less than one per weight (each has a fixed
// latency); the bucket cap bounds the memory a bucket copies.
//
//===----------------------------------------------------------------------===//

#include "ember/Distributed/Distributed.h"

#include "ember/Frontend/Ops.h"

using namespace ember;
using namespace ember::distributed;

distributed::DistributedGradientTape::DistributedGradientTape(bool persistent, ReduceOp op,
                                                              double bucket_cap_mb)
    : GradientTape(persistent), op_(op), bucketBytes_(bucket_cap_mb * 1024 * 1024) {
  if (!(bucket_cap_mb >= 0))
    throw DistributedError("DistributedGradientTape: bucket_cap_mb must be 0 or more, not " +
                           std::to_string(bucket_cap_mb));
}

namespace {

/// Reduces the gradients `grads[i]` for i in `bucket` in place, as one
/// all-reduce of their values laid end to end.
void reduceBucket(std::vector<std::optional<Tensor>> &grads, const std::vector<size_t> &bucket,
                  ReduceOp op, const SourceLoc &loc) {
  if (bucket.size() == 1) {
    Tensor &g = *grads[bucket[0]];
    g = all_reduce(g, op, loc);
    return;
  }
  std::vector<Tensor> flat;
  for (size_t i : bucket)
    flat.push_back(reshape(*grads[i], {-1}, loc));
  Tensor reduced = all_reduce(concat(flat, 0, loc), op, loc);
  int64_t at = 0;
  for (size_t i : bucket) {
    Tensor &g = *grads[i];
    int64_t count = g.numel();
    g = reshape(slice(reduced, {at}, {at + count}, {}, loc), g.shape().vec(), loc);
    at += count;
  }
}

/// Reduces `grads` (absent ones stay absent) in buckets of at most
/// `bucketBytes`, filled in reverse order; each holds one dtype.
void reduceInBuckets(std::vector<std::optional<Tensor>> &grads, ReduceOp op, double bucketBytes,
                     const SourceLoc &loc) {
  std::vector<size_t> bucket;
  double bytes = 0;
  auto flush = [&] {
    if (!bucket.empty())
      reduceBucket(grads, bucket, op, loc);
    bucket.clear();
    bytes = 0;
  };
  for (size_t i = grads.size(); i-- > 0;) {
    // An integer source's gradient (zeros, with UnconnectedGradients::Zero)
    // is the same everywhere: nothing to send.
    if (!grads[i] || !isFloatingPoint(grads[i]->dtype()))
      continue;
    const Tensor &g = *grads[i];
    if (!g.shape().is_fully_defined()) { // a None dim: its size is known at run time only
      reduceBucket(grads, {i}, op, loc);
      continue;
    }
    double size = static_cast<double>(g.nbytes());
    if (!bucket.empty() &&
        (g.dtype() != grads[bucket.front()]->dtype() || bytes + size > bucketBytes))
      flush();
    bucket.push_back(i);
    bytes += size;
  }
  flush();
}

} // namespace

std::vector<std::optional<Tensor>>
distributed::DistributedGradientTape::gradient(const Tensor &target, const GradientSources &sources,
                                               UnconnectedGradients::NoneChoice none,
                                               SourceLoc loc) {
  std::vector<std::optional<Tensor>> grads = GradientTape::gradient(target, sources, none, loc);
  reduceInBuckets(grads, op_, bucketBytes_, loc);
  return grads;
}

std::vector<Tensor>
distributed::DistributedGradientTape::gradient(const Tensor &target, const GradientSources &sources,
                                               UnconnectedGradients::ZeroChoice zero,
                                               SourceLoc loc) {
  std::vector<Tensor> zeroFilled = GradientTape::gradient(target, sources, zero, loc);
  std::vector<std::optional<Tensor>> grads(zeroFilled.begin(), zeroFilled.end());
  reduceInBuckets(grads, op_, bucketBytes_, loc);
  std::vector<Tensor> out;
  for (std::optional<Tensor> &g : grads)
    out.push_back(std::move(*g));
  return out;
}
