//===- DType.h - ember's element types ---------------------------*- C++ -*-===//
//
// One X-macro list generates the enum, names, sizes and MLIR spellings, so the
// front end and the compiler cannot disagree. The order is part of the kernel
// cache key; append only.
//
//===----------------------------------------------------------------------===//
#ifndef EMBER_DTYPE_H
#define EMBER_DTYPE_H

#include "ember/Support/Half.h"

#include <cstddef>
#include <cstdint>
#include <string_view>

// X(enumerator, C++ type, numpy name, MLIR element type, size in bytes)
#define EMBER_FORALL_DTYPES(X)                       \
  X(Bool, bool, "bool", "i1", 1)                     \
  X(Int32, int32_t, "int32", "i32", 4)               \
  X(Int64, int64_t, "int64", "i64", 8)               \
  X(Float32, float, "float32", "f32", 4)             \
  X(Float64, double, "float64", "f64", 8)            \
  X(Float16, ::ember::Half, "float16", "f16", 2)     \
  X(BFloat16, ::ember::BFloat16, "bfloat16", "bf16", 2)

namespace ember {

enum class DType : uint8_t {
#define EMBER_DTYPE_ENUM(name, type, numpy, mlir, size) name,
  EMBER_FORALL_DTYPES(EMBER_DTYPE_ENUM)
#undef EMBER_DTYPE_ENUM
};

constexpr DType kBool = DType::Bool;
constexpr DType kInt32 = DType::Int32;
constexpr DType kInt64 = DType::Int64;
constexpr DType kFloat32 = DType::Float32;
constexpr DType kFloat64 = DType::Float64;
constexpr DType kFloat16 = DType::Float16;
constexpr DType kHalf = DType::Float16; // LibTorch's name
constexpr DType kBFloat16 = DType::BFloat16;

/// numpy's name: "float32", "int32", "bool", ...
constexpr std::string_view dtypeName(DType dtype) {
  switch (dtype) {
#define EMBER_DTYPE_NAME(name, type, numpy, mlir, size) \
  case DType::name:                                      \
    return numpy;
    EMBER_FORALL_DTYPES(EMBER_DTYPE_NAME)
#undef EMBER_DTYPE_NAME
  }
  return "?";
}

/// MLIR's spelling of the element type: "f32", "i1", ...
constexpr std::string_view dtypeMlirName(DType dtype) {
  switch (dtype) {
#define EMBER_DTYPE_MLIR(name, type, numpy, mlir, size) \
  case DType::name:                                      \
    return mlir;
    EMBER_FORALL_DTYPES(EMBER_DTYPE_MLIR)
#undef EMBER_DTYPE_MLIR
  }
  return "?";
}

constexpr size_t dtypeSize(DType dtype) {
  switch (dtype) {
#define EMBER_DTYPE_SIZE(name, type, numpy, mlir, size) \
  case DType::name:                                      \
    return size;
    EMBER_FORALL_DTYPES(EMBER_DTYPE_SIZE)
#undef EMBER_DTYPE_SIZE
  }
  return 0;
}

/// float16 or bfloat16: computed in float32, rounded after each op.
constexpr bool isHalfPrecision(DType dtype) {
  return dtype == DType::Float16 || dtype == DType::BFloat16;
}
constexpr bool isFloatingPoint(DType dtype) {
  return dtype == DType::Float32 || dtype == DType::Float64 || isHalfPrecision(dtype);
}
constexpr bool isInteger(DType dtype) { return dtype == DType::Int32 || dtype == DType::Int64; }

/// The dtype of a C++ type: dtypeOf<float>() == DType::Float32.
template <typename T>
constexpr DType dtypeOf();
#define EMBER_DTYPE_OF(name, type, numpy, mlir, size) \
  template <>                                          \
  constexpr DType dtypeOf<type>() {                    \
    return DType::name;                                \
  }
EMBER_FORALL_DTYPES(EMBER_DTYPE_OF)
#undef EMBER_DTYPE_OF

} // namespace ember

#endif // EMBER_DTYPE_H
