//===- Executable.h - linking an object file into this process ----*- C++ -*-===//
#ifndef EMBER_LIB_JIT_EXECUTABLE_H
#define EMBER_LIB_JIT_EXECUTABLE_H

#include "ember/JIT/ModuleCompiler.h"

#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace ember::jit {

/// A JIT holding `object`, with ember's runtime functions and the process's
/// symbols (libm) available to it; null with `error` filled on failure.
std::unique_ptr<Executable> link(std::unique_ptr<llvm::MemoryBuffer> object, std::string &error);

} // namespace ember::jit

#endif // EMBER_LIB_JIT_EXECUTABLE_H
