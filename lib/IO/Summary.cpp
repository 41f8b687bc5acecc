//===- Summary.cpp - TensorBoard event files ------------------------------===//
//
// Events are encoded by hand in the protobuf wire format (the few fields of
// tensorflow/core/util/event.proto and framework/summary.proto we write), so
// ember needs no protobuf library. Fields hold proto3's encoding: zeros are
// left out, except a oneof member, which is written whatever its value.
//
//===----------------------------------------------------------------------===//

#include "ember/IO/Summary.h"

#include "TFRecord.h"

#include "ember/Frontend/Error.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cerrno>
#include <chrono>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <ctime>
#include <filesystem>
#include <mutex>
#include <string_view>
#include <vector>

#include <fcntl.h>
#include <unistd.h>

namespace ember::detail {
namespace {

//===----------------------------------------------------------------------===//
// Protobuf wire format
//===----------------------------------------------------------------------===//

enum WireType { kVarint = 0, kFixed64 = 1, kLengthDelimited = 2, kFixed32 = 5 };

class ProtoWriter {
public:
  void int64Field(int field, int64_t value) {
    key(field, kVarint);
    varint(static_cast<uint64_t>(value)); // negatives take ten bytes, as protobuf's
  }
  void doubleField(int field, double value) {
    key(field, kFixed64);
    fixed(std::bit_cast<uint64_t>(value), 8);
  }
  void floatField(int field, float value) {
    key(field, kFixed32);
    fixed(std::bit_cast<uint32_t>(value), 4);
  }
  void bytesField(int field, std::string_view bytes) {
    key(field, kLengthDelimited);
    varint(bytes.size());
    out_ += bytes;
  }
  void packedDoubles(int field, const std::vector<double> &values) {
    if (values.empty())
      return;
    key(field, kLengthDelimited);
    varint(values.size() * 8);
    for (double v : values)
      fixed(std::bit_cast<uint64_t>(v), 8);
  }
  // proto3 leaves out singular fields at their default; these do the same.
  void int64IfSet(int field, int64_t value) {
    if (value != 0)
      int64Field(field, value);
  }
  void doubleIfSet(int field, double value) {
    if (std::bit_cast<uint64_t>(value) != 0)
      doubleField(field, value);
  }

  std::string take() { return std::move(out_); }

private:
  void key(int field, WireType type) { varint(static_cast<uint64_t>(field) << 3 | type); }
  void varint(uint64_t value) {
    for (; value >= 0x80; value >>= 7)
      out_.push_back(static_cast<char>(value | 0x80));
    out_.push_back(static_cast<char>(value));
  }
  void fixed(uint64_t bits, int bytes) {
    for (int i = 0; i < bytes; ++i)
      out_.push_back(static_cast<char>(bits >> (8 * i)));
  }

  std::string out_;
};

// Field numbers of event.proto and summary.proto.
namespace EventField {
constexpr int kWallTime = 1, kStep = 2, kFileVersion = 3, kSummary = 5;
}
namespace SummaryField {
constexpr int kValue = 1;
}
namespace ValueField {
constexpr int kTag = 1, kSimpleValue = 2, kHisto = 5;
}
namespace HistogramField {
constexpr int kMin = 1, kMax = 2, kNum = 3, kSum = 4, kSumSquares = 5, kBucketLimit = 6,
              kBucket = 7;
}

double wallTime() {
  return std::chrono::duration<double>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

/// An Event holding `what` (already encoded) in the oneof field `whatField`.
std::string encodeEvent(int64_t step, int whatField, std::string_view what) {
  ProtoWriter event;
  event.doubleField(EventField::kWallTime, wallTime());
  event.int64IfSet(EventField::kStep, step);
  event.bytesField(whatField, what);
  return event.take();
}

/// An Event whose Summary holds the one Summary.Value `value`.
std::string encodeSummaryEvent(int64_t step, std::string_view value) {
  ProtoWriter summary;
  summary.bytesField(SummaryField::kValue, value);
  return encodeEvent(step, EventField::kSummary, summary.take());
}

std::string encodeHistogram(const std::string &tag, const std::vector<double> &values,
                            int buckets) {
  double min = 0, max = 0, sum = 0, sumSquares = 0;
  if (!values.empty())
    min = max = values[0];
  for (double v : values) {
    if (!std::isfinite(v))
      throw Error("summary.histogram '" + tag + "': the values hold NaN or infinity");
    min = std::min(min, v);
    max = std::max(max, v);
    sum += v;
    sumSquares += v * v;
  }
  // Bucket i holds [limits[i-1], limits[i]) (the last one closed), with
  // min as the left edge of the first, which is how TensorBoard reads them.
  // Half widths: max - min can overflow a double, max / 2 - min / 2 cannot.
  double halfWidth = (max / 2 - min / 2) / buckets;
  std::vector<double> limits, counts;
  if (!values.empty() && halfWidth == 0) { // all equal, or too close to split
    limits = {max};
    counts = {static_cast<double>(values.size())};
  } else if (!values.empty()) {
    limits.resize(buckets);
    counts.assign(buckets, 0.0);
    for (int i = 0; i < buckets; ++i)
      limits[i] = min + halfWidth * (i + 1) * 2;
    limits.back() = max;
    for (double v : values) {
      double index = std::floor((v / 2 - min / 2) / halfWidth);
      counts[static_cast<size_t>(std::clamp(index, 0.0, buckets - 1.0))] += 1;
    }
  }
  ProtoWriter histo;
  histo.doubleIfSet(HistogramField::kMin, min);
  histo.doubleIfSet(HistogramField::kMax, max);
  histo.doubleIfSet(HistogramField::kNum, static_cast<double>(values.size()));
  histo.doubleIfSet(HistogramField::kSum, sum);
  histo.doubleIfSet(HistogramField::kSumSquares, sumSquares);
  histo.packedDoubles(HistogramField::kBucketLimit, limits);
  histo.packedDoubles(HistogramField::kBucket, counts);

  ProtoWriter value;
  value.bytesField(ValueField::kTag, tag);
  value.bytesField(ValueField::kHisto, histo.take());
  return value.take();
}

std::string inQuotes(const std::string &path) { return "'" + path + "'"; }

[[noreturn]] void failWrite(const std::string &path, const std::string &what) {
  throw IOError("cannot write event file " + inQuotes(path) + ": " + what);
}

/// Writes all of `data` at the end of fd, or returns false with errno set.
bool writeAll(int fd, std::string_view data) {
  while (!data.empty()) {
    ssize_t n = ::write(fd, data.data(), data.size());
    if (n < 0) {
      if (errno == EINTR)
        continue;
      return false;
    }
    data.remove_prefix(static_cast<size_t>(n));
  }
  return true;
}

} // namespace

//===----------------------------------------------------------------------===//
// SummaryWriterState
//===----------------------------------------------------------------------===//

class SummaryWriterState {
public:
  SummaryWriterState(std::string path, int fd, int maxQueue, int64_t flushMillis)
      : path_(std::move(path)), fd_(fd), maxQueue_(maxQueue), flushMillis_(flushMillis),
        lastFlush_(std::chrono::steady_clock::now()) {}

