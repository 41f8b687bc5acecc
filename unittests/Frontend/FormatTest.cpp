//===- FormatTest.cpp - numpy-compatible tensor text ----------------------===//
//
// Expected strings are what print(np.array(...)) shows with numpy 1.24
// (Debian 12's python3-numpy) and default print options.
//
//===----------------------------------------------------------------------===//

#include "Format.h"

#include "ember/Frontend/Error.h"

#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <limits>
#include <numeric>
#include <vector>

using namespace ember;
using ember::detail::formatValues;

namespace {

template <typename T>
std::string fmt(const std::vector<T> &values, std::vector<int64_t> shape) {
  return formatValues(values.data(), dtypeOf<T>(), shape.data(), static_cast<int>(shape.size()));
}

// std::vector<bool> has no data(); bools travel as bytes.
std::string fmtBool(const std::vector<unsigned char> &values, std::vector<int64_t> shape) {
  return formatValues(values.data(), DType::Bool, shape.data(), static_cast<int>(shape.size()));
}

template <typename T>
std::vector<T> iota(size_t n) {
  std::vector<T> v(n);
  std::iota(v.begin(), v.end(), T(0));
  return v;
}

const double kNan = std::numeric_limits<double>::quiet_NaN();
const double kInf = std::numeric_limits<double>::infinity();

TEST(FormatTest, IntegersAreRightAligned) {
  EXPECT_EQ(fmt<int32_t>({1, 2, 3}, {3}), "[1 2 3]");
  EXPECT_EQ(fmt<int64_t>({-1, 10, 200}, {3}), "[ -1  10 200]");
  EXPECT_EQ(fmt<int64_t>({std::numeric_limits<int64_t>::min(), 0}, {2}),
            "[-9223372036854775808                    0]");
}

TEST(FormatTest, NestedBrackets) {
  EXPECT_EQ(fmt<int32_t>({1, 2, 3, 4}, {2, 2}), "[[1 2]\n [3 4]]");
  EXPECT_EQ(fmt<int32_t>({7}, {1, 1, 1}), "[[[7]]]");
  // 3-D blocks are separated by a blank line.
  EXPECT_EQ(fmt<int32_t>(iota<int32_t>(8), {2, 2, 2}), "[[[0 1]\n  [2 3]]\n\n [[4 5]\n  [6 7]]]");
  // Each further dimension adds one more blank line.
  EXPECT_EQ(fmt<int32_t>(iota<int32_t>(4), {2, 1, 1, 2}), "[[[[0 1]]]\n\n\n [[[2 3]]]]");
}

TEST(FormatTest, Bools) {
  EXPECT_EQ(fmtBool({1, 0}, {2}), "[ True False]");
  EXPECT_EQ(fmtBool({1, 1}, {2}), "[ True  True]");
  EXPECT_EQ(fmtBool({1, 0, 0, 1}, {2, 2}), "[[ True False]\n [False  True]]");
}

TEST(FormatTest, ZeroDimensionalPrintsTheScalar) {
  // print(np.array(x)) is str() of the scalar, not array2string.
  EXPECT_EQ(fmt<double>({4.0}, {}), "4.0");
  EXPECT_EQ(fmt<double>({-0.0}, {}), "-0.0");
  EXPECT_EQ(fmt<double>({0.5}, {}), "0.5");
  EXPECT_EQ(fmt<double>({1e16}, {}), "1e+16");
  EXPECT_EQ(fmt<double>({1.5e-5}, {}), "1.5e-05");
  EXPECT_EQ(fmt<double>({123456789.0}, {}), "123456789.0");
  EXPECT_EQ(fmt<double>({kNan}, {}), "nan");
  EXPECT_EQ(fmt<double>({-kInf}, {}), "-inf");
  EXPECT_EQ(fmt<float>({0.1f}, {}), "0.1");
  // Every float dtype is positional from 1e-4 up to 1e16.
  EXPECT_EQ(fmt<float>({1e6f}, {}), "1000000.0");
  EXPECT_EQ(fmt<float>({1e7f}, {}), "10000000.0");
  EXPECT_EQ(fmt<float>({1e15f}, {}), "1000000000000000.0");
  EXPECT_EQ(fmt<float>({1e16f}, {}), "1e+16");
  EXPECT_EQ(fmt<float>({3e38f}, {}), "3e+38");
  EXPECT_EQ(fmt<float>({1e-4f}, {}), "1e-04"); // just below 1e-4
  EXPECT_EQ(fmt<int32_t>({3}, {}), "3");
  EXPECT_EQ(fmt<int64_t>({-42}, {}), "-42");
  EXPECT_EQ(fmtBool({1}, {}), "True");
  EXPECT_EQ(fmtBool({0}, {}), "False");
}

TEST(FormatTest, EmptyArrays) {
  EXPECT_EQ(fmt<float>({}, {0}), "[]");
  EXPECT_EQ(fmt<int32_t>({}, {2, 0, 3}), "[]");
}

TEST(FormatTest, IntegralFloats) {
  EXPECT_EQ(fmt<double>({1, 2, 3}, {3}), "[1. 2. 3.]");
  EXPECT_EQ(fmt<double>({4}, {1, 1}), "[[4.]]");
  EXPECT_EQ(fmt<double>({-1, 10}, {2}), "[-1. 10.]");
  EXPECT_EQ(fmt<double>({-0.0, 1}, {2}), "[-0.  1.]");
  EXPECT_EQ(fmt<double>({1e6}, {1}), "[1000000.]");
  EXPECT_EQ(fmt<double>({1, 1000}, {2}), "[   1. 1000.]"); // ratio 1e3 is not > 1e3
}

TEST(FormatTest, FractionsPadOnTheRight) {
  EXPECT_EQ(fmt<double>({1.5, 2.25, 3.0}, {3}), "[1.5  2.25 3.  ]");
  EXPECT_EQ(fmt<double>({0.1 + 0.2, 1}, {2}), "[0.3 1. ]"); // cut at 8 digits
  EXPECT_EQ(fmt<double>({2.0 / 3, 1}, {2}), "[0.66666667 1.        ]");
  EXPECT_EQ(fmt<double>({0.123456789}, {1}), "[0.12345679]");
  EXPECT_EQ(fmt<double>({M_PI}, {1}), "[3.14159265]");
  EXPECT_EQ(fmt<double>({-1.5, 10.25}, {2}), "[-1.5  10.25]");
  EXPECT_EQ(fmt<double>({0.5, 1.5, 2.5, 3.5}, {2, 2}), "[[0.5 1.5]\n [2.5 3.5]]");
}

TEST(FormatTest, Float32UsesItsOwnShortestDigits) {
  EXPECT_EQ(fmt<float>({0.1f, 0.2f}, {2}), "[0.1 0.2]");
  EXPECT_EQ(fmt<float>({static_cast<float>(M_PI)}, {1}), "[3.1415927]");
  EXPECT_EQ(fmt<float>({1.0f / 3}, {1}), "[0.33333334]");
  // numpy 1.24 compares float32 data with 1e-4 in double, and 1e-4f lies
  // just below it.
  EXPECT_EQ(fmt<float>({1e-4f}, {1}), "[1.e-04]");
  EXPECT_EQ(fmt<float>({1e-4f, 0.1f}, {2}), "[1.e-04 1.e-01]");
  EXPECT_EQ(fmt<double>({1e-4, 0.1}, {2}), "[0.0001 0.1   ]");
  // float32 is positional up to 1e8, as float64 is.
  EXPECT_EQ(fmt<float>({1e6f}, {1}), "[1000000.]");
  EXPECT_EQ(fmt<float>({999999.f}, {1}), "[999999.]");
  EXPECT_EQ(fmt<float>({1e7f}, {1}), "[10000000.]");
  EXPECT_EQ(fmt<float>({1234567.f}, {1}), "[1234567.]");
  EXPECT_EQ(fmt<float>({1e8f}, {1}), "[1.e+08]");
  EXPECT_EQ(fmt<float>({99999999.f}, {1}), "[1.e+08]"); // rounds to 1e8 in float32
  // Array elements show every digit down to the units, scalars their
  // shortest digits: float32 99999990 is 99999992.
  EXPECT_EQ(fmt<float>({99999990.f}, {1}), "[99999992.]");
  EXPECT_EQ(fmt<float>({99999990.f}, {}), "99999990.0");
  EXPECT_EQ(fmt<float>({-99999990.f, 1e7f}, {2}), "[-99999992.  10000000.]");
}

TEST(FormatTest, ScientificNotation) {
  EXPECT_EQ(fmt<double>({1e-5, 1}, {2}), "[1.e-05 1.e+00]");
  EXPECT_EQ(fmt<double>({-1e-5, 1}, {2}), "[-1.e-05  1.e+00]");
  EXPECT_EQ(fmt<double>({1e8, 1}, {2}), "[1.e+08 1.e+00]");
  EXPECT_EQ(fmt<double>({1e8}, {1}), "[1.e+08]");
  EXPECT_EQ(fmt<double>({1, 1001}, {2}), "[1.000e+00 1.001e+03]");
  EXPECT_EQ(fmt<double>({1e100, 1}, {2}), "[1.e+100 1.e+000]");
  EXPECT_EQ(fmt<double>({M_PI, -2.5e-3}, {2}), "[ 3.14159265e+00 -2.50000000e-03]");
  EXPECT_EQ(fmt<double>({1.23456789e-5, 1}, {2}), "[1.23456789e-05 1.00000000e+00]");
  // Zeros do not count towards the choice but are printed in the same style.
  EXPECT_EQ(fmt<double>({0, 1e-5}, {2}), "[0.e+00 1.e-05]");
  // float32 1e-5f needs padding to 7 digits, which shows its exact value.
  EXPECT_EQ(fmt<float>({1e-5f, 1.2345678f}, {2}), "[9.9999997e-06 1.2345678e+00]");
}

TEST(FormatTest, NanAndInf) {
  EXPECT_EQ(fmt<double>({kNan, kInf, -kInf, 1}, {4}), "[ nan  inf -inf   1.]");
  EXPECT_EQ(fmt<double>({kNan, kInf}, {2}), "[nan inf]");
  EXPECT_EQ(fmt<double>({kNan, 1.5, 2.25}, {3}), "[ nan 1.5  2.25]");
  EXPECT_EQ(fmt<double>({kNan, 1e-5}, {2}), "[   nan 1.e-05]");
  EXPECT_EQ(fmt<float>({static_cast<float>(kNan), -static_cast<float>(kInf)}, {2}), "[ nan -inf]");
}

TEST(FormatTest, LongRowsWrapAt75Columns) {
  EXPECT_EQ(fmt<int64_t>(iota<int64_t>(30), {30}),
            "[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n"
            " 24 25 26 27 28 29]");
  EXPECT_EQ(fmt<int64_t>(iota<int64_t>(60), {2, 30}),
            "[[ 0  1  2  3  4  5  6  7  8  9 10 11 12 13 14 15 16 17 18 19 20 21 22 23\n"
            "  24 25 26 27 28 29]\n"
            " [30 31 32 33 34 35 36 37 38 39 40 41 42 43 44 45 46 47 48 49 50 51 52 53\n"
            "  54 55 56 57 58 59]]");
  std::vector<double> sevenths(12);
  for (size_t i = 0; i < sevenths.size(); ++i)
    sevenths[i] = static_cast<double>(i) / 7;
  EXPECT_EQ(fmt<double>(sevenths, {12}),
            "[0.         0.14285714 0.28571429 0.42857143 0.57142857 0.71428571\n"
            " 0.85714286 1.         1.14285714 1.28571429 1.42857143 1.57142857]");
}

TEST(FormatTest, LargeArraysAreSummarised) {
  EXPECT_EQ(fmt<int64_t>(iota<int64_t>(1000), {1000}).find("..."), std::string::npos);
  EXPECT_EQ(fmt<int64_t>(iota<int64_t>(2000), {2000}), "[   0    1    2 ... 1997 1998 1999]");
  EXPECT_EQ(fmt<int64_t>(iota<int64_t>(2000), {2, 1000}),
            "[[   0    1    2 ...  997  998  999]\n"
            " [1000 1001 1002 ... 1997 1998 1999]]");
  EXPECT_EQ(fmt<int32_t>(iota<int32_t>(1001 * 2), {1001, 2}),
            "[[   0    1]\n [   2    3]\n [   4    5]\n ...\n"
            " [1996 1997]\n [1998 1999]\n [2000 2001]]");
  // Widths come from the elements shown, not the hidden middle.
  EXPECT_EQ(fmt<double>(iota<double>(1001), {1001}),
            "[   0.    1.    2. ...  998.  999. 1000.]");
  std::vector<int64_t> big = iota<int64_t>(2000);
  big[1000] = -123456789;
  EXPECT_EQ(fmt<int64_t>(big, {2000}), "[   0    1    2 ... 1997 1998 1999]");
  // Higher dimensions summarise with "..." rows and keep the blank lines.
  std::string cube = fmt<int32_t>(iota<int32_t>(8 * 8 * 20), {8, 8, 20});
  EXPECT_EQ(cube.substr(0, 41), "[[[   0    1    2 ...   17   18   19]\n  [");
  EXPECT_NE(cube.find("]]\n\n ...\n\n [["), std::string::npos);
  EXPECT_NE(cube.find("\n  ...\n"), std::string::npos);
}

TEST(FormatTest, SummarisedWhenSizeExceedsThresholdEvenIfNoAxisIsLong) {
  // 6^4 = 1296 > 1000 elements, but no axis exceeds 2 * edgeitems: no "...".
  std::string s = fmt<int32_t>(std::vector<int32_t>(1296, 1), {6, 6, 6, 6});
  EXPECT_EQ(s.find("..."), std::string::npos);
}

TEST(FormatTest, RejectsNegativeShapes) {
  std::vector<int64_t> shape = {-1};
  int32_t v = 0;
  EXPECT_THROW(formatValues(&v, DType::Int32, shape.data(), 1), ember::Error);
  EXPECT_THROW(formatValues(&v, DType::Int32, shape.data(), -1), ember::Error);
}

} // namespace
