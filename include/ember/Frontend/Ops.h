//===- Ops.h - ember's eager operations --------------------------*- C++ -*-===//
//
// Every op runs at once: the dispatcher looks up (or compiles, once) the
// kernel for the op's signature and calls it. Binary ops broadcast with
// numpy's rules; a C++ scalar takes the tensor's dtype (a floating-point
// scalar with an integer or bool tensor is an error, even 2.0, as in
// TensorFlow: C++ would truncate 1.5 to 1); two tensors of different dtypes
// are an error until one is cast. Errors throw ember::OpError
// naming the op, the shapes or dtypes and the caller's file and line.
//
// Scatters put updates back where a gather takes them from:
//   ember::Tensor x = ember::zeros({4});
//   ember::Tensor at({1, 3, 1});
//   ember::Tensor u({1.f, 2.f, 3.f});
//   ember::Tensor sums = ember::scatter_add(x, at, u);    // [0 4 0 2]
//   ember::Tensor last = ember::scatter_update(x, at, u); // [0 3 0 2] (the last update wins)
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_OPS_H
#define EMBER_OPS_H

#include "ember/Frontend/Tensor.h"

#include <cstdint>
#include <climits>
#include <source_location>
#include <type_traits>
#include <string>
#include <vector>

namespace ember {


/// Whether ops run at once on this thread: true, except while an
/// ember::function traces (its body, and the cond / while_loop / fori_loop
/// bodies traced in it), as tf.executing_eagerly() is false inside a
/// tf.function. With run_functions_eagerly(true) function bodies run eagerly,
/// so it is true there.
bool executing_eagerly();

/// TensorFlow's tf.init_scope: while it lives, ops on this thread run at
/// once even inside a traced function, for values the trace needs while it
/// traces (a size computed from a static shape, a folded constant). Symbolic
/// tensors cannot be used inside it.
class InitScope {
public:
  InitScope();
  ~InitScope();
  InitScope(const InitScope &) = delete;
  InitScope &operator=(const InitScope &) = delete;

private:
  void *previous_;
};

//===----------------------------------------------------------------------===//
// Creation
//===----------------------------------------------------------------------===//

Tensor zeros(const Shape &shape, DType dtype = DType::Float32);
Tensor ones(const Shape &shape, DType dtype = DType::Float32);
Tensor full(const Shape &shape, Scalar value, DType dtype = DType::Float32);
/// The n x n identity matrix (tf.eye).
Tensor eye(int64_t n, DType dtype = DType::Float32);
/// numpy arange: start, start + step, ... below `stop` (above, for step < 0).
Tensor arange(Scalar start, Scalar stop, Scalar step = 1, DType dtype = DType::Int32);
/// Each element's index along `dimension`, in x's shape (JAX's
/// lax.broadcasted_iota with x's shape): inside a function traced with None
/// dims, a None dim's size is read when the function runs. Numbers only (no
/// bool).
Tensor iota_like(const Tensor &x, int64_t dimension, DType dtype = DType::Int64, EMBER_LOC);
/// Uniform in [minval, maxval); the same seed gives the same values. As
/// tf.random.uniform: floating-point samples stay below maxval once rounded
/// to `dtype` (bounds it cannot hold are an error); integer dtypes give
/// whole numbers in [minval, maxval), which must be whole and minval < maxval.
Tensor random_uniform(const Shape &shape, uint64_t seed, double minval = 0, double maxval = 1,
                      DType dtype = DType::Float32);
/// Normal with `mean` and `stddev` (floating-point dtypes); the same seed
/// gives the same values.
Tensor random_normal(const Shape &shape, uint64_t seed, double mean = 0, double stddev = 1,
                     DType dtype = DType::Float32);

//===----------------------------------------------------------------------===//
// Elementwise
//===----------------------------------------------------------------------===//

Tensor add(const Tensor &a, const Tensor &b, EMBER_LOC);
Tensor sub(const Tensor &a, const Tensor &b, EMBER_LOC);
Tensor mul(const Tensor &a, const Tensor &b, EMBER_LOC);
/// Division in the dtype of the operands (ember.div): integers truncate
/// toward zero (C++), floats are IEEE (x / 0 is inf or nan). The operator `/`
/// is truediv instead. Integer division by zero, or of the most negative integer by
/// -1, throws OpError ("integer division by zero"), eagerly and from traced
/// code, as TensorFlow does; so do floordiv and mod (mod by -1 is 0).
Tensor div(const Tensor &a, const Tensor &b, EMBER_LOC);
/// True division, the operator `/` (TensorFlow's tf.math.truediv, Python 3's
/// `/`): integer tensors (int32, int64) divide as float64, which is exact for
/// int32, so `Tensor({1, 2}) / 2` is float64 [0.5, 1]; integers divided by
/// zero follow the float rules (inf, nan), without an error. Floats as div.
/// (TensorFlow's choice; PyTorch gives its default float32.)
Tensor truediv(const Tensor &a, const Tensor &b, EMBER_LOC);
/// numpy `//`: floor(a / b).
Tensor floordiv(const Tensor &a, const Tensor &b, EMBER_LOC);
/// numpy `%`: remainder with the sign of the divisor.
Tensor mod(const Tensor &a, const Tensor &b, EMBER_LOC);
Tensor pow(const Tensor &a, const Tensor &b, EMBER_LOC);
Tensor maximum(const Tensor &a, const Tensor &b, EMBER_LOC);
Tensor minimum(const Tensor &a, const Tensor &b, EMBER_LOC);
/// Logical for bool, bitwise for integers.
Tensor logical_and(const Tensor &a, const Tensor &b, EMBER_LOC);
Tensor logical_or(const Tensor &a, const Tensor &b, EMBER_LOC);
Tensor logical_not(const Tensor &x, EMBER_LOC);

Tensor equal(const Tensor &a, const Tensor &b, EMBER_LOC);
Tensor not_equal(const Tensor &a, const Tensor &b, EMBER_LOC);
Tensor less(const Tensor &a, const Tensor &b, EMBER_LOC);
Tensor less_equal(const Tensor &a, const Tensor &b, EMBER_LOC);
Tensor greater(const Tensor &a, const Tensor &b, EMBER_LOC);
Tensor greater_equal(const Tensor &a, const Tensor &b, EMBER_LOC);
/// `condition ? a : b` elementwise, broadcasting all three.
Tensor where(const Tensor &condition, const Tensor &a, const Tensor &b, EMBER_LOC);
/// A number for either branch takes the other's dtype, as in arithmetic
/// (`where(x > 0.f, x, 1.0f)`, jnp.where(x > 0, x, 1.0)); one the dtype
/// cannot hold (1.5 for an int32 branch) is refused.
Tensor where(const Tensor &condition, const Tensor &a, Scalar b, EMBER_LOC);
Tensor where(const Tensor &condition, Scalar a, const Tensor &b, EMBER_LOC);

Tensor neg(const Tensor &x, EMBER_LOC);
Tensor abs(const Tensor &x, EMBER_LOC);
Tensor exp(const Tensor &x, EMBER_LOC);
Tensor log(const Tensor &x, EMBER_LOC);
Tensor log1p(const Tensor &x, EMBER_LOC);
/// The error function (tf.math.erf), exact GELU's: x * (1 + erf(x / sqrt 2)) / 2.
Tensor erf(const Tensor &x, EMBER_LOC);
Tensor sqrt(const Tensor &x, EMBER_LOC);
Tensor rsqrt(const Tensor &x, EMBER_LOC);
Tensor tanh(const Tensor &x, EMBER_LOC);
Tensor sigmoid(const Tensor &x, EMBER_LOC);
Tensor relu(const Tensor &x, EMBER_LOC);
Tensor square(const Tensor &x, EMBER_LOC);
Tensor sign(const Tensor &x, EMBER_LOC);
Tensor sin(const Tensor &x, EMBER_LOC);
Tensor cos(const Tensor &x, EMBER_LOC);
/// Inverse trigonometric functions (tf.math.asin, acos, atan): NaN outside
/// [-1, 1] for asin and acos.
Tensor asin(const Tensor &x, EMBER_LOC);
Tensor acos(const Tensor &x, EMBER_LOC);
Tensor atan(const Tensor &x, EMBER_LOC);
/// numpy astype: bool -> 0/1, number -> bool is x != 0, float -> int truncates
/// toward zero; floats beyond the integer type saturate to its limits and NaN
/// gives 0 (XLA's rule; numpy's result there depends on the machine).
Tensor cast(const Tensor &x, DType dtype, EMBER_LOC);

//===----------------------------------------------------------------------===//
// Shapes
//===----------------------------------------------------------------------===//

/// numpy broadcast_to.
Tensor broadcast_to(const Tensor &x, const Shape &shape, EMBER_LOC);
/// Row-major reshape; one dim may be -1 (inferred).
Tensor reshape(const Tensor &x, const std::vector<int64_t> &shape, EMBER_LOC);
/// Row-major reshape to `shape`, whose kNone dims take the sizes of like's
/// dims at the same positions (read when the function runs where those are
/// None): `reshape(y, {kNone, kNone, units}, x)` splits a sequence batch
/// `[B * T, units]` back into x's `[B, T, units]` (TensorFlow's
/// `tf.reshape(y, tf.concat([tf.shape(x)[:2], [units]], 0))`). Element
/// counts are checked when the function is called.
Tensor reshape(const Tensor &x, const std::vector<int64_t> &shape, const Tensor &like, EMBER_LOC);
/// Result dim i is x's dim perm[i]; an empty perm reverses the dims.
Tensor transpose(const Tensor &x, const std::vector<int64_t> &perm = {}, EMBER_LOC);
// kNone (Tensor.h) is an omitted slice bound, Python's None: slice(x, {-3},
// {kNone}) is x[-3:], slice(x, {kNone}, {kNone}, {-1}) is x[::-1].
/// x[start:limit:stride] per dim, with Python's semantics: negative bounds
/// count from the end, bounds out of range clamp (an empty range is an empty
/// dim), a negative stride walks backwards (stride defaults to 1; 0 is an
/// error). Fewer entries than dims slice the leading dims and keep the rest.
/// A None dim (traced with an input signature) is not clamped: its size at
/// the call must hold the bounds (else the call raises, naming the slice),
/// a start counted from the end needs a limit counted from the end (x[-3:],
/// x[-3:-1]), a slice to a limit from the end (x[1:], x[1:-1]) takes step 1.
Tensor slice(const Tensor &x, const std::vector<int64_t> &start,
             const std::vector<int64_t> &limit, const std::vector<int64_t> &stride = {},
             EMBER_LOC);
Tensor concat(const std::vector<Tensor> &tensors, int64_t axis = 0, EMBER_LOC);
/// numpy take: indices (int32/int64, negative counts from the end) along axis.
/// An index out of range throws OpError, eagerly and from traced code.
Tensor gather(const Tensor &x, const Tensor &indices, int64_t axis = 0, EMBER_LOC);
/// The inverse of gather, as TensorFlow's scatter_update family (rows,
/// axis 0) and JAX's x.at[..., indices].set/add/...: x with `updates` (of
/// gather(x, indices, axis)'s shape) put at indices along axis, x itself
/// unchanged. scatter_update replaces (of updates to one element, the last
/// in row-major order wins); the others combine each update with the element
/// it lands on. Differentiable: scatter_update and scatter_add. An index out
/// of range throws OpError, eagerly and from traced code. Example at the top.
Tensor scatter_update(const Tensor &x, const Tensor &indices, const Tensor &updates,
                      int64_t axis = 0, EMBER_LOC);
Tensor scatter_add(const Tensor &x, const Tensor &indices, const Tensor &updates, int64_t axis = 0,
                   EMBER_LOC);
Tensor scatter_mul(const Tensor &x, const Tensor &indices, const Tensor &updates, int64_t axis = 0,
                   EMBER_LOC);
Tensor scatter_max(const Tensor &x, const Tensor &indices, const Tensor &updates, int64_t axis = 0,
                   EMBER_LOC);
Tensor scatter_min(const Tensor &x, const Tensor &indices, const Tensor &updates, int64_t axis = 0,
                   EMBER_LOC);

//===----------------------------------------------------------------------===//
// Reductions (an empty axes list reduces every dim; negative axes count from
// the end)
//===----------------------------------------------------------------------===//

Tensor reduce_sum(const Tensor &x, const std::vector<int64_t> &axes = {}, bool keepdims = false,
                  EMBER_LOC);
Tensor reduce_max(const Tensor &x, const std::vector<int64_t> &axes = {}, bool keepdims = false,
                  EMBER_LOC);
Tensor reduce_min(const Tensor &x, const std::vector<int64_t> &axes = {}, bool keepdims = false,
                  EMBER_LOC);
Tensor reduce_prod(const Tensor &x, const std::vector<int64_t> &axes = {}, bool keepdims = false,
                   EMBER_LOC);
/// Integer tensors have an integer mean, the sum divided by the count and
/// truncated toward zero (as TensorFlow); cast first for a float mean.
Tensor reduce_mean(const Tensor &x, const std::vector<int64_t> &axes = {}, bool keepdims = false,
                   EMBER_LOC);
/// Index (int64) of the first maximum along `axis`; an empty axis throws
/// OpError (it has no maximum).
Tensor argmax(const Tensor &x, int64_t axis, bool keepdims = false, EMBER_LOC);
/// The sizes of x's dims as a 1-D int64 tensor (TensorFlow's tf.shape):
/// inside a function traced with None dims, a None dim's size is read when
/// the function runs (x.shape() has kNone there).
Tensor shape(const Tensor &x, EMBER_LOC);

//===----------------------------------------------------------------------===//
// Linear algebra
//===----------------------------------------------------------------------===//

/// [m,k] x [k,n]; batched with equal leading dims.
Tensor matmul(const Tensor &a, const Tensor &b, EMBER_LOC);

//===----------------------------------------------------------------------===//
// Operators. The left operand converts to `Located`, which records the
// caller's source line for error messages (operators cannot take a default
// source_location argument themselves). `/` is truediv (integers give
// float64), `%` is mod; floordiv has no operator (C++ has no `//`). A C++
// number takes the tensor's dtype; a floating-point one with an integer or
// bool tensor throws OpError (`int_tensor + 1.5`, also `+ 2.0`), as TensorFlow.
//===----------------------------------------------------------------------===//

struct Located {
  Located(const Tensor &tensor, SourceLoc loc = SourceLoc::current())
      : tensor(tensor), loc(loc) {}
  // Variables (and anything else that converts to a Tensor) read their value.
  template <typename T, typename = std::enable_if_t<std::is_convertible_v<const T &, Tensor> &&
                                                    !std::is_same_v<T, Tensor>>>
  Located(const T &value, SourceLoc loc = SourceLoc::current())
      : tensor(Tensor(value)), loc(loc) {}
  Tensor tensor;
  SourceLoc loc;
};

#define EMBER_DECLARE_BINARY_OPERATOR(OP)                                                     \
  Tensor operator OP(Located a, const Tensor &b);                                              \
  Tensor operator OP(Located a, Scalar b);                                                     \
  Tensor operator OP(Scalar a, Located b);
EMBER_DECLARE_BINARY_OPERATOR(+)
EMBER_DECLARE_BINARY_OPERATOR(-)
EMBER_DECLARE_BINARY_OPERATOR(*)
EMBER_DECLARE_BINARY_OPERATOR(/)
EMBER_DECLARE_BINARY_OPERATOR(%)
EMBER_DECLARE_BINARY_OPERATOR(==)
EMBER_DECLARE_BINARY_OPERATOR(!=)
EMBER_DECLARE_BINARY_OPERATOR(<)
EMBER_DECLARE_BINARY_OPERATOR(<=)
EMBER_DECLARE_BINARY_OPERATOR(>)
EMBER_DECLARE_BINARY_OPERATOR(>=)
EMBER_DECLARE_BINARY_OPERATOR(&)
EMBER_DECLARE_BINARY_OPERATOR(|)
#undef EMBER_DECLARE_BINARY_OPERATOR
Tensor operator-(Located x);
/// numpy `~`: logical not for bool, bitwise not for integers.
Tensor operator~(Located x);

/// Prints `message` and the values of `x` (numpy style) now; inside an
/// ember::function, every time the compiled function runs (tf.print). Plain
/// C++ printing in a traced function runs only once, while tracing.
void print(const Tensor &x, const std::string &message = "", EMBER_LOC);

//===----------------------------------------------------------------------===//
// The kernel cache
//===----------------------------------------------------------------------===//

struct KernelCacheStats {
  uint64_t hits = 0;         ///< calls served by a cached kernel
  uint64_t misses = 0;       ///< calls that compiled (or loaded) a kernel
  uint64_t disk_loads = 0;   ///< ... of which loaded from the disk cache
  uint64_t failures = 0;     ///< calls refused (invalid op calls)
  uint64_t kernels = 0;      ///< compiled kernels in the cache (all kinds)
  uint64_t generic_kernels = 0; ///< shape-generic kernels (`?` sizes), one per op and rank
  uint64_t generic_shapes = 0;  ///< shapes served by a generic kernel (no compile of their own)
  uint64_t specializations = 0; ///< hot shapes compiled for their sizes and swapped in
  uint64_t background_compiles = 0; ///< compiles on the background thread (finished)
  uint64_t tape_compiles = 0; ///< GradientTape derivatives compiled (one per structure)
  double compile_seconds = 0; ///< time calls spent compiling
  double background_compile_seconds = 0; ///< time the background thread spent compiling
};
/// Counters of the eager kernel cache (all threads). Compiled kernels are also
/// kept on disk (see README: EMBER_CACHE_DIR), so a later process loads them.
///
/// Elementwise ops, broadcasts, reductions, matmuls and transposes compile one
/// shape-generic kernel for every size above 1 (sizes 0 and 1 decide
/// broadcasting and stay fixed): a new row count compiles nothing. On the
/// GPU too, but for matmuls (a kernel per shape: tensor cores and TF32 take
/// static sizes).
/// EMBER_SHAPE_GENERIC=0 compiles every shape instead.
KernelCacheStats kernel_cache_stats();

/// Hot-shape specialization: a shape served by a generic kernel is compiled
/// for its own sizes on a background thread once it has been called `calls`
/// times (100 by default; 0 turns it off; at most 8 shapes per generic kernel;
/// after its first, a call counts one per 64K elements of its largest
/// tensor, so a shape of 16M elements is hot at its second call: generic
/// kernels run on one thread)
/// and swapped in when ready; no call waits for it. The initial value comes
/// from EMBER_HOT_SHAPE_CALLS. A program may return from main or call exit
/// at any time: when the main thread ends, the compile in flight finishes
/// first and queued ones are dropped (exit called from another thread waits
/// for it too, but may still meet statics LLVM made during that compile:
/// call finish_background_compiles() first there). A fork waits for the
/// background compile in flight; the child drops the queue.
void set_hot_shape_calls(uint32_t calls);
/// The count set_hot_shape_calls set (or the default).
uint32_t hot_shape_calls();

/// Blocks until every background compile queued so far has finished.
void finish_background_compiles();

} // namespace ember

#endif // EMBER_OPS_H