  ~SummaryWriterState() {
    // A destructor cannot throw; a failed last flush is reported, not lost silently.
    try {
      close();
    } catch (const Error &e) {
      std::fprintf(stderr, "ember: %s\n", e.what());
    }
  }

  const std::string &path() const { return path_; }

  /// Queues one encoded Event, appending the queue when it is due.
  void write(std::string_view event) {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fd_ < 0)
      throw Error("summary: the writer of " + inQuotes(path_) + " is closed");
    appendTFRecord(pending_, event);
    ++pendingEvents_;
    auto waited = std::chrono::steady_clock::now() - lastFlush_;
    if (pendingEvents_ >= maxQueue_ || waited >= std::chrono::milliseconds(flushMillis_))
      flushTo(fd_, /*sync=*/false);
  }

  void flush() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fd_ >= 0)
      flushTo(fd_, /*sync=*/true);
  }

  void close() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (fd_ < 0)
      return;
    int fd = fd_;
    fd_ = -1; // closed even if the last flush fails: the error is reported once
    struct Closer {
      int fd;
      ~Closer() { ::close(fd); }
    } closer{fd};
    flushTo(fd, /*sync=*/true);
  }

private:
  /// Appends the queue as one write. If that fails part way the file is cut
  /// back to its old end, so it holds whole records only; the queued events
  /// are dropped either way (as TensorFlow's writer does).
  void flushTo(int fd, bool sync) {
    std::string data = std::move(pending_);
    pending_.clear();
    pendingEvents_ = 0;
    lastFlush_ = std::chrono::steady_clock::now();
    if (!data.empty()) {
      off_t end = ::lseek(fd, 0, SEEK_END);
      if (!writeAll(fd, data)) {
        int savedErrno = errno;
        if (end >= 0)
          (void)::ftruncate(fd, end);
        failWrite(path_, std::strerror(savedErrno));
      }
    }
    // fsync only on flush() and close(): the user asked for the data to be
    // on disk; the queue's own flushes need only reach the reader.
    if (sync && ::fsync(fd) != 0 && errno != EINVAL)
      failWrite(path_, std::strerror(errno));
  }

  std::mutex mutex_;
  const std::string path_;
  int fd_;
  const int maxQueue_;
  const int64_t flushMillis_;
  std::string pending_; // framed records not yet written
  int pendingEvents_ = 0;
  std::chrono::steady_clock::time_point lastFlush_;
};

} // namespace ember::detail

