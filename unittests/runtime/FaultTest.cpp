// Faults reported by compiled code: one pending per thread, the first kept,
// taken (and cleared) by the caller.
#include "emberrt/runtime.h"

#include <gtest/gtest.h>

#include <thread>

TEST(Fault, TakeReturnsTheFirstReportAndClears) {
  EXPECT_EQ(emberrt_take_fault().kind, EMBERRT_FAULT_NONE);
  emberrt_report_fault(EMBERRT_FAULT_INTEGER_DIVISION_BY_ZERO, 4);
  emberrt_report_fault(EMBERRT_FAULT_INDEX_OUT_OF_RANGE, 7);
  emberrt_fault_t fault = emberrt_take_fault();
  EXPECT_EQ(fault.kind, EMBERRT_FAULT_INTEGER_DIVISION_BY_ZERO);
  EXPECT_EQ(fault.site, 4);
  EXPECT_EQ(emberrt_take_fault().kind, EMBERRT_FAULT_NONE);
}

TEST(Fault, EachThreadHasItsOwn) {
  emberrt_report_fault(EMBERRT_FAULT_INTEGER_DIVISION_OVERFLOW, 1);
  emberrt_fault_t other{};
  std::thread([&] { other = emberrt_take_fault(); }).join();
  EXPECT_EQ(other.kind, EMBERRT_FAULT_NONE);
  EXPECT_EQ(emberrt_take_fault().kind, EMBERRT_FAULT_INTEGER_DIVISION_OVERFLOW);
}
