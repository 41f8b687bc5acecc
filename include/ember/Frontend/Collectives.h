//===- Collectives.h - collectives as ops of compiled code ------*- C++ -*-===//
//
// The core's side of collectives across processes: the ember.all_reduce op,
// traced into functions like any other op (so that a training step that
// all-reduces its gradients stays one compiled function), and the engine
// that compiled code calls to run it. Users call ember::distributed (on
// Gloo), which installs the engine while a process group exists and calls
// this op on symbolic tensors; a library with an engine of its own could
// do the same.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_FRONTEND_COLLECTIVES_H
#define EMBER_FRONTEND_COLLECTIVES_H

#include "ember/Frontend/Error.h"
#include "ember/Frontend/Tensor.h"

#include <string>

namespace ember::collectives {

/// The values of the op's `reduction` attribute.
enum class Reduction : int32_t { Sum = 0, Mean = 1, Max = 2, Min = 3 };

/// The ember.all_reduce op on `x` (float32, float64, int32 or int64 on the
/// CPU; Mean: floating point): inside an ember::function it is traced,
/// eagerly it runs as a one-op compiled kernel. Either way the engine runs
/// it when the code runs; a failure there raises
/// ember::distributed::DistributedError at this line.
Tensor all_reduce(const Tensor &x, Reduction reduction, EMBER_LOC);

/// Reduces the `count` elements at `input` over every process into
/// `output` (which may be `input`: in place); returns "" or why it could
/// not. It must not throw.
using AllReduceEngine = std::string (*)(const void *input, void *output, int64_t count, DType dtype,
                                        Reduction reduction);
/// Installs the engine (nullptr: none, and compiled all_reduces fault).
/// Compiled code calls it on its caller's thread, or, with
/// `onCommunicationThread`, on the runtime's communication thread (one
/// call at a time, in the order the all-reduces started) while the caller
/// goes on until it needs the result.
void set_all_reduce_engine(AllReduceEngine engine, bool onCommunicationThread = false);

} // namespace ember::collectives

#endif // EMBER_FRONTEND_COLLECTIVES_H
