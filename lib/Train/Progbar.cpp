//===- Progbar.cpp - progress of long work -----------------------------------===//

#include "ember/Train/Progbar.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <iostream>
#include <unistd.h>

using namespace ember::utils;

static bool isTerminal(std::ostream &out) {
  if (&out == &std::cout)
    return isatty(STDOUT_FILENO);
  if (&out == &std::cerr || &out == &std::clog)
    return isatty(STDERR_FILENO);
  return false;
}

static std::string formatDuration(double seconds) {
  char text[32];
  long s = static_cast<long>(seconds + 0.5);
  if (s >= 3600)
    std::snprintf(text, sizeof text, "%ld:%02ld:%02ld", s / 3600, s / 60 % 60, s % 60);
  else if (s >= 60)
    std::snprintf(text, sizeof text, "%ld:%02ld", s / 60, s % 60);
  else
    std::snprintf(text, sizeof text, "%lds", s);
  return text;
}

Progbar::Progbar(int64_t target, std::ostream &out, int width,
                 std::set<std::string> stateful_metrics, int interactive)
    : target_(target), out_(out), width_(width), stateful_(std::move(stateful_metrics)),
      interactive_(interactive < 0 ? isTerminal(out) : interactive != 0),
      start_(std::chrono::steady_clock::now()) {}

Progbar::Progbar(int64_t target) : Progbar(target, std::cout) {}

void Progbar::add(int64_t steps, const std::vector<std::pair<std::string, double>> &values) {
  update(seen_ + steps, values);
}

void Progbar::update(int64_t current, const std::vector<std::pair<std::string, double>> &values) {
  int64_t steps = std::max<int64_t>(current - seen_, 1);
  for (const auto &[name, value] : values) {
    auto it = std::find_if(values_.begin(), values_.end(),
                           [&](const auto &entry) { return entry.first == name; });
    if (it == values_.end())
      it = values_.insert(values_.end(), {name, {0.0, 0}});
    if (stateful_.count(name))
      it->second = {value, 1};
    else
      it->second = {it->second.first + value * steps, it->second.second + steps};
  }
  seen_ = current;
  auto now = std::chrono::steady_clock::now();
  double elapsed = std::chrono::duration<double>(now - start_).count();
  bool finished = target_ > 0 && current >= target_;
  if (!interactive_) {
    if (finished)
      out_ << current << "/" << target_ << " - " << formatDuration(elapsed) << valuesText()
           << "\n"
           << std::flush;
    return;
  }
  // Redraw at most 20 times a second, and at the end.
  if (!finished && now - lastDraw_ < std::chrono::milliseconds(50))
    return;
  lastDraw_ = now;
  std::string line = "\r";
  if (target_ > 0) {
    std::string count = std::to_string(target_);
    std::string done = std::to_string(current);
    line += std::string(count.size() - std::min(count.size(), done.size()), ' ') + done + "/" +
            count + " [";
    int filled = static_cast<int>(width_ * static_cast<double>(current) / target_);
    filled = std::min(filled, width_);
    line += std::string(std::max(filled - 1, 0), '=');
    if (filled > 0)
      line += finished ? '=' : '>';
    line += std::string(width_ - filled, '.') + "]";
  } else {
    line += std::to_string(current) + "/Unknown";
  }
  if (finished)
    line += " - " + formatDuration(elapsed);
  else if (target_ > 0 && current > 0)
    line += " - ETA: " + formatDuration(elapsed / current * (target_ - current));
  line += valuesText();
  out_ << line << "\033[K" << (finished ? "\n" : "") << std::flush;
}

std::string Progbar::valuesText() const {
  std::string text;
  for (const auto &[name, sum] : values_) {
    char value[64];
    double mean = sum.first / static_cast<double>(std::max<int64_t>(sum.second, 1));
    std::snprintf(value, sizeof value, std::abs(mean) >= 1e-3 || mean == 0 ? "%.4f" : "%.4e",
                  mean);
    text += " - " + name + ": " + value;
  }
  return text;
}
