//===- Data.h - input pipelines (tf.data) and IDX files ----------*- C++ -*-===//
//
// A Dataset is tf.data's: a lazily evaluated sequence of elements, each a
// tuple of tensors (an Element: features, label, ...). Transformations
// (shuffle, batch, unbatch, map, filter, skip, take, repeat, prefetch)
// return new Datasets and leave their input as it was; nothing runs until
// the dataset is iterated. Each begin() starts a new pass (epoch), so a
// range-for over the same dataset twice gives two epochs, reshuffled when
// shuffle says so. Elements are host tensors; batching copies rows on the
// host, without eager ops.
//
//   using namespace ember::data;
//   ember::Tensor x = ember::arange(0, 10);              // int32 (10,)
//   ember::Tensor y = ember::arange(0, 10) * 2;
//   Dataset ds = Dataset::from_tensor_slices({x, y})     // elements (x[i], y[i])
//                    .shuffle(4, /*seed=*/42)
//                    .batch(3)                           // the last batch has 1
//                    .prefetch(2);                       // made on a thread
//   int64_t rows = 0;
//   for (const Element &batch : ds) {                    // one epoch
//     ember::Tensor xb = batch[0], yb = batch[1];        // (3,), then (1,)
//     rows += xb.size(0);
//   }
//   if (rows != 10 || ds.cardinality() != 4) throw ember::Error("10 rows in 4 batches expected");
//
// read_idx reads the IDX files of MNIST and Fashion-MNIST (plain or gzip),
// and fashion_mnist::load_data / mnist::load_data load a whole dataset as
// keras.datasets does, but ready for training: images float32 [N, rows,
// cols, 1] scaled to [0, 1], labels int64 [N].
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_DATA_H
#define EMBER_DATA_H

#include "ember/Frontend/Tensor.h"

#include <cstdint>
#include <functional>
#include <iterator>
#include <memory>
#include <optional>
#include <string>
#include <vector>

namespace ember::data {

/// One element of a dataset: its components, in the order they were given
/// (from_tensor_slices({x, y}) gives {x[i], y[i]}).
using Element = std::vector<Tensor>;

/// cardinality() of an endless dataset (repeat()) and of one whose length
/// cannot be known without iterating it (tf.data's constants).
constexpr int64_t INFINITE_CARDINALITY = -1;
constexpr int64_t UNKNOWN_CARDINALITY = -2;
/// prefetch(AUTOTUNE): ember picks the buffer size.
constexpr int64_t AUTOTUNE = -1;

namespace detail {
/// One stage of a pipeline: immutable, shared by the Datasets built on it.
class Node;
/// One pass over a stage: yields its elements in order.
class Cursor;
} // namespace detail

class Dataset {
public:
  /// Element i is {tensors[0][i], tensors[1][i], ...}: the tensors are sliced
  /// along their first dimension, which they must share. The values are
  /// copied to the host once; slicing them costs no eager op.
  static Dataset from_tensor_slices(const std::vector<Tensor> &tensors);
  static Dataset from_tensor_slices(const Tensor &tensor);
  /// One element: the tensors whole (tf.data.Dataset.from_tensors), copied
  /// to the host once.
  static Dataset from_tensors(const std::vector<Tensor> &tensors);
  static Dataset from_tensors(const Tensor &tensor);
  /// Scalars start, start + step, ... below stop (above it for a negative
  /// step), int64 as in tf.data.Dataset.range; one-component elements.
  static Dataset range(int64_t stop);
  static Dataset range(int64_t start, int64_t stop, int64_t step = 1);

