//===- CustomGradient.h - user-defined gradients ------------------*- C++ -*-===//
//
// `custom_gradient(forward)` wraps a function of tensors whose gradient the
// user states (tf.custom_gradient): `forward` returns the value and a
// backward function from the value's cotangent to one cotangent per input;
// the backward may use forward intermediates it captures.
//
//   auto log1pexp = ember::custom_gradient([](const Tensor &x) {
//     Tensor e = ember::exp(x);
//     return ember::WithGradient{ember::log1p(e), [e](const Tensor &upstream) {
//       return std::vector<Tensor>{upstream * (1.f - 1.f / (1.f + e))};
//     }};
//   });
//   auto df = ember::grad([&](const Tensor &x) { return log1pexp(x); });
//   Tensor slope = df(Tensor(100.f)); // 1. (the plain formula's gradient is nan there)
//
// Traced (ember::function, value_and_grad) the rule is stored in the IR as an
// ember.custom_gradient op, which ember-autodiff applies. Eagerly the forward
// runs as is.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_CUSTOMGRADIENT_H
#define EMBER_CUSTOMGRADIENT_H

#include "ember/Frontend/Ops.h"

#include <functional>
#include <vector>

namespace ember {

struct WithGradient {
  Tensor value;
  std::function<std::vector<Tensor>(const Tensor &upstream)> backward;
};

namespace detail {
Tensor attachGradient(const WithGradient &result, const std::vector<Tensor> &inputs,
                      const SourceLoc &loc);
} // namespace detail

template <typename F>
auto custom_gradient(F forward, SourceLoc loc = SourceLoc::current()) {
  return [forward, loc](const auto &...inputs) -> Tensor {
    WithGradient result = forward(inputs...);
    return detail::attachGradient(result, std::vector<Tensor>{Tensor(inputs)...}, loc);
  };
}

} // namespace ember

#endif // EMBER_CUSTOMGRADIENT_H
