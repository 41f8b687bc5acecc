// Story D6: control flow on tensor values inside traced functions, written
// with ember::cond and ember::fori_loop: simple_relu, and a dynamic RNN that
// loops over time steps and stacks the per-step outputs.
#include "ember/ember.h"

#include <iostream>

using ember::Tensor;

Tensor simple_relu(const Tensor &x) {
  return ember::cond(x > 0.f, [&] { return x; }, [&] { return Tensor(0.f); });
}

// x: [time, batch, features]; returns the hidden state of every step,
// [time, batch, hidden], stacked by masking each step's row into place.
Tensor dynamic_rnn(const Tensor &x, const Tensor &w, const Tensor &u) {
  int64_t steps = x.size(0), batch = x.size(1), hidden = w.size(1);
  Tensor timeIndex = ember::reshape(ember::arange(0, steps, 1, ember::DType::Int64), {steps, 1, 1});
  auto final = ember::fori_loop(
      0, steps,
      [&](const Tensor &t, const std::vector<Tensor> &state) {
        Tensor xt = ember::gather(x, t, 0); // [batch, features]
        Tensor h = ember::tanh(ember::matmul(xt, w) + ember::matmul(state[0], u));
        Tensor here = ember::cast(timeIndex == t, ember::DType::Float32); // [time, 1, 1]
        Tensor outputs = state[1] + here * ember::reshape(h, {1, batch, hidden});
        return std::vector<Tensor>{h, outputs};
      },
      {ember::zeros({batch, hidden}), ember::zeros({steps, batch, hidden})});
  return final[1];
}

int main() {
  auto relu = ember::function(simple_relu, "simple_relu");
  for (float v : {3.f, -2.f})
    std::cout << "simple_relu(" << v << ") = " << relu(Tensor(v)).item<float>() << "\n";
  std::cout << "one concrete function for both branches: "
            << relu.concrete_functions().size() << "\n";

  Tensor x = ember::random_uniform({5, 2, 3}, 1, -1, 1);
  Tensor w = ember::random_uniform({3, 4}, 2, -0.5, 0.5), u = ember::random_uniform({4, 4}, 3, -0.5, 0.5);
  auto rnn = ember::function(dynamic_rnn, "dynamic_rnn");
  Tensor eager = dynamic_rnn(x, w, u), traced = rnn(x, w, u);
  std::cout << "rnn outputs: shape=" << traced.shape() << "\n";
  std::cout << "eager and traced agree: " << std::boolalpha
            << bool(ember::reduce_max(ember::abs(eager - traced)) < 1e-5f) << "\n";
  std::cout << "last step, first sequence: "
            << ember::slice(traced, {4, 0, 0}, {5, 1, 4}).values_string() << "\n";
  std::string ir = rnn.ir_stages(x, w, u).traced;
  std::cout << "traced as one loop: " << (ir.find("scf.for") != std::string::npos) << "\n";
}
