//===- UserCallSite.h - the user's line for library code's ops --*- C++ -*-===//
//
// ember's libraries on the core (a layer's call, a loss, an activation) run
// ops whose source locations would name ember's sources. A UserCallSite
// marks where the user called in: while it lives, the ops, constants and
// errors made by code in ember's sources (lib/, include/ember/) name the
// user's line instead, in error messages and in traced and exported IR alike.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_FRONTEND_USERCALLSITE_H
#define EMBER_FRONTEND_USERCALLSITE_H

#include "ember/Frontend/Error.h"

namespace ember {

/// Marks where the user called into ember's library code, for its lifetime;
/// the outermost mark on the thread counts (a model's call, not its
/// sub-layers'). `loc` must outlive the mark (a function's EMBER_LOC does).
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

} // namespace ember

#endif // EMBER_FRONTEND_USERCALLSITE_H
