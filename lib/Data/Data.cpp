//===- Data.cpp - input pipelines (tf.data) ---------------------------------===//
//
// A Dataset is a chain of immutable Nodes; iterating opens one Cursor per
// node, each pulling from its input's cursor. Elements are host tensors and
// every stage works on their buffers directly (memcpy, pointer arithmetic),
// so a pipeline costs no kernel launches: an epoch of 60000 MNIST images is
// a few million bytes copied, not tens of thousands of eager ops.
//
//===----------------------------------------------------------------------===//

#include "ember/Data/Data.h"

#include "ember/Frontend/Error.h"

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <exception>
#include <mutex>
#include <random>
#include <thread>
#include <utility>

using namespace ember;
using namespace ember::data;

namespace ember::data::detail {

class Cursor {
public:
  virtual ~Cursor() = default;
  /// The next element into `out`, or false at the end of the epoch.
  virtual bool next(Element &out) = 0;
};

class Node : public std::enable_shared_from_this<Node> {
public:
  virtual ~Node() = default;
  /// A new pass over this stage's elements. Cursors keep their nodes alive,
  /// so an iterator outlives the Dataset it came from.
  virtual std::unique_ptr<Cursor> open() const = 0;
  virtual int64_t cardinality() const = 0;
};

} // namespace ember::data::detail

using ember::data::detail::Cursor;
using ember::data::detail::Node;

namespace {

[[noreturn]] void fail(const std::string &op, const std::string &what) {
  throw Error("Dataset." + op + ": " + what);
}

/// The tensor's values on the host (a symbolic tensor, inside a traced
/// function, has none: datasets feed traced steps, they do not run in them).
Tensor hostValue(const std::string &op, const Tensor &t, size_t index) {
  if (!t.defined())
    fail(op, "component " + std::to_string(index) + " is an undefined tensor");
  if (t.is_symbolic())
    fail(op, "component " + std::to_string(index) +
                 " is a symbolic tensor of a traced function; datasets need concrete "
                 "values (build the dataset outside ember::function)");
  return t.cpu();
}

/// splitmix64: a tiny, well-mixed generator whose sequence is the same on
/// every platform (std::uniform_int_distribution's is not).
struct SplitMix64 {
  uint64_t state;
  uint64_t operator()() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, n) (Lemire's multiply; the bias is below 2^-40 for
  /// any buffer that fits in memory).
  uint64_t below(uint64_t n) {
    return static_cast<uint64_t>((static_cast<unsigned __int128>((*this)()) * n) >> 64);
  }
};

/// Row `row` of the host tensor `t` (its first dimension indexed), a copy
/// of shape `rowShape`: elements are small, and a copy outlives nothing it
/// should not.
Tensor copyRow(const Tensor &t, int64_t row, const Shape &rowShape) {
  Tensor slice = Tensor::empty(rowShape, t.dtype(), Device());
  size_t bytes = slice.nbytes();
  if (bytes > 0)
    std::memcpy(slice.data(), static_cast<const char *>(t.data()) + row * bytes, bytes);
  return slice;
}

/// The shape of a row of `t`: its shape without the first dimension.
Shape rowShapeOf(const Tensor &t) {
  return Shape(std::span<const int64_t>(t.shape().begin() + 1, t.shape().end()));
}

//===----------------------------------------------------------------------===//
// Sources
//===----------------------------------------------------------------------===//

class SlicesNode final : public Node {
public:
  explicit SlicesNode(std::vector<Tensor> tensors) : tensors_(std::move(tensors)) {
    rows_ = tensors_.front().size(0);
    for (const Tensor &t : tensors_)
      rowShapes_.push_back(rowShapeOf(t));
  }

  std::unique_ptr<Cursor> open() const override {
    struct SlicesCursor final : Cursor {
      std::shared_ptr<const SlicesNode> node;
      int64_t row = 0;
      bool next(Element &out) override {
        if (row == node->rows_)
          return false;
        out.resize(node->tensors_.size());
        for (size_t c = 0; c < node->tensors_.size(); ++c)
          out[c] = copyRow(node->tensors_[c], row, node->rowShapes_[c]);
        ++row;
        return true;
      }
    };
    auto cursor = std::make_unique<SlicesCursor>();
    cursor->node = std::static_pointer_cast<const SlicesNode>(shared_from_this());
    return cursor;
  }
  int64_t cardinality() const override { return rows_; }

private:
  std::vector<Tensor> tensors_;
  std::vector<Shape> rowShapes_;
  int64_t rows_;
};

class TensorsNode final : public Node {
public:
  explicit TensorsNode(Element tensors) : tensors_(std::move(tensors)) {}

