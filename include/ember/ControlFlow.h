//===- ControlFlow.h - branches and loops on tensor values -------*- C++ -*-===//
//
// Eagerly these are plain C++ control flow. Inside an ember::function, where
// tensor values do not exist yet, they become scf.if / scf.while / scf.for on
// tensors in the traced function (a C++ `if` on a symbolic tensor is an error
// that points here).
//
//   Tensor y = ember::cond(x > 0, [&] { return x; }, [&] { return -x; });
//   auto [i, s] = ember::while_loop(
//       [](const auto &v) { return v[0] < 10; },
//       [](const auto &v) { return std::vector<Tensor>{v[0] + 1, v[1] * 2}; },
//       {Tensor(0), Tensor(1)});
//   auto sum = ember::fori_loop(0, 5, [](const Tensor &i, const auto &v) {
//       return std::vector<Tensor>{v[0] + ember::cast(i, DType::Int32)}; }, {Tensor(0)});
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_CONTROLFLOW_H
#define EMBER_CONTROLFLOW_H

#include "ember/Function.h"
#include "ember/Ops.h"

#include <functional>
#include <vector>

namespace ember {

namespace detail {
bool isTracing();
using Branch = std::function<std::vector<Tensor>()>;
using LoopCondition = std::function<Tensor(const std::vector<Tensor> &)>;
using LoopBody = std::function<std::vector<Tensor>(const std::vector<Tensor> &)>;
using CountedBody = std::function<std::vector<Tensor>(const Tensor &, const std::vector<Tensor> &)>;
std::vector<Tensor> traceCond(const Tensor &predicate, const Branch &thenBranch,
                              const Branch &elseBranch, const SourceLoc &loc);
std::vector<Tensor> traceWhile(const LoopCondition &condition, const LoopBody &body,
                               const std::vector<Tensor> &init, const SourceLoc &loc);
std::vector<Tensor> traceFor(int64_t lower, int64_t upper, const CountedBody &body,
                             const std::vector<Tensor> &init, const SourceLoc &loc);
} // namespace detail

/// `predicate ? then_fn() : else_fn()` for a 0-d bool tensor; both branches
/// return the same kinds of tensors (a Tensor, a tuple or a vector).
template <typename Then, typename Else>
auto cond(const Tensor &predicate, Then &&then_fn, Else &&else_fn,
          SourceLoc loc = SourceLoc::current()) {
  using R = std::decay_t<decltype(then_fn())>;
  if (!detail::isTracing())
    return bool(predicate) ? R(then_fn()) : R(else_fn());
  return detail::Unflatten<R>::from(detail::traceCond(
      predicate, [&] { return detail::flatten(R(then_fn())); },
      [&] { return detail::flatten(R(else_fn())); }, loc));
}

/// while (condition(vars)) vars = body(vars); returns the final vars. The
/// body keeps every variable's dtype and shape.
inline std::vector<Tensor> while_loop(const detail::LoopCondition &condition,
                                      const detail::LoopBody &body, std::vector<Tensor> vars,
                                      SourceLoc loc = SourceLoc::current()) {
  if (detail::isTracing())
    return detail::traceWhile(condition, body, vars, loc);
  while (bool(condition(vars)))
    vars = body(vars);
  return vars;
}

/// for (i = lower; i < upper; ++i) vars = body(i, vars), with i a 0-d int64
/// tensor; returns the final vars (jax.lax.fori_loop).
inline std::vector<Tensor> fori_loop(int64_t lower, int64_t upper,
                                     const detail::CountedBody &body, std::vector<Tensor> vars,
                                     SourceLoc loc = SourceLoc::current()) {
  if (detail::isTracing())
    return detail::traceFor(lower, upper, body, vars, loc);
  for (int64_t i = lower; i < upper; ++i)
    vars = body(Tensor(Scalar(i), DType::Int64), vars);
  return vars;
}

} // namespace ember

#endif // EMBER_CONTROLFLOW_H