namespace ember::summary {

using namespace ember::detail;

// Each thread's default writer, as tf.summary's (a thread-local in TF2).
static thread_local std::shared_ptr<SummaryWriterState> tDefaultWriter;

//===----------------------------------------------------------------------===//
// SummaryWriter
//===----------------------------------------------------------------------===//

SummaryWriterState &SummaryWriter::checked() const {
  if (!state_)
    throw Error("summary: the SummaryWriter is undefined (default-constructed)");
  return *state_;
}

const std::string &SummaryWriter::path() const { return checked().path(); }

void SummaryWriter::scalar(const std::string &tag, double value, int64_t step) {
  SummaryWriterState &state = checked();
  ProtoWriter summaryValue;
  summaryValue.bytesField(ValueField::kTag, tag);
  summaryValue.floatField(ValueField::kSimpleValue, static_cast<float>(value));
  state.write(encodeSummaryEvent(step, summaryValue.take()));
}

void SummaryWriter::scalar(const std::string &tag, const Tensor &value, int64_t step) {
  if (!value.defined())
    throw Error("summary.scalar '" + tag + "': the tensor is undefined");
  if (value.rank() != 0)
    throw Error("summary.scalar '" + tag + "': expects a 0-d tensor, got shape " +
                value.shape().str());
  scalar(tag, value.item<double>(), step);
}

void SummaryWriter::histogram(const std::string &tag, const Tensor &values, int64_t step,
                              int buckets) {
  SummaryWriterState &state = checked();
  if (!values.defined())
    throw Error("summary.histogram '" + tag + "': the tensor is undefined");
  if (buckets < 1)
    throw Error("summary.histogram '" + tag + "': buckets must be at least 1, got " +
                std::to_string(buckets));
  state.write(encodeSummaryEvent(step, encodeHistogram(tag, values.to_vector<double>(), buckets)));
}

void SummaryWriter::flush() { checked().flush(); }

void SummaryWriter::close() { checked().close(); }

void SummaryWriter::set_as_default() const { tDefaultWriter = state_; }

DefaultWriterScope::DefaultWriterScope(const SummaryWriter &writer)
    : previous_(std::move(tDefaultWriter)) {
  tDefaultWriter = writer.state();
}

DefaultWriterScope::~DefaultWriterScope() { tDefaultWriter = std::move(previous_); }

SummaryWriter create_file_writer(const std::string &logdir, int max_queue, int64_t flush_millis,
                                 const std::string &filename_suffix) {
  if (logdir.empty())
    throw Error("summary.create_file_writer: the log directory is empty");
  if (max_queue < 0 || flush_millis < 0)
    throw Error("summary.create_file_writer: max_queue and flush_millis must be >= 0, got " +
                std::to_string(max_queue) + " and " + std::to_string(flush_millis));
  std::error_code ec;
  std::filesystem::create_directories(logdir, ec);
  if (ec)
    throw IOError("cannot create summary directory " + inQuotes(logdir) + ": " + ec.message());

  char host[256] = "localhost";
  if (::gethostname(host, sizeof(host)) != 0)
    std::strcpy(host, "localhost");
  host[sizeof(host) - 1] = '\0';
  // The counter tells apart the writers one process opens in one second.
  static std::atomic<uint64_t> counter{0};
  std::string path;
  int fd = -1;
  for (int attempt = 0; fd < 0; ++attempt) {
    char name[400];
    // The seconds of the records' wall time (std::time reads a coarser clock,
    // which can still show the previous second).
    std::snprintf(name, sizeof(name), "events.out.tfevents.%010lld.%s.%lld.%llu",
                  static_cast<long long>(wallTime()), host,
                  static_cast<long long>(::getpid()),
                  static_cast<unsigned long long>(counter.fetch_add(1)));
    path = (std::filesystem::path(logdir) / name).string() + filename_suffix;
    fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_APPEND | O_CLOEXEC, 0666);
    if (fd < 0 && (errno != EEXIST || attempt == 100))
      throw IOError("cannot create event file " + inQuotes(path) + ": " + std::strerror(errno));
  }
  auto state = std::make_shared<SummaryWriterState>(path, fd, max_queue, flush_millis);
  // The version record goes out at once, so the file is an event file from
  // the start (TensorFlow's EventsWriter does the same).
  state->write(encodeEvent(0, EventField::kFileVersion, "brain.Event:2"));
  state->flush();
  return SummaryWriter(std::move(state));
}

//===----------------------------------------------------------------------===//
// The default writer
//===----------------------------------------------------------------------===//

bool scalar(const std::string &tag, double value, int64_t step) {
  if (!tDefaultWriter)
    return false;
  SummaryWriter(tDefaultWriter).scalar(tag, value, step);
  return true;
}

bool scalar(const std::string &tag, const Tensor &value, int64_t step) {
  if (!tDefaultWriter)
    return false;
  SummaryWriter(tDefaultWriter).scalar(tag, value, step);
  return true;
}

bool histogram(const std::string &tag, const Tensor &values, int64_t step, int buckets) {
  if (!tDefaultWriter)
    return false;
  SummaryWriter(tDefaultWriter).histogram(tag, values, step, buckets);
  return true;
}

bool flush() {
  if (!tDefaultWriter)
    return false;
  tDefaultWriter->flush();
  return true;
}

} // namespace ember::summary
