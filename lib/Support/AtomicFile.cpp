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

std::string ember::support::writeFileWhole(const std::string &path,
                                           std::span<const std::string_view> pieces, bool sync) {
  std::string tempPath;
  int fd = createTemp(path, tempPath);
  if (fd < 0)
    return std::string("cannot create a temporary file: ") + std::strerror(errno);
  // fsync before rename: after a crash the name points at old or new data,
  // never at a partly written file.
  bool ok = true;
  for (std::string_view piece : pieces)
    ok = ok && writeAll(fd, reinterpret_cast<const unsigned char *>(piece.data()), piece.size());
  ok = ok && (!sync || ::fsync(fd) == 0);
  int savedErrno = errno;
  if (::close(fd) != 0 && ok) {
    ok = false;
    savedErrno = errno;
  }
  if (ok && std::rename(tempPath.c_str(), path.c_str()) != 0) {
    ok = false;
    savedErrno = errno;
  }
  if (!ok) {
    ::unlink(tempPath.c_str());
    return std::strerror(savedErrno);
  }
  return "";
}
