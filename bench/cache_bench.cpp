// Process start through the disk cache (issue 3): the first call of a traced
// function in a fresh process. bench/run.sh runs this twice with one cache
// directory: the first run compiles, the second loads the compiled code.
#include "bench_util.h"
#include "power.h"

#include "ember/ember.h"

using namespace ember;

int main() {
  Tensor x = random_uniform({10, 10}, 0, 0, 2, DType::Int32);
  auto traced = function(power, "power");
  double start = bench::now();
  Tensor result = traced(x, 100);
  double seconds = bench::now() - start;
  bool fromDisk = traced.concrete_functions().front().from_disk_cache;
  bench::report(fromDisk ? "ember.first_call_disk_cache" : "ember.first_call_compiled",
                seconds * 1e3, "ms");
}