  std::unique_ptr<Cursor> open() const override {
    struct TensorsCursor final : Cursor {
      std::shared_ptr<const TensorsNode> node;
      bool given = false;
      bool next(Element &out) override {
        if (given)
          return false;
        given = true;
        out = node->tensors_; // tensors are shared, immutable values
        return true;
      }
    };
    auto cursor = std::make_unique<TensorsCursor>();
    cursor->node = std::static_pointer_cast<const TensorsNode>(shared_from_this());
    return cursor;
  }
  int64_t cardinality() const override { return 1; }

private:
  Element tensors_;
};

class RangeNode final : public Node {
public:
  RangeNode(int64_t start, int64_t stop, int64_t step) : start_(start), stop_(stop), step_(step) {}

  std::unique_ptr<Cursor> open() const override {
    struct RangeCursor final : Cursor {
      int64_t value, stop, step;
      bool next(Element &out) override {
        if (step > 0 ? value >= stop : value <= stop)
          return false;
        Tensor t = Tensor::empty(Shape{}, DType::Int64, Device());
        *static_cast<int64_t *>(t.data()) = value;
        out.assign(1, std::move(t));
        // Stop rather than overflow past INT64_MAX.
        if (__builtin_add_overflow(value, step, &value))
          value = stop;
        return true;
      }
    };
    auto cursor = std::make_unique<RangeCursor>();
    cursor->value = start_;
    cursor->stop = stop_;
    cursor->step = step_;
    return cursor;
  }
  int64_t cardinality() const override {
    if (step_ > 0 ? start_ >= stop_ : start_ <= stop_)
      return 0;
    unsigned __int128 span = step_ > 0 ? static_cast<unsigned __int128>(stop_ - static_cast<__int128>(start_))
                                       : static_cast<unsigned __int128>(start_ - static_cast<__int128>(stop_));
    unsigned __int128 stride = step_ > 0 ? step_ : -static_cast<__int128>(step_);
    return static_cast<int64_t>((span + stride - 1) / stride);
  }

private:
  int64_t start_, stop_, step_;
};

//===----------------------------------------------------------------------===//
// Transformations
//===----------------------------------------------------------------------===//

class ShuffleNode final : public Node {
public:
  ShuffleNode(std::shared_ptr<const Node> input, int64_t bufferSize, uint64_t seed, bool reshuffle)
      : input_(std::move(input)), bufferSize_(bufferSize), seed_(seed), reshuffle_(reshuffle) {}

