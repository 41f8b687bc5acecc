// The runtime's CUDA part: the no-driver path everywhere, the device where
// there is one (the tests needing it skip, naming why, where there is none).
#include "emberrt/cuda.h"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

namespace {

// out[i] += 1.0f for i < count; parameters: the bare pointer and an i64 count.
const char kAddOnePtx[] = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry add_one(
	.param .u64 add_one_data,
	.param .u64 add_one_count
)
{
	.reg .pred 	%p<2>;
	.reg .b32 	%r<4>;
	.reg .b64 	%rd<8>;
	.reg .f32 	%f<3>;

	ld.param.u64 	%rd1, [add_one_data];
	ld.param.u64 	%rd2, [add_one_count];
	mov.u32 	%r1, %ctaid.x;
	mov.u32 	%r2, %ntid.x;
	mov.u32 	%r3, %tid.x;
	mul.wide.u32 	%rd3, %r1, %r2;
	cvt.u64.u32 	%rd4, %r3;
	add.s64 	%rd5, %rd3, %rd4;
	setp.ge.s64 	%p1, %rd5, %rd2;
	@%p1 bra 	$L_done;
	cvta.to.global.u64 	%rd6, %rd1;
	shl.b64 	%rd7, %rd5, 2;
	add.s64 	%rd6, %rd6, %rd7;
	ld.global.f32 	%f1, [%rd6];
	add.f32 	%f2, %f1, 0f3F800000;
	st.global.f32 	[%rd6], %f2;
$L_done:
	ret;
}
)";

const char kBrokenPtx[] = R"(
.version 8.0
.target sm_90
.address_size 64

.visible .entry broken()
{
	this_is_not_an_instruction 	%r1;
	ret;
}
)";

bool contains(const std::string &text, const std::string &part) {
  return text.find(part) != std::string::npos;
}

// Initialization happens once per process, so this runs in a fresh child
// (a threadsafe-style death test re-executes the binary): the parent may
// have found a driver already. It exits 0 when every expectation holds and
// names the ones that do not on stderr.
[[noreturn]] void runWithoutDriver() {
  setenv("EMBERRT_CUDA_DRIVER", "/nonexistent/libcuda.so.1", 1);
  int failures = 0;
  auto expect = [&](bool ok, const char *what) {
    if (!ok) {
      std::fprintf(stderr, "expectation failed: %s\n", what);
      ++failures;
    }
  };
  expect(emberrt_cuda_available() == 0, "emberrt_cuda_available() == 0");
  std::string status = emberrt_cuda_status();
  std::fprintf(stderr, "status: %s\n", status.c_str());
  expect(contains(status, "/nonexistent/libcuda.so.1"), "the status names the driver's path");
  int major = -1, minor = -1;
  expect(emberrt_cuda_compute_capability(&major, &minor) == 0 && major == 0 && minor == 0,
         "no compute capability");
  expect(std::string(emberrt_cuda_last_error()).empty(), "no error before a failing call");

  void *ptr = reinterpret_cast<void *>(1);
  expect(emberrt_cuda_malloc(64, &ptr) == EMBERRT_DEVICE_ERROR && ptr == nullptr,
         "emberrt_cuda_malloc fails with EMBERRT_DEVICE_ERROR");
  std::string error = emberrt_cuda_last_error();
  std::fprintf(stderr, "error: %s\n", error.c_str());
  expect(contains(error, "emberrt_cuda_malloc") && contains(error, "/nonexistent/libcuda.so.1"),
         "the error names the call and why");

  // The first error stays until cleared.
  expect(emberrt_cuda_synchronize() == EMBERRT_DEVICE_ERROR, "synchronize fails");
  expect(emberrt_cuda_last_error() == error, "the first error wins");
  emberrt_cuda_clear_error();
  expect(std::string(emberrt_cuda_last_error()).empty(), "clear_error clears");

  expect(mgpuMemAlloc(64, nullptr, false) == nullptr, "mgpuMemAlloc returns NULL");
  expect(contains(emberrt_cuda_last_error(), "mgpuMemAlloc"), "mgpuMemAlloc records an error");
  emberrt_cuda_clear_error();

  // None of these may crash; each records the error.
  float host[4] = {};
  void *module = nullptr;
  expect(emberrt_cuda_memcpy_htod(host, host, sizeof(host)) == EMBERRT_DEVICE_ERROR, "htod");
  expect(emberrt_cuda_module_load(kAddOnePtx, &module) == EMBERRT_DEVICE_ERROR && !module,
         "module_load");
  expect(mgpuModuleLoadJIT(const_cast<char *>(kAddOnePtx), 3) == nullptr, "mgpuModuleLoadJIT");
  expect(mgpuStreamCreate() == nullptr, "mgpuStreamCreate");
  mgpuLaunchKernel(nullptr, 1, 1, 1, 1, 1, 1, 0, nullptr, nullptr, nullptr, 0);
  mgpuStreamSynchronize(nullptr);
  mgpuMemFree(nullptr, nullptr);
  emberrt_cuda_free(nullptr);
  emberrt_cuda_empty_cache();
  expect(!std::string(emberrt_cuda_last_error()).empty(), "the calls recorded an error");
  uint64_t allocations = 1, hits = 1, reserved = 1;
  emberrt_cuda_allocator_stats(&allocations, &hits, &reserved);
  expect(allocations == 0 && hits == 0 && reserved == 0, "the allocator holds nothing");

  std::fflush(stderr);
  std::_Exit(failures == 0 ? 0 : 1);
}

