//===- PlanDynamicDims.cpp - how a function with ? dims is called ---------===//
//
// A function traced with `?` dims (an input signature with None) is called
// with concrete tensors: before the call, the caller checks that the sizes
// the ops need equal do (an elementwise op's operands, a matmul's
// contracting dims), so that compiled code never reads past a buffer, and
// it sizes the results it passes in. Both come from one pass over the
// traced ops: the dims of all values are sorted into classes of dims that
// must be equal (union-find); each class knows where its size comes from
// (an argument's dim, or a constant), and joining two classes that both
// know is a check, named by the op that joined them. The plan is written
// on the function as attributes (see the pass's description), which
// compiler::planDynamicDims reads.
//
//===----------------------------------------------------------------------===//

#include "ember/Transforms/Passes.h"

#include "ember/Dialect/Ember/IR/EmberOps.h"
#include "ember/Support/DimPlan.h"

#include "mlir/Dialect/Arith/IR/Arith.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/Dialect/Utils/StaticValueUtils.h"

#include "llvm/ADT/DenseMap.h"

#include <functional>
#include <numeric>
#include <optional>

namespace mlir::ember {
#define GEN_PASS_DEF_PLANDYNAMICDIMSPASS
#include "ember/Transforms/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;
using ::ember::DimCheck;
using ::ember::DimPlan;
using ::ember::DimSource;
using ::ember::isConstant;
using ::ember::isPlain;
using mlir::ember::knownElements;

namespace {

class DimClasses {
public:
  /// The class of `value`'s dim `d` (a new one, the first time); a static
  /// dim's class knows its size.
  explicit DimClasses(Block *arguments) : arguments_(arguments) {}

  int classOf(Value value, int64_t d) {
    auto [it, inserted] = ids_.try_emplace({value, d}, static_cast<int>(parent_.size()));
    if (inserted) {
      parent_.push_back(it->second);
      std::optional<DimSource> source;
      auto type = cast<RankedTensorType>(value.getType());
      if (!type.isDynamicDim(d))
        source = DimSource{-1, 0, type.getDimSize(d)};
      else if (auto argument = dyn_cast<BlockArgument>(value);
               argument && argument.getOwner() == arguments_)
        source = DimSource{static_cast<int>(argument.getArgNumber()), static_cast<int>(d), 0};
      sources_.push_back(source);
    }
    return find(it->second);
  }

  /// `a` and `b` must be equal: one class; a check when both knew their size
  /// (two different constants cannot happen: the verifiers refuse them).
  void join(int a, int b, Operation *op, DimPlan &plan) {
    a = find(a);
    b = find(b);
    if (a == b)
      return;
    if (sources_[a] && sources_[b])
      check(*sources_[a], *sources_[b], op, plan);
    if (!sources_[a])
      sources_[a] = sources_[b];
    parent_[b] = a;
  }

  /// Class `c`'s size is `source` (computed from other classes' sizes by
  /// `op`): its source, or a check when it already has one.
  void derive(int c, const DimSource &source, Operation *op, DimPlan &plan) {
    c = find(c);
    if (sources_[c])
      check(*sources_[c], source, op, plan);
    else
      sources_[c] = source;
  }