  std::unique_ptr<Cursor> open() const override {
    // Each pass draws from its own stream: pass k's seed mixes the seed
    // with k. Shared by every Dataset on this node, as TF's seed generator.
    uint64_t pass = reshuffle_ ? passes_.fetch_add(1, std::memory_order_relaxed) : 0;
    SplitMix64 mix{seed_ ^ (pass * 0xd1b54a32d192ed03ULL)};
    struct ShuffleCursor final : Cursor {
      std::unique_ptr<Cursor> input;
      std::vector<Element> buffer;
      size_t capacity;
      SplitMix64 rng;
      bool inputDone = false;
      bool next(Element &out) override {
        // Fill on the first call, so that opening stays cheap.
        while (!inputDone && buffer.size() < capacity) {
          Element e;
          if (!input->next(e)) {
            inputDone = true;
            break;
          }
          buffer.push_back(std::move(e));
        }
        if (buffer.empty())
          return false;
        size_t pick = rng.below(buffer.size());
        out = std::move(buffer[pick]);
        // Refill the slot from the input; at its end, shrink the buffer.
        Element e;
        if (!inputDone && input->next(e)) {
          buffer[pick] = std::move(e);
        } else {
          inputDone = true;
          if (pick + 1 != buffer.size())
            buffer[pick] = std::move(buffer.back());
          buffer.pop_back();
        }
        return true;
      }
    };
    auto cursor = std::make_unique<ShuffleCursor>();
    cursor->input = input_->open();
    // Not more than the input holds: a buffer of 1e9 over 10 elements is 10.
    int64_t n = input_->cardinality();
    cursor->capacity = static_cast<size_t>(n >= 0 ? std::min(bufferSize_, n) : bufferSize_);
    cursor->buffer.reserve(std::min<size_t>(cursor->capacity, 1 << 16));
    cursor->rng = SplitMix64{mix()};
    return cursor;
  }
  int64_t cardinality() const override { return input_->cardinality(); }

private:
  std::shared_ptr<const Node> input_;
  int64_t bufferSize_;
  uint64_t seed_;
  bool reshuffle_;
  mutable std::atomic<uint64_t> passes_{0};
};

/// Stacks `elements` component by component into one element.
Element stack(const std::vector<Element> &elements) {
  const Element &first = elements.front();
  Element out(first.size());
  for (size_t c = 0; c < first.size(); ++c) {
    const Tensor &proto = first[c];
    Shape shape{static_cast<int64_t>(elements.size())};
    for (int64_t d : proto.shape())
      shape.push_back(d);
    Tensor stacked = Tensor::empty(shape, proto.dtype(), Device());
    char *dst = static_cast<char *>(stacked.data());
    size_t bytes = proto.nbytes();
    for (size_t i = 0; i < elements.size(); ++i) {
      const Element &e = elements[i];
      if (e.size() != first.size())
        fail("batch", "element " + std::to_string(i) + " of a batch has " +
                          std::to_string(e.size()) + " components, the first has " +
                          std::to_string(first.size()));
      const Tensor &t = e[c];
      if (t.dtype() != proto.dtype() || !(t.shape() == proto.shape()))
        fail("batch", "cannot stack component " + std::to_string(c) + " of element " +
                          std::to_string(i) + " of a batch, " + std::string(dtypeName(t.dtype())) +
                          " " + t.shape().str() + ", on the first element's " +
                          std::string(dtypeName(proto.dtype())) + " " + proto.shape().str() +
                          " (batch needs equal shapes and dtypes)");
      Tensor host = hostValue("batch", t, c);
      std::memcpy(dst + i * bytes, host.data(), bytes);
    }
    out[c] = std::move(stacked);
  }
  return out;
}

class BatchNode final : public Node {
public:
  BatchNode(std::shared_ptr<const Node> input, int64_t batchSize, bool dropRemainder)
      : input_(std::move(input)), batchSize_(batchSize), dropRemainder_(dropRemainder) {}

  std::unique_ptr<Cursor> open() const override {
    struct BatchCursor final : Cursor {
      std::unique_ptr<Cursor> input;
      size_t batchSize;
      bool dropRemainder;
      std::vector<Element> pending;
      bool next(Element &out) override {
        pending.resize(batchSize);
        size_t n = 0;
        while (n < batchSize && input->next(pending[n]))
          ++n;
        if (n == 0 || (n < batchSize && dropRemainder))
          return false;
        pending.resize(n);
        out = stack(pending);
        return true;
      }
    };
    auto cursor = std::make_unique<BatchCursor>();
    cursor->input = input_->open();
    cursor->batchSize = static_cast<size_t>(batchSize_);
    cursor->dropRemainder = dropRemainder_;
    return cursor;
  }
  int64_t cardinality() const override {
    int64_t n = input_->cardinality();
    if (n < 0)
      return n;
    return dropRemainder_ ? n / batchSize_ : (n + batchSize_ - 1) / batchSize_;
  }

private:
  std::shared_ptr<const Node> input_;
  int64_t batchSize_;
  bool dropRemainder_;
};

class UnbatchNode final : public Node {
public:
  explicit UnbatchNode(std::shared_ptr<const Node> input) : input_(std::move(input)) {}

