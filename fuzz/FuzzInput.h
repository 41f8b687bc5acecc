//===- FuzzInput.h - a fuzzer's input as a file --------------------*- C++ -*-===//
//
// ember's readers take paths, as users call them: each input is written to
// one file per process (in the temporary folder) and read from there.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_FUZZ_FUZZINPUT_H
#define EMBER_FUZZ_FUZZINPUT_H

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <string>
#include <unistd.h>

namespace fuzz {

/// Removes the input file when the process exits.
struct RemoveAtExit {
  std::string path;
  ~RemoveAtExit() { std::filesystem::remove(path); }
};

/// Writes `data` to this process's input file named with `suffix`; returns
/// its path.
inline std::string inputFile(const uint8_t *data, size_t size, const char *suffix) {
  static const RemoveAtExit file{(std::filesystem::temp_directory_path() /
                                  ("ember-fuzz-" + std::to_string(getpid()) + suffix))
                                     .string()};
  const std::string &path = file.path;
  std::FILE *out = std::fopen(path.c_str(), "wb");
  if (!out || (size && std::fwrite(data, 1, size, out) != size) || std::fclose(out) != 0) {
    std::perror(path.c_str());
    std::abort();
  }
  return path;
}

} // namespace fuzz

#endif // EMBER_FUZZ_FUZZINPUT_H
