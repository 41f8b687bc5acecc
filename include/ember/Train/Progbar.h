//===- Progbar.h - progress of long work, as Keras's ---------------*- C++ -*-===//
//
// A progress bar per epoch, as Keras's utils.Progbar: on a terminal one line
// redrawn in place (step, bar, ETA, each value's running mean over the
// epoch); elsewhere (a log, a pipe) one plain line when the epoch ends.
//
//   #include <sstream>
//   std::ostringstream log;                      // not a terminal: plain lines
//   ember::utils::Progbar bar(/*target=*/3, log);
//   for (int step = 1; step <= 3; ++step)
//     bar.update(step, {{"loss", 1.0 / step}, {"accuracy", 0.5}});
//   // log: "3/3 - 0s - loss: 0.6111 - accuracy: 0.5000\n"
//   if (log.str().rfind("3/3 - ", 0) != 0) throw ember::Error("no progress line");
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_PROGBAR_H
#define EMBER_PROGBAR_H

#include <chrono>
#include <cstdint>
#include <iosfwd>
#include <set>
#include <string>
#include <utility>
#include <vector>

namespace ember::utils {

class Progbar {
public:
  /// `target`: the number of steps (0 if unknown). Values named in
  /// `stateful_metrics` are shown as given, the others as their mean over
  /// the steps so far. Draws in place when `out` is a terminal's stdout or
  /// stderr, or when `interactive` says so.
  explicit Progbar(int64_t target, std::ostream &out, int width = 30,
                   std::set<std::string> stateful_metrics = {}, int interactive = -1);
  explicit Progbar(int64_t target);

  /// Step `current` (1-based) is done, with these values for it.
  void update(int64_t current, const std::vector<std::pair<std::string, double>> &values = {});
  /// `steps` more steps done.
  void add(int64_t steps, const std::vector<std::pair<std::string, double>> &values = {});

private:
  std::string valuesText() const;

  int64_t target_, seen_ = 0;
  std::ostream &out_;
  int width_;
  std::set<std::string> stateful_;
  bool interactive_;
  std::chrono::steady_clock::time_point start_, lastDraw_;
  // Per value, in the order first seen: (sum of value * steps, steps).
  std::vector<std::pair<std::string, std::pair<double, int64_t>>> values_;
};

} // namespace ember::utils

#endif // EMBER_PROGBAR_H
