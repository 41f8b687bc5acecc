//===- CallSite.cpp - the user's line for what ember runs on their behalf --===//

#include "CallSite.h"

#include <string_view>

using namespace ember;
using namespace ember::detail;

namespace {
thread_local const SourceLoc *outermostCall = nullptr;

/// Where ember's sources are, as the compiler spelt this file's path (the
/// same spelling as every other file of the build: absolute, or relative
/// when ccache rewrites paths).
std::string_view sourceRoot() {
  constexpr std::string_view self = __FILE__;
  constexpr std::string_view tail = "lib/Frontend/CallSite.cpp";
  static_assert(self.ends_with(tail), "CallSite.cpp moved: update its path here");
  return self.substr(0, self.size() - tail.size());
}

bool inEmbersSources(std::string_view file) {
  std::string_view root = sourceRoot();
  if (!file.starts_with(root))
    return false;
  file.remove_prefix(root.size());
  return file.starts_with("lib/") || file.starts_with("include/ember/");
}
} // namespace

ember::UserCallSite::UserCallSite(const SourceLoc &loc) : outermost_(outermostCall == nullptr) {
  if (outermost_)
    outermostCall = &loc;
}

ember::UserCallSite::~UserCallSite() {
  if (outermost_)
    outermostCall = nullptr;
}

const SourceLoc *ember::UserCallSite::current() { return outermostCall; }

const SourceLoc &ember::detail::forUser(const SourceLoc &loc) {
  return outermostCall && inEmbersSources(loc.file_name()) ? *outermostCall : loc;
}

trace::SourceLocation ember::detail::jitLocationOf(const SourceLoc &loc) {
  const SourceLoc &where = forUser(loc);
  return {where.file_name(), where.line(), where.column()};
}
