//===- Plot.h - a line plot of a series, as an SVG picture ---------*- C++ -*-===//
//
// What a training loop shows of its loss history: a line plot with labelled
// axes, written as SVG (a text format every browser and image viewer shows),
// whole or not at all.
//
//   std::vector<double> losses = {2.3, 1.7, 1.2, 0.9, 0.8};
//   std::string svg = ember::plot::line_plot_svg(losses, "Loss per batch", "batch", "loss");
//   if (svg.find("<polyline") == std::string::npos) throw ember::Error("no line");
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_PLOT_H
#define EMBER_PLOT_H

#include <string>
#include <vector>

namespace ember::plot {

/// An SVG picture of `values` against their index: the line, axes with
/// ticks at round numbers, a title and axis labels. Non-finite values are
/// left out of the line.
std::string line_plot_svg(const std::vector<double> &values, const std::string &title,
                          const std::string &xlabel, const std::string &ylabel,
                          int width = 800, int height = 480);

/// line_plot_svg written to `path` (temporary file, then renamed).
void save_line_plot(const std::string &path, const std::vector<double> &values,
                    const std::string &title, const std::string &xlabel,
                    const std::string &ylabel);

} // namespace ember::plot

#endif // EMBER_PLOT_H
