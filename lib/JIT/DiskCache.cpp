//===- DiskCache.cpp - compiled objects on disk, by what determines them ---===//
//
// A second process compiles nothing it compiled before: objects are kept
// under a hash of everything that determines them (the module, the
// pipeline, the CPU and its features, ember's own build).
//
//===----------------------------------------------------------------------===//

#include "DiskCache.h"

#include "ember/Compiler/Compiler.h"
#include "ember/JIT/ModuleCompiler.h"
#include "ember/Pipelines/Pipelines.h"
#include "EmberBuildId.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/Support/FileSystem.h"
#include "llvm/Support/MemoryBuffer.h"
#include "llvm/Support/xxhash.h"
#include "llvm/TargetParser/Host.h"

#include <cstdlib>
#include <cstring>

std::string ember::jit::diskCacheDirectory() {
  if (const char *dir = std::getenv("EMBER_CACHE_DIR"))
    return dir;
  if (const char *xdg = std::getenv("XDG_CACHE_HOME"); xdg && *xdg)
    return std::string(xdg) + "/ember";
  if (const char *home = std::getenv("HOME"); home && *home)
    return std::string(home) + "/.cache/ember";
  return "";
}

namespace {
// An entry: magic, then the lengths of the key and the object and a hash of
// the object, then the key itself and the object. A reader checks all of
// them, so a truncated, corrupt or colliding entry is never loaded.
constexpr char kCacheMagic[8] = {'E', 'M', 'B', 'R', 'K', 'C', '0', '1'};
struct CacheHeader {
  char magic[8];
  uint64_t keySize;
  uint64_t objectSize;
  uint64_t objectHash;
};
} // namespace

std::string ember::jit::cachePath(const std::string &dir, const std::string &key) {
  return dir + "/" + llvm::utohexstr(llvm::xxh3_64bits(key), /*LowerCase=*/true) + ".o";
}

std::unique_ptr<llvm::MemoryBuffer> ember::jit::readCache(const std::string &path, const std::string &key) {
  auto file = llvm::MemoryBuffer::getFile(path, /*IsText=*/false,
                                          /*RequiresNullTerminator=*/false);
  if (!file)
    return nullptr;
  llvm::StringRef data = (*file)->getBuffer();
  CacheHeader header;
  if (data.size() < sizeof header)
    return nullptr;
  std::memcpy(&header, data.data(), sizeof header);
  if (std::memcmp(header.magic, kCacheMagic, sizeof kCacheMagic) != 0 ||
      header.keySize != key.size() ||
      data.size() != sizeof header + header.keySize + header.objectSize ||
      data.substr(sizeof header, header.keySize) != key)
    return nullptr;
  llvm::StringRef object = data.substr(sizeof header + header.keySize);
  if (llvm::xxh3_64bits(object) != header.objectHash)
    return nullptr;
  return llvm::MemoryBuffer::getMemBufferCopy(object, path);
}

void ember::jit::writeCache(const std::string &dir, const std::string &path, const std::string &key,
                llvm::StringRef object) {
  if (llvm::sys::fs::create_directories(dir))
    return; // caching is best effort
  CacheHeader header;
  std::memcpy(header.magic, kCacheMagic, sizeof kCacheMagic);
  header.keySize = key.size();
  header.objectSize = object.size();
  header.objectHash = llvm::xxh3_64bits(object);
  // Best effort: an entry that cannot be written is left out. Entries check
  // their own size and hash, so they skip the fsync: a torn one after a
  // crash is a miss.
  std::string ignored;
  (void)ember::compiler::writeFileAtomically(
      path, {llvm::StringRef(reinterpret_cast<const char *>(&header), sizeof header), key, object},
      ignored, /*sync=*/false);
}

const std::string &ember::jit::compilerIdentity() {
  static const std::string identity = [] {
    std::string id = std::string("ember ") + EMBER_BUILD_ID + "\nllvm " LLVM_VERSION_STRING "\n";
    id += ember::lowerToLLVMPipelineText() + "\n";
    id += llvm::sys::getHostCPUName().str() + "\n";
    for (auto &feature : llvm::sys::getHostCPUFeatures())
      if (feature.second)
        id += feature.first().str() + ",";
    return id;
  }();
  return identity;
}

/// malloc for compiled code, from the same cache as its aligned_alloc, so
