//===- Threads.h - how many threads compiled code uses -----------*- C++ -*-===//
//
// Loops of compiled code (eager ops and traced functions) with enough work
// run on a team of threads, like LibTorch's intra-op parallelism: an
// elementwise op or a reduction over rows splits its rows, a large matmul
// its panels of columns. Small work (a 10x10 add) stays on the calling
// thread, whatever the setting. The team comes from LLVM's OpenMP runtime;
// the count is read when the code runs, so a change applies at once,
// without recompiling anything.
//
//   int all = ember::get_num_threads();  // default: EMBER_NUM_THREADS, else
//                                        // every CPU the process may run on
//   ember::set_num_threads(1);           // one thread: the calling one
//   ember::Tensor y = ember::ones({1024, 1024}) + 1.f;
//   ember::set_num_threads(0);           // back to the default
//   if (ember::get_num_threads() != all) throw ember::Error("not restored");
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_THREADS_H
#define EMBER_THREADS_H

namespace ember {

/// Runs compiled code's parallel loops on `n` threads (the calling one
/// included) from now on, in every thread of the process; 0 restores the
/// default (TensorFlow's convention). Throws ember::Error if n < 0.
void set_num_threads(int n);

/// The number of threads parallel loops run on now.
int get_num_threads();

} // namespace ember

#endif // EMBER_THREADS_H
