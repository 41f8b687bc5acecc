//===- ControlFlow.h - branches and loops on tensor values -------*- C++ -*-===//
//
// Eagerly these are plain C++ control flow. Inside an ember::function, where
// tensor values do not exist yet, they become scf.if / scf.while / scf.for on
// tensors in the traced function (a C++ `if` on a symbolic tensor is an error
// that points here).
//
//   Tensor x(-2.f);
//   Tensor y = ember::cond(x > 0, [&] { return x; }, [&] { return -x; }); // 2.
//   auto [i, s] = ember::while_loop(                                 // 10, 1024
//       [](const Tensor &i, const Tensor &s) { return i < 10; },
//       [](const Tensor &i, const Tensor &s) { return std::tuple{i + 1, s * 2}; },
//       std::tuple{Tensor(0), Tensor(1)});
//   Tensor sum = ember::fori_loop(0, 5, [](const Tensor &i, const Tensor &total) {
//       return total + ember::cast(i, DType::Int32); }, Tensor(0));  // 10 (0+1+2+3+4)
//   std::vector<Tensor> v = ember::while_loop(                       // {16.}
//       [](const std::vector<Tensor> &v) { return v[0] < 10.f; },
//       [](const std::vector<Tensor> &v) { return std::vector<Tensor>{v[0] * 2.f}; },
//       {Tensor(1.f)});
//
// Loop states (and branch results) are a Tensor, a std::tuple or std::pair of
// Tensors (the condition and body take it whole or element by element), or a
// std::vector<Tensor>; a loop returns the type it was given.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_CONTROLFLOW_H
#define EMBER_CONTROLFLOW_H

#include "ember/Frontend/Function.h"
#include "ember/Frontend/Ops.h"

#include <functional>
#include <tuple>
#include <type_traits>
#include <utility>
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

namespace detail {
/// A loop state other than std::vector<Tensor>: a Tensor, or a std::tuple /
/// std::pair of Tensors (what structured bindings take apart).
template <typename S>
struct IsLoopState : std::false_type {};
template <>
struct IsLoopState<Tensor> : std::true_type {};
template <typename... Ts>
struct IsLoopState<std::tuple<Ts...>> : std::true_type {};
template <typename A, typename B>
struct IsLoopState<std::pair<A, B>> : std::true_type {};

/// Calls `fn(lead..., state)`, or, for a tuple or pair state, `fn(lead...,
/// elements...)` when `fn` takes the elements one by one.
template <typename Fn, typename S, typename... Lead>
decltype(auto) callWithState(Fn &fn, const S &state, const Lead &...lead) {
  if constexpr (std::is_invocable_v<Fn &, const Lead &..., const S &>)
    return fn(lead..., state);
  else
    return std::apply([&](const auto &...elements) -> decltype(auto) { return fn(lead..., elements...); },
                      state);
}
} // namespace detail

/// while (condition(vars)) vars = body(vars); returns the final vars. The
/// body keeps every variable's dtype and shape. (A template, so that a
/// Tensor or tuple state never converts the callables for this overload.)
template <typename Condition, typename Body>
std::vector<Tensor> while_loop(Condition &&condition, Body &&body, std::vector<Tensor> vars,
                               SourceLoc loc = SourceLoc::current()) {
  if (detail::isTracing())
    return detail::traceWhile(detail::LoopCondition(condition), detail::LoopBody(body), vars, loc);
  while (bool(Tensor(condition(vars))))
    vars = std::vector<Tensor>(body(vars));
  return vars;
}

/// while_loop on a Tensor or a tuple (pair) of Tensors, as jax.lax.while_loop:
///   auto [i, s] = while_loop([](const auto &v) { return std::get<0>(v) < 10; },
///                            [](const Tensor &i, const Tensor &s) { return std::tuple{i + 1, s * 2}; },
///                            std::tuple{Tensor(0), Tensor(1)});
/// `condition` and `body` take the state (or, for a tuple, its elements one
/// by one); `body` returns the next state; the result is the final state.
template <typename Condition, typename Body, typename State>
  requires detail::IsLoopState<State>::value
State while_loop(Condition &&condition, Body &&body, State vars,
                 SourceLoc loc = SourceLoc::current()) {
  if (!detail::isTracing()) {
    while (bool(Tensor(detail::callWithState(condition, vars))))
      vars = State(detail::callWithState(body, vars));
    return vars;
  }
  return detail::Unflatten<State>::from(detail::traceWhile(
      [&](const std::vector<Tensor> &v) {
        return Tensor(detail::callWithState(condition, detail::Unflatten<State>::from(v)));
      },
      [&](const std::vector<Tensor> &v) {
        return detail::flatten(State(detail::callWithState(body, detail::Unflatten<State>::from(v))));
      },
      detail::flatten(std::move(vars)), loc));
}

/// for (i = lower; i < upper; ++i) vars = body(i, vars), with i a 0-d int64
/// tensor; returns the final vars (jax.lax.fori_loop).
template <typename Body>
std::vector<Tensor> fori_loop(int64_t lower, int64_t upper, Body &&body, std::vector<Tensor> vars,
                              SourceLoc loc = SourceLoc::current()) {
  if (detail::isTracing())
    return detail::traceFor(lower, upper, detail::CountedBody(body), vars, loc);
  for (int64_t i = lower; i < upper; ++i)
    vars = std::vector<Tensor>(body(Tensor(Scalar(i), DType::Int64), vars));
  return vars;
}

/// fori_loop on a Tensor or a tuple (pair) of Tensors: `body(i, state)` (or
/// `body(i, elements...)` for a tuple) returns the next state.
///   auto [a, b] = fori_loop(0, 10, [](const Tensor &, const Tensor &a, const Tensor &b) {
///     return std::tuple{b, a + b}; }, std::tuple{Tensor(0), Tensor(1)}); // Fibonacci
template <typename Body, typename State>
  requires detail::IsLoopState<State>::value
State fori_loop(int64_t lower, int64_t upper, Body &&body, State vars,
                SourceLoc loc = SourceLoc::current()) {
  if (!detail::isTracing()) {
    for (int64_t i = lower; i < upper; ++i)
      vars = State(detail::callWithState(body, vars, Tensor(Scalar(i), DType::Int64)));
    return vars;
  }
  return detail::Unflatten<State>::from(detail::traceFor(
      lower, upper,
      [&](const Tensor &i, const std::vector<Tensor> &v) {
        return detail::flatten(
            State(detail::callWithState(body, detail::Unflatten<State>::from(v), i)));
      },
      detail::flatten(std::move(vars)), loc));
}

} // namespace ember

#endif // EMBER_CONTROLFLOW_H
