//===- DiskCache.h - compiled objects on disk ---------------------*- C++ -*-===//
#ifndef EMBER_LIB_JIT_DISKCACHE_H
#define EMBER_LIB_JIT_DISKCACHE_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Support/MemoryBuffer.h"

#include <memory>
#include <string>

namespace ember::jit {

/// Everything that determines an object besides its module: ember's build,
/// the pipeline, the CPU and its features.
const std::string &compilerIdentity();

/// Where the entry for `key` lives in `dir`.
std::string cachePath(const std::string &dir, const std::string &key);

/// The cached object for `key` at `path`, or null if absent or invalid
/// (truncated, corrupt, or another key's).
std::unique_ptr<llvm::MemoryBuffer> readCache(const std::string &path, const std::string &key);

/// Stores `object` for `key` at `path` (in `dir`), best effort.
void writeCache(const std::string &dir, const std::string &path, const std::string &key,
                llvm::StringRef object);

} // namespace ember::jit

#endif // EMBER_LIB_JIT_DISKCACHE_H