TEST(CudaNoDriver, EveryCallFailsWithAnErrorAndNothingCrashes) {
  GTEST_FLAG_SET(death_test_style, "threadsafe");
  EXPECT_EXIT(runWithoutDriver(), ::testing::ExitedWithCode(0), "");
}

// Needs no device: the pointer is rejected before the driver is involved.
TEST(CudaAllocator, FreeingAPointerItDidNotAllocateIsAnError) {
  emberrt_cuda_clear_error();
  int notDeviceMemory = 0;
  emberrt_cuda_free(&notDeviceMemory);
  EXPECT_TRUE(contains(emberrt_cuda_last_error(), "emberrt_cuda_free"));
  emberrt_cuda_clear_error();
}

class Cuda : public ::testing::Test {
protected:
  void SetUp() override {
    if (!emberrt_cuda_available())
      GTEST_SKIP() << emberrt_cuda_status();
    emberrt_cuda_clear_error();
  }
  void TearDown() override {
    if (!IsSkipped()) {
      EXPECT_STREQ(emberrt_cuda_last_error(), "");
    }
  }

  // A loaded add_one kernel.
  void *addOne(void **module) {
    void *function = nullptr;
    EXPECT_EQ(emberrt_cuda_module_load(kAddOnePtx, module), EMBERRT_OK)
        << emberrt_cuda_last_error();
    EXPECT_EQ(emberrt_cuda_function(*module, "add_one", &function), EMBERRT_OK)
        << emberrt_cuda_last_error();
    return function;
  }
};

TEST_F(Cuda, ReportsTheDevice) {
  int major = 0, minor = 0;
  ASSERT_EQ(emberrt_cuda_compute_capability(&major, &minor), 1);
  EXPECT_GE(major, 3);
  std::string status = emberrt_cuda_status();
  EXPECT_TRUE(contains(status, "(sm_" + std::to_string(major) + std::to_string(minor)))
      << status;
  EXPECT_TRUE(contains(status, "driver ")) << status;
}

TEST_F(Cuda, CopiesRoundTrip) {
  std::vector<float> input(1000), output(1000, -1.0f);
  for (size_t i = 0; i < input.size(); ++i)
    input[i] = static_cast<float>(i) * 0.5f;
  size_t bytes = input.size() * sizeof(float);
  void *a = nullptr, *b = nullptr;
  ASSERT_EQ(emberrt_cuda_malloc(bytes, &a), EMBERRT_OK) << emberrt_cuda_last_error();
  ASSERT_EQ(emberrt_cuda_malloc(bytes, &b), EMBERRT_OK) << emberrt_cuda_last_error();
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a) % 256, 0u);
  EXPECT_EQ(emberrt_cuda_memcpy_htod(a, input.data(), bytes), EMBERRT_OK);
  EXPECT_EQ(emberrt_cuda_memcpy_dtod(b, a, bytes), EMBERRT_OK);
  EXPECT_EQ(emberrt_cuda_memcpy_dtoh(output.data(), b, bytes), EMBERRT_OK);
  EXPECT_EQ(output, input);

  EXPECT_EQ(emberrt_cuda_memset(b, 0, bytes), EMBERRT_OK);
  EXPECT_EQ(emberrt_cuda_memcpy_dtoh(output.data(), b, bytes), EMBERRT_OK);
  EXPECT_EQ(output, std::vector<float>(1000, 0.0f));

  // Queued behind the memset, without waiting: ordered on the stream.
  EXPECT_EQ(emberrt_cuda_memset(b, 0, bytes), EMBERRT_OK);
  EXPECT_EQ(emberrt_cuda_memcpy_htod_async(b, input.data(), bytes), EMBERRT_OK);
  EXPECT_EQ(emberrt_cuda_memcpy_dtoh(output.data(), b, bytes), EMBERRT_OK);
  EXPECT_EQ(output, input);
  emberrt_cuda_free(a);
  emberrt_cuda_free(b);
}

