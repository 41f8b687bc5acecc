//===- Plot.h - a line plot of a series, as an SVG picture ---------*- C++ -*-===//
//
// What a training loop shows of its loss history: a line plot with labelled
// axes, written as SVG (a text format every browser and image viewer shows),
// whole or not at all.
//
//   std::vector<double> losses = {2.3, 1.7, 1.2, 0.9, 0.8};
//   std::string svg = ember::plot::line_plot_svg(losses, "Loss per batch", "batch", "loss");
//   if (svg.find("<polyline") == std::string::npos) throw ember::Error("no line");
//   std::vector<double> trend = ember::plot::smoothed(losses, 0.6);  // {2.3, 1.925, 1.555, 1.254, 1.057}
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_PLOT_H
#define EMBER_PLOT_H

#include <string>
#include <vector>

namespace ember::plot {

/// TensorBoard's smoothing of a scalar series: an exponential moving
/// average with weight `smoothing` in [0, 1) (0: the values themselves),
/// debiased so that it starts at the first value rather than at 0.
/// Non-finite values stay as they are and do not enter the average.
std::vector<double> smoothed(const std::vector<double> &values, double smoothing);

/// An SVG picture of `values` against their index: the line, axes with
/// ticks at round numbers, a title and axis labels. Non-finite values are
/// left out of the line. With `smoothing` > 0, as TensorBoard draws a
/// scalar: the values faint, their smoothed() line over them.
std::string line_plot_svg(const std::vector<double> &values, const std::string &title,
                          const std::string &xlabel, const std::string &ylabel,
                          double smoothing = 0, int width = 800, int height = 480);

/// line_plot_svg written to `path` (temporary file, then renamed).
void save_line_plot(const std::string &path, const std::vector<double> &values,
                    const std::string &title, const std::string &xlabel,
                    const std::string &ylabel, double smoothing = 0);

} // namespace ember::plot

#endif // EMBER_PLOT_H
