//===- PipelineSteps.h - pass lists as pipeline text ------------*- C++ -*-===//
#ifndef EMBER_LIB_PIPELINES_PIPELINESTEPS_H
#define EMBER_LIB_PIPELINES_PIPELINESTEPS_H

#include <cstddef>
#include <string>

namespace ember {

/// The steps of a pipeline stage, one pass (or nested pass list) each,
/// joined by commas: the contents of a module pass manager.
template <size_t N> std::string joinSteps(const char *const (&steps)[N]) {
  std::string joined;
  for (const char *step : steps)
    joined += (joined.empty() ? "" : ",") + std::string(step);
  return joined;
}

} // namespace ember

#endif // EMBER_LIB_PIPELINES_PIPELINESTEPS_H