  std::unique_ptr<Cursor> open() const override {
    struct UnbatchCursor final : Cursor {
      std::unique_ptr<Cursor> input;
      Element batch; // on the host
      std::vector<Shape> rowShapes;
      int64_t rows = 0, row = 0; // of the element being split
      int64_t index = -1;        // which input element it is
      bool next(Element &out) override {
        while (row == rows) {
          Element in;
          if (!input->next(in))
            return false;
          take(std::move(in));
        }
        out.resize(batch.size());
        for (size_t c = 0; c < batch.size(); ++c)
          out[c] = copyRow(batch[c], row, rowShapes[c]);
        ++row;
        return true;
      }
      void take(Element in) {
        ++index;
        if (in.empty())
          fail("unbatch", "element " + std::to_string(index) + " has no components");
        batch.clear();
        rowShapes.clear();
        for (size_t c = 0; c < in.size(); ++c) {
          Tensor t = hostValue("unbatch", in[c], c);
          if (t.rank() == 0)
            fail("unbatch", "component " + std::to_string(c) + " of element " +
                                std::to_string(index) +
                                " is a scalar; unbatch needs a first dimension");
          if (!batch.empty() && t.size(0) != batch.front().size(0))
            fail("unbatch", "the components of element " + std::to_string(index) +
                                " differ in their first dimension: component 0 has shape " +
                                batch.front().shape().str() + ", component " +
                                std::to_string(c) + " " + t.shape().str());
          rowShapes.push_back(rowShapeOf(t));
          batch.push_back(std::move(t));
        }
        rows = batch.front().size(0);
        row = 0;
      }
    };
    auto cursor = std::make_unique<UnbatchCursor>();
    cursor->input = input_->open();
    return cursor;
  }
  int64_t cardinality() const override {
    int64_t n = input_->cardinality();
    return n == 0 ? 0 : (n == INFINITE_CARDINALITY ? n : UNKNOWN_CARDINALITY);
  }

private:
  std::shared_ptr<const Node> input_;
};

class MapNode final : public Node {
public:
  MapNode(std::shared_ptr<const Node> input, std::function<Element(const Element &)> fn)
      : input_(std::move(input)), fn_(std::move(fn)) {}

  std::unique_ptr<Cursor> open() const override {
    struct MapCursor final : Cursor {
      std::shared_ptr<const MapNode> node;
      std::unique_ptr<Cursor> input;
      Element in;
      bool next(Element &out) override {
        if (!input->next(in))
          return false;
        out = node->fn_(in);
        return true;
      }
    };
    auto cursor = std::make_unique<MapCursor>();
    cursor->node = std::static_pointer_cast<const MapNode>(shared_from_this());
    cursor->input = input_->open();
    return cursor;
  }
  int64_t cardinality() const override { return input_->cardinality(); }

private:
  std::shared_ptr<const Node> input_;
  std::function<Element(const Element &)> fn_;
};

class FilterNode final : public Node {
public:
  FilterNode(std::shared_ptr<const Node> input, std::function<bool(const Element &)> predicate)
      : input_(std::move(input)), predicate_(std::move(predicate)) {}

  std::unique_ptr<Cursor> open() const override {
    struct FilterCursor final : Cursor {
      std::shared_ptr<const FilterNode> node;
      std::unique_ptr<Cursor> input;
      bool next(Element &out) override {
        while (input->next(out))
          if (node->predicate_(out))
            return true;
        return false;
      }
    };
    auto cursor = std::make_unique<FilterCursor>();
    cursor->node = std::static_pointer_cast<const FilterNode>(shared_from_this());
    cursor->input = input_->open();
    return cursor;
  }
  // As tf.data: how many pass is not known without iterating.
  int64_t cardinality() const override {
    int64_t n = input_->cardinality();
    return n == INFINITE_CARDINALITY ? n : UNKNOWN_CARDINALITY;
  }

private:
  std::shared_ptr<const Node> input_;
  std::function<bool(const Element &)> predicate_;
};

class SkipNode final : public Node {
public:
  SkipNode(std::shared_ptr<const Node> input, int64_t count)
      : input_(std::move(input)), count_(count) {}

  std::unique_ptr<Cursor> open() const override {
    struct SkipCursor final : Cursor {
      std::unique_ptr<Cursor> input;
      int64_t skip;
      bool next(Element &out) override {
        for (; skip != 0; skip = skip > 0 ? skip - 1 : skip)
          if (!input->next(out))
            return false;
        return input->next(out);
      }
    };
    auto cursor = std::make_unique<SkipCursor>();
    cursor->input = input_->open();
    cursor->skip = count_;
    return cursor;
  }
  int64_t cardinality() const override {
    int64_t n = input_->cardinality();
    if (n < 0)
      return count_ < 0 && n == INFINITE_CARDINALITY ? 0 : n;
    return count_ < 0 ? 0 : std::max<int64_t>(n - count_, 0);
  }

private:
  std::shared_ptr<const Node> input_;
  int64_t count_;
};

/// Every num_shards-th element, from the index-th on.
class ShardNode final : public Node {
public:
  ShardNode(std::shared_ptr<const Node> input, int64_t numShards, int64_t index)
      : input_(std::move(input)), numShards_(numShards), index_(index) {}

