//===- TensorTypes.cpp - the trace's plain types in MLIR ------------------===//

#include "ember/Trace/TensorTypes.h"

#include "mlir/IR/Builders.h"
#include "llvm/ADT/STLExtras.h"

#include <iterator>

using namespace mlir;

namespace ember::trace {

Type elementType(MLIRContext &context, ::ember::DType dtype) {
  Builder b(&context);
  switch (dtype) {
  case ::ember::DType::Bool:
    return b.getI1Type();
  case ::ember::DType::Int32:
    return b.getI32Type();
  case ::ember::DType::Int64:
    return b.getI64Type();
  case ::ember::DType::Float32:
    return b.getF32Type();
  case ::ember::DType::Float64:
    return b.getF64Type();
  case ::ember::DType::Float16:
    return b.getF16Type();
  case ::ember::DType::BFloat16:
    return b.getBF16Type();
  }
  return {};
}

RankedTensorType tensorType(MLIRContext &context, const TensorSpec &spec) {
  SmallVector<int64_t> shape;
  for (int d = 0; d < spec.rank; ++d)
    shape.push_back(spec.dims[d] == kDynamic ? ShapedType::kDynamic : spec.dims[d]);
  return RankedTensorType::get(shape, elementType(context, spec.dtype));
}

bool toSpec(Type type, TensorSpec &spec) {
  auto tensor = dyn_cast<RankedTensorType>(type);
  if (!tensor || tensor.getRank() > kMaxRank)
    return false;
  // The inverse of elementType, over every dtype.
  constexpr ::ember::DType kDTypes[] = {
#define EMBER_DTYPE_VALUE(name, type, numpy, mlir, size) ::ember::DType::name,
      EMBER_FORALL_DTYPES(EMBER_DTYPE_VALUE)
#undef EMBER_DTYPE_VALUE
  };
  const ::ember::DType *found = llvm::find_if(kDTypes, [&](::ember::DType dtype) {
    return elementType(*type.getContext(), dtype) == tensor.getElementType();
  });
  if (found == std::end(kDTypes))
    return false;
  spec.dtype = *found;
  spec.rank = tensor.getRank();
  for (int d = 0; d < spec.rank; ++d)
    spec.dims[d] = tensor.isDynamicDim(d) ? kDynamic : tensor.getDimSize(d);
  return true;
}

} // namespace ember::trace