  std::optional<DimSource> sourceOf(Value value, int64_t d) { return sources_[classOf(value, d)]; }

private:
  /// `x` and `y` must be equal (two different constants cannot be: the
  /// verifiers refuse them); the same expression on both sides always is
  /// (4 * dim 1 against 4 * dim 1, met where a reshape's size comes back).
  static void check(const DimSource &x, const DimSource &y, Operation *op, DimPlan &plan) {
    if ((isConstant(x) && isConstant(y) && x.size == y.size) || sameSize(x, y))
      return;
    plan.checks.push_back(
        DimCheck{x, y, op->getName().getStringRef().str(), mlir::ember::sourcePosition(op)});
  }
  int find(int id) {
    while (parent_[id] != id)
      id = parent_[id] = parent_[parent_[id]];
    return id;
  }
  Block *arguments_; // the function's entry block
  llvm::DenseMap<std::pair<Value, int64_t>, int> ids_;
  std::vector<int> parent_;
  std::vector<std::optional<DimSource>> sources_;
};

bool hasDynamicDim(Type type) {
  auto shaped = dyn_cast<ShapedType>(type);
  return shaped && !shaped.hasStaticShape();
}

int64_t rankOf(Value value) { return cast<RankedTensorType>(value.getType()).getRank(); }

int64_t firstDynamicDim(RankedTensorType type) {
  for (int64_t d = 0; d < type.getRank(); ++d)
    if (type.isDynamicDim(d))
      return d;
  return -1;
}

/// `source` times `scale` over `divisor` (a fraction in lowest terms), or
/// nothing for a sum.
std::optional<DimSource> scaled(DimSource source, int64_t scale, int64_t divisor) {
  if (!source.plus.empty())
    return std::nullopt;
  if (source.argument < 0) { // a constant: exact when the reshape's check holds
    source.size = source.size * scale / divisor;
    return source;
  }
  source.scale *= scale;
  source.divisor *= divisor;
  int64_t common = std::gcd(source.scale, source.divisor);
  source.scale /= common;
  source.divisor /= common;
  return source;
}

/// The product of `factors` times `known` as one size: each factor an
/// argument's dim or a constant, or such a product scaled (a merge of
/// merges); none where one is a sum (or a single one is).
std::optional<DimSource> productOf(const std::vector<DimSource> &factors, int64_t known) {
  if (factors.size() == 1)
    return scaled(factors.front(), known, 1);
  std::vector<DimSource> arguments;
  int64_t divisor = 1;
  for (const DimSource &factor : factors) {
    if (!factor.plus.empty())
      return std::nullopt;
    if (factor.argument < 0) { // a constant (never scaled: see evaluate)
      known *= factor.size;
      continue;
    }
    known *= factor.scale;
    divisor *= factor.divisor;
    arguments.push_back(DimSource{factor.argument, factor.dim, 0});
    arguments.insert(arguments.end(), factor.times.begin(), factor.times.end());
  }
  if (arguments.empty())
    return DimSource{-1, 0, known};
  llvm::sort(arguments, [](const DimSource &a, const DimSource &b) {
    return std::pair(a.argument, a.dim) < std::pair(b.argument, b.dim);
  });
  DimSource product = arguments.front();
  product.times.assign(arguments.begin() + 1, arguments.end());
  return scaled(product, known, divisor);
}

/// The plan of `function` (which has `?` dims in its arguments); false
/// with `error` set, and `failing` the op where a `?` dim meets one it
/// cannot follow (else null).
bool planDynamicDims(func::FuncOp function, DimPlan &plan, std::string &error,
                     Operation *&failing) {
  failing = nullptr;
  plan = {};
  DimClasses classes(&function.getBody().front());
  auto same = [&](Value a, int64_t da, Value b, int64_t db, Operation *op) {
    classes.join(classes.classOf(a, da), classes.classOf(b, db), op, plan);
  };
  // The factors of a size operand (a tensor.dim, a constant, or a product of
  // them, arith.muli) appended to `factors`; false where it is none of these.
  std::function<bool(Value, std::vector<DimSource> &)> factorsOf =
      [&](Value size, std::vector<DimSource> &factors) {
        if (auto dim = size.getDefiningOp<tensor::DimOp>()) {
          std::optional<int64_t> index = dim.getConstantIndex();
          std::optional<DimSource> source =
              index ? classes.sourceOf(dim.getSource(), *index) : std::nullopt;
          if (source)
            factors.push_back(*source);
          return source.has_value();
        }
        if (std::optional<int64_t> constant = getConstantIntValue(size)) {
          factors.push_back(DimSource{-1, 0, *constant});
          return true;
        }
        auto product = size.getDefiningOp<arith::MulIOp>();
        return product && factorsOf(product.getLhs(), factors) &&
               factorsOf(product.getRhs(), factors);
      };
  // `out`'s `?` dims are `sizes` in order: each a tensor.dim of a value (the
  // same size), or a product of such and constants (a size derived).
  auto sizedBy = [&](Value out, ValueRange sizes, Operation *op) {
    auto outType = cast<RankedTensorType>(out.getType());
    for (int64_t d = 0, next = 0; d < rankOf(out); ++d) {
      if (!outType.isDynamicDim(d))
        continue;
      Value size = sizes[next++];
      auto dim = size.getDefiningOp<tensor::DimOp>();
      if (std::optional<int64_t> index = dim ? dim.getConstantIndex() : std::nullopt) {
        same(out, d, dim.getSource(), *index, op);
        continue;
      }
      std::vector<DimSource> factors;
      std::optional<DimSource> product =
          factorsOf(size, factors) ? productOf(factors, 1) : std::nullopt;
      if (!product) {
        failing = op;
        error = "takes a size that is not a tensor's dim or a product of them (or whose "
                "factors are sums): not yet";
        return WalkResult::interrupt();
      }
      classes.derive(classes.classOf(out, d), *product, op, plan);
    }
    return WalkResult::advance();
  };
  // The element count of `value` as one size: its `?` dims' sizes times its
  // known dims; none where they cannot be one.
  auto elementsOf = [&](Value value) -> std::optional<DimSource> {
    auto type = cast<RankedTensorType>(value.getType());
    std::vector<DimSource> factors;
    for (int64_t d = 0; d < type.getRank(); ++d) {
      if (!type.isDynamicDim(d))
        continue;
      std::optional<DimSource> size = classes.sourceOf(value, d);
      if (!size)
        return std::nullopt;
      factors.push_back(*size);
    }
    return productOf(factors, knownElements(type));
  };
  WalkResult walk = function.walk([&](Operation *op) -> WalkResult {
    if (op == function.getOperation() || isa<func::ReturnOp, arith::ConstantOp>(op))
      return WalkResult::advance();
    bool dynamic = llvm::any_of(op->getOperandTypes(), hasDynamicDim) ||
                   llvm::any_of(op->getResultTypes(), hasDynamicDim);
    if (isa<tensor::DimOp>(op)) // a size, read by the broadcast that uses it
      return WalkResult::advance();
    if (op->hasTrait<mlir::ember::Elementwise>()) {
      for (Value result : op->getResults())
        for (Value operand : op->getOperands())
          for (int64_t d = 0; d < rankOf(result); ++d)
            same(result, d, operand, d, op);
      return WalkResult::advance();
    }
    if (auto broadcast = dyn_cast<mlir::ember::BroadcastToOp>(op)) {
      Value in = broadcast.getOperand(), out = broadcast.getResult();
      int64_t offset = rankOf(out) - rankOf(in);
      auto inType = cast<RankedTensorType>(in.getType());
      for (int64_t d = 0; d < rankOf(in); ++d)
        if (inType.getDimSize(d) != 1) // a `?` is not broadcast: it is the result's size
          same(in, d, out, d + offset, op);
      return sizedBy(out, broadcast.getSizes(), op);
    }
    if (auto iota = dyn_cast<mlir::ember::IotaOp>(op))
      return sizedBy(iota.getResult(), iota.getSizes(), op);
    if (isa<mlir::ember::ReduceSumOp, mlir::ember::ReduceMaxOp, mlir::ember::ReduceMinOp,
            mlir::ember::ReduceProdOp, mlir::ember::ReduceMeanOp>(op)) {
      Value in = op->getOperand(0), out = op->getResult(0);
      auto axes = op->getAttrOfType<DenseI64ArrayAttr>("axes").asArrayRef();
      bool keepdims = op->hasAttr("keepdims");
      for (int64_t d = 0, at = 0; d < rankOf(in); ++d) {
        bool reduced = llvm::is_contained(axes, d);
        if (!reduced)
          same(in, d, out, at, op);
        if (!reduced || keepdims)
          ++at;
      }
      return WalkResult::advance();
    }
    if (auto argmax = dyn_cast<mlir::ember::ArgMaxOp>(op)) {
      Value in = argmax.getOperand(), out = argmax.getResult();
      int64_t axis = argmax.getAxis();
      for (int64_t d = 0, at = 0; d < rankOf(in); ++d) {
        if (d != axis)
          same(in, d, out, at, op);
        if (d != axis || argmax.getKeepdims())
          ++at;
      }
      return WalkResult::advance();
    }
    if (auto concat = dyn_cast<mlir::ember::ConcatOp>(op)) {
      // The dims other than the axis agree; along a `?` axis the result's
      // size is the sum of the inputs' (plain sizes: an argument's dim or a
      // constant).
      Value out = concat.getResult();
      int64_t axis = concat.getAxis();
      for (Value input : concat.getInputs())
        for (int64_t d = 0; d < rankOf(out); ++d)
          if (d != axis)
            same(out, d, input, d, op);
      if (!concat.getType().isDynamicDim(axis))
        return WalkResult::advance();
      // One input's size may be scaled or a sum itself (a slice's, n - 1):
      // the others' are added to it.
      std::optional<DimSource> sum;
      std::vector<DimSource> plain;
      for (Value input : concat.getInputs()) {
        std::optional<DimSource> size = classes.sourceOf(input, axis);
        if (size && isPlain(*size)) {
          plain.push_back(*size);
        } else if (size && !sum) {
          sum = *size;
        } else {
          failing = op;
          error = "concatenates along a None (`?`) dim inputs whose sizes are not an "
                  "argument's or a constant but for one (scaled or summed sizes, or a "
                  "cotangent's in a custom gradient): not yet";
          return WalkResult::interrupt();
        }
      }
      if (!sum) {
        sum = plain.front();
        plain.erase(plain.begin());
      }
      sum->plus.insert(sum->plus.end(), plain.begin(), plain.end());
      classes.derive(classes.classOf(out, axis), *sum, op, plan);
      return WalkResult::advance();
    }
    if (auto reshape = dyn_cast<mlir::ember::ReshapeOp>(op)) {
      auto in = reshape.getOperand().getType(), out = reshape.getType();
      if (in.hasStaticShape() && out.hasStaticShape())
        return WalkResult::advance();
      auto refuse = [&](std::string why) {
        failing = op;
        error = std::move(why);
        return WalkResult::interrupt();
      };
      Value operand = reshape.getOperand(), result = reshape.getResult();
      const char *unknownSizes = "reshapes `?` dims whose sizes are not known here as a product "
                                 "(a sum, or a cotangent's in a custom gradient): not yet";
      // Sizes given for the result's `?` dims (a sequence batch split back):
      // the result's dims are theirs, and the element counts must agree.
      if (!reshape.getSizes().empty()) {
        if (sizedBy(result, reshape.getSizes(), op).wasInterrupted())
          return WalkResult::interrupt();
        std::optional<DimSource> before = elementsOf(operand), after = elementsOf(result);
        if (!before || !after)
          return refuse(unknownSizes);
        if (!::ember::sameSize(*before, *after))
          plan.checks.push_back(
              DimCheck{*before, *after, "ember.reshape", mlir::ember::sourcePosition(op)});
        return WalkResult::advance();
      }
      // Else the result has at most one `?` dim (the verifier's rule): the
      // operand's element count over the result's known dims.
      int64_t inKnown = knownElements(in), outKnown = knownElements(out);
      if (inKnown == 0 || outKnown == 0)
        return refuse("reshapes `?` dims beside a known dim of size 0: not yet");
      // Several `?` dims merged (their product), or none (a constant).
      if (in.getNumDynamicDims() != 1) {
        std::optional<DimSource> elements = elementsOf(operand);
        if (!elements)
          return refuse(unknownSizes);
        if (out.hasStaticShape()) {
          plan.checks.push_back(DimCheck{*elements, DimSource{-1, 0, outKnown}, "ember.reshape",
                                         mlir::ember::sourcePosition(op)});
          return WalkResult::advance();
        }
        if (isConstant(*elements) && elements->size % outKnown != 0)
          return refuse("cannot reshape " + std::to_string(elements->size) +
                        " elements into rows of " + std::to_string(outKnown));
        DimSource rows = *scaled(*elements, 1, outKnown);
        if (rows.divisor > 1) { // the product times the scale must divide
          DimSource whole = rows;
          whole.divisor = 1;
          DimCheck divides{whole, DimSource{-1, 0, rows.divisor}, "ember.reshape",
                           mlir::ember::sourcePosition(op)};
          divides.kind = DimCheck::Kind::Divisible;
          plan.checks.push_back(divides);
        }
        classes.derive(classes.classOf(result, firstDynamicDim(out)), rows, op, plan);
        return WalkResult::advance();
      }
      int64_t n = firstDynamicDim(in);
      if (out.hasStaticShape()) { // n = outKnown / inKnown
        if (outKnown % inKnown != 0)
          return refuse("cannot reshape rows of " + std::to_string(inKnown) + " elements into " +
                        std::to_string(outKnown));
        classes.derive(classes.classOf(operand, n), DimSource{-1, 0, outKnown / inKnown}, op, plan);
        return WalkResult::advance();
      }
      if (inKnown == outKnown) {
        same(result, firstDynamicDim(out), operand, n, op);
        return WalkResult::advance();
      }
      int64_t common = std::gcd(inKnown, outKnown);
      std::optional<DimSource> size = classes.sourceOf(operand, n);
      std::optional<DimSource> elements = size ? scaled(*size, inKnown / common, 1) : std::nullopt;
      if (!elements)
        return refuse("reshapes a `?` dim whose size is not known here (a sum, or a "
                      "cotangent's in a custom gradient): not yet");
      if (int64_t divisor = outKnown / common; divisor > 1) {
        DimCheck divides{*elements, DimSource{-1, 0, divisor}, "ember.reshape",
                         mlir::ember::sourcePosition(op)};
        divides.kind = DimCheck::Kind::Divisible;
        plan.checks.push_back(divides);
      }
      classes.derive(classes.classOf(result, firstDynamicDim(out)),
                     *scaled(*elements, 1, outKnown / common), op, plan);
      return WalkResult::advance();
    }
    if (isa<mlir::ember::ShapeOfOp>(op)) // reads sizes, constrains none
      return WalkResult::advance();
    if (auto transpose = dyn_cast<mlir::ember::TransposeOp>(op)) {
      for (auto [d, from] : llvm::enumerate(transpose.getPermutation()))
        same(transpose.getResult(), d, transpose.getOperand(), from, op);
      return WalkResult::advance();
    }
    if (auto matmul = dyn_cast<mlir::ember::MatmulOp>(op)) {
      Value lhs = matmul.getLhs(), rhs = matmul.getRhs(), out = matmul.getResult();
      int64_t rank = rankOf(out);
      for (int64_t d = 0; d < rank - 2; ++d) {
        same(lhs, d, rhs, d, op);
        same(out, d, lhs, d, op);
      }
      same(lhs, rank - 1, rhs, rank - 2, op);
      same(out, rank - 2, lhs, rank - 2, op);
      same(out, rank - 1, rhs, rank - 1, op);
      return WalkResult::advance();
    }
    // Windows: the batch and the channels (their verifiers keep heights
    // and widths static).
    if (auto conv = dyn_cast<mlir::ember::Conv2DOp>(op)) {
      same(conv.getResult(), 0, conv.getInput(), 0, op);
      same(conv.getInput(), 3, conv.getFilter(), 2, op);
      same(conv.getResult(), 3, conv.getFilter(), 3, op);
      return WalkResult::advance();
    }
    if (isa<mlir::ember::MaxPool2DOp, mlir::ember::AvgPool2DOp, mlir::ember::MaxPool2DGatherOp,
            mlir::ember::MaxPool2DGradOp, mlir::ember::AvgPool2DGradOp>(op)) {
      Value in = op->getOperand(0), out = op->getResult(0);
      for (int64_t d : {0, 3})
        same(out, d, in, d, op);
      // The values gathered, or the cotangent: the input's batch and channels.
      if (op->getNumOperands() > 1)
        for (int64_t d : {0, 3})
          same(op->getOperand(1), d, in, d, op);
      return WalkResult::advance();
    }
    // A custom gradient is its value; its backward region takes the
    // result's cotangent and yields one for each input.
    if (auto custom = dyn_cast<mlir::ember::CustomGradientOp>(op)) {
      Value out = custom.getResult();
      for (int64_t d = 0; d < rankOf(out); ++d) {
        same(out, d, custom.getValue(), d, op);
        same(custom.getBackward().front().getArgument(0), d, out, d, op);
      }
      return WalkResult::advance();
    }
    if (auto yield = dyn_cast<mlir::ember::YieldOp>(op)) {
      auto custom = cast<mlir::ember::CustomGradientOp>(op->getParentOp());
      for (auto [cotangent, input] : llvm::zip(yield.getOperands(), custom.getInputs()))
        for (int64_t d = 0; d < rankOf(input); ++d)
          same(cotangent, d, input, d, op);
      return WalkResult::advance();
    }
    // A gather's result (a scatter's updates): the operand's dims around the
    // axis, the indices' in its place.
    auto gathered = [&](Value out, Value in, Value indices, int64_t axis) {
      int64_t indexRank = rankOf(indices);
      for (int64_t d = 0; d < rankOf(out); ++d) {
        if (d < axis)
          same(out, d, in, d, op);
        else if (d < axis + indexRank)
          same(out, d, indices, d - axis, op);
        else
          same(out, d, in, d - indexRank + 1, op);
      }
    };
    if (auto gather = dyn_cast<mlir::ember::GatherOp>(op)) {
      gathered(gather.getResult(), gather.getOperand(), gather.getIndices(), gather.getAxis());
      return WalkResult::advance();
    }
    if (auto scatter = dyn_cast<mlir::ember::ScatterOp>(op)) {
      // The operand's dims; the updates' are gather's result dims.
      Value in = scatter.getOperand();
      for (int64_t d = 0; d < rankOf(in); ++d)
        same(scatter.getResult(), d, in, d, op);
      gathered(scatter.getUpdates(), in, scatter.getIndices(), scatter.getAxis());
      return WalkResult::advance();
    }
    if (auto slice = dyn_cast<mlir::ember::SliceOp>(op)) {
      // Along a `?` dim of size n: n must hold the bounds; a `?` result is
      // n plus a constant (see dynamicSliceBounds).
      Value in = slice.getOperand(), out = slice.getResult();
      for (int64_t d = 0; d < rankOf(out); ++d) {
        if (!slice.getOperand().getType().isDynamicDim(d))
          continue;
        std::string why;
        std::optional<mlir::ember::DynamicSliceBounds> bounds = mlir::ember::dynamicSliceBounds(
            slice.getStart()[d], slice.getLimit()[d], slice.getStride()[d], why);
        if (!bounds) {
          error = "internal error: a slice the verifier refuses: " + why;
          return WalkResult::interrupt();
        }
        if (bounds->whole()) {
          same(out, d, in, d, op); // sliced whole
          continue;
        }
        std::optional<DimSource> size = classes.sourceOf(in, d);
        if (!size) {
          failing = op;
          error = "slices in part a None (`?`) dim whose size is not known here (a cotangent's "
                  "in a custom gradient): not yet";
          return WalkResult::interrupt();
        }
        if (bounds->leastSize > 0) {
          DimCheck holds{*size, DimSource{-1, 0, bounds->leastSize}, "ember.slice",
                         mlir::ember::sourcePosition(op)};
          holds.kind = DimCheck::Kind::AtLeast;
          plan.checks.push_back(holds);
        }
        if (bounds->sizeFromDim) {
          DimSource sum = *size;
          sum.plus.push_back(DimSource{-1, 0, bounds->size});
          classes.derive(classes.classOf(out, d), sum, op, plan);
        }
      }
      return WalkResult::advance();
    }
    if (!dynamic)
      return WalkResult::advance();
    failing = op;
    error = "does not take None (`?`) dims yet: only elementwise ops, broadcasts, reductions, "
            "argmax, matmuls, transposes, reshapes, gathers, concatenations, convolutions, "
            "poolings, slices and iotas do";
    return WalkResult::interrupt();
  });
  if (walk.wasInterrupted())
    return false;
  auto returned = cast<func::ReturnOp>(function.getBody().front().getTerminator());
  for (Value result : returned.getOperands()) {
    plan.resultDims.emplace_back();
    for (int64_t d = 0; d < rankOf(result); ++d) {
      std::optional<DimSource> source = classes.sourceOf(result, d);
      if (!source) {
        error = "internal error: the size of a result's dim " + std::to_string(d) +
                " comes from no argument";
        return false;
      }
      plan.resultDims.back().push_back(*source);
    }
  }
  return true;
}

/// `source`'s words (compiler::dimPlanOf reads them): a plain size as
/// (argument, dim, size); else (-2, scale, divisor, terms added), or with
/// factors (-3, scale, divisor, terms added, factors), then the plain base,
/// the factors and the terms added, each as a plain size.
void appendSource(SmallVectorImpl<int64_t> &words, const DimSource &source) {
  if (isPlain(source)) {
    words.append({source.argument, source.dim, source.size});
    return;
  }
  words.append({source.times.empty() ? -2 : -3, source.scale, source.divisor,
                static_cast<int64_t>(source.plus.size())});
  if (!source.times.empty())
    words.push_back(static_cast<int64_t>(source.times.size()));
  words.append({source.argument, source.dim, source.size});
  for (const DimSource &term : llvm::concat<const DimSource>(source.times, source.plus))
    words.append({term.argument, term.dim, term.size});
}

Attribute sourceAttr(Builder &b, const DimSource &source) {
  SmallVector<int64_t> words;
  appendSource(words, source);
  return b.getDenseI64ArrayAttr(words);
}

struct PlanDynamicDimsPass : mlir::ember::impl::PlanDynamicDimsPassBase<PlanDynamicDimsPass> {
  void runOnOperation() override {
    func::FuncOp function = getOperation();
    // Only this pass's own plan is read: none is kept from the input.
    function->removeAttr("ember.dim_checks");
    function->removeAttr("ember.result_dims");
    if (function.isDeclaration() || !llvm::any_of(function.getArgumentTypes(), hasDynamicDim))
      return;
    DimPlan plan;
    std::string error;
    Operation *failing;
    if (!planDynamicDims(function, plan, error, failing)) {
      if (failing)
        failing->emitOpError() << error;
      else
        function.emitError() << error;
      return signalPassFailure();
    }
    Builder b(&getContext());
    SmallVector<Attribute> checks, results;
    for (const DimCheck &check : plan.checks) {
      SmallVector<NamedAttribute> fields = {b.getNamedAttr("a", sourceAttr(b, check.a)),
                                            b.getNamedAttr("b", sourceAttr(b, check.b)),
                                            b.getNamedAttr("op", b.getStringAttr(check.opName)),
                                            b.getNamedAttr("loc", b.getStringAttr(check.location))};
      if (check.kind == DimCheck::Kind::Divisible)
        fields.push_back(b.getNamedAttr("divisible", b.getUnitAttr()));
      if (check.kind == DimCheck::Kind::AtLeast)
        fields.push_back(b.getNamedAttr("at_least", b.getUnitAttr()));
      checks.push_back(b.getDictionaryAttr(fields));
    }
    for (const std::vector<DimSource> &dims : plan.resultDims) {
      SmallVector<int64_t> flat;
      for (const DimSource &source : dims)
        appendSource(flat, source);
      results.push_back(b.getDenseI64ArrayAttr(flat));
    }
    function->setAttr("ember.dim_checks", b.getArrayAttr(checks));
    function->setAttr("ember.result_dims", b.getArrayAttr(results));
  }
};

} // namespace
