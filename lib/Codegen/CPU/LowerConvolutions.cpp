//===- LowerConvolutions.cpp - convolutions as matmuls (im2col) ------------===//
//
// A CPU runs matmuls fast (ember-cpu-lower-matmuls blocks them for its
// vector registers) and convolution loop nests slowly, so each
// linalg.conv_2d_nhwc_hwcf on tensors becomes: its patches gathered into a
// [N * OH * OW, KH * KW * C] matrix by one copy whose reads are affine (they
// vectorize along C), times the filter seen as [KH * KW * C, F].
//
//===----------------------------------------------------------------------===//

#include "ember/Codegen/CPU/Passes.h"

#include "mlir/Dialect/Linalg/IR/Linalg.h"
#include "mlir/Dialect/Tensor/IR/Tensor.h"
#include "mlir/IR/PatternMatch.h"

namespace mlir::ember {
#define GEN_PASS_DEF_LOWERCONVOLUTIONSPASS
#include "ember/Codegen/CPU/Passes.h.inc"
} // namespace mlir::ember

using namespace mlir;

namespace {

/// The patches of `input` for `conv`: [N, OH, OW, KH, KW, C] with
/// patches[n, oh, ow, kh, kw, c] = input[n, oh * s0 + kh * d0, ow * s1 + kw * d1, c].
/// N and C may be `?` (a batch, or a gradient's channels).
Value gatherPatches(OpBuilder &b, linalg::Conv2DNhwcHwcfOp conv, Value input, Value filter,
                    RankedTensorType resultType) {
  Location loc = conv.getLoc();
  auto inputType = cast<RankedTensorType>(input.getType());
  auto filterType = cast<RankedTensorType>(filter.getType());
  SmallVector<int64_t> strides = llvm::to_vector(conv.getStrides().getValues<int64_t>());
  SmallVector<int64_t> dilations = llvm::to_vector(conv.getDilations().getValues<int64_t>());
  SmallVector<int64_t> shape = {inputType.getDimSize(0),  resultType.getDimSize(1),
                                resultType.getDimSize(2), filterType.getDimSize(0),
                                filterType.getDimSize(1), inputType.getDimSize(3)};
  SmallVector<Value> sizes;
  for (int64_t d : {0, 3})
    if (inputType.isDynamicDim(d))
      sizes.push_back(tensor::DimOp::create(b, loc, input, d));
  auto patchesType = RankedTensorType::get(shape, inputType.getElementType());
  MLIRContext *context = b.getContext();
  AffineExpr n, oh, ow, kh, kw, c;
  bindDims(context, n, oh, ow, kh, kw, c);
  AffineMap read = AffineMap::get(
      6, 0, {n, oh * strides[0] + kh * dilations[0], ow * strides[1] + kw * dilations[1], c},
      context);
  SmallVector<AffineMap> maps = {read, b.getMultiDimIdentityMap(6)};
  SmallVector<utils::IteratorType> iterators(6, utils::IteratorType::parallel);
  Value empty = tensor::EmptyOp::create(b, loc, shape, inputType.getElementType(), sizes);
  return linalg::GenericOp::create(b, loc, patchesType, input, empty, maps, iterators,
                                   [](OpBuilder &nb, Location nloc, ValueRange args) {
                                     linalg::YieldOp::create(nb, nloc, args[0]);
                                   })
      .getResult(0);
}

/// Whether `conv`'s heights and widths are static (the patches' copy needs
/// them; batches and channels may be `?`).
bool hasStaticWindows(linalg::Conv2DNhwcHwcfOp conv) {
  auto result = cast<RankedTensorType>(conv.getResult(0).getType());
  auto filter = cast<RankedTensorType>(conv.getInputs()[1].getType());
  return !result.isDynamicDim(1) && !result.isDynamicDim(2) && !filter.isDynamicDim(0) &&
         !filter.isDynamicDim(1);
}

struct LowerConvolutionsPass
    : ember::impl::LowerConvolutionsPassBase<LowerConvolutionsPass> {
  void runOnOperation() override {
    SmallVector<linalg::Conv2DNhwcHwcfOp> convs;
    getOperation().walk([&](linalg::Conv2DNhwcHwcfOp conv) {
      if (conv.hasPureTensorSemantics() && hasStaticWindows(conv))
        convs.push_back(conv);
    });
    IRRewriter rewriter(&getContext());
    for (linalg::Conv2DNhwcHwcfOp conv : convs) {
      rewriter.setInsertionPoint(conv);
      Location loc = conv.getLoc();
      Value input = conv.getInputs()[0], filter = conv.getInputs()[1];
      Value init = conv.getOutputs()[0];
      auto resultType = cast<RankedTensorType>(conv.getResult(0).getType());
      Value patches = gatherPatches(rewriter, conv, input, filter, resultType);
      Value matrix = tensor::CollapseShapeOp::create(
          rewriter, loc, patches, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3, 4, 5}});
      Value weights = tensor::CollapseShapeOp::create(
          rewriter, loc, filter, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
      // The accumulator as a matrix; a filled one filled afresh, so that
      // ember-cpu-lower-matmuls sees a matmul starting from zeros.
      Value accumulator;
      if (auto fill = init.getDefiningOp<linalg::FillOp>()) {
        auto matrixType = cast<RankedTensorType>(matrix.getType());
        auto weightsType = cast<RankedTensorType>(weights.getType());
        SmallVector<int64_t> shape = {matrixType.getDimSize(0), weightsType.getDimSize(1)};
        SmallVector<Value> sizes;
        if (matrixType.isDynamicDim(0))
          sizes.push_back(tensor::DimOp::create(rewriter, loc, matrix, 0));
        if (weightsType.isDynamicDim(1))
          sizes.push_back(tensor::DimOp::create(rewriter, loc, weights, 1));
        Value empty =
            tensor::EmptyOp::create(rewriter, loc, shape, resultType.getElementType(), sizes);
        accumulator =
            linalg::FillOp::create(rewriter, loc, fill.getInputs()[0], empty).getResult(0);
      } else {
        accumulator = tensor::CollapseShapeOp::create(
            rewriter, loc, init, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
      }
      Value product =
          linalg::MatmulOp::create(rewriter, loc, ValueRange{matrix, weights}, accumulator)
              .getResult(0);
      Value result = tensor::ExpandShapeOp::create(
          rewriter, loc, resultType, product, ArrayRef<ReassociationIndices>{{0, 1, 2}, {3}});
      rewriter.replaceOp(conv, result);
    }
  }
};

} // namespace
