//===- CallSite.h - the user's line for what ember runs on their behalf -*- C++ -*-===//
//
// Ember's own library code (a layer's call, an activation, softmax's
// stabilizing stop_gradient) runs ops whose source locations would name
// ember's sources. While the user's call into such code runs, the ops,
// constants and errors it makes name the user's line instead: in error
// messages and in traced and exported IR alike.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_FRONTEND_CALLSITE_H
#define EMBER_LIB_FRONTEND_CALLSITE_H

#include "ember/Frontend/Ops.h"
#include "ember/JIT/KernelCompiler.h"

namespace ember::detail {

/// Marks where the user called into ember's library code, for its lifetime;
/// the outermost mark on the thread counts (a model's call, not its
/// sub-layers').
class UserCallSite {
public:
  explicit UserCallSite(const SourceLoc &loc);
  ~UserCallSite();
  UserCallSite(const UserCallSite &) = delete;
  UserCallSite &operator=(const UserCallSite &) = delete;
  /// The outermost mark on this thread, or null.
  static const SourceLoc *current();

private:
  bool outermost_;
};

/// `loc`, or the user's call site when `loc` lies in ember's own sources
/// (lib/, include/ember/) and the user called in.
const SourceLoc &forUser(const SourceLoc &loc);
/// forUser(loc) as the compiler's location.
jit::SourceLocation jitLocationOf(const SourceLoc &loc);

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_CALLSITE_H