  /// tf.data's buffered shuffle: a buffer of `buffer_size` elements, each
  /// output drawn from it at random and its slot refilled with the next
  /// input. buffer_size >= the dataset's size gives a uniform permutation, 1
  /// gives the input order. The order follows from `seed` (a random seed
  /// when none is given); with reshuffle_each_iteration each epoch draws
  /// another order, else every epoch repeats the first one.
  Dataset shuffle(int64_t buffer_size, std::optional<uint64_t> seed = std::nullopt,
                  bool reshuffle_each_iteration = true) const;
  /// Stacks `batch_size` consecutive elements into one (a new first
  /// dimension on each component). The last, smaller batch is kept unless
  /// drop_remainder. Components must agree in shape and dtype within a batch.
  Dataset batch(int64_t batch_size, bool drop_remainder = false) const;
  /// batch()'s inverse: each element split along the first dimension of its
  /// components, which they must share (an element whose first dimension is
  /// 0 gives none). The cardinality becomes unknown, as in tf.data.
  Dataset unbatch() const;
  /// Applies `fn` to each element (lazily, on the thread that produces it:
  /// the prefetch thread after prefetch()).
  Dataset map(std::function<Element(const Element &)> fn) const;
  /// The elements for which `predicate` is true (tf.data's filter; the
  /// cardinality becomes unknown).
  Dataset filter(std::function<bool(const Element &)> predicate) const;
  /// All but the first `count` elements (none of them for count = -1).
  Dataset skip(int64_t count) const;
  /// The first `count` elements (all of them for count = -1).
  Dataset take(int64_t count) const;
  /// Elements index, index + num_shards, index + 2 num_shards, ...
  /// (tf.data's shard): in data-parallel training, each process reads its
  /// own part of the data with shard(world_size(), rank()). Shard before
  /// shuffling or batching, as tf.data advises, so that the shards are
  /// disjoint and cover the input.
  Dataset shard(int64_t num_shards, int64_t index) const;
  /// The dataset `count` times over; -1 repeats it forever. Each repetition is
  /// a new epoch of the input (a shuffle inside it reshuffles).
  Dataset repeat(int64_t count = -1) const;
  /// Produces up to `buffer_size` elements ahead on a background thread while
  /// the consumer works. An exception there reaches the consumer at the
  /// element where it happened; leaving the loop early stops the thread.
  Dataset prefetch(int64_t buffer_size = AUTOTUNE) const;
  /// tf.data.experimental.prefetch_to_device: prefetch(buffer_size) whose
  /// thread also stages each element's tensors in page-locked memory
  /// (Tensor::pin_memory) and queues their copies to `device`, so that the
  /// next batches travel to the GPU while the current step runs. The last
  /// transformation of a pipeline: its elements live on `device`. On the
  /// CPU it is prefetch(buffer_size).
  Dataset prefetch_to_device(const Device &device, int64_t buffer_size = AUTOTUNE) const;

  /// The number of elements, or INFINITE_CARDINALITY / UNKNOWN_CARDINALITY.
  int64_t cardinality() const;

  /// An input iterator over one epoch. Copies share the epoch, as copies of
  /// std::istream_iterator share their stream.
  class Iterator {
  public:
    using iterator_category = std::input_iterator_tag;
    using value_type = Element;
    using difference_type = std::ptrdiff_t;
    using pointer = const Element *;
    using reference = const Element &;

    Iterator() = default;
    const Element &operator*() const;
    const Element *operator->() const { return &**this; }
    Iterator &operator++();
    void operator++(int) { ++*this; }
    friend bool operator==(const Iterator &it, std::default_sentinel_t) { return it.done(); }

  private:
    friend class Dataset;
    struct State;
    explicit Iterator(std::shared_ptr<State> state) : state_(std::move(state)) {}
    bool done() const;
    std::shared_ptr<State> state_;
  };

  /// Starts a new epoch (and for prefetch its thread).
  Iterator begin() const;
  std::default_sentinel_t end() const { return {}; }

  /// Internal: a dataset made of one stage.
  explicit Dataset(std::shared_ptr<const detail::Node> node) : node_(std::move(node)) {}

private:
  std::shared_ptr<const detail::Node> node_;
};

//===----------------------------------------------------------------------===//
// IDX files (MNIST's format)
//===----------------------------------------------------------------------===//

/// Reads an IDX file, plain or gzip-compressed (told apart by gzip's magic
/// bytes). IDX types map to ember's dtypes: unsigned byte (0x08), signed byte
/// (0x09), short (0x0B) and int (0x0C) give int32, since ember has no 8- or
/// 16-bit integers; float (0x0D) float32; double (0x0E) float64. Throws
/// ember::IOError naming the file for a missing or unreadable one, a wrong
/// magic number, an unknown type code, truncated data or bytes after it.
Tensor read_idx(const std::string &path);

/// A dataset split as keras.datasets.*.load_data returns it, which structured
/// bindings unpack: `auto [x_train, y_train, x_test, y_test] = load_data();`.
struct ImageData {
  Tensor x_train, y_train, x_test, y_test;
};

namespace fashion_mnist {
/// Loads Fashion-MNIST from `dir`, which holds {train,t10k}-images-idx3-ubyte
/// and {train,t10k}-labels-idx1-ubyte (each may end in .gz); the default is
/// where Debian's dataset-fashion-mnist package puts them. Unlike Keras's
/// uint8 [N, 28, 28] images, x_* are float32 [N, 28, 28, 1] in [0, 1]
/// (pixel / 255); y_* are int64 [N] class ids 0..9. Throws ember::IOError if
/// a file is missing or malformed, or images and labels differ in number.
ImageData load_data(const std::string &dir = "/usr/share/datasets/fashion-mnist");
} // namespace fashion_mnist

namespace mnist {
/// MNIST's digits, from the same four files in `dir` (as fashion_mnist).
ImageData load_data(const std::string &dir);
} // namespace mnist

} // namespace ember::data

#endif // EMBER_DATA_H
