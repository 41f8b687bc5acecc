// Story B4: custom gradients. log1pexp(x) = log(1 + exp(x)): its plain
// gradient is 0.5 at 0 and nan at 100 (exp overflows); with a custom gradient
// reusing exp(x) from the forward pass, the gradient at 100 is 1.0. And a
// gradient clipped by norm in the backward pass only.
#include "ember/ember.h"

#include <cmath>
#include <cstdio>
#include <string>

using ember::Tensor;

Tensor log1pexpPlain(const Tensor &x) { return ember::log(1.f + ember::exp(x)); }

auto log1pexpCustom = ember::custom_gradient([](const Tensor &x) {
  Tensor e = ember::exp(x);
  return ember::WithGradient{ember::log(1.f + e), [e](const Tensor &upstream) {
                               return std::vector<Tensor>{upstream * (1.f - 1.f / (1.f + e))};
                             }};
});

// Identity forward; the backward scales the cotangent to norm at most 1.
auto clipGradient = ember::custom_gradient([](const Tensor &x) {
  return ember::WithGradient{x, [](const Tensor &upstream) {
                               Tensor norm = ember::sqrt(ember::reduce_sum(upstream * upstream));
                               Tensor scale = ember::minimum(Tensor(1.f), 1.f / norm);
                               return std::vector<Tensor>{upstream * scale};
                             }};
});

/// printf's %g, but "nan" for any NaN (printf may print "-nan").
std::string text(float v) {
  char buffer[32];
  std::snprintf(buffer, sizeof buffer, "%g", v);
  return std::isnan(v) ? "nan" : buffer;
}

int main() {
  auto plain = ember::grad([](const Tensor &x) { return log1pexpPlain(x); });
  auto custom = ember::grad([](const Tensor &x) { return log1pexpCustom(x); });
  for (float v : {0.f, 100.f})
    std::printf("x = %g: plain gradient %s, custom gradient %s\n", v,
                text(plain(Tensor(v)).item<float>()).c_str(),
                text(custom(Tensor(v)).item<float>()).c_str());
  std::printf("custom forward value at 0: %g\n", log1pexpCustom(Tensor(0.f)).item<float>());

  auto clipped = ember::grad([](const Tensor &x) { return ember::reduce_sum(clipGradient(x) * 10.f); });
  auto unclipped = ember::grad([](const Tensor &x) { return ember::reduce_sum(x * 10.f); });
  Tensor x = {3.f, 4.f};
  std::printf("gradient unclipped %s, clipped to norm 1 %s\n", unclipped(x).values_string().c_str(),
              clipped(x).values_string().c_str());
}
