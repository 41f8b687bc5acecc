//===- ErrorTestUtil.h - checking ember's error messages --------*- C++ -*-===//
#ifndef EMBER_UNITTESTS_FRONTEND_ERRORTESTUTIL_H
#define EMBER_UNITTESTS_FRONTEND_ERRORTESTUTIL_H

#include "ember/Frontend/Error.h"

#include <gtest/gtest.h>

#include <string>

namespace ember::test {

/// Runs `call`, expects an ember::Error (OpError and the others; or the
/// kind `E` asked for: `errorOf<OpError>(...)`), returns its message.
template <typename E = Error, typename F> std::string errorOf(F &&call) {
  try {
    call();
  } catch (const E &e) {
    return e.what();
  }
  ADD_FAILURE() << "expected an ember::Error of the kind asked for";
  return "";
}

/// "<file>:<line>:", how messages name the user's line.
inline std::string fileLine(const char *file, int line) {
  std::string path(file);
  return path.substr(path.find_last_of('/') + 1) + ":" + std::to_string(line) + ":";
}

inline void expectContains(const std::string &message, const std::string &piece) {
  EXPECT_NE(message.find(piece), std::string::npos) << "'" << piece << "' not in: " << message;
}

} // namespace ember::test

#endif // EMBER_UNITTESTS_FRONTEND_ERRORTESTUTIL_H