  std::unique_ptr<Cursor> open() const override {
    struct ShardCursor final : Cursor {
      std::unique_ptr<Cursor> input;
      int64_t numShards, skip; // skip: inputs to pass before the next output
      bool next(Element &out) override {
        for (; skip > 0; --skip)
          if (!input->next(out))
            return false;
        skip = numShards - 1;
        return input->next(out);
      }
    };
    auto cursor = std::make_unique<ShardCursor>();
    cursor->input = input_->open();
    cursor->numShards = numShards_;
    cursor->skip = index_;
    return cursor;
  }
  int64_t cardinality() const override {
    int64_t n = input_->cardinality();
    return n < 0 ? n : (n - index_ + numShards_ - 1) / numShards_;
  }

private:
  std::shared_ptr<const Node> input_;
  int64_t numShards_, index_;
};

class TakeNode final : public Node {
public:
  TakeNode(std::shared_ptr<const Node> input, int64_t count)
      : input_(std::move(input)), count_(count) {}

  std::unique_ptr<Cursor> open() const override {
    struct TakeCursor final : Cursor {
      std::unique_ptr<Cursor> input;
      int64_t left;
      bool next(Element &out) override {
        if (left == 0 || !input->next(out))
          return false;
        if (left > 0)
          --left;
        return true;
      }
    };
    auto cursor = std::make_unique<TakeCursor>();
    cursor->input = input_->open();
    cursor->left = count_;
    return cursor;
  }
  int64_t cardinality() const override {
    int64_t n = input_->cardinality();
    if (count_ < 0 || n == UNKNOWN_CARDINALITY)
      return n;
    return n == INFINITE_CARDINALITY ? count_ : std::min(n, count_);
  }

private:
  std::shared_ptr<const Node> input_;
  int64_t count_;
};

class RepeatNode final : public Node {
public:
  RepeatNode(std::shared_ptr<const Node> input, int64_t count)
      : input_(std::move(input)), count_(count) {}

  std::unique_ptr<Cursor> open() const override {
    struct RepeatCursor final : Cursor {
      std::shared_ptr<const Node> node;
      std::unique_ptr<Cursor> input;
      int64_t left; // passes still to start; negative: forever
      bool next(Element &out) override {
        while (true) {
          if (!input) {
            if (left == 0)
              return false;
            if (left > 0)
              --left;
            input = node->open();
            bool any = input->next(out);
            // An empty input would make repeat(-1) spin forever: end instead.
            if (!any) {
              input.reset();
              left = 0;
              return false;
            }
            return true;
          }
          if (input->next(out))
            return true;
          input.reset();
        }
      }
    };
    auto cursor = std::make_unique<RepeatCursor>();
    cursor->node = input_;
    cursor->left = count_;
    return cursor;
  }
  int64_t cardinality() const override {
    int64_t n = input_->cardinality();
    if (count_ == 0 || n == 0)
      return 0;
    if (count_ < 0)
      return INFINITE_CARDINALITY;
    if (n < 0)
      return n;
    return n > INT64_MAX / count_ ? INFINITE_CARDINALITY : n * count_;
  }

private:
  std::shared_ptr<const Node> input_;
  int64_t count_;
};

//===----------------------------------------------------------------------===//
// Prefetch
//===----------------------------------------------------------------------===//

/// A producer thread fills a bounded queue from the input; the consumer
/// takes from it. An exception in the producer is queued after the elements
/// made before it, so the consumer sees them first, then the exception.
class PrefetchCursor final : public Cursor {
public:
  PrefetchCursor(std::unique_ptr<Cursor> input, size_t capacity)
      : input_(std::move(input)), capacity_(capacity) {
    thread_ = std::thread([this] { produce(); });
  }

  ~PrefetchCursor() override {
    {
      std::lock_guard<std::mutex> lock(mutex_);
      stop_ = true;
    }
    spaceOrStop_.notify_all();
    // The producer checks stop_ between elements: at most the element being
    // made is waited for.
    thread_.join();
  }

