//===- CallSite.h - the user's line for what ember runs on their behalf -*- C++ -*-===//
//
// Where the core reads the UserCallSite (ember/Frontend/UserCallSite.h): the
// location an op, a constant or an error names.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_LIB_FRONTEND_CALLSITE_H
#define EMBER_LIB_FRONTEND_CALLSITE_H

#include "ember/Frontend/UserCallSite.h"
#include "ember/JIT/KernelCompiler.h"

namespace ember::detail {

/// `loc`, or the user's call site when `loc` lies in ember's own sources
/// (lib/, include/ember/) and the user called in.
const SourceLoc &forUser(const SourceLoc &loc);
/// forUser(loc) as the compiler's location.
trace::SourceLocation jitLocationOf(const SourceLoc &loc);

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_CALLSITE_H
