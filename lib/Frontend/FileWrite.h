//===- FileWrite.h - files written whole or not at all ---------*- C++ -*-===//
#ifndef EMBER_LIB_FRONTEND_FILEWRITE_H
#define EMBER_LIB_FRONTEND_FILEWRITE_H

#include <functional>
#include <span>
#include <string>
#include <string_view>

namespace ember::detail {

/// Writes `pieces` to `path` whole or not at all: into a new file next to it,
/// synced, then renamed over it, so that a reader (or the name after a
/// crash) sees the old contents or the new, never part of them. On failure
/// the temporary file is removed and `fail` is called with the reason; it
/// must throw.
void writeFileWhole(const std::string &path, std::span<const std::string_view> pieces,
                    const std::function<void(const std::string &)> &fail);

} // namespace ember::detail

#endif // EMBER_LIB_FRONTEND_FILEWRITE_H