  bool next(Element &out) override {
    std::unique_lock<std::mutex> lock(mutex_);
    ready_.wait(lock, [&] { return !queue_.empty() || finished_; });
    if (queue_.empty()) {
      if (error_) {
        std::exception_ptr error = std::exchange(error_, nullptr);
        std::rethrow_exception(error);
      }
      return false;
    }
    out = std::move(queue_.front());
    queue_.pop_front();
    lock.unlock();
    spaceOrStop_.notify_one();
    return true;
  }

private:
  void produce() {
    try {
      while (true) {
        {
          std::lock_guard<std::mutex> lock(mutex_);
          if (stop_)
            break;
        }
        Element e;
        if (!input_->next(e))
          break;
        std::unique_lock<std::mutex> lock(mutex_);
        spaceOrStop_.wait(lock, [&] { return queue_.size() < capacity_ || stop_; });
        if (stop_)
          break;
        queue_.push_back(std::move(e));
        lock.unlock();
        ready_.notify_one();
      }
    } catch (...) {
      std::lock_guard<std::mutex> lock(mutex_);
      error_ = std::current_exception();
    }
    // The input's cursor (and any thread of its own) goes on this thread.
    input_.reset();
    {
      std::lock_guard<std::mutex> lock(mutex_);
      finished_ = true;
    }
    ready_.notify_all();
  }

  std::unique_ptr<Cursor> input_;
  size_t capacity_;
  std::mutex mutex_;
  std::condition_variable ready_, spaceOrStop_;
  std::deque<Element> queue_;
  std::exception_ptr error_;
  bool stop_ = false, finished_ = false;
  std::thread thread_;
};

class PrefetchNode final : public Node {
public:
  PrefetchNode(std::shared_ptr<const Node> input, int64_t bufferSize)
      : input_(std::move(input)), bufferSize_(bufferSize) {}

  std::unique_ptr<Cursor> open() const override {
    return std::make_unique<PrefetchCursor>(input_->open(), static_cast<size_t>(bufferSize_));
  }
  int64_t cardinality() const override { return input_->cardinality(); }

private:
  std::shared_ptr<const Node> input_;
  int64_t bufferSize_;
};

} // namespace

//===----------------------------------------------------------------------===//
// Dataset
//===----------------------------------------------------------------------===//

Dataset Dataset::from_tensor_slices(const std::vector<Tensor> &tensors) {
  if (tensors.empty())
    fail("from_tensor_slices", "no tensors given");
  std::vector<Tensor> host;
  for (size_t i = 0; i < tensors.size(); ++i) {
    Tensor t = hostValue("from_tensor_slices", tensors[i], i);
    if (t.rank() == 0)
      fail("from_tensor_slices", "component " + std::to_string(i) +
                                     " is a scalar; slicing needs a first dimension");
    if (t.size(0) != tensors[0].size(0))
      fail("from_tensor_slices",
           "the components differ in their first dimension: component 0 has shape " +
               tensors[0].shape().str() + ", component " + std::to_string(i) + " " +
               t.shape().str());
    host.push_back(std::move(t));
  }
  return Dataset(std::make_shared<SlicesNode>(std::move(host)));
}

Dataset Dataset::from_tensor_slices(const Tensor &tensor) {
  return from_tensor_slices(std::vector<Tensor>{tensor});
}

Dataset Dataset::from_tensors(const std::vector<Tensor> &tensors) {
  if (tensors.empty())
    fail("from_tensors", "no tensors given");
  Element host;
  for (size_t i = 0; i < tensors.size(); ++i)
    host.push_back(hostValue("from_tensors", tensors[i], i));
  return Dataset(std::make_shared<TensorsNode>(std::move(host)));
}

Dataset Dataset::from_tensors(const Tensor &tensor) {
  return from_tensors(std::vector<Tensor>{tensor});
}

Dataset Dataset::range(int64_t stop) { return range(0, stop, 1); }

Dataset Dataset::range(int64_t start, int64_t stop, int64_t step) {
  if (step == 0)
    fail("range", "step is 0");
  return Dataset(std::make_shared<RangeNode>(start, stop, step));
}

