//===- Error.h - the exceptions of ember's front end -------------*- C++ -*-===//
//
// User errors surface as exceptions whose message reads like a compiler
// diagnostic: "file:line:col: error: 'ember.matmul' op <what is wrong>". The
// compiler libraries never throw; the front end converts their diagnostics
// after the MLIR frames have returned.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_ERROR_H
#define EMBER_ERROR_H

#include <stdexcept>
#include <string>

namespace ember {

/// Base of every exception ember throws.
class Error : public std::runtime_error {
public:
  using std::runtime_error::runtime_error;
};

/// An op called with operands or attributes it does not accept (shapes,
/// dtypes, axes, indices out of range). The message names the op, the
/// offending shapes or dtypes and the caller's source line.
class OpError : public Error {
public:
  using Error::Error;
};

/// A file that cannot be read or written, or whose contents are malformed
/// (truncated or corrupt .npy files); the message names the file.
class IOError : public Error {
public:
  using Error::Error;
};

} // namespace ember

#endif // EMBER_ERROR_H