TEST_F(Cuda, FreedBlocksAreReusedWithoutTheDriver) {
  for (size_t size : {size_t(3000), size_t(3) << 20}) {
    void *first = nullptr, *second = nullptr;
    ASSERT_EQ(emberrt_cuda_malloc(size, &first), EMBERRT_OK) << emberrt_cuda_last_error();
    emberrt_cuda_free(first);
    uint64_t allocations = 0, hits = 0, reserved = 0, allocationsAfter = 0, hitsAfter = 0;
    emberrt_cuda_allocator_stats(&allocations, &hits, &reserved);
    // 2900 rounds to 3072 like 3000; 3.5 MiB to 4 MiB like 3 MiB.
    ASSERT_EQ(emberrt_cuda_malloc(size - size / 32, &second), EMBERRT_OK);
    emberrt_cuda_allocator_stats(&allocationsAfter, &hitsAfter, nullptr);
    EXPECT_EQ(second, first) << size;
    EXPECT_EQ(hitsAfter, hits + 1) << size;
    EXPECT_EQ(allocationsAfter, allocations) << size;
    emberrt_cuda_free(second);
  }
  uint64_t reserved = 0;
  emberrt_cuda_empty_cache();
  emberrt_cuda_allocator_stats(nullptr, nullptr, &reserved);
  EXPECT_EQ(reserved, 0u); // nothing else in this process holds device memory now
}

TEST_F(Cuda, LaunchesAHandWrittenPtxKernel) {
  void *module = nullptr;
  void *function = addOne(&module);
  ASSERT_NE(function, nullptr);

  constexpr int64_t n = 1000;
  std::vector<float> host(n);
  for (int64_t i = 0; i < n; ++i)
    host[i] = static_cast<float>(i);
  void *data = nullptr;
  ASSERT_EQ(emberrt_cuda_malloc(n * sizeof(float), &data), EMBERRT_OK);
  ASSERT_EQ(emberrt_cuda_memcpy_htod(data, host.data(), n * sizeof(float)), EMBERRT_OK);
  int64_t count = n;
  void *params[] = {&data, &count};
  EXPECT_EQ(emberrt_cuda_launch(function, (n + 255) / 256, 1, 1, 256, 1, 1, 0, params), EMBERRT_OK)
      << emberrt_cuda_last_error();
  // A zero dimension (an empty tensor) launches nothing instead of failing.
  EXPECT_EQ(emberrt_cuda_launch(function, 0, 1, 1, 256, 1, 1, 0, params), EMBERRT_OK);
  ASSERT_EQ(emberrt_cuda_memcpy_dtoh(host.data(), data, n * sizeof(float)), EMBERRT_OK)
      << emberrt_cuda_last_error();
  for (int64_t i = 0; i < n; ++i)
    ASSERT_EQ(host[i], static_cast<float>(i) + 1.0f) << i;

  // The image is loaded once; each load is counted and unloaded.
  void *again = nullptr;
  EXPECT_EQ(emberrt_cuda_module_load(kAddOnePtx, &again), EMBERRT_OK);
  EXPECT_EQ(again, module);
  emberrt_cuda_module_unload(again);
  emberrt_cuda_module_unload(module);
  emberrt_cuda_free(data);
}

TEST_F(Cuda, TimesWorkWithEvents) {
  void *start = nullptr, *end = nullptr;
  ASSERT_EQ(emberrt_cuda_event_record(&start), EMBERRT_OK) << emberrt_cuda_last_error();
  void *data = nullptr;
  ASSERT_EQ(emberrt_cuda_malloc(1 << 20, &data), EMBERRT_OK);
  ASSERT_EQ(emberrt_cuda_memset(data, 1, 1 << 20), EMBERRT_OK);
  ASSERT_EQ(emberrt_cuda_event_record(&end), EMBERRT_OK);
  float ms = -1.0f;
  EXPECT_EQ(emberrt_cuda_event_elapsed_ms(start, end, &ms), EMBERRT_OK)
      << emberrt_cuda_last_error();
  EXPECT_GE(ms, 0.0f);
  emberrt_cuda_event_destroy(start);
  emberrt_cuda_event_destroy(end);
  emberrt_cuda_free(data);
}

