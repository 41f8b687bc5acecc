//===- Summary.h - TensorBoard event files, as tf.summary --------*- C++ -*-===//
//
// A SummaryWriter appends scalars and histograms to an event file that
// TensorBoard reads (`tensorboard --logdir logs`): TFRecord-framed Event
// protocol buffers, as tf.summary.create_file_writer writes them. Writes are
// queued and appended as whole records at max_queue events, after
// flush_millis (checked at each write, as TensorFlow does; there is no
// background thread), at flush() and at close(). A writer is thread-safe.
//
//   auto writer = ember::summary::create_file_writer("logs/train");
//   {
//     auto scope = writer.as_default();  // this thread's default writer
//     for (int64_t step = 0; step < 3; ++step)
//       ember::summary::scalar("loss", 1.0 / (step + 1), step);
//   }
//   writer.histogram("weights", ember::Tensor({0.5f, -1.f, 2.f}), /*step=*/2);
//   writer.close();  // dropping the last handle closes it too
//   if (ember::summary::scalar("loss", 0.1, 3)) // no default writer now
//     throw ember::Error("written without a writer");
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_SUMMARY_H
#define EMBER_SUMMARY_H

#include "ember/Frontend/Tensor.h"

#include <cstdint>
#include <memory>
#include <string>

namespace ember {
namespace detail {
class SummaryWriterState;
} // namespace detail

namespace summary {

class SummaryWriter;

/// While it lives, its writer is the calling thread's default writer (the
/// one the free functions below write to); it restores the previous one.
class [[nodiscard]] DefaultWriterScope {
public:
  explicit DefaultWriterScope(const SummaryWriter &writer);
  ~DefaultWriterScope();
  DefaultWriterScope(const DefaultWriterScope &) = delete;
  DefaultWriterScope &operator=(const DefaultWriterScope &) = delete;

private:
  std::shared_ptr<detail::SummaryWriterState> previous_;
};

/// A handle to an open event file; copies share it. The file is flushed and
/// closed by close() or when the last handle goes.
class SummaryWriter {
public:
  /// A handle to no writer (`defined()` is false).
  SummaryWriter() = default;

  /// Writes `value` as the float simple_value of `tag` (the TF1 and
  /// PyTorch form, which TensorBoard's scalar dashboard reads).
  void scalar(const std::string &tag, double value, int64_t step);
  /// The same for a 0-d tensor of any numeric dtype.
  void scalar(const std::string &tag, const Tensor &value, int64_t step);
  /// A HistogramProto of `values` (any shape and numeric dtype): min, max,
  /// count, sum, sum of squares, and `buckets` buckets of equal width over
  /// [min, max] (tf.summary.histogram's default of 30). Values that are all
  /// equal make one bucket; an empty tensor none. NaN and infinities are an
  /// error, as in TensorFlow.
  void histogram(const std::string &tag, const Tensor &values, int64_t step, int buckets = 30);

  /// Appends the queued events to the file and syncs it. A failed append
  /// (a full disk) is an ember::IOError naming the file; the file is cut
  /// back to whole records and the queued events are dropped, as
  /// TensorFlow drops them. Any write may flush, and so fail the same way.
  void flush();
  /// Flushes and closes the file; later writes are an error. Closing twice
  /// does nothing.
  void close();

  /// Makes this the calling thread's default writer for the scope's life.
  DefaultWriterScope as_default() const { return DefaultWriterScope(*this); }
  /// Makes this the calling thread's default writer until changed.
  void set_as_default() const;

  bool defined() const { return state_ != nullptr; }
  /// The event file's path.
  const std::string &path() const;

  /// Internal: the shared state.
  explicit SummaryWriter(std::shared_ptr<detail::SummaryWriterState> state)
      : state_(std::move(state)) {}
  const std::shared_ptr<detail::SummaryWriterState> &state() const { return state_; }

private:
  detail::SummaryWriterState &checked() const;

  std::shared_ptr<detail::SummaryWriterState> state_;
};

/// Creates `logdir` (and its parents) and a new event file in it, named as
/// TensorFlow names them: events.out.tfevents.<seconds>.<host>.<pid>.<n>
/// followed by `filename_suffix`. Its first event holds the file version
/// "brain.Event:2". Throws ember::IOError naming the path on failure.
SummaryWriter create_file_writer(const std::string &logdir, int max_queue = 10,
                                 int64_t flush_millis = 120000,
                                 const std::string &filename_suffix = "");

/// Write to the calling thread's default writer. With none they write
/// nothing and return false (as TensorFlow); else they return true.
bool scalar(const std::string &tag, double value, int64_t step);
bool scalar(const std::string &tag, const Tensor &value, int64_t step);
bool histogram(const std::string &tag, const Tensor &values, int64_t step, int buckets = 30);
/// Flushes the default writer, if there is one.
bool flush();

} // namespace summary
} // namespace ember

#endif // EMBER_SUMMARY_H