Dataset Dataset::shuffle(int64_t buffer_size, std::optional<uint64_t> seed,
                         bool reshuffle_each_iteration) const {
  if (buffer_size <= 0)
    fail("shuffle", "buffer_size must be positive, got " + std::to_string(buffer_size));
  uint64_t chosen = seed ? *seed : (uint64_t(std::random_device{}()) << 32) ^ std::random_device{}();
  return Dataset(std::make_shared<ShuffleNode>(node_, buffer_size, chosen, reshuffle_each_iteration));
}

Dataset Dataset::batch(int64_t batch_size, bool drop_remainder) const {
  if (batch_size <= 0)
    fail("batch", "batch_size must be positive, got " + std::to_string(batch_size));
  return Dataset(std::make_shared<BatchNode>(node_, batch_size, drop_remainder));
}

Dataset Dataset::unbatch() const { return Dataset(std::make_shared<UnbatchNode>(node_)); }

Dataset Dataset::map(std::function<Element(const Element &)> fn) const {
  if (!fn)
    fail("map", "the function is empty");
  return Dataset(std::make_shared<MapNode>(node_, std::move(fn)));
}

Dataset Dataset::filter(std::function<bool(const Element &)> predicate) const {
  if (!predicate)
    fail("filter", "the predicate is empty");
  return Dataset(std::make_shared<FilterNode>(node_, std::move(predicate)));
}

Dataset Dataset::skip(int64_t count) const {
  if (count < -1)
    fail("skip", "count must be -1 (all) or more, got " + std::to_string(count));
  return Dataset(std::make_shared<SkipNode>(node_, count));
}

Dataset Dataset::shard(int64_t num_shards, int64_t index) const {
  if (num_shards < 1)
    fail("shard", "num_shards must be positive, got " + std::to_string(num_shards));
  if (index < 0 || index >= num_shards)
    fail("shard", "index must be in [0, num_shards), got " + std::to_string(index) +
                      " with num_shards " + std::to_string(num_shards));
  return Dataset(std::make_shared<ShardNode>(node_, num_shards, index));
}

Dataset Dataset::take(int64_t count) const {
  if (count < -1)
    fail("take", "count must be -1 (all) or more, got " + std::to_string(count));
  return Dataset(std::make_shared<TakeNode>(node_, count));
}

Dataset Dataset::repeat(int64_t count) const {
  if (count < -1)
    fail("repeat", "count must be -1 (forever) or more, got " + std::to_string(count));
  return Dataset(std::make_shared<RepeatNode>(node_, count));
}

Dataset Dataset::prefetch(int64_t buffer_size) const {
  if (buffer_size == AUTOTUNE)
    buffer_size = 2; // one element in use, one being made: enough to overlap
  if (buffer_size <= 0)
    fail("prefetch", "buffer_size must be positive or AUTOTUNE, got " + std::to_string(buffer_size));
  return Dataset(std::make_shared<PrefetchNode>(node_, buffer_size));
}

Dataset Dataset::prefetch_to_device(const Device &device, int64_t buffer_size) const {
  if (device.is_cpu())
    return prefetch(buffer_size);
  require_device(device);
  return map([device](const Element &element) {
           Element moved;
           for (const Tensor &t : element)
             moved.push_back(t.pin_memory().to(device));
           return moved;
         })
      .prefetch(buffer_size);
}

int64_t Dataset::cardinality() const { return node_->cardinality(); }

//===----------------------------------------------------------------------===//
// Iteration
//===----------------------------------------------------------------------===//

struct Dataset::Iterator::State {
  std::unique_ptr<Cursor> cursor;
  Element current;
  bool done = false;

  void advance() {
    if (done)
      return;
    try {
      done = !cursor->next(current);
    } catch (...) {
      done = true; // the epoch ends where it failed
      throw;
    }
    if (done) {
      current.clear();
      cursor.reset(); // a prefetch thread ends with the epoch, not the iterator
    }
  }
};

Dataset::Iterator Dataset::begin() const {
  auto state = std::make_shared<Iterator::State>();
  state->cursor = node_->open();
  state->advance();
  return Iterator(std::move(state));
}

const Element &Dataset::Iterator::operator*() const {
  if (done())
    throw Error("Dataset: dereferencing an iterator at the end of the epoch");
  return state_->current;
}

Dataset::Iterator &Dataset::Iterator::operator++() {
  if (done())
    throw Error("Dataset: incrementing an iterator at the end of the epoch");
  state_->advance();
  return *this;
}

bool Dataset::Iterator::done() const { return !state_ || state_->done; }
