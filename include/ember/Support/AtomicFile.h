//===- AtomicFile.h - files written whole or not at all ---------*- C++ -*-===//
//
// Part of ember's Support layer: the vocabulary under every other library
// (no LLVM, no exceptions, nothing else of ember).
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_SUPPORT_ATOMICFILE_H
#define EMBER_SUPPORT_ATOMICFILE_H

#include <span>
#include <string>
#include <string_view>

namespace ember::support {

/// Writes `pieces` to `path` whole or not at all: into a new file next to it
/// (a unique name, so concurrent writers do not meet), synced, then renamed
/// over it, so that a reader (or the name after a crash) sees the old
/// contents or the new, never part of them. Returns "" on success, else the
/// reason, the temporary file removed. `sync` = false skips the fsync (about
/// 0.3 ms here, far more on slow disks) for files that check themselves, such
/// as the JIT's cache entries: after a crash such a file may be torn, which
/// its reader detects.
std::string writeFileWhole(const std::string &path, std::span<const std::string_view> pieces,
                           bool sync = true);

/// The two halves of writeFileWhole, for a writer that puts several files in
/// place together (all or none): writeBeside writes `pieces` to a new file
/// with a unique name beside `path`, synced unless `sync` is false, and sets
/// `temporary` to its name (empty pieces leave it empty, for a tool such as a
/// linker to fill). Returns "" or the reason, nothing left behind.
std::string writeBeside(const std::string &path, std::span<const std::string_view> pieces,
                        std::string &temporary, bool sync = true);
/// Renames `temporary` over `path`; on failure removes `temporary` and
/// returns the reason.
std::string commitBeside(const std::string &temporary, const std::string &path);

} // namespace ember::support

#endif // EMBER_SUPPORT_ATOMICFILE_H
