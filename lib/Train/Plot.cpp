//===- Plot.cpp - a line plot as SVG ------------------------------------------===//

#include "ember/Train/Plot.h"

#include "ember/Frontend/Error.h"

#include "ember/Support/AtomicFile.h"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <limits>

using namespace ember;

/// Round tick positions covering [low, high]: steps of 1, 2 or 5 times a
/// power of ten, about `count` of them.
static std::vector<double> ticks(double low, double high, int count) {
  double span = high - low;
  double raw = span / count;
  double magnitude = std::pow(10, std::floor(std::log10(raw)));
  double step = magnitude;
  for (double m : {2.0, 5.0, 10.0})
    if (raw > step)
      step = m * magnitude;
  std::vector<double> out;
  for (double t = std::ceil(low / step) * step; t <= high + step * 1e-9; t += step)
    out.push_back(std::abs(t) < step * 1e-9 ? 0 : t);
  return out;
}

static std::string number(double v) {
  char text[32];
  std::snprintf(text, sizeof text, "%g", v);
  return text;
}

static std::string escaped(const std::string &text) {
  std::string out;
  for (char c : text) {
    switch (c) {
    case '<': out += "&lt;"; break;
    case '>': out += "&gt;"; break;
    case '&': out += "&amp;"; break;
    case '"': out += "&quot;"; break;
    default: out += c;
    }
  }
  return out;
}

std::vector<double> plot::smoothed(const std::vector<double> &values, double smoothing) {
  if (!(smoothing >= 0 && smoothing < 1))
    throw Error("plot::smoothed: the smoothing weight must be in [0, 1), got " +
                std::to_string(smoothing));
  std::vector<double> out;
  double average = 0, weightOfZero = 1; // weightOfZero: smoothing^(finite values seen)
  for (double v : values) {
    if (!std::isfinite(v)) {
      out.push_back(v);
      continue;
    }
    average = average * smoothing + (1 - smoothing) * v;
    weightOfZero *= smoothing;
    out.push_back(average / (1 - weightOfZero));
  }
  return out;
}

std::string plot::line_plot_svg(const std::vector<double> &values, const std::string &title,
                                const std::string &xlabel, const std::string &ylabel,
                                double smoothing, int width, int height) {
  double low = std::numeric_limits<double>::infinity(), high = -low;
  for (double v : values)
    if (std::isfinite(v)) {
      low = std::min(low, v);
      high = std::max(high, v);
    }
  if (!(low <= high)) // nothing finite to draw
    low = 0, high = 1;
  if (high - low < 1e-12 * std::max(1.0, std::abs(high)))
    low -= 0.5, high += 0.5;
  double xHigh = std::max<double>(values.size() > 1 ? values.size() - 1 : 1, 1);
  const double left = 70, right = 20, top = 40, bottom = 55;
  double plotW = width - left - right, plotH = height - top - bottom;
  auto px = [&](double x) { return left + x / xHigh * plotW; };
  auto py = [&](double y) { return top + (high - y) / (high - low) * plotH; };

  std::string svg = "<svg xmlns=\"http://www.w3.org/2000/svg\" width=\"" + std::to_string(width) +
                    "\" height=\"" + std::to_string(height) +
                    "\" font-family=\"sans-serif\" font-size=\"12\">\n";
  svg += "<rect width=\"100%\" height=\"100%\" fill=\"white\"/>\n";
  svg += "<text x=\"" + number(width / 2.0) + "\" y=\"24\" text-anchor=\"middle\" font-size=\"16\">" +
         escaped(title) + "</text>\n";
  for (double t : ticks(low, high, 6)) {
    std::string y = number(py(t));
    svg += "<line x1=\"" + number(left) + "\" x2=\"" + number(left + plotW) + "\" y1=\"" + y +
           "\" y2=\"" + y + "\" stroke=\"#e0e0e0\"/>\n";
    svg += "<text x=\"" + number(left - 6) + "\" y=\"" + y +
           "\" text-anchor=\"end\" dominant-baseline=\"middle\">" + number(t) + "</text>\n";
  }
  for (double t : ticks(0, xHigh, 8)) {
    std::string x = number(px(t));
    svg += "<line x1=\"" + x + "\" x2=\"" + x + "\" y1=\"" + number(top + plotH) + "\" y2=\"" +
           number(top + plotH + 5) + "\" stroke=\"black\"/>\n";
    svg += "<text x=\"" + x + "\" y=\"" + number(top + plotH + 18) +
           "\" text-anchor=\"middle\">" + number(t) + "</text>\n";
  }
  svg += "<rect x=\"" + number(left) + "\" y=\"" + number(top) + "\" width=\"" + number(plotW) +
         "\" height=\"" + number(plotH) + "\" fill=\"none\" stroke=\"black\"/>\n";
  svg += "<text x=\"" + number(left + plotW / 2) + "\" y=\"" + number(height - 12.0) +
         "\" text-anchor=\"middle\">" + escaped(xlabel) + "</text>\n";
  svg += "<text transform=\"translate(18 " + number(top + plotH / 2) +
         ") rotate(-90)\" text-anchor=\"middle\">" + escaped(ylabel) + "</text>\n";
  // One polyline per run of finite values.
  auto line = [&](const std::vector<double> &series, const std::string &style) {
    std::string points;
    auto flush = [&] {
      if (!points.empty())
        svg += "<polyline fill=\"none\" " + style + " points=\"" + points + "\"/>\n";
      points.clear();
    };
    for (size_t i = 0; i < series.size(); ++i) {
      if (!std::isfinite(series[i])) {
        flush();
        continue;
      }
      points += (points.empty() ? "" : " ") + number(px(static_cast<double>(i))) + "," +
                number(py(series[i]));
    }
    flush();
  };
  if (smoothing == 0) {
    line(values, "stroke=\"#1f77b4\" stroke-width=\"1.5\"");
  } else {
    line(values, "stroke=\"#1f77b4\" stroke-opacity=\"0.3\" stroke-width=\"1\"");
    line(smoothed(values, smoothing), "stroke=\"#1f77b4\" stroke-width=\"2\"");
  }
  return svg + "</svg>\n";
}

void plot::save_line_plot(const std::string &path, const std::vector<double> &values,
                          const std::string &title, const std::string &xlabel,
                          const std::string &ylabel, double smoothing) {
  std::string svg = line_plot_svg(values, title, xlabel, ylabel, smoothing);
  std::string_view pieces[] = {svg};
  if (std::string why = support::writeFileWhole(path, pieces); !why.empty())
    throw IOError("cannot write plot '" + path + "': " + why);
}
