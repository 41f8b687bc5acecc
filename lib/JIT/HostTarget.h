//===- HostTarget.h - the CPU the JIT compiles for -----------------*- C++ -*-===//
#ifndef EMBER_LIB_JIT_HOSTTARGET_H
#define EMBER_LIB_JIT_HOSTTARGET_H

#include <string>

namespace ember::jit {

/// Initializes LLVM's target for this machine, once: the JIT links code for
/// it (the compiler library initializes every target it generates code for).
void initializeNativeTarget();

/// Why code for the CPU `name` ($EMBER_CPU) cannot be compiled here (not a
/// CPU LLVM knows, or one with features this machine lacks); "" when it can.
const std::string &cpuRefusal(const std::string &name);

} // namespace ember::jit

#endif // EMBER_LIB_JIT_HOSTTARGET_H
