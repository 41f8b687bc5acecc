//===- AtomicFile.cpp - files written whole or not at all ----------------===//

#include "ember/Support/AtomicFile.h"

#include <atomic>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>

#include <fcntl.h>
#include <unistd.h>

namespace {

/// Writes all of [data, data+size) to fd, or returns false with errno set.
bool writeAll(int fd, const unsigned char *data, size_t size) {
  while (size > 0) {
    ssize_t n = ::write(fd, data, size);
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    data += n;
    size -= static_cast<size_t>(n);
  }
  return true;
}

/// Opens a new file next to `path`; O_EXCL makes concurrent writers pick
/// distinct names, and mode 0666 lets the umask apply as for any new file.
int createTemp(const std::string &path, std::string &tempPath) {
  static std::atomic<uint64_t> counter{0};
  for (int attempt = 0; attempt < 100; ++attempt) {
    uint64_t stamp = static_cast<uint64_t>(
        std::chrono::steady_clock::now().time_since_epoch().count());
    tempPath = path + ".tmp." + std::to_string(::getpid()) + "." +
               std::to_string(counter.fetch_add(1)) + "." + std::to_string(stamp % 1000000);
    int fd = ::open(tempPath.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0666);
    if (fd >= 0 || errno != EEXIST)
      return fd;
  }
  errno = EEXIST;
  return -1;
}

} // namespace

std::string ember::support::writeBeside(const std::string &path,
                                        std::span<const std::string_view> pieces,
                                        std::string &temporary, bool sync) {
  int fd = createTemp(path, temporary);
  if (fd < 0) {
    temporary.clear();
    return std::string("cannot create a temporary file: ") + std::strerror(errno);
  }
  // fsync before the rename: after a crash the name points at old or new
  // data, never at a partly written file.
  bool ok = true;
  for (std::string_view piece : pieces)
    ok = ok && writeAll(fd, reinterpret_cast<const unsigned char *>(piece.data()), piece.size());
  ok = ok && (!sync || ::fsync(fd) == 0);
  int savedErrno = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    savedErrno = errno;
  }
  if (!ok) {
    ::unlink(temporary.c_str());
    temporary.clear();
    return std::strerror(savedErrno);
  }
  return "";
}

std::string ember::support::commitBeside(const std::string &temporary, const std::string &path) {
  if (std::rename(temporary.c_str(), path.c_str()) == 0)
    return "";
  int savedErrno = errno;
  ::unlink(temporary.c_str());
  return std::strerror(savedErrno);
}

std::string ember::support::writeFileWhole(const std::string &path,
                                           std::span<const std::string_view> pieces, bool sync) {
  std::string temporary;
  if (std::string why = writeBeside(path, pieces, temporary, sync); !why.empty())
    return why;
  return commitBeside(temporary, path);
}
