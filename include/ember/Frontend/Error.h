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

#include <source_location>
#include <stdexcept>
#include <string>
#include <string_view>

namespace ember {

/// Where an op was called: its functions take `EMBER_LOC` last, so that the
/// caller's line is the default.
using SourceLoc = std::source_location;
#define EMBER_LOC SourceLoc loc = SourceLoc::current()

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

namespace distributed {
/// A collective across processes that cannot complete (a rank lost, a
/// timeout, ranks that disagree on shapes), a rendezvous that fails, or a
/// collective called without a process group (see ember/Distributed).
class DistributedError : public Error {
public:
  using Error::Error;
};
} // namespace distributed

/// "file:line:column: error: ", where ember's errors start: `loc`, or the
/// user's line while a UserCallSite marks one and `loc` is ember's own.
std::string error_at(const SourceLoc &loc);

/// Throws OpError(error_at(loc) + "'<op>' op " + message): how library code
/// built on the core (layers, losses, optimizers) reports bad operands, in
/// the words of the core's own ops.
[[noreturn]] void throw_op_error(std::string_view op, const std::string &message,
                                 const SourceLoc &loc);

} // namespace ember

#endif // EMBER_ERROR_H