// What compiled code does: gpu.alloc, gpu.memcpy, gpu.memset, a launch from
// the select_object translation and gpu.wait, with the signatures MLIR 22
// declares.
TEST_F(Cuda, RunsWhatMlirLoweringCalls) {
  void *stream = mgpuStreamCreate();
  ASSERT_NE(stream, nullptr) << emberrt_cuda_last_error();
  EXPECT_EQ(mgpuStreamCreate(), stream); // the one runtime stream

  constexpr int64_t n = 4096;
  std::vector<float> host(n, 2.0f);
  void *data = mgpuMemAlloc(n * sizeof(float), stream, false);
  ASSERT_NE(data, nullptr) << emberrt_cuda_last_error();
  mgpuMemcpy(data, host.data(), n * sizeof(float), stream);

  void *module = mgpuModuleLoadJIT(const_cast<char *>(kAddOnePtx), 3);
  ASSERT_NE(module, nullptr) << emberrt_cuda_last_error();
  void *function = mgpuModuleGetFunction(module, "add_one");
  ASSERT_NE(function, nullptr) << emberrt_cuda_last_error();
  int64_t count = n;
  void *params[] = {&data, &count};
  mgpuLaunchKernel(function, n / 128, 1, 1, 128, 1, 1, 0, stream, params, nullptr, 2);

  void *event = mgpuEventCreate();
  mgpuEventRecord(event, stream);
  mgpuStreamWaitEvent(stream, event);
  mgpuEventSynchronize(event);
  mgpuEventDestroy(event);

  mgpuMemcpy(host.data(), data, n * sizeof(float), stream);
  mgpuStreamSynchronize(stream);
  EXPECT_EQ(host, std::vector<float>(n, 3.0f));

  // memset counts elements: 1.0f as bits, then 0x3c00 (half 1.0) pairs.
  mgpuMemset32(data, 0x3f800000u, n, stream);
  mgpuMemcpy(host.data(), data, n * sizeof(float), stream);
  mgpuStreamSynchronize(stream);
  EXPECT_EQ(host, std::vector<float>(n, 1.0f));
  mgpuMemset16(data, 0x3c00, 2 * n, stream);
  std::vector<uint32_t> bits(n);
  mgpuMemcpy(bits.data(), data, n * sizeof(uint32_t), stream);
  mgpuStreamSynchronize(stream);
  EXPECT_EQ(bits, std::vector<uint32_t>(n, 0x3c003c00u));

  void *shared = mgpuMemAlloc(256, stream, true); // gpu.alloc host_shared
  ASSERT_NE(shared, nullptr) << emberrt_cuda_last_error();
  mgpuMemFree(shared, stream);

  mgpuMemFree(data, stream);
  mgpuModuleUnload(module);
  mgpuStreamDestroy(stream);
  mgpuSetDefaultDevice(0);
  EXPECT_STREQ(emberrt_cuda_last_error(), "");
  EXPECT_EQ(emberrt_cuda_synchronize(), EMBERRT_OK); // the stream survives mgpuStreamDestroy
}

TEST_F(Cuda, EveryThreadGetsTheContext) {
  std::string error;
  std::vector<int> result(256, 0);
  std::thread worker([&] {
    std::vector<int> values(256, 7);
    void *data = nullptr;
    if (emberrt_cuda_malloc(values.size() * sizeof(int), &data) != EMBERRT_OK ||
        emberrt_cuda_memcpy_htod(data, values.data(), values.size() * sizeof(int)) !=
            EMBERRT_OK ||
        emberrt_cuda_memcpy_dtoh(result.data(), data, result.size() * sizeof(int)) !=
            EMBERRT_OK)
      error = emberrt_cuda_last_error();
    emberrt_cuda_free(data);
  });
  worker.join();
  EXPECT_EQ(error, "");
  EXPECT_EQ(result, std::vector<int>(256, 7));
}

TEST_F(Cuda, InvalidPtxIsAnErrorNotACrash) {
  void *module = reinterpret_cast<void *>(1);
  EXPECT_EQ(emberrt_cuda_module_load(kBrokenPtx, &module), EMBERRT_DEVICE_ERROR);
  EXPECT_EQ(module, nullptr);
  std::string error = emberrt_cuda_last_error();
  EXPECT_TRUE(contains(error, "CUDA_ERROR_INVALID_PTX")) << error;
  EXPECT_TRUE(contains(error, "cuModuleLoadDataEx")) << error;
  // The JIT's log says what is wrong.
  EXPECT_TRUE(contains(error, "this_is_not_an_instruction")) << error;
  emberrt_cuda_clear_error();

  EXPECT_EQ(mgpuModuleLoadJIT(const_cast<char *>(kBrokenPtx), 3), nullptr);
  EXPECT_TRUE(contains(emberrt_cuda_last_error(), "CUDA_ERROR_INVALID_PTX"));
  emberrt_cuda_clear_error();

  // The runtime keeps working after the failure.
  void *working = nullptr;
  void *function = addOne(&working);
  void *missing = reinterpret_cast<void *>(1);
  EXPECT_EQ(emberrt_cuda_function(working, "no_such_kernel", &missing), EMBERRT_DEVICE_ERROR);
  EXPECT_EQ(missing, nullptr);
  EXPECT_TRUE(contains(emberrt_cuda_last_error(), "no_such_kernel"))
      << emberrt_cuda_last_error();
  emberrt_cuda_clear_error();
  EXPECT_NE(function, nullptr);
  emberrt_cuda_module_unload(working);
}

} // namespace
